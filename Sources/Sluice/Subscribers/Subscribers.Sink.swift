extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// On completion or cancellation the sink releases its closures, so a closure that captures
    /// its owner strongly does not keep it alive once the stream has ended.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        @usableFromInline
        internal let lock = Lock()

        // The state lives in separate stored properties rather than one generic struct: the
        // deinit of a generic class is unspecialised, and a field of a nested generic type costs
        // a metadata look-up there, while function-typed fields cost none.
        @usableFromInline @exclusivity(unchecked)
        internal var status = SubscriptionStatus.awaitingSubscription
        @usableFromInline @exclusivity(unchecked)
        internal var storedReceiveValue: (Input) -> Void
        @usableFromInline @exclusivity(unchecked)
        internal var storedReceiveCompletion: (Subscribers.Completion<Failure>) -> Void
        /// The `DebugHooks` registration to end when the stream does (0: not tracked).
        @usableFromInline @exclusivity(unchecked)
        internal var trackingID: UInt64 = 0

        /// Replaces the closures with no-ops, returning the old ones so they are released
        /// outside the lock. Call with the lock held.
        @inlinable
        internal func releaseClosures() -> ((Input) -> Void, (Subscribers.Completion<Failure>) -> Void) {
            defer {
                storedReceiveValue = { _ in }
                storedReceiveCompletion = { _ in }
            }
            return (storedReceiveValue, storedReceiveCompletion)
        }

        /// Where `sink` was called (`nil` for a sink created directly), for `DebugHooks`.
        @usableFromInline
        internal let site: CallSite?

        /// The closure to execute on receipt of a value.
        public var receiveValue: (Input) -> Void { lock.locked { storedReceiveValue } }

        /// The closure to execute on completion.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            lock.locked { storedReceiveCompletion }
        }

        /// `cancel()` specialised for the concrete input and failure types, captured where the
        /// sink is created: `cancel()` usually arrives through `AnyCancellable`, whose
        /// `Cancellable` witness is the library's unspecialised code, and unspecialised code pays
        /// for generic metadata look-ups on every call.
        @usableFromInline
        internal let cancelSpecialized: (AnyObject) -> Void

        /// Initializes a sink with the provided closures.
        @inlinable
        public init(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                    receiveValue: @escaping (Input) -> Void) {
            storedReceiveValue = receiveValue
            storedReceiveCompletion = receiveCompletion
            cancelSpecialized = { unsafeDowncast($0, to: Sink.self).cancelSubscription() }
            site = nil
        }

        /// A sink that remembers where it was made, and registers with `DebugHooks` when it is
        /// tracking live subscriptions (before subscribing, so a synchronous completion finds it).
        @inlinable
        internal init(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                      receiveValue: @escaping (Input) -> Void, site: CallSite) {
            storedReceiveValue = receiveValue
            storedReceiveCompletion = receiveCompletion
            cancelSpecialized = { unsafeDowncast($0, to: Sink.self).cancelSubscription() }
            self.site = site
            if DebugHooks.isTracking {
                trackingID = DebugHooks.beginTracking(subscriber: "Sink", site: site)
            }
        }

        @inlinable
        public func receive(subscription: Subscription) {
            let accepted = lock.locked { () -> Bool in
                guard status.isAwaitingSubscription else { return false }
                status = .subscribed(subscription)
                return true
            }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            let receiveValue = lock.locked { storedReceiveValue }
            receiveValue(value)
            return .none
        }

        @inlinable
        public func receive(completion: Subscribers.Completion<Failure>) {
            let (closures, previousStatus, previousTrackingID) = lock.locked {
                () -> (((Input) -> Void, (Subscribers.Completion<Failure>) -> Void), SubscriptionStatus, UInt64) in
                defer {
                    self.status = .terminal
                    self.trackingID = 0
                }
                return (releaseClosures(), self.status, self.trackingID)
            }
            if previousTrackingID != 0 {
                DebugHooks.endTracking(previousTrackingID)
            }
            if case .failure(let error) = completion, !previousStatus.isTerminal,
               DebugHooks.reportsFailures {
                DebugHooks.subscriberFailed("Sink", site: site, error: error)
            }
            withExtendedLifetime(previousStatus) {
                closures.1(completion)
            }
        }

        /// Cancels the subscription and releases the closures.
        @inlinable
        public func cancel() {
            cancelSpecialized(self)
        }

        @inlinable
        internal func cancelSubscription() {
            let (subscription, closures, previousTrackingID) = lock.locked {
                () -> (Subscription?, ((Input) -> Void, (Subscribers.Completion<Failure>) -> Void)?, UInt64) in
                guard let subscription = self.status.subscription else { return (nil, nil, 0) }
                self.status = .terminal
                defer { self.trackingID = 0 }
                return (subscription, releaseClosures(), self.trackingID)
            }
            if previousTrackingID != 0 {
                DebugHooks.endTracking(previousTrackingID)
            }
            withExtendedLifetime(closures) {
                subscription?.cancel()
            }
        }

        public var description: String { "Sink" }

        public var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

        public var playgroundDescription: Any { description }
    }
}

// Two overload sets. The first has Combine's exact signatures, so `publisher.sink(receiveValue:)`
// used as a function value has Combine's type; it is disfavoured, so every call written out
// resolves to the second, whose defaulted `fileID`/`line` parameters record the call site for
// `DebugHooks` (trailing-closure forms are unaffected: the defaulted parameters come last).

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// The returned cancellable cancels the subscription when cancelled or deinitialized.
    @inlinable
    @_disfavoredOverload
    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                     receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        // Reached only through a function value, where there is no call site to record.
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }

    /// Attaches a subscriber with closure-based behavior, remembering where it was called.
    ///
    /// Requests unlimited demand. The returned cancellable cancels the subscription when
    /// cancelled or deinitialized. `fileID` and `line` default to the caller's; a helper that
    /// wraps `sink` can pass its own caller's site on. `DebugHooks` reports failures and
    /// uncancelled subscriptions with that site.
    @inlinable
    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                     receiveValue: @escaping (Output) -> Void,
                     fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion,
                                                     receiveValue: receiveValue,
                                                     site: CallSite(fileID: fileID, line: line))
        subscribe(sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    @inlinable
    @_disfavoredOverload
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: { _ in }, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }

    /// Attaches a subscriber with closure-based behavior to a publisher that never fails,
    /// remembering where it was called (see ``Publisher/sink(receiveCompletion:receiveValue:fileID:line:)``).
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void,
                     fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue, fileID: fileID, line: line)
    }
}
