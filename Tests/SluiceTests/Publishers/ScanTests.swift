import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Scan and TryScan")
struct ScanTests {
    // MARK: Scan

    @Test func publishesEachPartialResultAndPassesTheSubscriptionThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        upstream.scan(0) { $0 + $1 * 2 }.subscribe(subscriber)
        #expect(upstream.send(2) == .max(4))
        #expect(upstream.send(3) == .max(4))
        #expect(upstream.send(4) == .max(4))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [
            .subscription("TestSubscription"), .value(4), .value(10), .value(18), .completion(.finished),
        ])
        #expect(upstream.demandLog == [.requested(.max(2))])
    }

    @Test func forwardsFailureWithoutCallingTheClosure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.scan(666) { _, _ in
            Issue.record("must not be called")
            return 0
        }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.events == [.subscription("TestSubscription"), .completion(.failure(TestError(code: 3)))])
    }

    @Test func requestsAndCancelsGoStraightToTheUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.scan(0, +).subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(42))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(42)), .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().scan(0, +).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 3, 6])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 3, 6, 10, 15])
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 6 { subscription?.cancel() }
                return .none
            })
        (1...100).publisher.eraseToAnyPublisher().scan(0, +).subscribe(subscriber)
        #expect(subscriber.values == [1, 3, 6])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func innerIsDescribedAsScanAndShowsTheResult() {
        let upstream = InnerProbe<Int, Never>()
        upstream.scan(0, +).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "Scan")
        #expect(upstream.innerPlaygroundDescription == "Scan")
        #expect(upstream.innerMirrorLabels == ["downstream", "result"])
        #expect(upstream.innerMirrorValue("result") == "0")
        #expect(!upstream.innerIsSubscription)
        upstream.send(subscription: ProbeSubscription())
        upstream.send(5)
        #expect(upstream.innerMirrorValue("result") == "5")
    }

    @Test func eachSubscriptionStartsFromTheInitialResult() {
        let publisher = (1...3).publisher.eraseToAnyPublisher().scan(10, +)
        let first = TestSubscriber<Int, Never>()
        let second = TestSubscriber<Int, Never>()
        publisher.subscribe(first)
        publisher.subscribe(second)
        #expect(first.values == [11, 13, 16])
        #expect(second.values == [11, 13, 16])
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.scan(0, +).subscribe(subscriber)
            subject.send(1)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsAccumulateEveryValue() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.scan(0, +).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<1_000 { subject.send(1) }
                }
            }
        }
        #expect(subscriber.values == Array(1...4_000))
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: TryScan

    @Test func tryScanFailsWithTheThrownErrorAndCancelsUpstream() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>(onValue: { _ in .max(3) })
        upstream.tryScan(0) { _, value in
            calls += 1
            if value == 100 { throw TestError(code: 100) }
            return value * 2
        }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["TryScan"])
        #expect(upstream.send(2) == .max(3))
        #expect(upstream.send(3) == .max(3))
        #expect(upstream.send(100) == .none)
        // Unlike Combine, nothing more reaches the downstream after the failure.
        #expect(upstream.send(9) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [4, 6])
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 100))
        } else {
            Issue.record("expected a failure")
        }
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(calls == 3)
    }

    @Test func tryScanForwardsRequestsAndCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .none)
        upstream.tryScan(0) { $0 + $1 }.subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(1))
        upstream.send(5)
        subscriber.request(.max(1))
        upstream.send(6)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(upstream.send(7) == .none)
        #expect(subscriber.values == [5, 11])
        #expect(subscriber.completions.count == 1)
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1))])
    }

    @Test func tryScanCancelIsForwardedOnce() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryScan(0) { $0 + $1 }.subscribe(subscriber)
        #expect(upstream.send(2) == .none)
        subscriber.cancel()
        subscriber.request(.max(42))
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [2])
        #expect(subscriber.completions.isEmpty)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func tryScanBeforeItsSubscriptionActsAsCombineDoes() {
        // A value before the subscription goes through; a completion before it is ignored; a
        // cancel before it does nothing.
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>(onValue: { _ in .max(42) })
        upstream.tryScan(0, +).subscribe(subscriber)
        #expect(upstream.send(1) == .max(42))
        upstream.send(completion: .finished)
        (upstream.inner as? Subscription)?.cancel()
        let subscription = ProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.history == [.requested(.unlimited)])
        #expect(subscriber.events.map(\.description) == ["value(1)", "subscription(TryScan)"])
    }

    @Test func tryScanCancelsASecondSubscription() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .none)
        upstream.tryScan(0, +).subscribe(subscriber)
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        #expect(first.history == [.cancelled])
        #expect(second.history == [.cancelled])
    }

    @Test func tryScanMirrorShowsStatusAndResult() {
        let upstream = InnerProbe<Int, Never>()
        upstream.tryScan(0, +).subscribe(TestSubscriber<Int, Error>())
        #expect(upstream.innerDescription == "TryScan")
        #expect(upstream.innerPlaygroundDescription == "TryScan")
        #expect(upstream.innerMirrorLabels == ["downstream", "status", "result"])
        #expect(upstream.innerMirrorValue("result") == "0")
    }

    @Test func tryScanReleasesTheDownstreamAfterFailure() {
        weak var weakSubscriber: TestSubscriber<Int, Error>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Error>()
            weakSubscriber = subscriber
            upstream.tryScan(0) { _, _ in throw TestError() }.subscribe(subscriber)
            upstream.send(1)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }
}
