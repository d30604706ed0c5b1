import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("CollectByCount")
struct CollectByCountTests {
    typealias Upstream = TestPublisher<Int, TestError>
    typealias Downstream = TestSubscriber<[Int], TestError>

    static func history(_ subscriber: Downstream) -> [String] { subscriber.events.map(\.description) }

    @Test func multipliesDemandAndPublishesFullAndPartialBatches() {
        let upstream = Upstream()
        let subscriber = Downstream(initialDemand: .max(2), onValue: { _ in .max(3) })
        upstream.collect(4).subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.max(8))])
        #expect(Self.history(subscriber) == ["subscription(CollectByCount)"])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .none)
        #expect(Self.history(subscriber) == ["subscription(CollectByCount)"])
        #expect(upstream.send(4) == .max(12))
        for value in 5...7 { #expect(upstream.send(value) == .none) }
        #expect(upstream.send(8) == .max(12))
        #expect(upstream.send(9) == .none)
        #expect(upstream.send(10) == .none)
        #expect(Self.history(subscriber)
            == ["subscription(CollectByCount)", "value([1, 2, 3, 4])", "value([5, 6, 7, 8])"])
        upstream.send(completion: .finished)
        #expect(Self.history(subscriber) == [
            "subscription(CollectByCount)", "value([1, 2, 3, 4])", "value([5, 6, 7, 8])", "value([9, 10])", "finished",
        ])
        #expect(upstream.demandLog == [.requested(.max(8))])
    }

    @Test func laterRequestsAreMultipliedAndUnlimitedStaysUnlimited() {
        let upstream = Upstream()
        let subscriber = Downstream(initialDemand: .none)
        upstream.collect(3).subscribe(subscriber)
        #expect(upstream.demandLog == [])
        subscriber.request(.max(1))
        subscriber.request(.max(5))
        subscriber.request(.unlimited)
        #expect(upstream.demandLog == [.requested(.max(3)), .requested(.max(15)), .requested(.unlimited)])
    }

    @Test func aHugeCountSaturatesDemandAndStillFlushesOnFinish() {
        let upstream = Upstream()
        let subscriber = Downstream(initialDemand: .max(2))
        upstream.collect(.max).subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(Self.history(subscriber) == ["subscription(CollectByCount)", "value([1, 2])", "finished"])
    }

    @Test func finishWithAnEmptyBufferSendsNoEmptyArrayAndIgnoresWhatFollows() {
        let upstream = Upstream()
        let subscriber = Downstream(initialDemand: .unlimited, onValue: { _ in .max(3) })
        upstream.collect(2).subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.send(2) == .max(6))
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.send(3) == .none)
        #expect(upstream.send(4) == .none)
        subscriber.request(.max(2))
        #expect(Self.history(subscriber) == ["subscription(CollectByCount)", "value([1, 2])", "finished"])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func failureDropsThePartialBuffer() {
        let upstream = Upstream()
        let subscriber = Downstream(initialDemand: .unlimited)
        upstream.collect(4).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError(code: 5)))
        upstream.send(completion: .failure(TestError(code: 6)))
        #expect(upstream.send(3) == .none)
        #expect(Self.history(subscriber) == ["subscription(CollectByCount)", "failure(TestError(5))"])
    }

    @Test func cancelStopsEverything() {
        let upstream = Upstream()
        let subscriber = Downstream(initialDemand: .unlimited)
        upstream.collect(4).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(2))
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        // Combine still forwards this `.finished`; Sluice sends nothing after a cancel.
        #expect(Self.history(subscriber) == ["subscription(CollectByCount)"])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func extraSubscriptionsAreCancelled() {
        let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
        let subscriber = Downstream(initialDemand: .max(1))
        upstream.collect(2).subscribe(subscriber)
        let first = ReduceFamily.RecordingSubscription()
        let second = ReduceFamily.RecordingSubscription()
        upstream.subscriber?.receive(subscription: first)
        upstream.subscriber?.receive(subscription: second)
        upstream.subscriber?.receive(subscription: first)
        #expect(first.log == [.requested(.max(2)), .cancelled])
        #expect(second.log == [.cancelled])
        #expect(Self.history(subscriber) == ["subscription(CollectByCount)"])
        subscriber.cancel()
        #expect(first.log == [.requested(.max(2)), .cancelled, .cancelled])
        let third = ReduceFamily.RecordingSubscription()
        upstream.subscriber?.receive(subscription: third)
        #expect(third.log == [.cancelled])
    }

    @Test func signalsBeforeTheSubscription() {
        // A value is ignored; a completion is forwarded, as Combine does.
        do {
            let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
            let subscriber = Downstream(initialDemand: .none)
            upstream.collect(3).subscribe(subscriber)
            #expect(upstream.subscriber?.receive(1) == Subscribers.Demand.none)
            #expect(Self.history(subscriber) == [])
            upstream.subscriber?.receive(completion: .finished)
            #expect(Self.history(subscriber) == ["finished"])
            let late = ReduceFamily.RecordingSubscription()
            upstream.subscriber?.receive(subscription: late)
            #expect(late.log == [.cancelled])
        }
        // A request is dropped; a cancel makes the late subscription be left alone (Combine's
        // upstream sees nothing) and nothing reaches the downstream.
        do {
            let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
            let subscriber = Downstream(initialDemand: .none)
            upstream.collect(3).subscribe(subscriber)
            upstream.inner?.request(.max(1))
            upstream.inner?.cancel()
            let late = ReduceFamily.RecordingSubscription()
            upstream.subscriber?.receive(subscription: late)
            #expect(late.log == [])
            upstream.subscriber?.receive(completion: .finished)
            #expect(Self.history(subscriber) == [])
        }
    }

    @Test func reentrantRequestFromInsideABatch() {
        let upstream = Upstream()
        var subscription: Subscription?
        let subscriber = Downstream(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.request(.max(1))
                return .max(1)
            })
        upstream.collect(2).subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.send(2) == .max(2))
        #expect(upstream.demandLog == [.requested(.max(2)), .requested(.max(2))])
    }

    @Test func cancelFromInsideABatchSuppressesTheRest() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<[Int], Never>(
            initialDemand: .unlimited,
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.cancel()
                return .none
            })
        (1...7).publisher.eraseToAnyPublisher().collect(3).subscribe(subscriber)
        #expect(subscriber.values == [[1, 2, 3]])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func limitedDemandOverASynchronousUpstream() {
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(1))
        (0...10).publisher.eraseToAnyPublisher().collect(5).subscribe(subscriber)
        #expect(subscriber.values == [[0, 1, 2, 3, 4]])
        subscriber.request(.max(1))
        #expect(subscriber.values == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
        #expect(subscriber.completions.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10]])
        #expect(subscriber.completions == [.finished])
    }

    @Test func descriptionAndMirror() throws {
        let upstream = Upstream()
        let subscriber = Downstream(initialDemand: .none)
        upstream.collect(53).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "CollectByCount")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "CollectByCount")
        upstream.send(1)
        let children = Mirror(reflecting: subscription).children.map { ($0.label ?? "", String(describing: $0.value)) }
        #expect(children.map(\.0) == ["downstream", "upstreamSubscription", "buffer", "count"])
        #expect(children[2].1 == "[1]")
        #expect(children[3].1 == "53")
    }

    @Test func releasesTheDownstreamAfterCancelFinishOrFailure() {
        let endings: [(Upstream, Downstream) -> Void] = [
            { _, subscriber in subscriber.cancel() },
            { upstream, _ in upstream.send(completion: .finished) },
            { upstream, _ in upstream.send(completion: .failure(TestError())) },
        ]
        for end in endings {
            let upstream = Upstream()
            weak var weakSubscriber: Downstream?
            do {
                let subscriber = Downstream(initialDemand: .max(1))
                weakSubscriber = subscriber
                upstream.collect(2).subscribe(subscriber)
                upstream.send(1)
                end(upstream, subscriber)
                subscriber.releaseSubscriptions()
            }
            #expect(weakSubscriber == nil)
            #expect(upstream.hasSubscriber)
        }
    }

    @Test func concurrentSendsAreAllBatched() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        subject.collect(10).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.values.count == 800)
        #expect(subscriber.values.allSatisfy { $0.count == 10 })
        #expect(subscriber.values.flatMap { $0 }.sorted() == Array(0..<8_000))
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func isEquatableWhenTheUpstreamIs() {
        let a = Publishers.CollectByCount(upstream: Empty<Int, Never>(), count: 2)
        #expect(a == Publishers.CollectByCount(upstream: Empty<Int, Never>(), count: 2))
        #expect(a != Publishers.CollectByCount(upstream: Empty<Int, Never>(), count: 3))
        #expect(a.count == 2)
    }
}
