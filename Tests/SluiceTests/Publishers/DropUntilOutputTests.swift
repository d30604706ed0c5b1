import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("DropUntilOutput")
struct DropUntilOutputTests {
    @Test func dropsUntilTheOtherPublisherEmitsThenRepublishes() {
        let trigger = TestPublisher<String, TestError>()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(5) })
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["DropUntilOutput"])
        #expect(trigger.demandLog == [.requested(.max(1))])
        #expect(upstream.send(1) == .none)
        #expect(trigger.send("go") == .none)
        #expect(upstream.send(2) == .max(5))
        #expect(upstream.send(3) == .max(5))
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .value(2), .value(3), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(2))])
        // The trigger is let go of when it fires, not cancelled.
        #expect(trigger.demandLog == [.requested(.max(1))])
    }

    @Test func handsItsSubscriptionDownstreamThenSubscribesToTheOtherPublisherFirst() {
        var order: [String] = []
        let trigger = TestPublisher<Int, Never>()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { _ in order.append("downstream") })
        Deferred { () -> TestPublisher<Int, Never> in
            order.append("upstream")
            return upstream
        }.drop(untilOutputFrom: Deferred { () -> TestPublisher<Int, Never> in
            order.append("other")
            return trigger
        }).subscribe(subscriber)
        #expect(order == ["downstream", "other", "upstream"])
    }

    @Test func demandBeforeTheUpstreamsSubscriptionIsAccumulated() {
        let trigger = TestPublisher<Int, Never>()
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        subscriber.request(.max(10))
        subscriber.request(.max(4))
        subscriber.request(.none)
        #expect(upstream.demandLog.isEmpty)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(14))])
        subscriber.request(.max(1))
        #expect(upstream.demandLog == [.requested(.max(14)), .requested(.max(1))])
    }

    @Test func demandAndReturnedDemand() {
        let trigger = TestPublisher<Int, Never>()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, onValue: { .max($0) })
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(4))
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        trigger.send(1000)
        let answers = [3, 4, 5, 6, 7].map { upstream.send($0) }
        #expect(answers == [.max(3), .max(4), .max(5), .max(6), .max(7)])
        #expect(subscriber.values == [3, 4, 5, 6, 7])
        #expect(upstream.demandLog == [.requested(.max(4))])
    }

    @Test func aTriggerThatFinishesFirstCancelsTheUpstreamAndFinishesOnce() {
        let trigger = TestPublisher<Int, TestError>()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(100), onValue: { _ in .max(5) })
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        trigger.send(completion: .finished)
        trigger.send(completion: .finished)
        #expect(upstream.send(3) == .none)
        #expect(trigger.send(1000) == .none)
        #expect(upstream.send(4) == .none)
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(100)), .cancelled])
        #expect(trigger.demandLog == [.requested(.max(1))])
    }

    @Test func aTriggerFailureBeforeItFiresFailsTheStream() {
        let trigger = TestPublisher<Int, TestError>()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        trigger.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .completion(.failure(TestError(code: 3)))])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func aTriggerCompletionAfterItFiredIsIgnored() {
        let trigger = TestPublisher<Int, TestError>()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(5) })
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        trigger.send(1000)
        #expect(upstream.send(2) == .max(5))
        trigger.send(completion: .failure(TestError()))
        trigger.send(completion: .finished)
        #expect(upstream.send(3) == .max(5))
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .value(2), .value(3)])
        #expect(upstream.demandLog == [.requested(.max(2))])
    }

    @Test func anUpstreamCompletionIsForwardedAndTheUnfiredTriggerCancelled() {
        let trigger = TestPublisher<Int, TestError>()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 8)))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .completion(.failure(TestError(code: 8)))])
        #expect(trigger.demandLog == [.requested(.max(1)), .cancelled])
    }

    @Test func cancelCancelsTheUpstreamThenTheTriggerOnce() {
        var log: [String] = []
        let upstream = InnerProbe<Int, Never>()
        let trigger = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        let triggerSubscription = ProbeSubscription { log.append("trigger") }
        trigger.send(subscription: triggerSubscription)
        let upstreamSubscription = ProbeSubscription { log.append("upstream") }
        upstream.send(subscription: upstreamSubscription)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(10))
        #expect(upstream.send(1000) == .none)
        upstream.send(completion: .finished)
        let late = ProbeSubscription()
        upstream.send(subscription: late)
        #expect(log == ["upstream", "trigger"])
        #expect(upstreamSubscription.history == [.requested(.max(2)), .cancelled])
        #expect(triggerSubscription.history == [.requested(.max(1)), .cancelled])
        #expect(late.history == [.cancelled])
        #expect(subscriber.events == [.subscription("DropUntilOutput")])
    }

    @Test func triggerSubscriptions() {
        // A duplicate is cancelled; once the trigger has fired, Combine accepts a new one.
        let upstream = TestPublisher<Int, Never>()
        let trigger = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        trigger.send(subscription: first)
        trigger.send(subscription: second)
        #expect(second.history == [.cancelled])
        #expect(trigger.send(1000) == .none)
        let third = ProbeSubscription()
        trigger.send(subscription: third)
        #expect(third.history == [.requested(.max(1))])
        subscriber.cancel()
        #expect(third.history == [.requested(.max(1)), .cancelled])
        #expect(first.history == [.requested(.max(1))])
    }

    @Test func aLateUpstreamSubscriptionAfterTheTriggerFinishedStillGetsTheDemand() {
        // As in Combine; nothing it sends reaches the downstream.
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .none,
            onSubscription: {
                $0.request(.max(10))
                $0.request(.max(4))
            })
        upstream.drop(untilOutputFrom: Empty<Void, Never>()).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .completion(.finished)])
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(14))])
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .completion(.finished)])
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(14)), .cancelled])
    }

    @Test func aSecondUpstreamSubscriptionIsCancelled() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.drop(untilOutputFrom: TestPublisher<Int, Never>()).subscribe(subscriber)
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        subscriber.cancel()
        #expect(second.history == [.cancelled])
        #expect(first.history == [.cancelled, .cancelled])
    }

    @Test func bothInnerSubscribersShareOneIdentityAndDescription() {
        let upstream = InnerProbe<Int, Never>()
        let trigger = InnerProbe<Int, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerCombineIdentifier != nil)
        #expect(upstream.innerCombineIdentifier == trigger.innerCombineIdentifier)
        #expect(upstream.innerDescription == "DropUntilOutput")
        #expect(trigger.innerDescription == "DropUntilOutput")
        #expect(upstream.innerPlaygroundDescription == "DropUntilOutput")
        #expect(trigger.innerPlaygroundDescription == "DropUntilOutput")
        #expect(upstream.innerMirrorLabels.isEmpty)
        #expect(trigger.innerMirrorLabels.isEmpty)
    }

    @Test func isEquatable() {
        let a = Publishers.DropUntilOutput(upstream: Just(1), other: Just(2))
        #expect(a == Publishers.DropUntilOutput(upstream: Just(1), other: Just(2)))
        #expect(a != Publishers.DropUntilOutput(upstream: Just(1), other: Just(3)))
    }

    @Test func limitedDemandOverASequence() {
        let trigger = PassthroughSubject<Void, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        let upstream = PassthroughSubject<Int, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        subscriber.request(.max(2))
        upstream.send(1)
        trigger.send(())
        upstream.send(2)
        upstream.send(3)
        #expect(subscriber.values == [2])
        subscriber.request(.max(1))
        upstream.send(4)
        #expect(subscriber.values == [2, 4])
    }

    @Test func reentrantCancelFromInsideReceive() {
        let trigger = PassthroughSubject<Void, Never>()
        let upstream = PassthroughSubject<Int, Never>()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 { subscription?.cancel() }
                return .none
            })
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        trigger.send(())
        for value in 1...5 { upstream.send(value) }
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterFinishing() {
        weak var cancelled: TestSubscriber<Int, Never>?
        weak var finished: TestSubscriber<Int, Never>?
        let upstream = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        do {
            let first = TestSubscriber<Int, Never>()
            cancelled = first
            upstream.drop(untilOutputFrom: trigger).subscribe(first)
            first.cancel()
            first.releaseSubscriptions()
            let second = TestSubscriber<Int, Never>()
            finished = second
            upstream.drop(untilOutputFrom: trigger).subscribe(second)
            trigger.send(completion: .finished)
            second.releaseSubscriptions()
        }
        #expect(cancelled == nil)
        #expect(finished == nil)
    }

    @Test func aTriggerOnAnotherThreadSplitsTheStreamCleanly() async {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Void, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for i in 0..<500 { upstream.send(i) } }
                group.addTask { trigger.send(()) }
            }
            // Whatever got through is a contiguous tail of the upstream's values.
            let values = subscriber.values
            if let first = values.first {
                #expect(values == Array(first..<500))
            }
            #expect(subscriber.completions.isEmpty)
            #expect(!subscriber.sawConcurrentSignals)
        }
    }

    @Test func aTriggerFinishingOnAnotherThreadEndsTheStreamOnce() async {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Void, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for i in 0..<300 { upstream.send(i) } }
                group.addTask { upstream.send(completion: .finished) }
                group.addTask { trigger.send(completion: .finished) }
            }
            #expect(subscriber.values.isEmpty)
            #expect(subscriber.completions == [.finished])
            #expect(!subscriber.sawConcurrentSignals)
        }
    }
}

@Suite("DropUntilOutput traps")
struct DropUntilOutputTrapTests {
    @Test func aDroppedValueWithoutDemandStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, Never>()
            upstream.drop(untilOutputFrom: TestPublisher<Int, Never>())
                .subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
            upstream.send(0)
        }
    }
}
