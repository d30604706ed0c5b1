import Sluice
import Synchronization

/// A publisher driven by the test, recording what its subscriber asks of it.
///
/// It accepts one subscriber at a time and, unless told otherwise, hands it a subscription at
/// once. The test then sends values and a completion by hand, and can misbehave on purpose:
/// send without demand, send after completion, complete twice, or hand over a second
/// subscription. ``demandLog`` records every `request` and `cancel` the subscriber makes, and
/// ``outstandingDemand`` says how much it may still send without breaking the contract.
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// What the subscriber asked of the publisher.
    public enum DemandEvent: Equatable, CustomStringConvertible {
        case requested(Subscribers.Demand)
        case cancelled

        public var description: String {
            switch self {
            case .requested(let demand): return "requested(\(demand))"
            case .cancelled: return "cancelled"
            }
        }
    }

    private struct State {
        var subscriber: AnySubscriber<Output, Failure>?
        var log: [DemandEvent] = []
        var outstanding = Subscribers.Demand.none
        var subscriptionCount = 0
    }

    private let lock = Lock()
    private var state = State()
    private let sendsSubscriptionOnSubscribe: Bool
    /// The description of the subscriptions this publisher hands out.
    public let subscriptionName: String

    /// - Parameters:
    ///   - sendsSubscriptionOnSubscribe: hand the subscriber a subscription as soon as it
    ///     subscribes (otherwise call ``sendSubscription()``).
    ///   - subscriptionName: what the subscription's `description` returns.
    public init(sendsSubscriptionOnSubscribe: Bool = true, subscriptionName: String = "TestSubscription") {
        self.sendsSubscriptionOnSubscribe = sendsSubscriptionOnSubscribe
        self.subscriptionName = subscriptionName
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.locked { state.subscriber = AnySubscriber(subscriber) }
        if sendsSubscriptionOnSubscribe {
            sendSubscription()
        }
    }

    /// Whether a subscriber has subscribed.
    public var hasSubscriber: Bool { lock.locked { state.subscriber != nil } }

    /// How many subscriptions have been handed out.
    public var subscriptionCount: Int { lock.locked { state.subscriptionCount } }

    /// Every request and cancel, in order, across all subscriptions.
    public var demandLog: [DemandEvent] { lock.locked { state.log } }

    /// The demand granted and not yet used.
    public var outstandingDemand: Subscribers.Demand { lock.locked { state.outstanding } }

    /// Whether the subscriber has cancelled.
    public var isCancelled: Bool { demandLog.contains(.cancelled) }

    /// Hands the current subscriber a (new) subscription.
    public func sendSubscription() {
        guard let subscriber = lock.locked({ () -> AnySubscriber<Output, Failure>? in
            state.subscriptionCount += 1
            return state.subscriber
        }) else { return }
        subscriber.receive(subscription: Link(self))
    }

    /// Sends a value, whether or not there is demand for it, and returns the subscriber's answer.
    @discardableResult
    public func send(_ value: Output) -> Subscribers.Demand {
        guard let subscriber = lock.locked({ () -> AnySubscriber<Output, Failure>? in
            state.outstanding -= 1
            return state.subscriber
        }) else { return .none }
        let more = subscriber.receive(value)
        lock.locked { state.outstanding += more }
        return more
    }

    /// Sends a completion (as many times as the test likes).
    public func send(completion: Subscribers.Completion<Failure>) {
        lock.locked { state.subscriber }?.receive(completion: completion)
    }

    /// Drops the subscriber, as a publisher does once it is done with it.
    public func releaseSubscriber() {
        lock.locked { state.subscriber = nil }
    }

    private func record(_ event: DemandEvent) {
        lock.locked {
            state.log.append(event)
            if case .requested(let demand) = event { state.outstanding += demand }
        }
    }

    private final class Link: Subscription, CustomStringConvertible, @unchecked Sendable {
        weak var publisher: TestPublisher?
        let name: String

        init(_ publisher: TestPublisher) {
            self.publisher = publisher
            name = publisher.subscriptionName
        }

        func request(_ demand: Subscribers.Demand) { publisher?.record(.requested(demand)) }
        func cancel() { publisher?.record(.cancelled) }
        var description: String { name }
    }
}
