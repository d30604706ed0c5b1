import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("IgnoreOutput")
struct IgnoreOutputTests {
    @Test func passesTheUpstreamSubscriptionDownstreamThenRequestsUnlimited() {
        let upstream = TestPublisher<Int, TestError>()
        var logInsideReceiveSubscription: [TestPublisher<Int, TestError>.DemandEvent]?
        let subscriber = TestSubscriber<Never, TestError>(
            initialDemand: .max(42), onSubscription: { _ in logInsideReceiveSubscription = upstream.demandLog })
        upstream.ignoreOutput().subscribe(subscriber)
        #expect(logInsideReceiveSubscription == [])
        #expect(subscriber.subscriptionNames == ["TestSubscription"])
        // The downstream's own request reaches the upstream first: it holds the upstream's
        // subscription itself.
        #expect(upstream.demandLog == [.requested(.max(42)), .requested(.unlimited)])
    }

    @Test func dropsValuesAndForwardsFinished() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Never, TestError>(initialDemand: .max(1))
        upstream.ignoreOutput().subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.events.map(\.description) == ["subscription(TestSubscription)"])
        upstream.send(completion: .finished)
        #expect(subscriber.events.map(\.description) == ["subscription(TestSubscription)", "finished"])
        #expect(upstream.send(3) == .none)
        #expect(subscriber.events.count == 2)
    }

    @Test func forwardsFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Never, TestError>(initialDemand: .none)
        upstream.ignoreOutput().subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.events.map(\.description) == ["subscription(TestSubscription)", "failure(TestError(3))"])
        #expect(subscriber.completions == [.failure(TestError(code: 3))])
    }

    @Test func requestsAndCancelsGoStraightToTheUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Never, TestError>(initialDemand: .none)
        upstream.ignoreOutput().subscribe(subscriber)
        subscriber.request(.max(95))
        subscriber.request(.max(5))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .requested(.max(95)), .requested(.max(5)), .cancelled])
    }

    @Test func everySubscriptionIsForwardedAndRequestedAsInCombine() {
        // IgnoreOutput keeps no state: like Combine's, it forwards each subscription it is given.
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Never, TestError>(initialDemand: .none)
        upstream.ignoreOutput().subscribe(subscriber)
        upstream.sendSubscription()
        #expect(subscriber.subscriptionNames == ["TestSubscription", "TestSubscription"])
        #expect(upstream.demandLog == [.requested(.unlimited), .requested(.unlimited)])
    }

    @Test func limitedDemandOverASynchronousUpstream() {
        let subscriber = TestSubscriber<Never, Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().ignoreOutput().subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancelFromInsideReceiveSubscriptionStopsEverything() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Never, Never>(initialDemand: .none, onSubscription: { $0.cancel() })
        subject.ignoreOutput().subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(subscriber.events.count == 1)
    }

    @Test func descriptionAndMirror() {
        let upstream = ReduceFamily.CapturingPublisher<Int, Never>()
        upstream.ignoreOutput().subscribe(TestSubscriber<Never, Never>())
        let inner = upstream.subscriber.map { String(describing: $0) }
        #expect(inner == "IgnoreOutput")
        #expect(upstream.inner == nil)
        let mirror = upstream.subscriber.map { Mirror(reflecting: $0).children.count }
        #expect(mirror == 0)
        #expect(upstream.subscriber?.playgroundDescription as? String == "IgnoreOutput")
    }

    @Test func releasesTheDownstreamAfterCancelAndFinish() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakCancelled: TestSubscriber<Never, Never>?
        weak var weakFinished: TestSubscriber<Never, Never>?
        do {
            let cancelled = TestSubscriber<Never, Never>()
            weakCancelled = cancelled
            subject.ignoreOutput().subscribe(cancelled)
            cancelled.cancel()
            cancelled.releaseSubscriptions()
        }
        #expect(weakCancelled == nil)
        do {
            let finished = TestSubscriber<Never, Never>()
            weakFinished = finished
            subject.ignoreOutput().subscribe(finished)
            subject.send(completion: .finished)
            finished.releaseSubscriptions()
        }
        #expect(weakFinished == nil)
    }

    @Test func concurrentSendsThenFinish() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Never, Never>()
        subject.ignoreOutput().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.events.map(\.description) == ["subscription(PassthroughSubject)", "finished"])
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func isEquatableWhenTheUpstreamIs() {
        let a = Publishers.IgnoreOutput(upstream: Empty<Int, Never>())
        #expect(a == Publishers.IgnoreOutput(upstream: Empty<Int, Never>()))
        #expect(a != Publishers.IgnoreOutput(upstream: Empty<Int, Never>(completeImmediately: false)))
    }
}
