import Synchronization

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
        // a metadata look-up there, while class and function-typed fields cost none.
        @usableFromInline @exclusivity(unchecked)
        internal var status = SubscriptionStatus.awaitingSubscription
        /// The closures, until the stream ends. They sit in an object of their own so that a
        /// delivery calls them in place: a closure in a stored variable is copied, a retain and
        /// a release, for each call.
        @usableFromInline @exclusivity(unchecked)
        internal var closures: SinkClosures<Input, Failure>?
        /// The same object, unretained: valid while `closures` holds it, which a delivery in
        /// progress guarantees (see `deliveryState`).
        @usableFromInline
        internal let closuresInPlace: Unmanaged<SinkClosures<Input, Failure>>
        /// `delivering` while a value is being delivered on the fast path, `released` once the
        /// stream has ended. Ending the stream during such a delivery (a cancel from another
        /// thread, or from the closure itself) leaves releasing the closures to the delivering
        /// thread, so no closure is freed while it runs; a value costs two atomic operations
        /// instead of a lock and a retain.
        @usableFromInline
        internal let deliveryState = Atomic<UInt8>(0)
        @usableFromInline
        internal static var delivering: UInt8 { 1 }
        @usableFromInline
        internal static var released: UInt8 { 2 }
        /// The `DebugHooks` registration to end when the stream does (0: not tracked).
        @usableFromInline @exclusivity(unchecked)
        internal var trackingID: UInt64 = 0

        /// The closures, unless the stream has ended. Call with the lock held.
        @inlinable
        internal func liveClosuresLocked() -> SinkClosures<Input, Failure>? {
            deliveryState.load(ordering: .relaxed) & Self.released == 0 ? closures : nil
        }

        /// Marks the closures released. Returns them, for the caller to release after
        /// unlocking, unless a delivery is in progress, which then releases them as it ends.
        /// Call with the lock held.
        @inlinable
        internal func releaseClosuresLocked() -> SinkClosures<Input, Failure>? {
            let previous = deliveryState.bitwiseOr(Self.released, ordering: .acquiringAndReleasing).oldValue
            guard previous == 0 else { return nil }
            defer { closures = nil }
            return closures
        }

        /// Ends the stream: the status becomes terminal and the closures are released (see
        /// `releaseClosuresLocked`, whose result this returns). The old status and tracking
        /// registration move into the arguments, for the caller to finish after unlocking.
        /// Call with the lock held.
        @inlinable
        internal func endLocked(previousStatus: inout SubscriptionStatus,
                                previousTrackingID: inout UInt64) -> SinkClosures<Input, Failure>? {
            swap(&previousStatus, &status)
            swap(&previousTrackingID, &trackingID)
            return releaseClosuresLocked()
        }

        /// Where `sink` was called (`nil` for a sink created directly), for `DebugHooks`.
        @usableFromInline
        internal let site: CallSite?

        /// The closure to execute on receipt of a value.
        public var receiveValue: (Input) -> Void {
            lock.locked { liveClosuresLocked() }?.receiveValue ?? { _ in }
        }

        /// The closure to execute on completion.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            lock.locked { liveClosuresLocked() }?.receiveCompletion ?? { _ in }
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
            let closures = SinkClosures(receiveValue: receiveValue, receiveCompletion: receiveCompletion)
            self.closures = closures
            closuresInPlace = Unmanaged.passUnretained(closures)
            cancelSpecialized = { unsafeDowncast($0, to: Sink.self).cancelSubscription() }
            site = nil
        }

        /// A sink that remembers where it was made, and registers with `DebugHooks` when it is
        /// tracking live subscriptions (before subscribing, so a synchronous completion finds it).
        @inlinable
        internal init(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                      receiveValue: @escaping (Input) -> Void, site: CallSite) {
            let closures = SinkClosures(receiveValue: receiveValue, receiveCompletion: receiveCompletion)
            self.closures = closures
            closuresInPlace = Unmanaged.passUnretained(closures)
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
            if deliveryState.compareExchange(expected: 0, desired: Self.delivering, ordering: .acquiring).exchanged {
                closuresInPlace._withUnsafeGuaranteedRef { $0.receiveValue(value) }
                let previous = deliveryState.wrappingSubtract(Self.delivering, ordering: .acquiringAndReleasing).oldValue
                if previous != Self.delivering {
                    // The stream ended during the call; releasing the closures fell to us.
                    let closures = lock.locked { () -> SinkClosures<Input, Failure>? in
                        defer { self.closures = nil }
                        return self.closures
                    }
                    withExtendedLifetime(closures) {}
                }
                return .none
            }
            // A value nested in another delivery (a closure that sends to its own upstream),
            // from a misbehaving upstream delivering concurrently, or after the end: the
            // closures, if the stream is still live, are retained for the call. (Closures are
            // passed out of `locked` in their object: a bare closure would be re-abstracted for
            // the generic result, which allocates.)
            let closures = lock.locked { liveClosuresLocked() }
            closures?.receiveValue(value)
            return .none
        }

        @inlinable
        public func receive(completion: Subscribers.Completion<Failure>) {
            // Locals filled under the lock rather than a tuple returned from it: a tuple holding
            // the status's existential was destroyed through the runtime's generic tuple witness.
            var previousStatus = SubscriptionStatus.terminal
            var previousTrackingID: UInt64 = 0
            var live: SinkClosures<Input, Failure>?
            var released: SinkClosures<Input, Failure>?
            lock.locked {
                live = liveClosuresLocked()
                released = endLocked(previousStatus: &previousStatus, previousTrackingID: &previousTrackingID)
            }
            if previousTrackingID != 0 {
                DebugHooks.endTracking(previousTrackingID)
            }
            if case .failure(let error) = completion, !previousStatus.isTerminal,
               DebugHooks.reportsFailures {
                DebugHooks.subscriberFailed("Sink", site: site, error: error)
            }
            // The old status and closures go after the completion closure has run.
            withExtendedLifetime(previousStatus) {
                withExtendedLifetime(released) {
                    live?.receiveCompletion(completion)
                }
            }
        }

        /// Cancels the subscription and releases the closures.
        @inlinable
        public func cancel() {
            cancelSpecialized(self)
        }

        @inlinable
        internal func cancelSubscription() {
            // Released means the stream has ended (completion or an earlier cancel), so there is
            // nothing to cancel: skip the lock, as `AnyCancellable`'s deinit cancels every sink.
            if deliveryState.load(ordering: .acquiring) & Self.released != 0 { return }
            var previousStatus = SubscriptionStatus.terminal
            var previousTrackingID: UInt64 = 0
            var released: SinkClosures<Input, Failure>?
            lock.locked {
                guard status.subscription != nil else { return }
                released = endLocked(previousStatus: &previousStatus, previousTrackingID: &previousTrackingID)
            }
            if previousTrackingID != 0 {
                DebugHooks.endTracking(previousTrackingID)
            }
            withExtendedLifetime(released) {
                previousStatus.subscription?.cancel()
            }
        }

        public var description: String { "Sink" }

        public var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

        public var playgroundDescription: Any { description }
    }
}

/// A sink's two closures, as constants.
@usableFromInline
internal final class SinkClosures<Input, Failure: Error> {
    @usableFromInline
    internal let receiveValue: (Input) -> Void
    @usableFromInline
    internal let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

    @inlinable
    internal init(receiveValue: @escaping (Input) -> Void,
                  receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
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
        return AnyCancellable(object: sink, cancel: sink.cancelSpecialized)
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
        return AnyCancellable(object: sink, cancel: sink.cancelSpecialized)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    @inlinable
    @_disfavoredOverload
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: { _ in }, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(object: sink, cancel: sink.cancelSpecialized)
    }

    /// Attaches a subscriber with closure-based behavior to a publisher that never fails,
    /// remembering where it was called (see ``Publisher/sink(receiveCompletion:receiveValue:fileID:line:)``).
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void,
                     fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue, fileID: fileID, line: line)
    }
}
