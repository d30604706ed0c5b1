extension Publishers {
    /// A publisher that performs the specified closures when publisher events occur.
    ///
    /// Each closure runs before the event is passed on: `receiveSubscription` before the
    /// downstream gets its subscription, `receiveOutput` before the value, `receiveCompletion`
    /// before the completion, `receiveCancel` before the upstream is cancelled and
    /// `receiveRequest` before a request goes upstream (for every request, `.none` included,
    /// and for non-zero demand the downstream returns from a value). After the stream completes
    /// or is cancelled, the closures are released and run no more.
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that executes when the publisher receives the subscription from the
        /// upstream publisher.
        public var receiveSubscription: ((Subscription) -> Void)?

        /// A closure that executes when the publisher receives a value from the upstream
        /// publisher.
        public var receiveOutput: ((Upstream.Output) -> Void)?

        /// A closure that executes when the upstream publisher finishes normally or terminates
        /// with an error.
        public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?

        /// A closure that executes when the downstream receiver cancels publishing.
        public var receiveCancel: (() -> Void)?

        /// A closure that executes when the publisher receives a request for more elements.
        public var receiveRequest: ((Subscribers.Demand) -> Void)?

        /// Creates a publisher that performs the specified closures when publisher events occur.
        @inlinable
        public init(
            upstream: Upstream,
            receiveSubscription: ((Subscription) -> Void)? = nil,
            receiveOutput: ((Upstream.Output) -> Void)? = nil,
            receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)? = nil,
            receiveCancel: (() -> Void)? = nil,
            receiveRequest: ((Subscribers.Demand) -> Void)? = nil
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.receiveCancel = receiveCancel
            self.receiveRequest = receiveRequest
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: HandleEventsSubscription<Upstream, S>(
                downstream: subscriber,
                hooks: HandleEventsHooks(
                    receiveSubscription: receiveSubscription,
                    receiveOutput: receiveOutput,
                    receiveCompletion: receiveCompletion,
                    receiveCancel: receiveCancel,
                    receiveRequest: receiveRequest)))
        }
    }
}

/// The five closures of `handleEvents`, kept together so that they are released together.
@usableFromInline
internal struct HandleEventsHooks<Output, Failure: Error> {
    @usableFromInline
    internal let receiveSubscription: ((Subscription) -> Void)?
    @usableFromInline
    internal let receiveOutput: ((Output) -> Void)?
    @usableFromInline
    internal let receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    @usableFromInline
    internal let receiveCancel: (() -> Void)?
    @usableFromInline
    internal let receiveRequest: ((Subscribers.Demand) -> Void)?

    @inlinable
    internal init(
        receiveSubscription: ((Subscription) -> Void)?,
        receiveOutput: ((Output) -> Void)?,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?,
        receiveCancel: (() -> Void)?,
        receiveRequest: ((Subscribers.Demand) -> Void)?
    ) {
        self.receiveSubscription = receiveSubscription
        self.receiveOutput = receiveOutput
        self.receiveCompletion = receiveCompletion
        self.receiveCancel = receiveCancel
        self.receiveRequest = receiveRequest
    }
}

/// The subscription of `handleEvents`: it forwards every signal and runs the matching hook
/// first. Demand asked for before the upstream's subscription arrives is kept and requested
/// when it does.
@usableFromInline
internal final class HandleEventsSubscription<Upstream: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure
    @usableFromInline
    internal typealias Hooks = HandleEventsHooks<Upstream.Output, Upstream.Failure>

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    /// `nil` once the stream has completed or been cancelled.
    @usableFromInline @exclusivity(unchecked)
    internal var hooks: Hooks?
    @usableFromInline @exclusivity(unchecked)
    internal var pendingDemand = Subscribers.Demand.none

    @inlinable
    internal init(downstream: Downstream, hooks: Hooks) {
        link = .awaitingSubscription(downstream)
        self.hooks = hooks
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        var receiveSubscription: ((Subscription) -> Void)?
        lock.locked { receiveSubscription = hooks?.receiveSubscription }
        receiveSubscription?(subscription)
        let accepted = lock.locked { link.accept(subscription, takingPending: &pendingDemand) }
        guard announce(self, to: accepted?.downstream, orCancel: subscription),
              let pending = accepted?.pending, pending > 0 else { return }
        subscription.request(pending)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        // Hooks are read into locals, here and below, not returned from the lock: a closure
        // returned through the generic `locked` is re-abstracted, which allocated twice per value.
        var live: Downstream?
        var receiveOutput: ((Input) -> Void)?
        lock.locked {
            live = link.downstream
            receiveOutput = hooks?.receiveOutput
        }
        guard let downstream = live else { return .none }
        if let receiveOutput {
            receiveOutput(input)
            // The hook may have cancelled: then the value is not delivered.
            if lock.locked({ link.downstream == nil }) { return .none }
        }
        let more = downstream.receive(input)
        if more != .none {
            var receiveRequest: ((Subscribers.Demand) -> Void)?
            lock.locked { receiveRequest = hooks?.receiveRequest }
            receiveRequest?(more)
        }
        return more
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let ended = lock.locked { () -> (LinkState<Downstream>, Hooks?) in
            guard link.downstream != nil else { return (.terminal, nil) }
            defer { hooks = nil }
            return (link.terminate(), hooks)
        }
        guard let downstream = ended.0.downstream else { return }
        ended.1?.receiveCompletion?(completion)
        downstream.receive(completion: completion)
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        var receiveRequest: ((Subscribers.Demand) -> Void)?
        lock.locked { receiveRequest = hooks?.receiveRequest }
        receiveRequest?(demand)
        let subscription = lock.locked { () -> Subscription? in
            switch link {
            case .subscribed(let subscription, _):
                return subscription
            case .awaitingSubscription:
                pendingDemand += demand
                return nil
            case .terminal:
                return nil
            }
        }
        subscription?.request(demand)
    }

    @inlinable
    internal func cancel() {
        let ended = lock.locked { () -> (LinkState<Downstream>, Hooks?) in
            guard link.downstream != nil else { return (.terminal, nil) }
            defer { hooks = nil }
            return (link.terminate(), hooks)
        }
        ended.1?.receiveCancel?()
        ended.0.subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { "HandleEvents" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}

extension Publisher {
    /// Performs the specified closures when publisher events occur.
    ///
    /// Each closure runs just before the event it observes is passed on. The closures are
    /// released once the stream completes or is cancelled.
    @inlinable
    public func handleEvents(
        receiveSubscription: ((Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(
            upstream: self,
            receiveSubscription: receiveSubscription,
            receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion,
            receiveCancel: receiveCancel,
            receiveRequest: receiveRequest)
    }
}
