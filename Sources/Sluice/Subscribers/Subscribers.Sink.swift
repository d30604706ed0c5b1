extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// On completion or cancellation the sink releases its closures, so a closure that captures
    /// its owner strongly does not keep it alive once the stream has ended.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        @usableFromInline
        internal struct State {
            @usableFromInline var status = SubscriptionStatus.awaitingSubscription
            @usableFromInline var receiveValue: (Input) -> Void
            @usableFromInline var receiveCompletion: (Subscribers.Completion<Failure>) -> Void

            @inlinable
            init(receiveValue: @escaping (Input) -> Void,
                 receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void) {
                self.receiveValue = receiveValue
                self.receiveCompletion = receiveCompletion
            }

            /// Replaces the closures with no-ops, returning the old ones so they are released
            /// outside the lock.
            @inlinable
            mutating func releaseClosures() -> ((Input) -> Void, (Subscribers.Completion<Failure>) -> Void) {
                defer {
                    receiveValue = { _ in }
                    receiveCompletion = { _ in }
                }
                return (receiveValue, receiveCompletion)
            }
        }

        @usableFromInline
        internal let lock = Lock()

        @usableFromInline
        @exclusivity(unchecked)
        internal var state: State

        /// The closure to execute on receipt of a value.
        public var receiveValue: (Input) -> Void { lock.locked { state.receiveValue } }

        /// The closure to execute on completion.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            lock.locked { state.receiveCompletion }
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
            state = State(receiveValue: receiveValue, receiveCompletion: receiveCompletion)
            cancelSpecialized = { unsafeDowncast($0, to: Sink.self).cancelSubscription() }
        }

        @inlinable
        public func receive(subscription: Subscription) {
            let accepted = lock.locked { () -> Bool in
                guard state.status.isAwaitingSubscription else { return false }
                state.status = .subscribed(subscription)
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
            let receiveValue = lock.locked { state.receiveValue }
            receiveValue(value)
            return .none
        }

        @inlinable
        public func receive(completion: Subscribers.Completion<Failure>) {
            let (closures, status) = lock.locked {
                () -> (((Input) -> Void, (Subscribers.Completion<Failure>) -> Void), SubscriptionStatus) in
                defer { state.status = .terminal }
                return (state.releaseClosures(), state.status)
            }
            withExtendedLifetime(status) {
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
            let (subscription, closures) = lock.locked {
                () -> (Subscription?, ((Input) -> Void, (Subscribers.Completion<Failure>) -> Void)?) in
                guard let subscription = state.status.subscription else { return (nil, nil) }
                state.status = .terminal
                return (subscription, state.releaseClosures())
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

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// The returned cancellable cancels the subscription when cancelled or deinitialized.
    @inlinable
    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                     receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion,
                                                     receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
