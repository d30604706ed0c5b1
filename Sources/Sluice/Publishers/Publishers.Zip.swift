extension Publishers {
    /// A publisher created by applying the zip function to two upstream publishers.
    ///
    /// It waits until every upstream has emitted, then emits a tuple of the oldest unconsumed
    /// value of each. Requests go to every upstream unchanged. It finishes as soon as an
    /// upstream has finished and none of its values is left to pair, and fails as soon as one
    /// fails.
    public struct Zip<A: Publisher, B: Publisher>: Publisher
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
            let inner = ZipSubscription(downstream: subscriber, count: 2, queues: ZipQueues<A.Output, B.Output>())
            a.receive(subscriber: ZipSide(index: 0, parent: inner) { $0.a.append($1) })
            b.receive(subscriber: ZipSide(index: 1, parent: inner) { $0.b.append($1) })
        }
    }

    /// A publisher created by applying the zip function to three upstream publishers.
    ///
    /// It waits until every upstream has emitted, then emits a tuple of the oldest unconsumed
    /// value of each. Requests go to every upstream unchanged. It finishes as soon as an
    /// upstream has finished and none of its values is left to pair, and fails as soon as one
    /// fails.
    public struct Zip3<A: Publisher, B: Publisher, C: Publisher>: Publisher
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
            let inner = ZipSubscription(downstream: subscriber, count: 3, queues: ZipQueues3<A.Output, B.Output, C.Output>())
            a.receive(subscriber: ZipSide(index: 0, parent: inner) { $0.a.append($1) })
            b.receive(subscriber: ZipSide(index: 1, parent: inner) { $0.b.append($1) })
            c.receive(subscriber: ZipSide(index: 2, parent: inner) { $0.c.append($1) })
        }
    }

    /// A publisher created by applying the zip function to four upstream publishers.
    ///
    /// It waits until every upstream has emitted, then emits a tuple of the oldest unconsumed
    /// value of each. Requests go to every upstream unchanged. It finishes as soon as an
    /// upstream has finished and none of its values is left to pair, and fails as soon as one
    /// fails.
    public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
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
            let inner = ZipSubscription(downstream: subscriber, count: 4, queues: ZipQueues4<A.Output, B.Output, C.Output, D.Output>())
            a.receive(subscriber: ZipSide(index: 0, parent: inner) { $0.a.append($1) })
            b.receive(subscriber: ZipSide(index: 1, parent: inner) { $0.b.append($1) })
            c.receive(subscriber: ZipSide(index: 2, parent: inner) { $0.c.append($1) })
            d.receive(subscriber: ZipSide(index: 3, parent: inner) { $0.d.append($1) })
        }
    }

}

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.Zip4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

extension Publisher {
    /// Combines elements from another publisher and delivers pairs of the oldest unconsumed
    /// elements as tuples.
    @inlinable
    public func zip<P: Publisher>(_ other: P) -> Publishers.Zip<Self, P>
        where Failure == P.Failure
    {
        Publishers.Zip(self, other)
    }

    /// Combines elements from another publisher and delivers the result of `transform` applied
    /// to the oldest unconsumed elements of each.
    @inlinable
    public func zip<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
        -> Publishers.Map<Publishers.Zip<Self, P>, T>
        where Failure == P.Failure
    {
        Publishers.Map(upstream: Publishers.Zip(self, other), transform: transform)
    }

    /// Combines elements from 2 other publishers and delivers pairs of the oldest unconsumed
    /// elements as tuples.
    @inlinable
    public func zip<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.Zip3<Self, P, Q>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Zip3(self, publisher1, publisher2)
    }

    /// Combines elements from 2 other publishers and delivers the result of `transform` applied
    /// to the oldest unconsumed elements of each.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T)
        -> Publishers.Map<Publishers.Zip3<Self, P, Q>, T>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Map(upstream: Publishers.Zip3(self, publisher1, publisher2), transform: transform)
    }

    /// Combines elements from 3 other publishers and delivers pairs of the oldest unconsumed
    /// elements as tuples.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.Zip4<Self, P, Q, R>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Zip4(self, publisher1, publisher2, publisher3)
    }

    /// Combines elements from 3 other publishers and delivers the result of `transform` applied
    /// to the oldest unconsumed elements of each.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ publisher3: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T)
        -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Map(upstream: Publishers.Zip4(self, publisher1, publisher2, publisher3), transform: transform)
    }

}
