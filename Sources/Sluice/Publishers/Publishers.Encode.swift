extension Publishers {
    /// A publisher that encodes elements received from an upstream publisher, using a given
    /// encoder.
    ///
    /// If encoding fails, the upstream is cancelled and then the downstream receives the
    /// encoder's error.
    public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher
        where Upstream.Output: Encodable
    {
        public typealias Failure = Error
        public typealias Output = Coder.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @usableFromInline
        internal let encoder: Coder

        /// Creates a publisher that encodes elements received from an upstream publisher, using
        /// the given encoder.
        @inlinable
        public init(upstream: Upstream, encoder: Coder) {
            self.upstream = upstream
            self.encoder = encoder
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Coder.Output, S.Failure == Error {
            let encoder = self.encoder
            upstream.receive(subscriber: CodingSubscription<Upstream, S>(
                downstream: subscriber,
                name: "Encode",
                code: { try encoder.encode($0) }))
        }
    }
}

/// The subscription of `encode(encoder:)` and `decode(type:decoder:)`: it runs the coder on each
/// value and fails the stream, after cancelling the upstream, when the coder throws.
@usableFromInline
internal final class CodingSubscription<Upstream: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Failure == Error
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    /// The stream has ended (completed, failed or cancelled); shown in the mirror as Combine's
    /// `finished`.
    @usableFromInline @exclusivity(unchecked)
    internal var finished = false

    @usableFromInline
    internal let code: (Upstream.Output) throws -> Downstream.Input
    @usableFromInline
    internal let name: String

    @inlinable
    internal init(downstream: Downstream, name: String, code: @escaping (Upstream.Output) throws -> Downstream.Input) {
        link = .awaitingSubscription(downstream)
        self.name = name
        self.code = code
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = lock.locked { link.accept(subscription) }
        announce(self, to: downstream, orCancel: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        // Combine codes a value that arrives before the subscription too.
        guard let downstream = lock.locked({ link.downstream }) else { return .none }
        let output: Downstream.Input
        do {
            output = try code(input)
        } catch {
            let previous = end()
            guard let failed = previous.downstream else { return .none }
            // The upstream is cancelled before the failure is delivered.
            previous.subscription?.cancel()
            failed.receive(completion: .failure(error))
            return .none
        }
        return downstream.receive(output)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        guard let downstream = end().downstream else { return }
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
    }

    /// Ends the link, returning what it held so that it is released after unlocking.
    @inlinable
    internal func end() -> LinkState<Downstream> {
        lock.locked { () -> LinkState<Downstream> in
            finished = true
            return link.terminate()
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        lock.locked { link.subscription }?.request(demand)
    }

    @inlinable
    internal func cancel() {
        end().subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { name }

    @usableFromInline
    internal var customMirror: Mirror {
        let (downstream, finished, subscription) = lock.locked { (link.downstream, self.finished, link.subscription) }
        return Mirror(self, children: [
            "downstream": downstream as Any,
            "finished": finished,
            "upstreamSubscription": subscription as Any,
        ])
    }
}

extension Publisher {
    /// Encodes the output from upstream using a specified encoder.
    ///
    /// An encoding error cancels the upstream and fails the stream with that error.
    @inlinable
    public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder>
        where Output: Encodable
    {
        Publishers.Encode(upstream: self, encoder: encoder)
    }
}
