extension Publishers {
    /// A publisher that provides explicit connectability to another publisher.
    ///
    /// It is `multicast` through a `PassthroughSubject`: subscribers receive nothing until
    /// ``connect()`` is called, then every subscriber receives the values it has demand for.
    public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        @usableFromInline
        internal let inner: Publishers.Multicast<Upstream, PassthroughSubject<Output, Failure>>

        /// Creates a connectable publisher, attached to the provided upstream publisher.
        @inlinable
        public init(upstream: Upstream) {
            inner = Publishers.Multicast(upstream: upstream) { PassthroughSubject() }
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.receive(subscriber: subscriber)
        }

        /// Connects to the upstream; cancelling the result disconnects it.
        @inlinable
        public func connect() -> Cancellable {
            inner.connect()
        }
    }
}

extension Publisher where Failure == Never {
    /// Creates a connectable wrapper around the publisher: nothing is published until
    /// `connect()` is called (or until a subscriber arrives, with `autoconnect()`).
    @inlinable
    public func makeConnectable() -> Publishers.MakeConnectable<Self> {
        Publishers.MakeConnectable(upstream: self)
    }
}
