extension Publishers {
    /// A publisher that shares the output of an upstream publisher with multiple subscribers.
    ///
    /// It is `multicast` through a `PassthroughSubject`, then `autoconnect`: the first
    /// subscriber connects it to the upstream, and the connection lasts until the last
    /// subscriber cancels. It replays nothing: a subscriber that arrives (or asks for values)
    /// late sees only later values, as in Combine; `share(replay:)` in SluiceExtras replays.
    /// Two `Share` publishers are equal only if they are the same instance.
    public final class Share<Upstream: Publisher>: Publisher, Equatable {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream

        @usableFromInline
        internal let inner: Publishers.Autoconnect<Publishers.Multicast<Upstream, PassthroughSubject<Output, Failure>>>

        /// Creates a publisher that shares the output of an upstream publisher with multiple
        /// subscribers.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
            inner = Publishers.Multicast(upstream: upstream) { PassthroughSubject() }.autoconnect()
        }

        @inlinable
        public final func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            inner.receive(subscriber: subscriber)
        }

        /// Whether the two publishers are the same instance.
        @inlinable
        public static func == (lhs: Share, rhs: Share) -> Bool {
            lhs === rhs
        }
    }
}

extension Publisher {
    /// Shares the output of an upstream publisher with multiple subscribers.
    ///
    /// The returned publisher is a class: keep one instance and subscribe to it, since each
    /// call to `share()` makes a new, separate connection. Late subscribers receive only later
    /// values.
    @inlinable
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}
