extension Publishers {
    /// A publisher that ignores all upstream elements, but passes along the upstream
    /// publisher's completion state (finished or failed).
    ///
    /// As in Combine, the downstream receives the upstream's own subscription, and the upstream
    /// is then asked for an unlimited number of elements, whatever the downstream requests.
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        public typealias Output = Never
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }
    }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {
    /// Returns whether the two publishers have equal upstreams.
    @inlinable
    public static func == (lhs: Publishers.IgnoreOutput<Upstream>, rhs: Publishers.IgnoreOutput<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream
    }
}

extension Publishers.IgnoreOutput {
    /// Passes the upstream's subscription straight through, then asks for everything; values
    /// are dropped and completions forwarded. No state, so no lock.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: PassThroughSubscriber
        where Downstream.Input == Never, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        internal func receive(subscription: Subscription) {
            // Combine hands the subscription downstream before asking for anything.
            downstream.receive(subscription: subscription)
            subscription.request(.unlimited)
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            .none
        }

        @usableFromInline
        internal var description: String { "IgnoreOutput" }
    }
}

extension Publisher {
    /// Ignores all upstream elements, but passes along the upstream publisher's completion
    /// state (finished or failed).
    @inlinable
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}
