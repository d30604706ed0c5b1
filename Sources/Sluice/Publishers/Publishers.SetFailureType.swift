// TEMPORARY STAND-IN, written on the ops-combining branch only so that the flatMap and
// switchToLatest bridging overloads compile here. The real `Publishers.SetFailureType` (with
// `setFailureType(to:)`, Equatable and its tests) is written on ops-transform at this same
// path: when the branches are merged, take that file and drop this one.

extension Publishers {
    /// A publisher that appears to send a specified failure type.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that appears to send a specified failure type.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: SetFailureTypeStandInInner<S, Upstream>(downstream: subscriber))
        }
    }
}

@usableFromInline
internal struct SetFailureTypeStandInInner<Downstream: Subscriber, Upstream: Publisher>: Subscriber
    where Upstream.Failure == Never, Downstream.Input == Upstream.Output
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Never

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
        downstream.receive(subscription: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Never>) {
        downstream.receive(completion: .finished)
    }
}
