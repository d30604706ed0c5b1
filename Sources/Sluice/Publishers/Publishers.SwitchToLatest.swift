extension Publishers {
    /// A publisher that flattens nested publishers.
    ///
    /// Given a publisher that publishes publishers, it republishes the elements of the most
    /// recent one only. The downstream receives its subscription before the upstream is
    /// subscribed to, and the upstream is asked for `.unlimited`. When a new inner publisher
    /// arrives, the previous inner subscription is cancelled first and the new one is given the
    /// downstream's outstanding demand. It finishes when the upstream and the current inner
    /// publisher have both finished; a failure of either cancels the other and fails.
    public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
        where P == Upstream.Output, P.Failure == Upstream.Failure
    {
        public typealias Output = P.Output
        public typealias Failure = P.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that "flattens" nested publishers.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
            let outer = SwitchToLatestSubscription<S, Upstream>(downstream: subscriber)
            subscriber.receive(subscription: outer)
            upstream.receive(subscriber: outer)
        }
    }
}

extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Republishes elements sent by the most recently received publisher, cancelling the
    /// subscription to the previous one.
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Failure == Never, Output: Publisher {
    /// Republishes elements sent by the most recently received publisher, from an upstream that
    /// cannot fail, giving it the inner publishers' failure type.
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>> {
        Publishers.SwitchToLatest(upstream: Publishers.SetFailureType(upstream: self))
    }
}

extension Publisher where Failure == Never, Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher, where neither the
    /// upstream nor the inner publishers can fail.
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher, where the inner
    /// publishers cannot fail: they are given the upstream's failure type.
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Publishers.SetFailureType<Output, Failure>,
                                                              Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>> {
        Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: self) { Publishers.SetFailureType(upstream: $0) })
    }
}

/// The subscription of a switchToLatest: the upstream's subscriber, the downstream's
/// subscription, and the owner of the current inner subscription, a growing set of upstreams on
/// ``FanInGate`` that holds one at a time (the upstream is its outer upstream). Inner publishers
/// are told apart by an index, so that events from one that has been replaced are ignored.
///
/// The current inner publisher stays current after it finishes, until the next one arrives, as
/// in Combine: its values still count, and a subscription it sends again is taken (not
/// cancelled) and becomes the current subscription.
@usableFromInline
internal final class SwitchToLatestSubscription<Downstream: Subscriber, Upstream: Publisher>:
    FanInGate<Downstream, Int>, Subscriber, Subscription, SideParent, DescribedByName, @unchecked Sendable
    where Upstream.Output: Publisher, Upstream.Output.Failure == Upstream.Failure,
    Downstream.Input == Upstream.Output.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure
    @usableFromInline
    internal typealias Inner = Upstream.Output

    /// The current inner publisher's index (0 before the first): the last one handed out.
    @usableFromInline @exclusivity(unchecked)
    internal var currentIndex = 0
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none

    @inlinable
    internal init(downstream: Downstream) {
        super.init(growingWith: downstream)
    }

    // MARK: The upstream

    @inlinable
    internal func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard !terminated, outer.isAwaitingSubscription else { return false }
            outer = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        subscription.request(.unlimited)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let (index, previous) = lock.locked { () -> (Int?, GateUpstream?) in
            guard !terminated, outer.isSubscribed else { return (nil, nil) }
            let previous = takeSoleLocked()
            currentIndex += 1
            addLocked(currentIndex)
            return (currentIndex, previous)
        }
        guard let index else { return .none }
        // The previous inner subscription is cancelled before the new one is subscribed.
        previous?.subscription?.cancel()
        input.receive(subscriber: SideSubscriber(parent: self, key: index))
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let (ticket, previous) = lock.locked { () -> (Ticket, GateUpstream?) in
                guard !terminated, !outer.isDone else { return (.none, nil) }
                let previous = outer
                outer = .done
                guard isEmptyLocked else { return (.none, previous) }
                terminated = true
                return (submitLocked(.completion(.finished)), previous)
            }
            withExtendedLifetime(previous) {}
            run(ticket) { index, demand, own in self.delivered(index: index, returned: demand, own: own) }
        case .failure:
            let (ticket, inner, previous) = lock.locked { () -> (Ticket, [GateUpstream], GateUpstream?) in
                guard !terminated, !outer.isDone else { return (.none, [], nil) }
                let previous = outer
                outer = .done
                return (submitLocked(.completion(completion)), detachAllLocked(), previous)
            }
            inner.cancelAll()
            withExtendedLifetime(previous) {}
            run(ticket) { index, demand, own in self.delivered(index: index, returned: demand, own: own) }
        }
    }

    // MARK: Inner publishers

    @inlinable
    internal func receive(subscription: Subscription, from index: Int) {
        let request = lock.locked { () -> Subscribers.Demand? in
            guard !terminated, index == currentIndex else { return nil }
            // The current inner publisher subscribing again after it finished.
            if isEmptyLocked { addLocked(index) }
            guard acceptLocked(subscription, at: index) else { return nil }
            return demand
        }
        guard let request else {
            subscription.cancel()
            return
        }
        if request > 0 {
            subscription.request(request)
        }
    }

    @inlinable
    internal func receive(_ input: Inner.Output, from index: Int) -> Subscribers.Demand {
        let ticket = lock.locked { () -> Ticket in
            guard !terminated, index == currentIndex else { return .none }
            precondition(demand > 0, "SwitchToLatest received a value without demand (a misbehaving inner publisher)")
            demand -= 1
            return submitLocked(.value(input, index))
        }
        let returned = run(ticket) { index, demand, own in self.delivered(index: index, returned: demand, own: own) }
        return returned ?? .none
    }

    /// Adds what the downstream returned to the demand; the current inner publisher gets it as
    /// its `receive` answer, or as a request when another thread delivered its value.
    @inlinable
    internal func delivered(index: Int, returned: Subscribers.Demand, own: Bool) {
        guard returned > 0 else { return }
        let target = lock.locked { () -> Subscription? in
            demand += returned
            return own ? nil : subscriptionLocked(index)
        }
        target?.request(returned)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>, from index: Int) {
        switch completion {
        case .finished:
            let (ticket, previous) = lock.locked { () -> (Ticket, GateUpstream?) in
                guard !terminated, index == currentIndex else { return (.none, nil) }
                let previous = finishLocked(index)
                guard outer.isDone else { return (.none, previous) }
                terminated = true
                return (submitLocked(.completion(.finished)), previous)
            }
            withExtendedLifetime(previous) {}
            run(ticket) { index, demand, own in self.delivered(index: index, returned: demand, own: own) }
        case .failure:
            let (ticket, upstream, previous) = lock.locked { () -> (Ticket, GateUpstream, [GateUpstream]) in
                guard !terminated, index == currentIndex else { return (.none, .done, []) }
                let upstream = outer
                outer = .done
                return (submitLocked(.completion(completion)), upstream, detachAllLocked())
            }
            // As in Combine, the upstream is cancelled; the failed inner publisher is let go.
            upstream.subscription?.cancel()
            withExtendedLifetime(previous) {}
            run(ticket) { index, demand, own in self.delivered(index: index, returned: demand, own: own) }
        }
    }

    // MARK: The downstream

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let inner = lock.locked { () -> Subscription? in
            guard !terminated else { return nil }
            self.demand += demand
            return upstreams.first?.subscription
        }
        inner?.request(demand)
    }

    @usableFromInline
    internal var description: String { "SwitchToLatest" }

    @usableFromInline
    internal var sideDescription: String { "SwitchToLatest" }

    @usableFromInline
    internal var sideMirrorChildren: [Mirror.Child] { [(label: "parentSubscription", value: combineIdentifier)] }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
