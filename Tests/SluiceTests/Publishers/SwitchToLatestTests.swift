import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("SwitchToLatest and flatMapLatest")
struct SwitchToLatestTests {
    typealias Inner = TestPublisher<Int, TestError>
    typealias Sub = TestSubscriber<Int, TestError>

    @Test func republishesOnlyTheLatestInnerPublisher() {
        let upstream = PassthroughSubject<PassthroughSubject<Int, TestError>, TestError>()
        let first = PassthroughSubject<Int, TestError>()
        let second = PassthroughSubject<Int, TestError>()
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first)
        first.send(1)
        upstream.send(second)
        first.send(2)
        second.send(3)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(3)])
    }

    @Test func cancelsThePreviousInnerBeforeSubscribingTheNext() {
        let upstream = TestPublisher<AnyPublisher<Int, TestError>, TestError>()
        let first = Inner()
        let second = Inner()
        var firstCancelledBeforeSecond = false
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(first.eraseToAnyPublisher())
        upstream.send(Deferred { () -> Inner in
            firstCancelledBeforeSecond = first.isCancelled
            return second
        }.eraseToAnyPublisher())
        #expect(firstCancelledBeforeSecond)
        #expect(first.demandLog == [.requested(.unlimited), .cancelled])
        #expect(second.demandLog == [.requested(.unlimited)])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func finishesOnlyWhenOuterAndCurrentInnerHaveFinished() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.completions.isEmpty)
        inner.send(2)
        inner.send(completion: .finished)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func anInnerFinishingWhileTheOuterIsAliveDoesNothing() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(completion: .finished)
        #expect(subscriber.completions.isEmpty)
        upstream.send(completion: .finished)
        #expect(subscriber.completions == [.finished])
    }

    @Test func innerFailureCancelsTheOuter() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub(initialDemand: .max(1), onValue: { _ in .max(1) })
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        #expect(inner.send(1) == .max(1))
        inner.send(completion: .failure(TestError(code: 3)))
        inner.send(completion: .finished)
        #expect(inner.send(2) == .none)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .completion(.failure(TestError(code: 3)))])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(inner.demandLog == [.requested(.max(1))])
    }

    @Test func outerFailureCancelsTheInner() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        upstream.send(completion: .failure(TestError(code: 4)))
        inner.send(1)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .completion(.failure(TestError(code: 4)))])
        #expect(inner.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func demandCarriesOverFromInnerToInner() {
        let upstream = TestPublisher<Inner, TestError>()
        let subscriber = Sub(initialDemand: .none, onValue: { _ in .max(5) })
        upstream.switchToLatest().subscribe(subscriber)
        let first = Inner()
        upstream.send(first)
        #expect(first.demandLog == [])
        subscriber.request(.max(1))
        #expect(first.demandLog == [.requested(.max(1))])
        first.send(completion: .finished)
        subscriber.request(.max(41))
        subscriber.request(.max(1))
        let second = Inner()
        upstream.send(second)
        #expect(second.demandLog == [.requested(.max(43))])
        #expect(second.send(1) == .max(5))
        #expect(second.send(2) == .max(5))
        let third = Inner()
        upstream.send(third)
        #expect(second.demandLog == [.requested(.max(43)), .cancelled])
        #expect(third.demandLog == [.requested(.max(51))])
        upstream.send(completion: .finished)
        subscriber.request(.max(9))
        #expect(third.demandLog == [.requested(.max(51)), .requested(.max(9))])
    }

    @Test func maxOneReplenishedOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        (1..<4).publisher.map { ($0..<$0 + 2).publisher }.switchToLatest().subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 2, 3, 3, 4])
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancelCancelsInnerThenOuter() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub(initialDemand: .max(42))
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        subscriber.cancel()
        subscriber.cancel()
        inner.send(1)
        #expect(subscriber.events == [.subscription("SwitchToLatest")])
        #expect(inner.demandLog == [.requested(.max(42)), .cancelled])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func reentrantRequestAndCancelInsideReceive() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        var subscription: Subscription?
        let subscriber = Sub(initialDemand: .max(1), onSubscription: { subscription = $0 }, onValue: { value in
            if value == 1 { subscription?.request(.max(1)) }
            if value == 2 { subscription?.cancel() }
            return .none
        })
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        inner.send(2)
        inner.send(3)
        #expect(subscriber.values == [1, 2])
        #expect(inner.demandLog == [.requested(.max(1)), .requested(.max(1)), .cancelled])
    }

    @Test func secondSubscriptionsAreCancelled() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        upstream.send(inner)
        inner.sendSubscription()
        #expect(inner.demandLog == [.requested(.unlimited), .cancelled])
        inner.send(1)
        #expect(subscriber.values == [1])
    }

    /// As in Combine, the current inner publisher stays current after it finishes: a
    /// subscription it sends again is taken, not cancelled, and the outer's end waits for it.
    @Test func theCurrentInnerStaysCurrentAfterItFinishes() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        inner.send(1)
        inner.send(completion: .finished)
        inner.sendSubscription()
        #expect(inner.demandLog == [.requested(.unlimited), .requested(.unlimited)])
        inner.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.completions.isEmpty)
        inner.send(completion: .finished)
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func eventsAfterTheEndAreIgnored() {
        let upstream = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let subscriber = Sub()
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(inner)
        upstream.send(completion: .finished)
        inner.send(completion: .finished)
        inner.send(1)
        upstream.send(Inner())
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("SwitchToLatest"), .completion(.finished)])
    }

    @Test func failureCombinations() {
        var out: [Int] = []
        // The outer cannot fail, the inners can.
        let never = PassthroughSubject<PassthroughSubject<Int, TestError>, Never>()
        let a: Publishers.SwitchToLatest<PassthroughSubject<Int, TestError>, Publishers.SetFailureType<PassthroughSubject<PassthroughSubject<Int, TestError>, Never>, TestError>> = never.switchToLatest()
        // The inners cannot fail, the outer can.
        let failing = PassthroughSubject<PassthroughSubject<Int, Never>, TestError>()
        let b = failing.switchToLatest()
        // Neither can fail.
        let neither = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let c: Publishers.SwitchToLatest<PassthroughSubject<Int, Never>, PassthroughSubject<PassthroughSubject<Int, Never>, Never>> = neither.switchToLatest()
        let inner = PassthroughSubject<Int, Never>()
        var completion: Subscribers.Completion<TestError>?
        let c1 = b.sink(receiveCompletion: { completion = $0 }, receiveValue: { out.append($0) })
        let c2 = c.sink { out.append($0 * 10) }
        let c3 = a.sink(receiveCompletion: { _ in }, receiveValue: { out.append($0 * 100) })
        failing.send(inner)
        neither.send(inner)
        inner.send(1)
        failing.send(completion: .failure(TestError(code: 8)))
        #expect(out == [1, 10])
        #expect(completion == .failure(TestError(code: 8)))
        c1.cancel(); c2.cancel(); c3.cancel()
    }

    @Test func flatMapLatestMapsThenSwitches() {
        let trigger = PassthroughSubject<Int, Never>()
        let subjects = (0..<2).map { _ in PassthroughSubject<String, Never>() }
        var out: [String] = []
        let c = trigger.flatMapLatest { subjects[$0] }.sink { out.append($0) }
        subjects[0].send("early")
        trigger.send(0)
        subjects[0].send("a")
        subjects[1].send("ignored")
        trigger.send(1)
        subjects[0].send("stale")
        subjects[1].send("b")
        #expect(out == ["a", "b"])
        c.cancel()
        // Bridging overloads.
        let failingTrigger = PassthroughSubject<Int, TestError>()
        let d = failingTrigger.flatMapLatest { _ in Just(1) }.sink(receiveCompletion: { _ in }, receiveValue: { out.append("\($0)") })
        failingTrigger.send(0)
        let e = trigger.flatMapLatest { _ in Fail<Int, TestError>(error: TestError()) }.sink(receiveCompletion: { out.append("\($0)") }, receiveValue: { _ in })
        trigger.send(0)
        #expect(out == ["a", "b", "1", "failure(TestError(1))"])
        d.cancel(); e.cancel()
    }

    @Test func releasesEverythingAfterCancelAndAfterFinish() {
        weak var weakSubscriber: Sub?
        weak var weakInner: Inner?
        let upstream = TestPublisher<Inner, TestError>()
        do {
            let inner = Inner()
            weakInner = inner
            let subscriber = Sub()
            weakSubscriber = subscriber
            upstream.switchToLatest().subscribe(subscriber)
            upstream.send(inner)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
            inner.releaseSubscriber()
        }
        upstream.releaseSubscriber()
        #expect(weakSubscriber == nil)
        #expect(weakInner == nil)

        weak var weakFinished: Sub?
        let outer = TestPublisher<Inner, TestError>()
        do {
            let subscriber = Sub()
            weakFinished = subscriber
            outer.switchToLatest().subscribe(subscriber)
            outer.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakFinished == nil)
    }

    @Test func innersSwitchedWhileOthersPublishFromOtherThreads() async {
        let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inners = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.switchToLatest().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for (thread, inner) in inners.enumerated() {
                group.addTask {
                    upstream.send(inner)
                    for i in 0..<2_000 { inner.send(thread * 10_000 + i) }
                }
            }
        }
        let values = subscriber.values
        #expect(Set(values).count == values.count)
        #expect(!subscriber.sawConcurrentSignals)
        // Values from one inner keep their order.
        for thread in 0..<8 {
            let own = values.filter { $0 / 10_000 == thread }
            #expect(own == own.sorted())
        }
    }
}
