import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("PrefixWhile and TryPrefixWhile")
struct PrefixWhileTests {
    @Test func republishesWhileThePredicateHoldsThenCancelsAndFinishes() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        upstream.prefix { value in
            calls += 1
            return value < 4
        }.subscribe(subscriber)
        let answers = [1, 2, 3, 4, 5, 6].map { upstream.send($0) }
        #expect(answers == [.max(4), .max(4), .max(4), .none, .none, .none])
        upstream.send(completion: .finished)
        #expect(subscriber.events == [
            .subscription("PrefixWhile"), .value(1), .value(2), .value(3), .completion(.finished),
        ])
        #expect(upstream.demandLog == [.requested(.max(2)), .cancelled])
        #expect(calls == 4)
    }

    @Test func forwardsTheUpstreamsCompletionOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.prefix { _ in true }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 8)))
        upstream.send(completion: .finished)
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("PrefixWhile"), .completion(.failure(TestError(code: 8)))])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func forwardsRequestsOneForOneUntilItEnds() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3), onValue: { _ in .max(2) })
        upstream.prefix { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(upstream.send(2) == .max(2))
        subscriber.request(.max(15))
        subscriber.request(.max(5))
        #expect(upstream.send(3) == .none)
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(3)), .requested(.max(15)), .requested(.max(5)), .cancelled])
        #expect(subscriber.events == [.subscription("PrefixWhile"), .value(2), .completion(.finished)])
    }

    @Test func cancelIsForwardedOnce() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix { _ in true }.subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(subscriber.values.isEmpty)
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().prefix { $0 < 5 }.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions.isEmpty)
        subscriber.request(.max(5))
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 { subscription?.cancel() }
                return .none
            })
        (1...10).publisher.eraseToAnyPublisher().prefix { _ in true }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let upstream = InnerProbe<Int, Never>()
        upstream.prefix { _ in true }.subscribe(TestSubscriber<Int, Never>(initialDemand: .none))
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        #expect(second.history == [.cancelled])
        #expect(first.history == [.cancelled])
    }

    @Test func cancelBeforeTheSubscriptionCancelsTheLateSubscription() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.prefix { _ in true }.subscribe(subscriber)
        (upstream.inner as? Subscription)?.cancel()
        let subscription = ProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.history == [.cancelled])
        #expect(subscriber.events.isEmpty)
    }

    @Test func mirrorShowsTheDownstream() {
        let upstream = InnerProbe<Int, Never>()
        upstream.prefix { _ in true }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "PrefixWhile")
        #expect(upstream.innerPlaygroundDescription == "PrefixWhile")
        #expect(upstream.innerMirrorLabels == ["downstream"])
    }

    @Test func releasesTheDownstreamWhenThePredicateEndsTheStream() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.prefix { $0 < 1 }.subscribe(subscriber)
            upstream.send(1)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsEndTheStreamExactlyOnce() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.prefix { $0 < 2_000 }.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        #expect(subscriber.completions == [.finished])
        #expect(subscriber.values.allSatisfy { $0 < 2_000 })
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: TryPrefixWhile

    @Test func tryPrefixWhileFailsWithTheThrownErrorAndCancelsUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(3), onValue: { _ in .max(42) })
        upstream.tryPrefix { value in
            if value == 5 { throw TestError(code: 5) }
            return value.isMultiple(of: 2)
        }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["TryPrefixWhile"])
        #expect(upstream.send(2) == .max(42))
        #expect(upstream.send(4) == .max(42))
        #expect(upstream.send(5) == .none)
        #expect(upstream.send(6) == .none)
        upstream.send(completion: .finished)
        subscriber.request(.max(1000))
        subscriber.cancel()
        #expect(subscriber.values == [2, 4])
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 5))
        } else {
            Issue.record("expected a failure")
        }
        #expect(upstream.demandLog == [.requested(.max(3)), .cancelled])
    }

    @Test func tryPrefixWhileFinishesWhenThePredicateFails() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryPrefix { $0 < 2 }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.values == [1])
        #expect(subscriber.completions.count == 1)
        if case .finished? = subscriber.completion {} else { Issue.record("expected .finished") }
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        let probe = InnerProbe<Int, Never>()
        probe.tryPrefix { _ in true }.subscribe(TestSubscriber<Int, Error>())
        #expect(probe.innerDescription == "TryPrefixWhile")
        #expect(probe.innerMirrorLabels == ["downstream"])
    }
}
