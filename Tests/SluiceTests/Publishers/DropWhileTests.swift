import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("DropWhile and TryDropWhile")
struct DropWhileTests {
    @Test func dropsWhileThePredicateHoldsThenRepublishesEverything() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.drop { value in
            calls += 1
            return value.isMultiple(of: 2)
        }.subscribe(subscriber)
        let answers = [2, 4, 6, 7, 8, 9].map { upstream.send($0) }
        #expect(answers == [.max(1), .max(1), .max(1), .none, .none, .none])
        upstream.send(completion: .finished)
        #expect(upstream.send(10) == .none)
        #expect(subscriber.events == [
            .subscription("DropWhile"), .value(7), .value(8), .value(9), .completion(.finished),
        ])
        // The predicate is not called again after it first returns false.
        #expect(calls == 4)
    }

    @Test func forwardsRequestsOneForOneAndReturnsTheDownstreamsDemand() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(42), onValue: { _ in .max(4) })
        upstream.drop { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(upstream.send(0) == .max(1))
        subscriber.request(.max(95))
        subscriber.request(.max(5))
        #expect(upstream.send(3) == .max(4))
        #expect(upstream.send(8) == .max(4))
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(50))
        #expect(upstream.send(9) == .none)
        #expect(upstream.demandLog == [.requested(.max(42)), .requested(.max(95)), .requested(.max(5)), .cancelled])
        #expect(subscriber.values == [3, 8])
    }

    @Test func forwardsTheUpstreamsCompletionOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.drop { _ in true }.subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("DropWhile"), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().drop { $0 < 5 }.subscribe(subscriber)
        #expect(subscriber.values == [5])
        subscriber.request(.max(2))
        #expect(subscriber.values == [5, 6, 7])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [5, 6, 7, 8, 9, 10])
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 4 { subscription?.cancel() }
                return .none
            })
        (1...10).publisher.eraseToAnyPublisher().drop { $0 < 3 }.subscribe(subscriber)
        #expect(subscriber.values == [3, 4])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func signalsBeforeTheSubscriptionAreIgnoredAsInCombine() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, onValue: { _ in .max(42) })
        upstream.drop { _ in false }.subscribe(subscriber)
        #expect(upstream.send(0) == .none)
        upstream.send(completion: .finished)
        // A cancel before the subscription arrives does nothing; the late subscription is
        // neither requested from nor cancelled.
        (upstream.inner as? Subscription)?.cancel()
        let subscription = ProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.history.isEmpty)
        #expect(subscriber.events == [.subscription("DropWhile")])
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let upstream = InnerProbe<Int, Never>()
        upstream.drop { _ in true }.subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        #expect(second.history == [.cancelled])
        #expect(first.history == [.cancelled])
    }

    @Test func mirrorIsEmpty() {
        let upstream = InnerProbe<Int, Never>()
        upstream.drop { _ in true }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "DropWhile")
        #expect(upstream.innerPlaygroundDescription == "DropWhile")
        #expect(upstream.innerMirrorLabels.isEmpty)
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.drop { _ in false }.subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsAreDeliveredSerially() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.drop { $0 < 0 }.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        #expect(Set(subscriber.values) == Set(0..<4_000))
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: TryDropWhile

    @Test func tryDropWhileFailsWithTheThrownErrorAndCancelsUpstream() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryDrop { value in
            calls += 1
            if value == 100 { throw TestError(code: 100) }
            return value.isMultiple(of: 2)
        }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["TryDropWhile"])
        #expect(upstream.send(2) == .max(1))
        #expect(upstream.send(4) == .max(1))
        #expect(upstream.send(100) == .none)
        #expect(upstream.send(9) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 100))
        } else {
            Issue.record("expected a failure")
        }
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(calls == 3)
    }

    @Test func tryDropWhilePassesValuesOnceThePredicateFails() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(2))
        upstream.tryDrop { $0.isMultiple(of: 2) }.subscribe(subscriber)
        let answers = [0, 2, 3, 4, 5].map { upstream.send($0) }
        #expect(answers == [.max(1), .max(1), .none, .none, .none])
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(upstream.send(8) == .none)
        #expect(subscriber.values == [3, 4, 5])
        #expect(subscriber.completions.count == 1)
        #expect(upstream.demandLog == [.requested(.max(2))])
        let probe = InnerProbe<Int, Never>()
        probe.tryDrop { _ in true }.subscribe(TestSubscriber<Int, Error>())
        #expect(probe.innerDescription == "TryDropWhile")
        #expect(probe.innerMirrorLabels.isEmpty)
    }
}
