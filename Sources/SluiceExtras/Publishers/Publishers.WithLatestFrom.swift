import Sluice

extension Publishers {
    /// A publisher that sends each value of its upstream together with the latest value of
    /// another publisher (beyond Combine; RxSwift's and CombineExt's `withLatestFrom`).
    ///
    /// Made by `withLatestFrom(_:)` and `withLatestFrom(_:resultSelector:)`, and with two or
    /// three others, whose latest values are then those of their `combineLatest`:
    ///
    /// - Values: each upstream value is sent as `resultSelector(value, latest)`. Upstream values
    ///   that arrive before the other has sent a value are dropped. Values of the other only
    ///   replace the latest one: they send nothing.
    /// - Demand: it never sends more than the downstream asked for. The downstream's requests go
    ///   to the upstream unchanged (a dropped upstream value is asked for again); the other is
    ///   asked for `.unlimited` as soon as it is subscribed, so its latest value is always at
    ///   hand.
    /// - Completion: it finishes when the upstream finishes, whether or not the other has
    ///   (the other is then cancelled); the other finishing changes nothing, its latest value
    ///   stays in use. It fails as soon as either fails, cancelling the one that did not.
    /// - Threads: the upstream and the other may send from any threads at once; the
    ///   downstream, and `resultSelector`, are called one signal at a time, with no lock held.
    ///
    /// The `withLatestFrom` methods are disfavoured overloads: a `withLatestFrom` of the same
    /// labels that a project or another library (CombineExt) declares wins over them, so adding
    /// `import SluiceExtras` to a file never makes such a call ambiguous.
    public struct WithLatestFrom<Upstream: Publisher, Other: Publisher, Output>: Publisher
        where Upstream.Failure == Other.Failure
    {
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are sent.
        public let upstream: Upstream
        /// The publisher whose latest value goes with each of them.
        public let other: Other
        /// What is sent for an upstream value and the other's latest value.
        public let resultSelector: (Upstream.Output, Other.Output) -> Output

        /// Creates a publisher that sends `resultSelector(value, latest)` for each value of
        /// `upstream`, once `other` has sent a value.
        @inlinable
        public init(upstream: Upstream, other: Other,
                    resultSelector: @escaping (Upstream.Output, Other.Output) -> Output) {
            self.upstream = upstream
            self.other = other
            self.resultSelector = resultSelector
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = WithLatestFromSubscription<S, Upstream.Output, Other.Output>(
                downstream: subscriber, select: resultSelector)
            // The other first, so that a value it has at hand (a CurrentValueSubject's) is the
            // latest before the upstream can send.
            other.receive(subscriber: inner.otherSide)
            upstream.receive(subscriber: inner.upstreamSide)
            inner.handOver(inner)
        }
    }
}

extension Publisher {
    /// Sends each value of this publisher with the latest value of `other`, as
    /// `resultSelector(value, latest)`; see ``Publishers/WithLatestFrom``.
    ///
    /// Values of this publisher that arrive before `other` has sent one are dropped. It finishes
    /// when this publisher finishes, and fails when either fails.
    @inlinable @_disfavoredOverload
    public func withLatestFrom<Other: Publisher, Result>(
        _ other: Other, resultSelector: @escaping (Output, Other.Output) -> Result
    ) -> Publishers.WithLatestFrom<Self, Other, Result> where Other.Failure == Failure {
        Publishers.WithLatestFrom(upstream: self, other: other, resultSelector: resultSelector)
    }

    /// Sends the latest value of `other` each time this publisher sends a value; see
    /// ``Publishers/WithLatestFrom``.
    ///
    /// Values of this publisher that arrive before `other` has sent one are dropped. It finishes
    /// when this publisher finishes, and fails when either fails.
    @inlinable @_disfavoredOverload
    public func withLatestFrom<Other: Publisher>(_ other: Other)
        -> Publishers.WithLatestFrom<Self, Other, Other.Output> where Other.Failure == Failure
    {
        Publishers.WithLatestFrom(upstream: self, other: other) { $1 }
    }

    /// Sends each value of this publisher with the latest values of two others, as
    /// `resultSelector(value, (latestA, latestB))`, once both have sent one; see
    /// ``Publishers/WithLatestFrom``.
    @inlinable @_disfavoredOverload
    public func withLatestFrom<A: Publisher, B: Publisher, Result>(
        _ a: A, _ b: B, resultSelector: @escaping (Output, (A.Output, B.Output)) -> Result
    ) -> Publishers.WithLatestFrom<Self, Publishers.CombineLatest<A, B>, Result>
        where A.Failure == Failure, B.Failure == Failure
    {
        Publishers.WithLatestFrom(upstream: self, other: Publishers.CombineLatest(a, b), resultSelector: resultSelector)
    }

    /// Sends the latest values of two others, as a tuple, each time this publisher sends a
    /// value, once both have sent one; see ``Publishers/WithLatestFrom``.
    @inlinable @_disfavoredOverload
    public func withLatestFrom<A: Publisher, B: Publisher>(_ a: A, _ b: B)
        -> Publishers.WithLatestFrom<Self, Publishers.CombineLatest<A, B>, (A.Output, B.Output)>
        where A.Failure == Failure, B.Failure == Failure
    {
        Publishers.WithLatestFrom(upstream: self, other: Publishers.CombineLatest(a, b)) { $1 }
    }

    /// Sends each value of this publisher with the latest values of three others, as
    /// `resultSelector(value, (latestA, latestB, latestC))`, once all three have sent one; see
    /// ``Publishers/WithLatestFrom``.
    @inlinable @_disfavoredOverload
    public func withLatestFrom<A: Publisher, B: Publisher, C: Publisher, Result>(
        _ a: A, _ b: B, _ c: C, resultSelector: @escaping (Output, (A.Output, B.Output, C.Output)) -> Result
    ) -> Publishers.WithLatestFrom<Self, Publishers.CombineLatest3<A, B, C>, Result>
        where A.Failure == Failure, B.Failure == Failure, C.Failure == Failure
    {
        Publishers.WithLatestFrom(upstream: self, other: Publishers.CombineLatest3(a, b, c), resultSelector: resultSelector)
    }

    /// Sends the latest values of three others, as a tuple, each time this publisher sends a
    /// value, once all three have sent one; see ``Publishers/WithLatestFrom``.
    @inlinable @_disfavoredOverload
    public func withLatestFrom<A: Publisher, B: Publisher, C: Publisher>(_ a: A, _ b: B, _ c: C)
        -> Publishers.WithLatestFrom<Self, Publishers.CombineLatest3<A, B, C>, (A.Output, B.Output, C.Output)>
        where A.Failure == Failure, B.Failure == Failure, C.Failure == Failure
    {
        Publishers.WithLatestFrom(upstream: self, other: Publishers.CombineLatest3(a, b, c)) { $1 }
    }
}
