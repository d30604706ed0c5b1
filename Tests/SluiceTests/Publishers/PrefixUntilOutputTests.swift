import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("PrefixUntilOutput")
struct PrefixUntilOutputTests {
    @Test func republishesUntilTheOtherPublisherEmitsThenCancelsAndFinishes() {
        let trigger = TestPublisher<String, Never>()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(2) })
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(subscriber.subscriptionNames.count == 1)
        #expect(subscriber.subscriptionNames.first?.contains("PrefixUntilOutput") == true)
        #expect(upstream.demandLog == [.requested(.max(3))])
        #expect(trigger.demandLog == [.requested(.max(1))])
        #expect(upstream.send(1) == .max(2))
        #expect(upstream.send(2) == .max(2))
        #expect(trigger.send("stop") == .none)
        #expect(upstream.send(3) == .none)
        #expect(trigger.send("again") == .none)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions == [.finished])
        #expect(upstream.demandLog == [.requested(.max(3)), .cancelled])
        // The trigger is not cancelled when it fires.
        #expect(trigger.demandLog == [.requested(.max(1))])
    }

    @Test func subscribesToTheOtherPublisherFirst() {
        var order: [String] = []
        let trigger = TestPublisher<Int, Never>()
        let upstream = TestPublisher<Int, Never>()
        let publisher = Deferred { () -> TestPublisher<Int, Never> in
            order.append("upstream")
            return upstream
        }.prefix(untilOutputFrom: Deferred { () -> TestPublisher<Int, Never> in
            order.append("other")
            return trigger
        })
        publisher.subscribe(TestSubscriber<Int, Never>())
        #expect(order == ["other", "upstream"])
    }

    @Test func requestsAreForwardedIncludingNone() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.prefix(untilOutputFrom: TestPublisher<Int, Never>()).subscribe(subscriber)
        subscriber.request(.none)
        subscriber.request(.max(4))
        #expect(upstream.demandLog == [.requested(.none), .requested(.max(4))])
    }

    @Test func cancelCancelsTheUpstreamThenTheTriggerOnce() {
        var log: [String] = []
        let upstream = InnerProbe<Int, Never>()
        let trigger = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        let triggerSubscription = ProbeSubscription { log.append("trigger") }
        trigger.send(subscription: triggerSubscription)
        let upstreamSubscription = ProbeSubscription { log.append("upstream") }
        upstream.send(subscription: upstreamSubscription)
        subscriber.cancel()
        subscriber.request(.max(42))
        subscriber.cancel()
        #expect(log == ["upstream", "trigger"])
        #expect(upstreamSubscription.history == [.cancelled])
        #expect(triggerSubscription.history == [.requested(.max(1)), .cancelled])
    }

    @Test func anUpstreamCompletionCancelsTheTriggerFirst() {
        let trigger = TestPublisher<Int, Never>()
        let upstream = TestPublisher<Int, TestError>()
        var triggerLogAtFinish: [TestPublisher<Int, Never>.DemandEvent] = []
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .none,
            onCompletion: { _ in triggerLogAtFinish = trigger.demandLog })
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 6)))
        #expect(subscriber.completions == [.failure(TestError(code: 6))])
        #expect(triggerLogAtFinish == [.requested(.max(1)), .cancelled])
        #expect(upstream.demandLog.isEmpty)
        #expect(trigger.send(1) == .none)
        #expect(subscriber.completions.count == 1)
    }

    @Test func aTriggerThatCompletesWithoutAValueLetsEverythingThrough() {
        for completion in [Subscribers.Completion<TestError>.finished, .failure(TestError())] {
            let trigger = TestPublisher<Int, TestError>()
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none, onValue: { _ in .max(2) })
            upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
            trigger.send(completion: completion)
            #expect(trigger.send(42) == .none)
            #expect(upstream.send(1) == .max(2))
            #expect(subscriber.values == [1])
            #expect(subscriber.completions.isEmpty)
            #expect(upstream.demandLog.isEmpty)
            #expect(trigger.demandLog == [.requested(.max(1))])
        }
    }

    @Test func aTriggerFiringBeforeTheUpstreamsSubscriptionFinishesAtOnce() {
        // As in Combine: the downstream gets `.finished` without ever getting a subscription,
        // and the upstream's late subscription is cancelled.
        let trigger = TestPublisher<Int, Never>()
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(subscriber.events.isEmpty)
        #expect(trigger.send(-1) == .none)
        #expect(subscriber.events == [.completion(.finished)])
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
        #expect(subscriber.events == [.completion(.finished)])
        #expect(trigger.demandLog == [.requested(.max(1))])
    }

    @Test func signalsBeforeTheUpstreamsSubscription() {
        let trigger = TestPublisher<Int, Never>()
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _ in .max(42) })
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(upstream.send(31) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events.isEmpty)
        #expect(trigger.demandLog == [.requested(.max(1)), .cancelled])
        let late = ProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.history == [.cancelled])
    }

    @Test func aValueFromTheTriggerBeforeItsSubscriptionIsIgnored() {
        let trigger = InnerProbe<Int, Never>()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(trigger.send(31) == .none)
        #expect(subscriber.events.count == 1)
        #expect(upstream.demandLog.isEmpty)
    }

    @Test func secondSubscriptionsAreCancelled() {
        let upstream = InnerProbe<Int, Never>()
        let trigger = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        let triggerFirst = ProbeSubscription()
        let triggerSecond = ProbeSubscription()
        trigger.send(subscription: triggerFirst)
        trigger.send(subscription: triggerSecond)
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        #expect(triggerFirst.history == [.requested(.max(1))])
        #expect(triggerSecond.history == [.cancelled])
        #expect(second.history == [.cancelled])
        #expect(first.history == [.cancelled])
        subscriber.cancel()
        #expect(first.history == [.cancelled, .cancelled])
        #expect(triggerFirst.history == [.requested(.max(1)), .cancelled])
    }

    @Test func bothInnerSubscribersShareOneIdentityAndHaveNoCustomDescription() throws {
        let upstream = InnerProbe<Int, Never>()
        let trigger = InnerProbe<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerCombineIdentifier != nil)
        #expect(upstream.innerCombineIdentifier == trigger.innerCombineIdentifier)
        let inner = try #require(upstream.inner)
        let triggerInner = try #require(trigger.inner)
        #expect(!(inner is CustomStringConvertible))
        #expect(!(triggerInner is CustomStringConvertible))
        #expect(!(inner is CustomReflectable))
        #expect(!(inner is CustomPlaygroundDisplayConvertible))
        #expect(upstream.innerDescription?.contains("PrefixUntilOutput") == true)
    }

    @Test func limitedDemand() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        upstream.send(1)
        subscriber.request(.max(2))
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(2))])
        upstream.send(2)
        trigger.send(())
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions == [.finished])
    }

    @Test func aTriggerFiredFromInsideTheDownstreamFinishesRightAfterThatValue() {
        let trigger = PassthroughSubject<Void, Never>()
        let upstream = TestPublisher<Int, Never>()
        var eventsSeenAfterTrigger: Int?
        var subscriberRef: TestSubscriber<Int, Never>?
        let subscriber = TestSubscriber<Int, Never>(onValue: { value in
            if value == 2 {
                trigger.send(())
                eventsSeenAfterTrigger = subscriberRef?.events.count
            }
            return .none
        })
        subscriberRef = subscriber
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        // `.finished` is not delivered inside the value's delivery, but right after it.
        #expect(eventsSeenAfterTrigger == 3)
        #expect(subscriber.events == [subscriber.events[0], .value(1), .value(2), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(!subscriber.sawConcurrentSignals)
        subscriberRef = nil
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        let trigger = PassthroughSubject<Void, Never>()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 {
                    trigger.send(())
                    subscription?.cancel()
                }
                return .none
            })
        (1...10).publisher.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        // The trigger fired first, but the downstream cancelled before `.finished` could be
        // delivered: nothing reaches it after the cancel.
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterTheTrigger() {
        weak var cancelled: TestSubscriber<Int, Never>?
        weak var triggered: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        do {
            let first = TestSubscriber<Int, Never>()
            cancelled = first
            subject.prefix(untilOutputFrom: trigger).subscribe(first)
            first.cancel()
            first.releaseSubscriptions()
            let second = TestSubscriber<Int, Never>()
            triggered = second
            subject.prefix(untilOutputFrom: trigger).subscribe(second)
            trigger.send(())
            second.releaseSubscriptions()
        }
        #expect(cancelled == nil)
        #expect(triggered == nil)
    }

    @Test func aTriggerOnAnotherThreadNeverOverlapsAnUpstreamDelivery() async {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Void, Never>()
            let subscriber = TestSubscriber<Int, Never>(onValue: { _ in
                // Widen the window in which the trigger can arrive mid-delivery.
                for _ in 0..<100 { _ = ProcessInfo.processInfo.systemUptime }
                return .none
            })
            upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for i in 0..<300 { upstream.send(i) } }
                group.addTask { trigger.send(()) }
            }
            #expect(subscriber.completions == [.finished])
            #expect(subscriber.events.last == .completion(.finished))
            #expect(subscriber.values == Array(0..<subscriber.values.count))
            #expect(!subscriber.sawConcurrentSignals)
        }
    }
}
