import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("ReplaceEmpty")
struct ReplaceEmptyTests {
    @Test func anEmptyStreamIsReplacedByTheElement() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.replaceEmpty(with: 42).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(42), .completion(.finished)])
    }

    @Test func aStreamWithValuesIsLeftAlone() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.replaceEmpty(with: 42).subscribe(subscriber)
        #expect(upstream.send(3) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(3), .completion(.finished)])
    }

    @Test func failureIsForwardedAtOnceEvenWithoutDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        upstream.replaceEmpty(with: 42).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 2)))
        subscriber.request(.unlimited)
        #expect(upstream.send(-1) == .none)
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .completion(.failure(TestError(code: 2)))])
    }

    @Test func theReplacementWaitsForDemand() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.replaceEmpty(with: 22).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceEmpty")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(22), .completion(.finished)])
        subscriber.request(.max(1))
        #expect(subscriber.events.count == 3)
    }

    @Test func requestsUnlimitedAfterHandingItselfDownstreamAndForwardsRequests() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(42), onValue: { _ in .max(4) })
        upstream.replaceEmpty(with: 832).subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.max(42)), .requested(.unlimited)])
        #expect(upstream.send(0) == .max(4))
        subscriber.request(.max(95))
        subscriber.request(.max(5))
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(50))
        #expect(upstream.send(8) == .none)
        #expect(upstream.demandLog == [
            .requested(.max(42)), .requested(.unlimited), .requested(.max(95)), .requested(.max(5)), .cancelled,
        ])
        #expect(subscriber.values == [0])
    }

    @Test func laterCompletionsAreIgnored() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.replaceEmpty(with: 33).subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(33), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited), .requested(.unlimited)])
    }

    @Test func cancelStopsEverything() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.replaceEmpty(with: -7).subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.unlimited)
        subscriber.cancel()
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceEmpty")])
        #expect(upstream.demandLog == [.requested(.unlimited), .requested(.unlimited), .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.eraseToAnyPublisher().replaceEmpty(with: 0).subscribe(subscriber)
        // The operator asks the sequence for everything; values are passed on regardless.
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions == [.finished])
        let empty = TestSubscriber<Int, Never>(initialDemand: .none)
        Empty<Int, Never>().replaceEmpty(with: 7).subscribe(empty)
        #expect(empty.values.isEmpty)
        empty.request(.max(1))
        #expect(empty.values == [7])
    }

    @Test func reentrantRequestFromInsideReceiveSubscriptionIsForwardedFirst() {
        let upstream = TestPublisher<Int, Never>()
        var seenInside: [TestPublisher<Int, Never>.DemandEvent] = []
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(3),
            onSubscription: { _ in seenInside = upstream.demandLog })
        upstream.replaceEmpty(with: 1).subscribe(subscriber)
        #expect(seenInside.isEmpty)
        #expect(upstream.demandLog == [.requested(.max(3)), .requested(.unlimited)])
    }

    @Test func signalsBeforeTheSubscriptionAreIgnoredAndAnEarlyCancelDoesNothing() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.replaceEmpty(with: 742).subscribe(subscriber)
        #expect(upstream.send(213) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events.isEmpty)
        (upstream.inner as? Subscription)?.cancel()
        let subscription = ProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.history == [.requested(.unlimited)])
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.replaceEmpty(with: 22).subscribe(subscriber)
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        subscriber.cancel()
        #expect(second.history == [.cancelled])
        #expect(first.history == [.requested(.unlimited), .cancelled, .cancelled])
    }

    @Test func descriptionAndMirror() {
        let upstream = InnerProbe<Int, Never>()
        upstream.replaceEmpty(with: 0).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "ReplaceEmpty")
        #expect(upstream.innerPlaygroundDescription == "ReplaceEmpty")
        #expect(upstream.innerMirrorLabels.isEmpty)
    }

    @Test func isEquatable() {
        let a = Publishers.ReplaceEmpty(upstream: Just(1), output: 2)
        #expect(a == Publishers.ReplaceEmpty(upstream: Just(1), output: 2))
        #expect(a != Publishers.ReplaceEmpty(upstream: Just(1), output: 3))
        #expect(a != Publishers.ReplaceEmpty(upstream: Just(0), output: 2))
    }

    @Test func keepsTheDownstreamUntilTheReplacementIsDeliveredThenReleasesIt() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        var subscription: Subscription?
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, onSubscription: { subscription = $0 })
            weakSubscriber = subscriber
            upstream.replaceEmpty(with: 1).subscribe(subscriber)
            upstream.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber != nil)
        subscription?.request(.max(1))
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentFinishAndRequestDeliverTheReplacementOnce() async {
        for _ in 0..<200 {
            let upstream = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            upstream.replaceEmpty(with: 5).subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { upstream.send(completion: .finished) }
                group.addTask { subscriber.request(.max(1)) }
            }
            #expect(subscriber.values == [5])
            #expect(subscriber.completions == [.finished])
            #expect(!subscriber.sawConcurrentSignals)
        }
    }
}
