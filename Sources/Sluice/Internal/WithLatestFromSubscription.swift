/// The downstream of a ``WithLatestFromSubscription``'s gate: it receives a value of the upstream
/// paired with the latest value of the other publisher, and hands the downstream what the
/// operator's selector makes of the pair. The selector (user code) so runs on the delivering
/// thread, with no lock held, one pair at a time.
@usableFromInline
package struct LatestSelecting<Downstream: Subscriber, Value, Latest>: Subscriber {
    @usableFromInline
    package typealias Input = (Value, Latest)
    @usableFromInline
    package typealias Failure = Downstream.Failure

    @usableFromInline
    internal let downstream: Downstream
    @usableFromInline
    internal let select: (Value, Latest) -> Downstream.Input
    @usableFromInline
    package let combineIdentifier = CombineIdentifier()

    @inlinable
    package init(downstream: Downstream, select: @escaping (Value, Latest) -> Downstream.Input) {
        self.downstream = downstream
        self.select = select
    }

    @inlinable
    package func receive(subscription: Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    package func receive(_ input: (Value, Latest)) -> Subscribers.Demand {
        downstream.receive(select(input.0, input.1))
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }
}

/// The subscription behind SluiceExtras' `withLatestFrom`, on the fan-in engine
/// (``FanInGate``: one lock, one serial delivery, one teardown). Upstream 0 is the publisher
/// whose values are sent; upstream 1 is the other publisher, whose latest value each of them is
/// paired with (for two or three others, their `combineLatest`).
///
/// Its rules:
/// - the other is asked for `.unlimited` as soon as it subscribes, and each of its values
///   replaces the latest one; its finishing changes nothing (the latest value stays);
/// - the downstream's requests go to the upstream unchanged; an upstream value that arrives
///   before the other has sent one is dropped and asked for again (the value answers `.max(1)`),
///   so the upstream is always owed exactly what the downstream is; a value beyond the
///   downstream's demand (a broken upstream) is dropped;
/// - it finishes when the upstream finishes, cancelling the other; it fails when either fails,
///   cancelling the one that did not.
@usableFromInline
package final class WithLatestFromSubscription<Downstream: Subscriber, Value, Latest>:
    FanInGate<LatestSelecting<Downstream, Value, Latest>, Void>, Subscription, DescribedByName, @unchecked Sendable
{
    /// The index of the upstream whose values are sent, and of the other.
    @inlinable package static var upstreamIndex: Int { 0 }
    @inlinable package static var otherIndex: Int { 1 }

    /// The other's latest value; `nil` until it sends one.
    @usableFromInline @exclusivity(unchecked)
    internal var latest: Latest?
    /// What the downstream has asked for and not yet received.
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none

    @inlinable
    package init(downstream: Downstream, select: @escaping (Value, Latest) -> Downstream.Input) {
        super.init(downstream: LatestSelecting(downstream: downstream, select: select), count: 2)
    }

    // MARK: Subscriptions and completions, from either side

    /// The upstream is asked for the demand the downstream made before its subscription
    /// arrived; the other for `.unlimited`.
    @inlinable
    package func receive(subscription: Subscription, from index: Int) {
        var owed = Subscribers.Demand.none
        let accepted = lock.locked { () -> Bool in
            guard acceptLocked(subscription, at: index) else { return false }
            owed = index == Self.upstreamIndex ? demand : .unlimited
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        if owed > 0 {
            subscription.request(owed)
        }
    }

    /// The upstream's completion and a failure of the other end the operator; the other
    /// finishing changes nothing (its latest value stays for the upstream's values to come).
    @inlinable
    package func receive(completion: Subscribers.Completion<Downstream.Failure>, from index: Int) {
        if index == Self.otherIndex, case .finished = completion {
            let finished = lock.locked { finishLocked(index) }
            withExtendedLifetime(finished) {}
            return
        }
        end(with: completion, from: index)
    }

    // MARK: The upstream

    @inlinable
    package func receiveUpstream(_ value: Value) -> Subscribers.Demand {
        var askAgain = false
        let ticket = lock.locked { () -> Ticket in
            guard !terminated, upstreams[Self.upstreamIndex].isSubscribed, demand > 0 else { return .none }
            guard let latest else {
                // Dropped: the upstream is owed it again (unlimited demand owes nothing).
                askAgain = demand != .unlimited
                return .none
            }
            demand -= 1
            return submitLocked(.value((value, latest), ()))
        }
        let returned = run(ticket) { _, more, own in self.delivered(more: more, own: own) }
        if askAgain { return .max(1) }
        return returned ?? .none
    }

    /// The downstream asked for `more` in return for a value: it is owed too. For the caller's
    /// own value the upstream is told through the value's return; for one delivered on another
    /// thread's behalf, through a request.
    @inlinable
    internal func delivered(more: Subscribers.Demand, own: Bool) {
        guard more > 0 else { return }
        let upstream = lock.locked { () -> Subscription? in
            guard !terminated else { return nil }
            demand += more
            return own ? nil : upstreams[Self.upstreamIndex].subscription
        }
        upstream?.request(more)
    }

    // MARK: The other

    @inlinable
    package func receiveOther(_ value: Latest) -> Subscribers.Demand {
        // Swapped in; the value it replaces is released after unlocking.
        var slot: Latest? = value
        lock.locked {
            guard !terminated, upstreams[Self.otherIndex].isSubscribed else { return }
            swap(&latest, &slot)
        }
        withExtendedLifetime(slot) {}
        return .none
    }

    // MARK: Ending

    /// Ends the operator with a completion that `index` sent: the others are cancelled before
    /// it goes out; the one that sent it is not.
    @inlinable
    internal func end(with completion: Subscribers.Completion<Downstream.Failure>, from index: Int) {
        var dropped: Latest?
        var others: [GateUpstream] = []
        let ticket = lock.locked { () -> Ticket in
            guard !terminated, !upstreams[index].isDone else { return .none }
            others = detachAllLocked()
            others[index] = .done
            dropped = latest.take()
            return submitLocked(.completion(completion))
        }
        others.cancelAll()
        withExtendedLifetime(dropped) {}
        run(ticket, handingOver: self) { _, more, own in self.delivered(more: more, own: own) }
    }

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let upstream = lock.locked { () -> Subscription? in
            guard !terminated else { return nil }
            self.demand += demand
            return upstreams[Self.upstreamIndex].subscription
        }
        upstream?.request(demand)
    }

    @inlinable
    package override func takeBuffersLocked() -> Any? { latest.take() }

    @usableFromInline
    package var description: String { "WithLatestFrom" }
}

/// The subscriber `withLatestFrom` attaches to the upstream (`index` 0, its values `Value`) and
/// to the other (`index` 1, its values `Latest`). Values go through `receiveValue`, the parent's
/// method for that side, a function that captures nothing; subscriptions and completions go to
/// the parent with the index.
@usableFromInline
package struct WithLatestFromSide<Downstream: Subscriber, Value, Latest, Input>: Subscriber, CustomStringConvertible {
    @usableFromInline
    package typealias Failure = Downstream.Failure
    @usableFromInline
    package typealias Parent = WithLatestFromSubscription<Downstream, Value, Latest>

    @usableFromInline
    internal let parent: Parent
    @usableFromInline
    internal let index: Int
    @usableFromInline
    internal let receiveValue: (Parent, Input) -> Subscribers.Demand
    @usableFromInline
    package let combineIdentifier = CombineIdentifier()

    @inlinable
    package init(parent: Parent, index: Int, receiveValue: @escaping (Parent, Input) -> Subscribers.Demand) {
        self.parent = parent
        self.index = index
        self.receiveValue = receiveValue
    }

    @inlinable
    package func receive(subscription: Subscription) { parent.receive(subscription: subscription, from: index) }

    @inlinable
    package func receive(_ input: Input) -> Subscribers.Demand { receiveValue(parent, input) }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) { parent.receive(completion: completion, from: index) }

    @usableFromInline
    package var description: String { "WithLatestFrom" }
}

extension WithLatestFromSubscription {
    /// The subscriber to attach to the upstream.
    @inlinable
    package var upstreamSide: WithLatestFromSide<Downstream, Value, Latest, Value> {
        WithLatestFromSide(parent: self, index: Self.upstreamIndex) { $0.receiveUpstream($1) }
    }

    /// The subscriber to attach to the other.
    @inlinable
    package var otherSide: WithLatestFromSide<Downstream, Value, Latest, Latest> {
        WithLatestFromSide(parent: self, index: Self.otherIndex) { $0.receiveOther($1) }
    }
}
