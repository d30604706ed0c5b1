extension Publishers {
    /// A publisher that emits a Boolean value when it receives a specific element from its
    /// upstream publisher.
    ///
    /// It asks its upstream for an unlimited number of elements as soon as it is subscribed.
    /// When the element arrives it cancels the upstream at once and publishes `true` (as soon as
    /// the downstream has asked for anything); if the upstream finishes without it, it
    /// publishes `false`.
    public struct Contains<Upstream: Publisher>: Publisher where Upstream.Output: Equatable {
        public typealias Output = Bool
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The element to scan for in the upstream publisher.
        public let output: Upstream.Output

        @inlinable
        public init(upstream: Upstream, output: Upstream.Output) {
            self.upstream = upstream
            self.output = output
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Upstream.Failure {
            let output = self.output
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: BooleanSearch<Upstream, Upstream.Failure>(name: "Contains", decisive: true) { $0 == output }))
        }
    }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {
    /// Returns whether the two publishers have equal upstreams and the same element to look for.
    @inlinable
    public static func == (lhs: Publishers.Contains<Upstream>, rhs: Publishers.Contains<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream && lhs.output == rhs.output
    }
}

/// `contains`, `contains(where:)`, `tryContains(where:)`, and `allSatisfy`, `tryAllSatisfy`: the
/// first element for which the predicate returns `decisive` ends the stream with `decisive`
/// (`true` for `contains`, `false` for `allSatisfy`); without one, the result is the opposite.
@usableFromInline
internal struct BooleanSearch<Upstream: Publisher, Failure: Error>: ReduceLogic {
    @usableFromInline
    internal typealias Output = Bool

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let predicate: (Upstream.Output) throws -> Bool
    @usableFromInline
    internal let decisive: Bool
    @usableFromInline
    internal var decided = false

    @inlinable
    internal init(name: String, decisive: Bool, predicate: @escaping (Upstream.Output) throws -> Bool) {
        self.name = name
        self.decisive = decisive
        self.predicate = predicate
    }

    @inlinable
    internal var result: Bool? { decided ? decisive : !decisive }

    @inlinable
    internal var initial: Bool? { !decisive }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> ReduceStep<Failure> {
        .catching {
            guard try predicate(input) == decisive else { return .proceed }
            decided = true
            return .finish
        }
    }
}

extension Publisher where Output: Equatable {
    /// Publishes a Boolean value upon receiving an element equal to the argument.
    ///
    /// The upstream is cancelled as soon as the element arrives; `false` is published if the
    /// upstream finishes without it.
    @inlinable
    public func contains(_ output: Output) -> Publishers.Contains<Self> {
        Publishers.Contains(upstream: self, output: output)
    }
}
