/// Where an operator's connection to its upstream stands: the one state each operator's
/// subscription keeps under its lock (docs/ARCHITECTURE.md, Internals).
///
/// A phase beside the subscription rather than an enum with the subscription as a payload: the
/// `Subscription` existential makes such an enum address-only, and every look at its case
/// (`if case`, a `switch`, even in a mutating method) copied it through the runtime's value
/// witnesses, measured at a tenth of the instructions of subscribing `Just.map.sink`. The phase
/// is a byte, read in place.
///
/// The subscription is held as a plain existential, with ``NoSubscription`` standing in when
/// there is none, not as `Subscription?`: `Optional` of an existential is itself an enum with an
/// existential payload, and every destroy of one (a local going out of scope, an assignment over
/// it) went through `Optional`'s generic value witness, about 200 instructions each, three of
/// them per cancel of a sink. A plain existential is destroyed by one call to its type's witness.
@usableFromInline
package struct SubscriptionStatus: CustomStringConvertible {
    @usableFromInline
    package enum Phase: UInt8 {
        /// `receive(subscription:)` has not arrived yet.
        case awaitingSubscription
        /// Connected to the upstream through `subscription`.
        case subscribed
        /// Finished, failed or cancelled: nothing more goes up or down. (A sink is also
        /// `terminal` while it takes a value at hand, with nothing upstream to cancel: see
        /// `Subscribers.Sink.receiveAtOnce`.)
        case terminal
    }

    @usableFromInline
    package var phase: Phase
    /// The upstream's subscription while `subscribed`, and ``NoSubscription`` in the other
    /// phases.
    @usableFromInline
    package var held: Subscription

    @inlinable
    package init(phase: Phase, subscription: Subscription?) {
        self.phase = phase
        if let subscription {
            self.held = subscription
        } else {
            self.held = NoSubscription()
        }
    }

    @inlinable
    package static var awaitingSubscription: SubscriptionStatus {
        SubscriptionStatus(phase: .awaitingSubscription)
    }

    @inlinable
    package static func subscribed(_ subscription: Subscription) -> SubscriptionStatus {
        SubscriptionStatus(phase: .subscribed, subscription: subscription)
    }

    @inlinable
    package static var terminal: SubscriptionStatus {
        SubscriptionStatus(phase: .terminal)
    }

    @inlinable
    internal init(phase: Phase) {
        self.phase = phase
        self.held = NoSubscription()
    }

    /// The upstream's subscription while `subscribed`.
    @inlinable
    package var subscription: Subscription? {
        phase == .subscribed ? held : nil
    }

    @inlinable
    package var isAwaitingSubscription: Bool { phase == .awaitingSubscription }

    @inlinable
    package var isSubscribed: Bool { phase == .subscribed }

    @inlinable
    package var isTerminal: Bool { phase == .terminal }

    /// Moves to `subscribed` if no subscription has arrived yet; `false` means the caller must
    /// cancel the extra subscription.
    @inlinable
    package mutating func accept(_ subscription: Subscription) -> Bool {
        guard phase == .awaitingSubscription else { return false }
        phase = .subscribed
        held = subscription
        return true
    }

    /// Like `accept`, for a subscription with nothing left to cancel: moves to `terminal` if no
    /// subscription has arrived yet (the caller delivers everything at once; see
    /// `Subscribers.Sink.receiveAtOnce`).
    @inlinable
    package mutating func acceptNothingToCancel() -> Bool {
        guard phase == .awaitingSubscription else { return false }
        phase = .terminal
        return true
    }

    /// Moves to `terminal` and hands over the subscription, if there was one: the caller cancels
    /// it, or just lets it go, after unlocking (nothing is released under a lock).
    @inlinable
    package mutating func end() -> Subscription? {
        let wasSubscribed = phase == .subscribed
        let taken = endTakingSubscription()
        return wasSubscribed ? taken : nil
    }

    /// `end()` without an `Optional`: hands over the subscription, or ``NoSubscription`` if there
    /// was none, whose `cancel()` does nothing. For the paths that cancel what they take (a
    /// sink's cancel), where an `Optional` would be destroyed through the generic witness.
    @inlinable
    package mutating func endTakingSubscription() -> Subscription {
        phase = .terminal
        var taken: Subscription = NoSubscription()
        swap(&taken, &held)
        return taken
    }

    /// As the enum it stands for would print: `awaitingSubscription`, `subscribed(…)`,
    /// `terminal` (an `Assign`'s mirror shows it).
    @usableFromInline
    package var description: String {
        switch phase {
        case .awaitingSubscription: return "awaitingSubscription"
        case .subscribed: return "subscribed(\(String(describing: held)))"
        case .terminal: return "terminal"
        }
    }
}

/// What ``SubscriptionStatus`` holds when it holds no subscription: requests and cancels do
/// nothing. A structure with no fields, so holding one allocates nothing and destroying one
/// releases nothing.
@usableFromInline
package struct NoSubscription: Subscription {
    @inlinable
    package init() {}

    @inlinable
    package func request(_ demand: Subscribers.Demand) {}

    @inlinable
    package func cancel() {}

    @inlinable
    package var combineIdentifier: CombineIdentifier {
        Subscriptions.empty.combineIdentifier
    }
}

/// The state of an operator that sits between an upstream and a downstream: like
/// ``SubscriptionStatus``, but it also owns the downstream, so that reaching `terminal` releases
/// it (a subscriber that keeps its subscription after the end does not keep the chain alive).
@usableFromInline
package enum LinkState<Downstream> {
    case awaitingSubscription(Downstream)
    case subscribed(Subscription, Downstream)
    case terminal

    @inlinable
    package var subscription: Subscription? {
        if case .subscribed(let subscription, _) = self { return subscription }
        return nil
    }

    @inlinable
    package var downstream: Downstream? {
        switch self {
        case .awaitingSubscription(let downstream), .subscribed(_, let downstream): return downstream
        case .terminal: return nil
        }
    }

    /// Whether the subscription has arrived and the link has not ended: the per-value check,
    /// which (unlike a look at ``live``) copies neither the subscription nor the downstream.
    @inlinable
    package var isSubscribed: Bool {
        if case .subscribed = self { return true }
        return false
    }

    /// Whether the upstream's subscription has yet to arrive (and the link has not ended).
    @inlinable
    package var isAwaitingSubscription: Bool {
        if case .awaitingSubscription = self { return true }
        return false
    }

    /// The downstream, if the link is subscribed.
    @inlinable
    package var subscribedDownstream: Downstream? {
        if case .subscribed(_, let downstream) = self { return downstream }
        return nil
    }

    /// Accepts the upstream's subscription if none has arrived yet, returning the downstream to
    /// hand it on to; `nil` means the caller must cancel the extra subscription.
    @inlinable
    package mutating func accept(_ subscription: Subscription) -> Downstream? {
        guard case .awaitingSubscription(let downstream) = self else { return nil }
        self = .subscribed(subscription, downstream)
        return downstream
    }

    /// Accepts the upstream's subscription as ``accept(_:)`` does, and takes `pending`, the
    /// demand the downstream asked for before it arrived, for the caller to request once it has
    /// handed the downstream its subscription.
    @inlinable
    package mutating func accept(_ subscription: Subscription, takingPending pending: inout Subscribers.Demand)
        -> (downstream: Downstream, pending: Subscribers.Demand)?
    {
        guard let downstream = accept(subscription) else { return nil }
        defer { pending = .none }
        return (downstream, pending)
    }

    /// Moves to `terminal`, returning the previous state so that the caller releases what it
    /// held after unlocking (see `Lock`: nothing is released under a lock).
    @inlinable
    package mutating func terminate() -> LinkState {
        let previous = self
        self = .terminal
        return previous
    }

    /// ``terminate()`` if the link is subscribed; a link still awaiting its subscription (which
    /// Combine leaves open on a completion or a cancel) or already ended stays as it is, and
    /// `.terminal` is returned.
    @inlinable
    package mutating func terminateIfSubscribed() -> LinkState {
        guard case .subscribed = self else { return .terminal }
        return terminate()
    }

    /// The subscription and downstream, if the link is subscribed.
    @inlinable
    package var live: (subscription: Subscription, downstream: Downstream)? {
        if case .subscribed(let subscription, let downstream) = self {
            return (subscription, downstream)
        }
        return nil
    }
}

/// The end of an operator's `receive(subscription:)`, once its link has decided (``LinkState``'s
/// `accept`, `HopDelivery.acceptLocked`): a subscription it did not take, because one had
/// already arrived or the link had ended, is cancelled, as in Combine; otherwise the downstream
/// receives `own`, the operator's subscription. Returns whether the downstream received it.
@inlinable
@discardableResult
package func announce<Downstream: Subscriber>(_ own: Subscription, to downstream: Downstream?,
                                              orCancel upstream: Subscription) -> Bool {
    guard let downstream else {
        upstream.cancel()
        return false
    }
    downstream.receive(subscription: own)
    return true
}
