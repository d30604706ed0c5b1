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
    /// It behaves as ``Merge`` does.
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
    /// It behaves as ``Merge`` does.
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
    /// It behaves as ``Merge`` does.
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
    /// It behaves as ``Merge`` does.
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
    /// It behaves as ``Merge`` does.
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
    /// It behaves as ``Merge`` does.
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
