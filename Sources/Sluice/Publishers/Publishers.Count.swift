extension Publishers {
    /// A publisher that publishes the number of elements received from the upstream publisher.
    ///
    /// It asks its upstream for an unlimited number of elements as soon as it is subscribed, and
    /// publishes the count, followed by `.finished`, once the upstream finishes and the
    /// downstream has asked for at least one element (an empty upstream gets `0` at once).
    public struct Count<Upstream: Publisher>: Publisher {
        public typealias Output = Int
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(downstream: subscriber, logic: CountElements<Upstream>()))
        }
    }
}

extension Publishers.Count: Equatable where Upstream: Equatable {
    /// Returns whether the two publishers have equal upstreams.
    @inlinable
    public static func == (lhs: Publishers.Count<Upstream>, rhs: Publishers.Count<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream
    }
}

/// `count()`: count the values.
@usableFromInline
internal struct CountElements<Upstream: Publisher>: ReduceLogic {
    /// No user code runs in `receive(_:)`: the buffer is worked on in place.
    @inlinable
    internal static var runsUserCode: Bool { false }

    @usableFromInline
    internal typealias Output = Int
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal var count = 0

    @inlinable
    internal init() {}

    @inlinable
    internal var name: String { "Count" }

    @inlinable
    internal var result: Int? { count }

    @inlinable
    internal var initial: Int? { 0 }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> ReduceStep<Failure> {
        count += 1
        return .proceed
    }
}

extension Publisher {
    /// Publishes the number of elements received from the upstream publisher, once it finishes.
    @inlinable
    public func count() -> Publishers.Count<Self> {
        Publishers.Count(upstream: self)
    }
}
