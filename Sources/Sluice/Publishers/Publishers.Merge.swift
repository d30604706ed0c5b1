extension Publishers {
    /// A publisher created by applying the merge function to two upstream publishers.
    ///
    /// It subscribes to its upstreams in order after handing the downstream its subscription,
    /// asks each for one value at a time (or `.unlimited` once the downstream is unlimited), and
    /// delivers values as they arrive, one at a time even when the upstreams send from different
    /// threads. It finishes when every upstream has finished, and fails with the first failure.
    public struct Merge<A: Publisher, B: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output
    {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// Another publisher to merge.
        public let b: B

        /// Creates a publisher created by applying the merge function to two upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: 2)
            subscriber.receive(subscription: merger)
            a.receive(subscriber: MergeSide(index: 0, parent: merger))
            b.receive(subscriber: MergeSide(index: 1, parent: merger))
        }

        /// Merges this publisher's upstreams with another publisher, giving one Merge3.
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge3<A, B, P>
            where B.Failure == P.Failure, B.Output == P.Output
        {
            Publishers.Merge3(a, b, other)
        }

        /// Merges this publisher's upstreams with 2 more publishers, giving one Merge4.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge4<A, B, Z, Y>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge4(a, b, z, y)
        }

        /// Merges this publisher's upstreams with 3 more publishers, giving one Merge5.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge5<A, B, Z, Y, X>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge5(a, b, z, y, x)
        }

        /// Merges this publisher's upstreams with 4 more publishers, giving one Merge6.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge6<A, B, Z, Y, X, W>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output
        {
            Publishers.Merge6(a, b, z, y, x, w)
        }

        /// Merges this publisher's upstreams with 5 more publishers, giving one Merge7.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V) -> Publishers.Merge7<A, B, Z, Y, X, W, V>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output
        {
            Publishers.Merge7(a, b, z, y, x, w, v)
        }

        /// Merges this publisher's upstreams with 6 more publishers, giving one Merge8.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, U: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V, _ u: U) -> Publishers.Merge8<A, B, Z, Y, X, W, V, U>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output, V.Failure == U.Failure, V.Output == U.Output
        {
            Publishers.Merge8(a, b, z, y, x, w, v, u)
        }
    }

    /// A publisher created by applying the merge function to three upstream publishers.
    ///
    /// It subscribes to its upstreams in order after handing the downstream its subscription,
    /// asks each for one value at a time (or `.unlimited` once the downstream is unlimited), and
    /// delivers values as they arrive, one at a time even when the upstreams send from different
    /// threads. It finishes when every upstream has finished, and fails with the first failure.
    public struct Merge3<A: Publisher, B: Publisher, C: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output
    {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// Another publisher to merge.
        public let b: B

        /// Another publisher to merge.
        public let c: C

        /// Creates a publisher created by applying the merge function to three upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: 3)
            subscriber.receive(subscription: merger)
            a.receive(subscriber: MergeSide(index: 0, parent: merger))
            b.receive(subscriber: MergeSide(index: 1, parent: merger))
            c.receive(subscriber: MergeSide(index: 2, parent: merger))
        }

        /// Merges this publisher's upstreams with another publisher, giving one Merge4.
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge4<A, B, C, P>
            where C.Failure == P.Failure, C.Output == P.Output
        {
            Publishers.Merge4(a, b, c, other)
        }

        /// Merges this publisher's upstreams with 2 more publishers, giving one Merge5.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge5<A, B, C, Z, Y>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge5(a, b, c, z, y)
        }

        /// Merges this publisher's upstreams with 3 more publishers, giving one Merge6.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge6<A, B, C, Z, Y, X>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge6(a, b, c, z, y, x)
        }

        /// Merges this publisher's upstreams with 4 more publishers, giving one Merge7.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge7<A, B, C, Z, Y, X, W>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output
        {
            Publishers.Merge7(a, b, c, z, y, x, w)
        }

        /// Merges this publisher's upstreams with 5 more publishers, giving one Merge8.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V) -> Publishers.Merge8<A, B, C, Z, Y, X, W, V>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output
        {
            Publishers.Merge8(a, b, c, z, y, x, w, v)
        }
    }

    /// A publisher created by applying the merge function to four upstream publishers.
    ///
    /// It subscribes to its upstreams in order after handing the downstream its subscription,
    /// asks each for one value at a time (or `.unlimited` once the downstream is unlimited), and
    /// delivers values as they arrive, one at a time even when the upstreams send from different
    /// threads. It finishes when every upstream has finished, and fails with the first failure.
    public struct Merge4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output
    {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// Another publisher to merge.
        public let b: B

        /// Another publisher to merge.
        public let c: C

        /// Another publisher to merge.
        public let d: D

        /// Creates a publisher created by applying the merge function to four upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: 4)
            subscriber.receive(subscription: merger)
            a.receive(subscriber: MergeSide(index: 0, parent: merger))
            b.receive(subscriber: MergeSide(index: 1, parent: merger))
            c.receive(subscriber: MergeSide(index: 2, parent: merger))
            d.receive(subscriber: MergeSide(index: 3, parent: merger))
        }

        /// Merges this publisher's upstreams with another publisher, giving one Merge5.
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge5<A, B, C, D, P>
            where D.Failure == P.Failure, D.Output == P.Output
        {
            Publishers.Merge5(a, b, c, d, other)
        }

        /// Merges this publisher's upstreams with 2 more publishers, giving one Merge6.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge6<A, B, C, D, Z, Y>
            where D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge6(a, b, c, d, z, y)
        }

        /// Merges this publisher's upstreams with 3 more publishers, giving one Merge7.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge7<A, B, C, D, Z, Y, X>
            where D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge7(a, b, c, d, z, y, x)
        }

        /// Merges this publisher's upstreams with 4 more publishers, giving one Merge8.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge8<A, B, C, D, Z, Y, X, W>
            where D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output
        {
            Publishers.Merge8(a, b, c, d, z, y, x, w)
        }
    }

    /// A publisher created by applying the merge function to five upstream publishers.
    ///
    /// It subscribes to its upstreams in order after handing the downstream its subscription,
    /// asks each for one value at a time (or `.unlimited` once the downstream is unlimited), and
    /// delivers values as they arrive, one at a time even when the upstreams send from different
    /// threads. It finishes when every upstream has finished, and fails with the first failure.
    public struct Merge5<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output
    {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// Another publisher to merge.
        public let b: B

        /// Another publisher to merge.
        public let c: C

        /// Another publisher to merge.
        public let d: D

        /// Another publisher to merge.
        public let e: E

        /// Creates a publisher created by applying the merge function to five upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: 5)
            subscriber.receive(subscription: merger)
            a.receive(subscriber: MergeSide(index: 0, parent: merger))
            b.receive(subscriber: MergeSide(index: 1, parent: merger))
            c.receive(subscriber: MergeSide(index: 2, parent: merger))
            d.receive(subscriber: MergeSide(index: 3, parent: merger))
            e.receive(subscriber: MergeSide(index: 4, parent: merger))
        }

        /// Merges this publisher's upstreams with another publisher, giving one Merge6.
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge6<A, B, C, D, E, P>
            where E.Failure == P.Failure, E.Output == P.Output
        {
            Publishers.Merge6(a, b, c, d, e, other)
        }

        /// Merges this publisher's upstreams with 2 more publishers, giving one Merge7.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge7<A, B, C, D, E, Z, Y>
            where E.Failure == Z.Failure, E.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge7(a, b, c, d, e, z, y)
        }

        /// Merges this publisher's upstreams with 3 more publishers, giving one Merge8.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge8<A, B, C, D, E, Z, Y, X>
            where E.Failure == Z.Failure, E.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge8(a, b, c, d, e, z, y, x)
        }
    }

    /// A publisher created by applying the merge function to six upstream publishers.
    ///
    /// It subscribes to its upstreams in order after handing the downstream its subscription,
    /// asks each for one value at a time (or `.unlimited` once the downstream is unlimited), and
    /// delivers values as they arrive, one at a time even when the upstreams send from different
    /// threads. It finishes when every upstream has finished, and fails with the first failure.
    public struct Merge6<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output
    {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// Another publisher to merge.
        public let b: B

        /// Another publisher to merge.
        public let c: C

        /// Another publisher to merge.
        public let d: D

        /// Another publisher to merge.
        public let e: E

        /// Another publisher to merge.
        public let f: F

        /// Creates a publisher created by applying the merge function to six upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: 6)
            subscriber.receive(subscription: merger)
            a.receive(subscriber: MergeSide(index: 0, parent: merger))
            b.receive(subscriber: MergeSide(index: 1, parent: merger))
            c.receive(subscriber: MergeSide(index: 2, parent: merger))
            d.receive(subscriber: MergeSide(index: 3, parent: merger))
            e.receive(subscriber: MergeSide(index: 4, parent: merger))
            f.receive(subscriber: MergeSide(index: 5, parent: merger))
        }

        /// Merges this publisher's upstreams with another publisher, giving one Merge7.
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge7<A, B, C, D, E, F, P>
            where F.Failure == P.Failure, F.Output == P.Output
        {
            Publishers.Merge7(a, b, c, d, e, f, other)
        }

        /// Merges this publisher's upstreams with 2 more publishers, giving one Merge8.
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge8<A, B, C, D, E, F, Z, Y>
            where F.Failure == Z.Failure, F.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge8(a, b, c, d, e, f, z, y)
        }
    }

    /// A publisher created by applying the merge function to seven upstream publishers.
    ///
    /// It subscribes to its upstreams in order after handing the downstream its subscription,
    /// asks each for one value at a time (or `.unlimited` once the downstream is unlimited), and
    /// delivers values as they arrive, one at a time even when the upstreams send from different
    /// threads. It finishes when every upstream has finished, and fails with the first failure.
    public struct Merge7<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output
    {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// Another publisher to merge.
        public let b: B

        /// Another publisher to merge.
        public let c: C

        /// Another publisher to merge.
        public let d: D

        /// Another publisher to merge.
        public let e: E

        /// Another publisher to merge.
        public let f: F

        /// Another publisher to merge.
        public let g: G

        /// Creates a publisher created by applying the merge function to seven upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: 7)
            subscriber.receive(subscription: merger)
            a.receive(subscriber: MergeSide(index: 0, parent: merger))
            b.receive(subscriber: MergeSide(index: 1, parent: merger))
            c.receive(subscriber: MergeSide(index: 2, parent: merger))
            d.receive(subscriber: MergeSide(index: 3, parent: merger))
            e.receive(subscriber: MergeSide(index: 4, parent: merger))
            f.receive(subscriber: MergeSide(index: 5, parent: merger))
            g.receive(subscriber: MergeSide(index: 6, parent: merger))
        }

        /// Merges this publisher's upstreams with another publisher, giving one Merge8.
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge8<A, B, C, D, E, F, G, P>
            where G.Failure == P.Failure, G.Output == P.Output
        {
            Publishers.Merge8(a, b, c, d, e, f, g, other)
        }
    }

    /// A publisher created by applying the merge function to eight upstream publishers.
    ///
    /// It subscribes to its upstreams in order after handing the downstream its subscription,
    /// asks each for one value at a time (or `.unlimited` once the downstream is unlimited), and
    /// delivers values as they arrive, one at a time even when the upstreams send from different
    /// threads. It finishes when every upstream has finished, and fails with the first failure.
    public struct Merge8<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output, G.Failure == H.Failure, G.Output == H.Output
    {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// Another publisher to merge.
        public let b: B

        /// Another publisher to merge.
        public let c: C

        /// Another publisher to merge.
        public let d: D

        /// Another publisher to merge.
        public let e: E

        /// Another publisher to merge.
        public let f: F

        /// Another publisher to merge.
        public let g: G

        /// Another publisher to merge.
        public let h: H

        /// Creates a publisher created by applying the merge function to eight upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
            self.h = h
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: 8)
            subscriber.receive(subscription: merger)
            a.receive(subscriber: MergeSide(index: 0, parent: merger))
            b.receive(subscriber: MergeSide(index: 1, parent: merger))
            c.receive(subscriber: MergeSide(index: 2, parent: merger))
            d.receive(subscriber: MergeSide(index: 3, parent: merger))
            e.receive(subscriber: MergeSide(index: 4, parent: merger))
            f.receive(subscriber: MergeSide(index: 5, parent: merger))
            g.receive(subscriber: MergeSide(index: 6, parent: merger))
            h.receive(subscriber: MergeSide(index: 7, parent: merger))
        }
    }

}

extension Publishers.Merge: Equatable where A: Equatable, B: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.Merge3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.Merge4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

extension Publishers.Merge5: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e
    }
}

extension Publishers.Merge6: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f
    }
}

extension Publishers.Merge7: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f && lhs.g == rhs.g
    }
}

extension Publishers.Merge8: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable, H: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f && lhs.g == rhs.g && lhs.h == rhs.h
    }
}

extension Publisher {
    /// Combines elements from this publisher with those from another publisher of the same type,
    /// delivering an interleaved sequence of elements.
    ///
    /// As in Combine, this overload wins when both publishers have the same type, so
    /// `a.merge(with: b)` is a `MergeMany` that further `merge(with:)` calls extend.
    @inlinable
    public func merge(with other: Self) -> Publishers.MergeMany<Self> {
        Publishers.MergeMany(self, other)
    }

    /// Combines elements from this publisher with those from another publisher, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher finishes when every upstream has finished, and fails with the
    /// first upstream failure.
    @inlinable
    public func merge<P: Publisher>(with other: P) -> Publishers.Merge<Self, P>
        where Failure == P.Failure, Output == P.Output
    {
        Publishers.Merge(self, other)
    }

    /// Combines elements from this publisher with those from 2 other publishers, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher finishes when every upstream has finished, and fails with the
    /// first upstream failure.
    @inlinable
    public func merge<B: Publisher, C: Publisher>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output
    {
        Publishers.Merge3(self, b, c)
    }

    /// Combines elements from this publisher with those from 3 other publishers, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher finishes when every upstream has finished, and fails with the
    /// first upstream failure.
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher>(with b: B, _ c: C, _ d: D) -> Publishers.Merge4<Self, B, C, D>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output
    {
        Publishers.Merge4(self, b, c, d)
    }

    /// Combines elements from this publisher with those from 4 other publishers, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher finishes when every upstream has finished, and fails with the
    /// first upstream failure.
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher>(with b: B, _ c: C, _ d: D, _ e: E) -> Publishers.Merge5<Self, B, C, D, E>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output
    {
        Publishers.Merge5(self, b, c, d, e)
    }

    /// Combines elements from this publisher with those from 5 other publishers, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher finishes when every upstream has finished, and fails with the
    /// first upstream failure.
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F) -> Publishers.Merge6<Self, B, C, D, E, F>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output
    {
        Publishers.Merge6(self, b, c, d, e, f)
    }

    /// Combines elements from this publisher with those from 6 other publishers, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher finishes when every upstream has finished, and fails with the
    /// first upstream failure.
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) -> Publishers.Merge7<Self, B, C, D, E, F, G>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output
    {
        Publishers.Merge7(self, b, c, d, e, f, g)
    }

    /// Combines elements from this publisher with those from 7 other publishers, delivering an
    /// interleaved sequence of elements.
    ///
    /// The merged publisher finishes when every upstream has finished, and fails with the
    /// first upstream failure.
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) -> Publishers.Merge8<Self, B, C, D, E, F, G, H>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output, G.Failure == H.Failure, G.Output == H.Output
    {
        Publishers.Merge8(self, b, c, d, e, f, g, h)
    }

}

extension Publishers {
    /// A publisher created by applying the merge function to an arbitrary number of upstream
    /// publishers.
    ///
    /// Behaves as ``Publishers/Merge``: one value at a time from each upstream, delivered
    /// serially, finished when every upstream has finished (at once, on the first request, if
    /// there are none), failed with the first failure.
    public struct MergeMany<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The array of upstream publishers that this publisher merges together.
        public let publishers: [Upstream]

        /// Creates a publisher created by applying the merge function to an arbitrary number of
        /// upstream publishers.
        @inlinable
        public init(_ upstream: Upstream...) {
            publishers = upstream
        }

        /// Creates a publisher created by applying the merge function to a sequence of upstream
        /// publishers.
        @inlinable
        public init<S: Swift.Sequence>(_ upstream: S) where Upstream == S.Element {
            publishers = Array(upstream)
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let merger = MergeSubscription<S>(downstream: subscriber, count: publishers.count)
            subscriber.receive(subscription: merger)
            for (index, publisher) in publishers.enumerated() {
                publisher.receive(subscriber: MergeSide(index: index, parent: merger))
            }
        }

        /// Returns a `MergeMany` with this publisher's upstreams and one more.
        @inlinable
        public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
            Publishers.MergeMany(publishers + [other])
        }
    }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {
    /// Whether the two publishers merge equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.publishers == rhs.publishers
    }
}

/// The one subscription behind every merge publisher, as Combine's: each upstream is asked for
/// one value (`.unlimited` if the downstream already is) and runs one ahead; a value that
/// arrives without downstream demand waits in that upstream's one-value slot (a later value from
/// an upstream that ignores demand replaces it, as in Combine) until a request drains the slots
/// in upstream order and asks each drained upstream for one more.
@usableFromInline
internal final class MergeSubscription<Downstream: Subscriber>: DownstreamGate<Downstream, Int?>,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
{
    @usableFromInline
    internal typealias Input = Downstream.Input

    @usableFromInline
    internal let count: Int
    @usableFromInline @exclusivity(unchecked)
    internal var upstreams: [GateUpstream]
    @usableFromInline @exclusivity(unchecked)
    internal var slots: [Input?]
    /// How many slots hold a value (so that a delivery need not scan them all).
    @usableFromInline @exclusivity(unchecked)
    internal var waiting = 0
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked)
    internal var finishedCount = 0
    /// Failed, finished or cancelled.
    @usableFromInline @exclusivity(unchecked)
    internal var terminated = false

    @inlinable
    internal init(downstream: Downstream, count: Int) {
        self.count = count
        upstreams = Array(repeating: .awaitingSubscription, count: count)
        slots = Array(repeating: nil, count: count)
        super.init(downstream: downstream)
    }

    @inlinable
    internal func receive(subscription: Subscription, index: Int) {
        let request = lock.locked { () -> Subscribers.Demand? in
            guard !terminated, upstreams[index].isAwaitingSubscription else { return nil }
            upstreams[index] = .subscribed(subscription)
            return demand == .unlimited ? .unlimited : .max(1)
        }
        guard let request else {
            subscription.cancel()
            return
        }
        subscription.request(request)
    }

    @inlinable
    internal func receive(_ input: Input, index: Int) -> Subscribers.Demand {
        let (ticket, answer, replaced) = lock.locked { () -> (Ticket, Subscribers.Demand?, Input?) in
            guard !terminated, upstreams[index].isSubscribed else { return (.none, Subscribers.Demand.none, nil) }
            if demand == .unlimited {
                return (submitLocked(.value(input, nil)), nil, nil)
            }
            if demand == .none {
                let replaced = slots[index]
                slots[index] = input
                if replaced == nil { waiting += 1 }
                return (.none, Subscribers.Demand.none, replaced)
            }
            demand -= 1
            return (submitLocked(.value(input, nil)), .max(1), nil)
        }
        withExtendedLifetime(replaced) {}
        let returned = run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        // Combine answers an unlimited subscriber's upstream with the downstream's own answer.
        return answer ?? returned ?? .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Downstream.Failure>, index: Int) {
        switch completion {
        case .finished:
            let (ticket, previous) = lock.locked { () -> (Ticket, GateUpstream?) in
                guard !terminated, !upstreams[index].isDone else { return (.none, nil) }
                let previous = upstreams[index]
                upstreams[index] = .done
                finishedCount += 1
                guard finishedCount == count, waiting == 0 else { return (.none, previous) }
                terminated = true
                return (submitLocked(.completion(.finished)), previous)
            }
            withExtendedLifetime(previous) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        case .failure:
            let (ticket, detached, dropped) = lock.locked { () -> (Ticket, [GateUpstream], [Input?]) in
                guard !terminated, !upstreams[index].isDone else { return (.none, [], []) }
                terminated = true
                defer {
                    upstreams = Array(repeating: .done, count: count)
                    slots = Array(repeating: nil, count: count)
                    waiting = 0
                }
                return (submitLocked(.completion(completion)), upstreams, slots)
            }
            // Combine cancels every upstream, the failed one included, before failing.
            for upstream in detached {
                upstream.subscription?.cancel()
            }
            withExtendedLifetime(dropped) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        }
    }

    /// After each delivery: add what the downstream returned, move waiting values along, and
    /// ask the upstream a drained value came from for one more.
    @inlinable
    internal func delivered(tag: Int?, returned: Subscribers.Demand) {
        let refill = lock.locked { () -> Subscription? in
            demand += returned
            if demand > 0, waiting > 0 { commitSlotsLocked() }
            return tag.flatMap { upstreams[$0].subscription }
        }
        refill?.request(.max(1))
    }

    /// Moves slot values to the gate while there is demand, in upstream order, then finishes if
    /// everything is done. The delivering thread drains them.
    @inlinable
    internal func commitSlotsLocked() {
        guard !terminated else { return }
        var index = 0
        while waiting > 0, demand > 0, index < count {
            defer { index += 1 }
            guard let value = slots[index] else { continue }
            slots[index] = nil
            waiting -= 1
            if demand != .unlimited { demand -= 1 }
            enqueueLocked(.value(value, demand == .unlimited ? nil : index))
        }
        if finishedCount == count, waiting == 0 {
            terminated = true
            enqueueLocked(.completion(.finished))
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        // Combine's merge ignores a request for nothing rather than trapping.
        guard demand > 0 else { return }
        let (claimed, unlimited) = lock.locked { () -> (Bool, [Subscription]) in
            guard !terminated, self.demand != .unlimited else { return (false, []) }
            if demand == .unlimited {
                self.demand = .unlimited
                commitSlotsLocked()
                return (claimLocked(), terminated ? [] : upstreams.compactMap(\.subscription))
            }
            self.demand += demand
            commitSlotsLocked()
            return (claimLocked(), [])
        }
        if claimed {
            drain { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        }
        for upstream in unlimited {
            upstream.request(.unlimited)
        }
    }

    @inlinable
    internal func cancel() {
        let (detached, dropped, gate) = lock.locked { () -> ([GateUpstream], [Input?], (Downstream?, RingBuffer<Event>)) in
            terminated = true
            defer {
                upstreams = Array(repeating: .done, count: count)
                slots = Array(repeating: nil, count: count)
                waiting = 0
            }
            return (upstreams, slots, terminateLocked())
        }
        for upstream in detached {
            upstream.subscription?.cancel()
        }
        withExtendedLifetime((dropped, gate)) {}
    }

    @usableFromInline
    internal var description: String { "Merge" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}

/// The subscriber a merge attaches to each upstream.
@usableFromInline
internal struct MergeSide<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let index: Int
    @usableFromInline
    internal let parent: MergeSubscription<Downstream>
    @usableFromInline
    internal let combineIdentifier = CombineIdentifier()

    @inlinable
    internal init(index: Int, parent: MergeSubscription<Downstream>) {
        self.index = index
        self.parent = parent
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        parent.receive(subscription: subscription, index: index)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        parent.receive(input, index: index)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        parent.receive(completion: completion, index: index)
    }

    @usableFromInline
    internal var description: String { "Merge" }

    @usableFromInline
    internal var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": parent.combineIdentifier])
    }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}
