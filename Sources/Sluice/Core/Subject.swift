/// A publisher that exposes a method for outside callers to publish elements.
///
/// A subject is a publisher that you can use to "inject" values into a stream, by calling its
/// ``send(_:)`` method.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Sends a value to the subscriber.
    func send(_ value: Output)

    /// Sends a completion signal to the subscriber.
    func send(completion: Subscribers.Completion<Failure>)

    /// Provides this subject an upstream subscription, from a publisher that the subject was
    /// subscribed to.
    func send(subscription: Subscription)
}

extension Subject where Output == Void {
    /// Sends a void value to the subscriber.
    @inlinable
    public func send() {
        send(())
    }
}

extension Publisher {
    /// Attaches the specified subject to this publisher, forwarding every value and the
    /// completion to it. Cancelling the returned cancellable stops the forwarding.
    @inlinable
    public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable
        where Failure == S.Failure, Output == S.Output
    {
        let subscriber = SubjectSubscriber(subject)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}

/// The subscriber that feeds a subject: it hands itself to the subject as the subscription, so
/// the subject decides how much to request and can cancel it. After the first completion it
/// forwards nothing more; before its subscription arrives it forwards nothing either (a value or
/// a completion a broken upstream sends first is dropped, as Combine drops it).
///
/// As in Combine, it holds the subject weakly: the chain feeding a subject does not keep the
/// subject alive (the subject's own subscribers and whoever made it do). Once the subject is
/// gone, what the upstream sends goes nowhere, and cancelling still cancels the upstream.
@usableFromInline
internal final class SubjectSubscriber<Downstream: Subject>: Subscriber, Subscription,
    DescribedByName,
    @unchecked Sendable
{
    @usableFromInline
    internal typealias Input = Downstream.Output
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let lock = Lock()

    @usableFromInline
    @exclusivity(unchecked)
    internal weak var subject: Downstream?

    @usableFromInline
    @exclusivity(unchecked)
    internal var upstream = SubscriptionStatus.awaitingSubscription

    @inlinable
    internal init(_ subject: Downstream) {
        self.subject = subject
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let target = lock.locked { () -> Downstream? in
            guard upstream.isAwaitingSubscription, let current = self.subject else { return nil }
            upstream = .subscribed(subscription)
            return current
        }
        guard let target else {
            subscription.cancel()
            return
        }
        target.send(subscription: self)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        guard let target = lock.locked({ upstream.isSubscribed ? self.subject : nil }) else { return .none }
        target.send(input)
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let (target, subscription) = lock.locked { () -> (Downstream?, Subscription?) in
            guard upstream.isSubscribed else { return (nil, nil) }
            defer {
                upstream = .terminal
                self.subject = nil
            }
            return (self.subject, upstream.subscription)
        }
        withExtendedLifetime(subscription) {
            target?.send(completion: completion)
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.locked { upstream.subscription }?.request(demand)
    }

    @inlinable
    internal func cancel() {
        let (subscription, target) = lock.locked { () -> (Subscription?, Downstream?) in
            defer {
                upstream = .terminal
                subject = nil
            }
            return (upstream.subscription, self.subject)
        }
        withExtendedLifetime(target) {
            subscription?.cancel()
        }
    }

    @usableFromInline
    internal var description: String { "Subject" }

    @usableFromInline
    internal var customMirror: Mirror {
        let (target, subscription) = lock.locked { (self.subject, self.upstream.subscription) }
        return Mirror(self, children: ["downstreamSubject": target as Any, "upstreamSubscription": subscription as Any,
                                       "subject": target as Any])
    }
}
