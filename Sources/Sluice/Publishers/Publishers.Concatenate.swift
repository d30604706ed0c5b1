extension Publishers {
    /// A publisher that emits all of one publisher's elements before those from another
    /// publisher.
    ///
    /// The prefix is subscribed at once; the downstream gets its subscription when the prefix's
    /// arrives. When the prefix finishes, the suffix is subscribed and asked for whatever demand
    /// is left; a failure of the prefix fails the stream and the suffix is never subscribed.
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
        where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output
    {
        public typealias Output = Suffix.Output
        public typealias Failure = Suffix.Failure

        /// The publisher to republish, in its entirety, before republishing elements from
        /// `suffix`.
        public let prefix: Prefix

        /// The publisher to republish only after `prefix` finishes.
        public let suffix: Suffix

        /// Creates a publisher that emits all of one publisher's elements before those from
        /// another publisher.
        @inlinable
        public init(prefix: Prefix, suffix: Suffix) {
            self.prefix = prefix
            self.suffix = suffix
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Suffix.Failure == S.Failure, Suffix.Output == S.Input {
            let inner = ConcatenateSubscription<S, Suffix>(downstream: subscriber, suffix: suffix)
            prefix.receive(subscriber: SideSubscriber(sharingIdentityOf: inner, key: false, role: ConcatenatePrefixRole.self))
        }
    }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {
    /// Whether the two publishers concatenate equal publishers.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.prefix == rhs.prefix && lhs.suffix == rhs.suffix
    }
}

extension Publisher {
    /// Prefixes a publisher's output with the specified values.
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        Publishers.Concatenate(prefix: Publishers.Sequence(sequence: elements), suffix: self)
    }

    /// Prefixes a publisher's output with the specified sequence.
    @inlinable
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
        where Output == S.Element
    {
        Publishers.Concatenate(prefix: Publishers.Sequence(sequence: elements), suffix: self)
    }

    /// Prefixes the output of this publisher with the elements emitted by the given publisher.
    @inlinable
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
        where Failure == P.Failure, Output == P.Output
    {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }

    /// Appends a publisher's output with the specified elements.
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        Publishers.Concatenate(prefix: self, suffix: Publishers.Sequence(sequence: elements))
    }

    /// Appends a publisher's output with the specified sequence.
    @inlinable
    public func append<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
        where Output == S.Element
    {
        Publishers.Concatenate(prefix: self, suffix: Publishers.Sequence(sequence: elements))
    }

    /// Appends the output of this publisher with the elements emitted by the given publisher.
    @inlinable
    public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
        where Failure == P.Failure, Output == P.Output
    {
        Publishers.Concatenate(prefix: self, suffix: publisher)
    }
}

/// What gives a concatenation's prefix subscriber and suffix subscriber types of their own, as
/// Combine's are (both show the subscription's identity).
@usableFromInline
internal enum ConcatenatePrefixRole {}

/// See ``ConcatenatePrefixRole``.
@usableFromInline
internal enum ConcatenateSuffixRole {}

/// The subscription of a concatenation, a fixed set of two upstreams on ``FanInGate``: the
/// prefix (upstream 0), then the suffix (upstream 1), subscribed to once the prefix finishes.
/// Demand accumulates here and is forwarded to whichever side is live; each value uses one,
/// and what the downstream returns is added back (and returned to the side that sent it, as in
/// Combine). `request(.none)` is forwarded, as Combine's is. Both sides report this object's
/// identity as their combine identifier.
@usableFromInline
internal final class ConcatenateSubscription<Downstream: Subscriber, Suffix: Publisher>:
    FanInGate<Downstream, Void>, Subscription, SideParent, DescribedByName, @unchecked Sendable
    where Downstream.Input == Suffix.Output, Downstream.Failure == Suffix.Failure
{
    /// The suffix until it is subscribed to or the subscription ends.
    @usableFromInline @exclusivity(unchecked)
    internal var suffix: Suffix?
    @usableFromInline @exclusivity(unchecked)
    internal var pending = Subscribers.Demand.none

    @inlinable
    internal init(downstream: Downstream, suffix: Suffix) {
        self.suffix = suffix
        super.init(downstream: downstream, count: 2)
    }

    /// The upstream a side's signals come from.
    @inlinable
    internal static func index(fromSuffix: Bool) -> Int { fromSuffix ? 1 : 0 }

    /// The live side's subscription: the prefix's until it finishes, then the suffix's.
    @inlinable
    internal var liveSubscriptionLocked: Subscription? {
        upstreams[0].subscription ?? upstreams[1].subscription
    }

    @inlinable
    internal func receive(subscription: Subscription, from fromSuffix: Bool) {
        // The prefix's subscription goes to the downstream as this one; the suffix's is asked
        // for what the downstream has asked for and not received.
        let accepted = lock.locked { () -> Subscribers.Demand? in
            guard acceptLocked(subscription, at: Self.index(fromSuffix: fromSuffix)) else { return nil }
            return fromSuffix ? pending : Subscribers.Demand.none
        }
        guard let request = accepted else {
            subscription.cancel()
            return
        }
        if !fromSuffix {
            handOver(self)
        } else if request > 0 {
            subscription.request(request)
        }
    }

    @inlinable
    internal func receive(_ input: Downstream.Input, from fromSuffix: Bool) -> Subscribers.Demand {
        let ticket = lock.locked { () -> Ticket in
            guard isSubscribedLocked(Self.index(fromSuffix: fromSuffix)), pending > 0 else { return .none }
            pending -= 1
            return submitLocked(.value(input, ()))
        }
        let returned = run(ticket) { _, demand, own in self.delivered(returned: demand, own: own) }
        return returned ?? .none
    }

    @inlinable
    internal func delivered(returned: Subscribers.Demand, own: Bool) {
        guard returned > 0 else { return }
        let target = lock.locked { () -> Subscription? in
            pending += returned
            return own ? nil : liveSubscriptionLocked
        }
        target?.request(returned)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Downstream.Failure>, from fromSuffix: Bool) {
        switch (completion, fromSuffix) {
        case (.finished, false):
            let (next, previous) = lock.locked { () -> (Suffix?, GateUpstream?) in
                guard isSubscribedLocked(0), let previous = finishLocked(0) else { return (nil, nil) }
                defer { suffix = nil }
                return (suffix, previous)
            }
            withExtendedLifetime(previous) {}
            next?.receive(subscriber: SideSubscriber(sharingIdentityOf: self, key: true, role: ConcatenateSuffixRole.self))
        default:
            let (ticket, previous, dropped) = lock.locked { () -> (Ticket, [GateUpstream], Suffix?) in
                guard isSubscribedLocked(Self.index(fromSuffix: fromSuffix)) else { return (.none, [], nil) }
                defer { suffix = nil }
                return (submitLocked(.completion(completion)), detachAllLocked(), suffix)
            }
            withExtendedLifetime((previous, dropped)) {}
            run(ticket) { _, demand, own in self.delivered(returned: demand, own: own) }
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        let target = lock.locked { () -> Subscription? in
            guard !terminated else { return nil }
            pending += demand
            return liveSubscriptionLocked
        }
        target?.request(demand)
    }

    /// The suffix, not yet subscribed to, released after unlocking at a cancel.
    @inlinable
    override internal func takeBuffersLocked() -> Any? {
        defer { suffix = nil }
        return suffix
    }

    @usableFromInline
    internal var description: String { "Concatenate" }

    @usableFromInline
    internal var sideDescription: String { "Concatenate" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
