import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("PassthroughSubject")
struct PassthroughSubjectTests {
    @Test func deliversToEachSubscriberPerItsOwnDemand() {
        let subject = PassthroughSubject<Int, TestError>()
        let unlimited = TestSubscriber<Int, TestError>()
        let one = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        let none = TestSubscriber<Int, TestError>(initialDemand: .none)
        subject.subscribe(unlimited)
        subject.subscribe(one)
        subject.subscribe(none)
        subject.send(1)
        subject.send(2)
        #expect(unlimited.values == [1, 2])
        #expect(one.values == [1])
        #expect(none.values == [])
        none.request(.max(1))
        #expect(none.values == [], "values sent before demand are dropped, not buffered")
        subject.send(3)
        #expect(none.values == [3])
        #expect(unlimited.subscriptionNames == ["PassthroughSubject"])
    }

    @Test func demandReturnedFromReceiveIsAdded() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        subject.subscribe(subscriber)
        for i in 0..<10 { subject.send(i) }
        #expect(subscriber.values == Array(0..<10))
    }

    @Test func completionEndsEveryoneAndLaterSubscribersGetItAtOnce() {
        let subject = PassthroughSubject<Int, TestError>()
        let early = TestSubscriber<Int, TestError>()
        subject.subscribe(early)
        subject.send(completion: .failure(TestError()))
        subject.send(1)
        subject.send(completion: .finished)
        #expect(early.events == [.subscription("PassthroughSubject"), .completion(.failure(TestError()))])
        let late = TestSubscriber<Int, TestError>(initialDemand: .none)
        subject.subscribe(late)
        #expect(late.events == [.subscription("Empty"), .completion(.failure(TestError()))])
    }

    @Test func deliversInSubscriptionOrder() {
        let subject = PassthroughSubject<Int, Never>()
        var order: [Int] = []
        var cancellables: [AnyCancellable] = []
        for index in 0..<20 {
            subject.sink { _ in order.append(index) }.store(in: &cancellables)
        }
        subject.send(0)
        #expect(order == Array(0..<20))
    }

    @Test func reentrantSendFromASinkIsDeliveredNestedAsInCombine() {
        let subject = PassthroughSubject<Int, Never>()
        var log: [String] = []
        let cancellable = subject.sink { value in
            log.append("start \(value)")
            if value == 1 { subject.send(2) }
            log.append("end \(value)")
        }
        subject.send(1)
        #expect(log == ["start 1", "start 2", "end 2", "end 1"])
        cancellable.cancel()
    }

    @Test func cancelInsideReceiveStopsFurtherDelivery() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        var cancellable: AnyCancellable?
        cancellable = subject.sink { value in
            received.append(value)
            cancellable?.cancel()
        }
        subject.send(1)
        subject.send(2)
        #expect(received == [1])
    }

    @Test func aSubscriberCancellingAnotherStopsItsDelivery() {
        let subject = PassthroughSubject<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        let first = TestSubscriber<Int, Never>(onValue: { _ in second.cancel(); return .none })
        subject.subscribe(first)
        subject.subscribe(second)
        subject.send(1)
        #expect(first.values == [1])
        #expect(second.values == [])
    }

    final class RecordingSubscription: Subscription, @unchecked Sendable {
        var log: [String] = []
        func request(_ demand: Subscribers.Demand) { log.append("request \(demand)") }
        func cancel() { log.append("cancel") }
    }

    @Test func upstreamSubscriptionsAreRequestedOnFirstDemandAndCancelledOnDeinit() {
        let upstream = RecordingSubscription()
        var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
        subject!.send(subscription: upstream)
        #expect(upstream.log == [], "no downstream demand yet")
        let subscriber = TestSubscriber<Int, Never>()
        subject!.subscribe(subscriber)
        #expect(upstream.log == ["request unlimited"])
        subscriber.cancel()
        subject = nil
        #expect(upstream.log == ["request unlimited", "cancel"])
    }

    /// Combine's subjects keep the subscriptions they were given after their own completion,
    /// and cancel them when they go, as before it.
    @Test func upstreamSubscriptionsOutliveTheCompletionUntilTheSubjectGoes() {
        weak var passthroughUpstream: RecordingSubscription?
        weak var currentValueUpstream: RecordingSubscription?
        var passthrough: PassthroughSubject<Int, Never>? = PassthroughSubject()
        var currentValue: CurrentValueSubject<Int, Never>? = CurrentValueSubject(0)
        var logs: [() -> [String]] = []
        do {
            let first = RecordingSubscription()
            let second = RecordingSubscription()
            passthroughUpstream = first
            currentValueUpstream = second
            logs = [{ first.log }, { second.log }]
            passthrough!.send(subscription: first)
            currentValue!.send(subscription: second)
        }
        passthrough!.send(completion: .finished)
        currentValue!.send(completion: .finished)
        #expect(passthroughUpstream != nil)
        #expect(currentValueUpstream != nil)
        #expect(logs[0]() == [])
        #expect(logs[1]() == ["request unlimited"])
        passthrough = nil
        currentValue = nil
        #expect(logs[0]() == ["cancel"])
        #expect(logs[1]() == ["request unlimited", "cancel"])
        logs = []
        #expect(passthroughUpstream == nil)
        #expect(currentValueUpstream == nil)
    }

    @Test func subscribingASubjectThroughAPublisher() {
        let upstream = TestPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = upstream.subscribe(subject)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(7)
        #expect(subscriber.values == [7])
        cancellable.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    /// `publisher.subscribe(subject)` holds the subject weakly, as Combine does: its own
    /// subscribers keep it alive, the feeding chain does not.
    @Test func subscribingASubjectDoesNotKeepItAlive() {
        let upstream = TestPublisher<Int, Never>()
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let subscriber = TestSubscriber<Int, Never>()
        var cancellable: AnyCancellable?
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            cancellable = upstream.subscribe(subject)
            subject.subscribe(subscriber)
        }
        #expect(weakSubject != nil, "a subscriber of the subject keeps it alive")
        upstream.send(1)
        #expect(subscriber.values == [1])
        subscriber.cancel()
        subscriber.releaseSubscriptions()
        #expect(weakSubject == nil)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        upstream.send(2)
        cancellable?.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    /// Combine's subject subscriber drops what a broken upstream sends before its subscription:
    /// neither the value nor the completion reaches the subject, which stays open.
    @Test func aSubjectIgnoresWhatArrivesBeforeItsSubscription() {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        let cancellable = upstream.subscribe(subject)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [])
        #expect(subscriber.completions.isEmpty)
        upstream.sendSubscription()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [2])
        #expect(subscriber.completions.count == 1)
        cancellable.cancel()
    }

    @Test func concurrentSendsFromEightThreadsLoseNothingAndNeverOverlap() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
        for subscriber in subscribers { subject.subscribe(subscriber) }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<2_000 { subject.send(thread * 2_000 + i) }
                }
            }
        }
        let expected = Set(0..<16_000)
        for subscriber in subscribers {
            #expect(subscriber.values.count == 16_000)
            #expect(Set(subscriber.values) == expected)
            #expect(!subscriber.sawConcurrentSignals)
        }
        // Every subscriber sees the same order.
        #expect(subscribers.allSatisfy { $0.values == subscribers[0].values })
    }

    @Test func completionRacingValuesComesAfterEveryAcceptedValue() async {
        for _ in 0..<50 {
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            subject.subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                for thread in 0..<4 {
                    group.addTask { for i in 0..<100 { subject.send(thread * 100 + i) } }
                }
                group.addTask { subject.send(completion: .finished) }
            }
            #expect(subscriber.completions == [.finished])
            #expect(subscriber.events.last == .completion(.finished))
            #expect(!subscriber.sawConcurrentSignals)
        }
    }

    @Test func releasesTheSubscriberAfterCancelAndCompletion() {
        weak var weakCancelled: TestSubscriber<Int, Never>?
        weak var weakFinished: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let cancelled = TestSubscriber<Int, Never>()
            let finished = TestSubscriber<Int, Never>()
            weakCancelled = cancelled
            weakFinished = finished
            subject.subscribe(cancelled)
            subject.subscribe(finished)
            cancelled.cancel()
            subject.send(completion: .finished)
        }
        #expect(weakCancelled == nil)
        #expect(weakFinished == nil)
    }
}

@Suite("CurrentValueSubject")
struct CurrentValueSubjectTests {
    @Test func deliversTheCurrentValueOnFirstDemandNotOnSubscribe() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("CurrentValueSubject")])
        subject.send(2)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2])
        subject.value = 3
        #expect(subscriber.values == [2], "no demand left")
        subscriber.request(.max(1))
        #expect(subscriber.values == [2, 3], "a subscriber that missed a value gets the current one on its next demand")
        subject.send(4)
        #expect(subscriber.values == [2, 3])
    }

    @Test func valueSetterSendsEvenEqualValues() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var received: [Int] = []
        let cancellable = subject.sink { received.append($0) }
        subject.value = 1
        subject.value = 1
        subject.send(2)
        #expect(received == [0, 1, 1, 2])
        #expect(subject.value == 2)
        cancellable.cancel()
    }

    @Test func afterCompletionSendDoesNotChangeTheValueButTheSetterDoes() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        subject.send(completion: .finished)
        subject.send(5)
        #expect(subject.value == 0)
        subject.value = 6
        #expect(subject.value == 6)
        #expect(subscriber.events == [.subscription("CurrentValueSubject"), .value(0), .completion(.finished)])
    }

    @Test func requestsUpstreamSubscriptionsAtOnce() {
        let upstream = TestPublisher<Int, Never>()
        let subject = CurrentValueSubject<Int, Never>(0)
        let cancellable = upstream.subscribe(subject)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(3)
        #expect(subject.value == 3)
        cancellable.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func concurrentSendsAndSubscribersNeverOverlap() async {
        let subject = CurrentValueSubject<Int, Never>(-1)
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask { for i in 0..<1_000 { subject.send(thread * 1_000 + i) } }
            }
        }
        #expect(subscriber.values.count == 8_001)
        #expect(!subscriber.sawConcurrentSignals)
    }
}
