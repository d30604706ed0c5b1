/// Where an operator's connection to its upstream stands: the one state enum each operator's
/// subscription keeps under its lock (DESIGN.md, Internals).
@usableFromInline
internal enum SubscriptionStatus {
    /// `receive(subscription:)` has not arrived yet.
    case awaitingSubscription
    /// Connected to the upstream through this subscription.
    case subscribed(Subscription)
    /// Finished, failed or cancelled: nothing more goes up or down. (A sink is also `terminal`
    /// while it takes a value at hand, with nothing upstream to cancel: see
    /// `Subscribers.Sink.receiveAtOnce`.)
    case terminal

    @inlinable
    internal var subscription: Subscription? {
        if case .subscribed(let subscription) = self { return subscription }
        return nil
    }

    @inlinable
    internal var isAwaitingSubscription: Bool {
        if case .awaitingSubscription = self { return true }
        return false
    }

    @inlinable
    internal var isTerminal: Bool {
        if case .terminal = self { return true }
        return false
    }

    /// Moves to `subscribed` if no subscription has arrived yet; `false` means the caller must
    /// cancel the extra subscription. Mutating, so that checking the stored state does not copy
    /// it (a copy retains the subscription inside).
    @inlinable
    internal mutating func accept(_ subscription: Subscription) -> Bool {
        guard case .awaitingSubscription = self else { return false }
        self = .subscribed(subscription)
        return true
    }

    /// Like `accept`, for a subscription with nothing left to cancel: moves to `terminal` if no
    /// subscription has arrived yet (the caller delivers everything at once; see
    /// `Subscribers.Sink.receiveAtOnce`).
    @inlinable
    internal mutating func acceptNothingToCancel() -> Bool {
        guard case .awaitingSubscription = self else { return false }
        self = .terminal
        return true
    }
}

/// The state of an operator that sits between an upstream and a downstream: like
/// ``SubscriptionStatus``, but it also owns the downstream, so that reaching `terminal` releases
/// it (a subscriber that keeps its subscription after the end does not keep the chain alive).
@usableFromInline
internal enum LinkState<Downstream> {
    case awaitingSubscription(Downstream)
    case subscribed(Subscription, Downstream)
    case terminal

    @inlinable
    internal var subscription: Subscription? {
        if case .subscribed(let subscription, _) = self { return subscription }
        return nil
    }

    @inlinable
    internal var downstream: Downstream? {
        switch self {
        case .awaitingSubscription(let downstream), .subscribed(_, let downstream): return downstream
        case .terminal: return nil
        }
    }

    /// Whether the subscription has arrived and the link has not ended: the per-value check,
    /// which (unlike a look at ``live``) copies neither the subscription nor the downstream.
    @inlinable
    internal var isSubscribed: Bool {
        if case .subscribed = self { return true }
        return false
    }

    /// The downstream, if the link is subscribed.
    @inlinable
    internal var subscribedDownstream: Downstream? {
        if case .subscribed(_, let downstream) = self { return downstream }
        return nil
    }

    /// Accepts the upstream's subscription if none has arrived yet, returning the downstream to
    /// hand it on to; `nil` means the caller must cancel the extra subscription.
    @inlinable
    internal mutating func accept(_ subscription: Subscription) -> Downstream? {
        guard case .awaitingSubscription(let downstream) = self else { return nil }
        self = .subscribed(subscription, downstream)
        return downstream
    }

    /// Moves to `terminal`, returning the previous state so that the caller releases what it
    /// held after unlocking (see `Lock`: nothing is released under a lock).
    @inlinable
    internal mutating func terminate() -> LinkState {
        let previous = self
        self = .terminal
        return previous
    }

    /// The subscription and downstream, if the link is subscribed.
    @inlinable
    internal var live: (subscription: Subscription, downstream: Downstream)? {
        if case .subscribed(let subscription, let downstream) = self {
            return (subscription, downstream)
        }
        return nil
    }
}
