extension Publishers {
    /// A publisher that handles errors from an upstream publisher by replacing the failed
    /// publisher with another publisher.
    ///
    /// Requests and cancellation go to the upstream until it fails. Then the handler's publisher
    /// is subscribed and asked for the demand the downstream has not yet received (Combine's
    /// "unfulfilled demand"). A `.finished` from the upstream is passed on without calling the
    /// handler.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
        where Upstream.Output == NewPublisher.Output
    {
        public typealias Output = Upstream.Output
        public typealias Failure = NewPublisher.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that accepts the upstream failure as input and returns a publisher to
        /// replace the upstream publisher.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that handles errors from an upstream publisher by replacing the
        /// failed publisher with another publisher.
        @inlinable
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
            where S.Input == Output, S.Failure == NewPublisher.Failure
        {
            let handler = self.handler
            upstream.receive(subscriber: CatchSubscription<Upstream, NewPublisher, S>(
                downstream: subscriber,
                name: "Catch",
                handler: { .success(handler($0)) },
                convert: { $0 }))
        }
    }

    /// A publisher that handles errors from an upstream publisher by replacing the failed
    /// publisher with another publisher, or by failing with the error the handler throws.
    ///
    /// Demand is carried over to the handler's publisher as for ``Catch``. Failures of the
    /// handler's publisher are passed on as `Error`.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
        where Upstream.Output == NewPublisher.Output
    {
        public typealias Output = Upstream.Output
        public typealias Failure = Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// An error-throwing closure that accepts the upstream failure as input and returns a
        /// publisher to replace the upstream publisher.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that handles errors from an upstream publisher by replacing the
        /// failed publisher with another publisher, or by failing with the thrown error.
        @inlinable
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Error {
            let handler = self.handler
            upstream.receive(subscriber: CatchSubscription<Upstream, NewPublisher, S>(
                downstream: subscriber,
                name: "TryCatch",
                handler: { error in
                    do {
                        return .success(try handler(error))
                    } catch {
                        return .failure(error)
                    }
                },
                convert: { $0 }))
        }
    }
}

/// The subscription of `catch` and `tryCatch`: subscribed to the upstream first and, after the
/// upstream fails, to the handler's publisher (through a ``SideSubscriber``). It tracks the downstream's
/// outstanding demand itself, because that demand has to be handed to the new publisher.
@usableFromInline
internal final class CatchSubscription<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, SideParent, DescribedByName, @unchecked Sendable
    where Upstream.Output == NewPublisher.Output, Downstream.Input == Upstream.Output
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal enum State {
        /// Waiting for the upstream's subscription.
        case awaitingSubscription(Downstream)
        /// Connected to the upstream.
        case upstream(Subscription, Downstream)
        /// The upstream failed; the handler's publisher has not handed over its subscription yet.
        case recovering(Downstream)
        /// Connected to the handler's publisher.
        case recovered(Subscription, Downstream)
        case terminal

        @inlinable
        internal var subscription: Subscription? {
            switch self {
            case .upstream(let subscription, _), .recovered(let subscription, _): return subscription
            case .awaitingSubscription, .recovering, .terminal: return nil
            }
        }

        @inlinable
        internal var downstream: Downstream? {
            switch self {
            case .awaitingSubscription(let downstream), .upstream(_, let downstream),
                 .recovering(let downstream), .recovered(_, let downstream):
                return downstream
            case .terminal:
                return nil
            }
        }
    }

    /// What an upstream completion leads to, decided under the lock and carried out after it.
    @usableFromInline
    internal enum CompletionAction {
        case ignore
        case finish(Downstream)
        case recover(Upstream.Failure)
    }

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var state: State
    /// What the downstream has asked for and not yet received.
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none

    @usableFromInline
    internal let handler: (Upstream.Failure) -> Result<NewPublisher, Downstream.Failure>
    @usableFromInline
    internal let convert: (NewPublisher.Failure) -> Downstream.Failure
    @usableFromInline
    internal let name: String

    @inlinable
    internal init(
        downstream: Downstream,
        name: String,
        handler: @escaping (Upstream.Failure) -> Result<NewPublisher, Downstream.Failure>,
        convert: @escaping (NewPublisher.Failure) -> Downstream.Failure
    ) {
        state = .awaitingSubscription(downstream)
        self.name = name
        self.handler = handler
        self.convert = convert
    }

    // MARK: From the upstream

    @inlinable
    internal func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> (Downstream, Subscribers.Demand)? in
            guard case .awaitingSubscription(let downstream) = state else { return nil }
            state = .upstream(subscription, downstream)
            return (downstream, demand)
        }
        guard let (downstream, pending) = accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        if pending > 0 {
            subscription.request(pending)
        }
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let target = lock.locked { () -> Downstream? in
            switch state {
            case .awaitingSubscription:
                preconditionFailure("\(name) received a value before its subscription (a misbehaving upstream)")
            case .upstream(_, let downstream):
                takeOne()
                return downstream
            case .recovering, .recovered, .terminal:
                return nil
            }
        }
        guard let downstream = target else { return .none }
        return deliver(input, to: downstream)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        // `previous` holds the upstream's subscription until after unlocking (nothing is
        // released under the lock).
        let (action, previous) = lock.locked { () -> (CompletionAction, State?) in
            switch state {
            case .upstream(_, let downstream):
                let previous = state
                switch completion {
                case .finished:
                    state = .terminal
                    return (.finish(downstream), previous)
                case .failure(let error):
                    state = .recovering(downstream)
                    return (.recover(error), previous)
                }
            case .recovering, .recovered:
                if case .failure = completion {
                    preconditionFailure("\(name)'s upstream failed a second time (a misbehaving upstream)")
                }
                return (.ignore, nil)
            case .awaitingSubscription, .terminal:
                return (.ignore, nil)
            }
        }
        withExtendedLifetime(previous) {}
        switch action {
        case .ignore:
            break
        case .finish(let downstream):
            downstream.receive(completion: .finished)
        case .recover(let error):
            switch handler(error) {
            case .success(let publisher):
                publisher.receive(subscriber: SideSubscriber(sharingIdentityOf: self, key: ()))
            case .failure(let thrown):
                let previous = lock.locked { () -> State in
                    guard case .recovering = state else { return .terminal }
                    defer { state = .terminal }
                    return state
                }
                if case .recovering(let downstream) = previous {
                    downstream.receive(completion: .failure(thrown))
                }
            }
        }
    }

    // MARK: From the handler's publisher

    @inlinable
    internal func receive(subscription: Subscription, from _: Void) {
        let pending = lock.locked { () -> Subscribers.Demand? in
            guard case .recovering(let downstream) = state else { return nil }
            state = .recovered(subscription, downstream)
            return demand
        }
        guard let pending else {
            subscription.cancel()
            return
        }
        if pending > 0 {
            subscription.request(pending)
        }
    }

    @inlinable
    internal func receive(_ input: Input, from _: Void) -> Subscribers.Demand {
        let target = lock.locked { () -> Downstream? in
            switch state {
            case .recovering(let downstream), .recovered(_, let downstream):
                takeOne()
                return downstream
            case .awaitingSubscription, .upstream, .terminal:
                return nil
            }
        }
        guard let downstream = target else { return .none }
        return deliver(input, to: downstream)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<NewPublisher.Failure>, from _: Void) {
        let previous = lock.locked { () -> State in
            switch state {
            case .recovering, .recovered:
                defer { state = .terminal }
                return state
            case .awaitingSubscription, .upstream, .terminal:
                return .terminal
            }
        }
        guard let downstream = previous.downstream else { return }
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(convert(error)))
        }
    }

    // MARK: Demand bookkeeping

    /// Uses one unit of the downstream's demand. Called with the lock held.
    @inlinable
    internal func takeOne() {
        precondition(demand > 0, "\(name) received a value it did not request (a misbehaving upstream)")
        demand -= 1
    }

    @inlinable
    internal func deliver(_ input: Input, to downstream: Downstream) -> Subscribers.Demand {
        let more = downstream.receive(input)
        if more > 0 {
            lock.locked {
                if case .terminal = state { return }
                demand += more
            }
        }
        return more
    }

    // MARK: Subscription

    @inlinable
    internal func request(_ more: Subscribers.Demand) {
        let subscription = lock.locked { () -> Subscription? in
            if case .terminal = state { return nil }
            demand += more
            return state.subscription
        }
        subscription?.request(more)
    }

    @inlinable
    internal func cancel() {
        let previous = lock.locked { () -> State in
            defer { state = .terminal }
            return state
        }
        // A handler's publisher that hands over its subscription later is cancelled then.
        previous.subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { name }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: sideMirrorChildren) }

    @usableFromInline
    internal var sideDescription: String { name }

    /// The handler's publisher's subscriber shows what this subscription shows.
    @usableFromInline
    internal var sideMirrorChildren: [Mirror.Child] {
        let (downstream, demand) = lock.locked { (state.downstream, self.demand) }
        return [(label: "downstream", value: downstream as Any), (label: "demand", value: demand)]
    }
}

extension Publisher {
    /// Handles errors from an upstream publisher by replacing it with another publisher.
    ///
    /// After the upstream fails, the publisher the handler returns is subscribed and asked for
    /// the demand the downstream has not yet received. A normal finish is passed on unchanged.
    @inlinable
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
        where Output == P.Output
    {
        Publishers.Catch(upstream: self, handler: handler)
    }

    /// Handles errors from an upstream publisher by either replacing it with another publisher
    /// or failing with the error the handler throws.
    @inlinable
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
        where Output == P.Output
    {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}
