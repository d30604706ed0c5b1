extension Publishers {
    /// A publisher that receives and combines the latest elements from two publishers.
    ///
    /// It emits a tuple of the latest values whenever any upstream emits, once every upstream has
    /// emitted at least once, and only while the downstream has demand (a value that arrives
    /// without demand only updates the latest values). Requests go to every upstream unchanged.
    /// It finishes when every upstream has finished and fails as soon as one fails.
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher
        where A.Failure == B.Failure
    {
        public typealias Output = (A.Output, B.Output)
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// Creates a publisher that combines two upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let inner = CombineLatestSubscription(downstream: subscriber, count: 2, values: LatestValues<A.Output, B.Output>())
            a.receive(subscriber: CombineLatestSide(index: 0, parent: inner) { swap(&$0.a, &$1) })
            b.receive(subscriber: CombineLatestSide(index: 1, parent: inner) { swap(&$0.b, &$1) })
            inner.handOver(inner)
        }
    }

    /// A publisher that receives and combines the latest elements from three publishers.
    ///
    /// It emits a tuple of the latest values whenever any upstream emits, once every upstream has
    /// emitted at least once, and only while the downstream has demand (a value that arrives
    /// without demand only updates the latest values). Requests go to every upstream unchanged.
    /// It finishes when every upstream has finished and fails as soon as one fails.
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure
    {
        public typealias Output = (A.Output, B.Output, C.Output)
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// A third publisher to combine.
        public let c: C

        /// Creates a publisher that combines three upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let inner = CombineLatestSubscription(downstream: subscriber, count: 3, values: LatestValues3<A.Output, B.Output, C.Output>())
            a.receive(subscriber: CombineLatestSide(index: 0, parent: inner) { swap(&$0.a, &$1) })
            b.receive(subscriber: CombineLatestSide(index: 1, parent: inner) { swap(&$0.b, &$1) })
            c.receive(subscriber: CombineLatestSide(index: 2, parent: inner) { swap(&$0.c, &$1) })
            inner.handOver(inner)
        }
    }

    /// A publisher that receives and combines the latest elements from four publishers.
    ///
    /// It emits a tuple of the latest values whenever any upstream emits, once every upstream has
    /// emitted at least once, and only while the downstream has demand (a value that arrives
    /// without demand only updates the latest values). Requests go to every upstream unchanged.
    /// It finishes when every upstream has finished and fails as soon as one fails.
    public struct CombineLatest4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure
    {
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// A third publisher to combine.
        public let c: C

        /// A fourth publisher to combine.
        public let d: D

        /// Creates a publisher that combines four upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let inner = CombineLatestSubscription(downstream: subscriber, count: 4, values: LatestValues4<A.Output, B.Output, C.Output, D.Output>())
            a.receive(subscriber: CombineLatestSide(index: 0, parent: inner) { swap(&$0.a, &$1) })
            b.receive(subscriber: CombineLatestSide(index: 1, parent: inner) { swap(&$0.b, &$1) })
            c.receive(subscriber: CombineLatestSide(index: 2, parent: inner) { swap(&$0.c, &$1) })
            d.receive(subscriber: CombineLatestSide(index: 3, parent: inner) { swap(&$0.d, &$1) })
            inner.handOver(inner)
        }
    }

}

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.CombineLatest4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

extension Publisher {
    /// Subscribes to another publisher and publishes a tuple upon receiving output from any of them,
    /// once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
        where Failure == P.Failure
    {
        Publishers.CombineLatest(self, other)
    }

    /// Subscribes to another publisher and publishes the result of `transform` upon receiving output
    /// from any of them, once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest<Self, P>, T>
        where Failure == P.Failure
    {
        Publishers.Map(upstream: Publishers.CombineLatest(self, other), transform: transform)
    }

    /// Subscribes to 2 other publishers and publishes a tuple upon receiving output from any of them,
    /// once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.CombineLatest3<Self, P, Q>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    /// Subscribes to 2 other publishers and publishes the result of `transform` upon receiving output
    /// from any of them, once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Map(upstream: Publishers.CombineLatest3(self, publisher1, publisher2), transform: transform)
    }

    /// Subscribes to 3 other publishers and publishes a tuple upon receiving output from any of them,
    /// once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.CombineLatest4<Self, P, Q, R>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
    }

    /// Subscribes to 3 other publishers and publishes the result of `transform` upon receiving output
    /// from any of them, once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ publisher3: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Map(upstream: Publishers.CombineLatest4(self, publisher1, publisher2, publisher3), transform: transform)
    }

}
