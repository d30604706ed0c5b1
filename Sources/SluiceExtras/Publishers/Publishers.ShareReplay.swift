import Sluice

extension Publishers {
    /// A publisher that shares the output of an upstream publisher with multiple subscribers
    /// and replays its last values to each new one (beyond Combine; RxSwift's
    /// `share(replay:)`).
    ///
    /// It is `multicast` through a ``ReplaySubject``, then `autoconnect`: the first subscriber
    /// connects it to the upstream, and the connection lasts until the last subscriber cancels.
    /// A subscriber receives the last `bufferSize` values when its demand arrives, even if it
    /// asks only long after subscribing, then the later values. The subject, and so what it
    /// replays, outlives a disconnection (RxSwift's `.forever` scope): after the upstream
    /// completes, later subscribers get the last values and the completion without
    /// resubscribing. Two `ShareReplay` publishers are equal only if they are the same instance.
    public final class ShareReplay<Upstream: Publisher>: Publisher, Equatable {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream

        /// How many of the last values are replayed to a new subscriber.
        public final let bufferSize: Int

        @usableFromInline
        internal let inner: Publishers.Autoconnect<Publishers.Multicast<Upstream, ReplaySubject<Output, Failure>>>

        /// Creates a publisher that shares the output of an upstream publisher and replays the
        /// last `bufferSize` values to each new subscriber.
        @inlinable
        public init(upstream: Upstream, bufferSize: Int) {
            precondition(bufferSize >= 0, "share(replay:) requires a non-negative count, got \(bufferSize)")
            self.upstream = upstream
            self.bufferSize = bufferSize
            inner = Publishers.Multicast(upstream: upstream) { ReplaySubject(bufferSize: bufferSize) }.autoconnect()
        }

        @inlinable
        public final func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            inner.receive(subscriber: subscriber)
        }

        /// Whether the two publishers are the same instance.
        @inlinable
        public static func == (lhs: ShareReplay, rhs: ShareReplay) -> Bool {
            lhs === rhs
        }
    }
}

extension Publisher {
    /// Shares the output of an upstream publisher with multiple subscribers, replaying the last
    /// `count` values to each new subscriber when its demand arrives (beyond Combine).
    @inlinable @_disfavoredOverload
    public func share(replay count: Int) -> Publishers.ShareReplay<Self> {
        Publishers.ShareReplay(upstream: self, bufferSize: count)
    }
}
