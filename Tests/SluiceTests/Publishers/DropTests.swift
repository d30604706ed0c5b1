import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Drop (dropFirst)")
struct DropTests {
    @Test func dropsTheFirstElementsAndRequestsThemOnTop() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(42), onValue: { _ in .max(3) })
        upstream.dropFirst(2).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Drop")])
        #expect(upstream.demandLog == [.requested(.max(44))])
        let answers = [1, 2, 3, 4, 5].map { upstream.send($0) }
        #expect(answers == [.none, .none, .max(3), .max(3), .max(3)])
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("Drop"), .value(3), .value(4), .value(5), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(44))])
    }

    @Test func dropFirstDefaultsToOne() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        let drop = upstream.dropFirst()
        #expect(drop.count == 1)
        drop.subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.max(1))])
    }

    @Test func droppingNothingRequestsNothingUntilAsked() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none, onValue: { _ in .max(1) })
        upstream.dropFirst(0).subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(42))
        #expect(upstream.demandLog == [.requested(.max(42))])
        #expect(upstream.send(1) == .max(1))
        upstream.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.events == [.subscription("Drop"), .value(1), .completion(.failure(TestError(code: 4)))])
    }

    @Test func handsItsSubscriptionDownstreamFirstThenRequestsFromTheUpstream() {
        let upstream = TestPublisher<Int, Never>()
        var seenInside: [TestPublisher<Int, Never>.DemandEvent]?
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .none,
            onSubscription: { _ in seenInside = upstream.demandLog })
        upstream.dropFirst().subscribe(subscriber)
        #expect(seenInside == [])
        #expect(upstream.demandLog == [.requested(.max(1))])
    }

    @Test func demandMadeBeforeTheUpstreamsSubscriptionIsRequestedWithTheCount() {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        upstream.dropFirst(4).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Drop")])
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(14))])
        subscriber.request(.max(2))
        #expect(upstream.demandLog == [.requested(.max(14)), .requested(.max(2))])
    }

    @Test func unlimitedDemandStaysUnlimited() {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        upstream.dropFirst(3).subscribe(TestSubscriber<Int, Never>())
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func cancelIsForwardedOnceAndStopsRequests() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.dropFirst().subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.unlimited)
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
        #expect(subscriber.events == [.subscription("Drop")])
    }

    @Test func nothingIsForwardedAfterTheUpstreamFinishes() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, onValue: { _ in .max(3) })
        upstream.dropFirst(3).subscribe(subscriber)
        upstream.send(completion: .finished)
        subscriber.cancel()
        subscriber.request(.max(312))
        #expect(upstream.send(4) == .none)
        #expect(upstream.demandLog == [.requested(.max(3))])
        #expect(subscriber.events == [.subscription("Drop"), .completion(.finished)])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...6).publisher.eraseToAnyPublisher().dropFirst(2).subscribe(subscriber)
        #expect(subscriber.values == [3])
        subscriber.request(.max(2))
        #expect(subscriber.values == [3, 4, 5])
        subscriber.request(.max(1))
        #expect(subscriber.values == [3, 4, 5, 6])
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
        (1...10).publisher.eraseToAnyPublisher().dropFirst(2).subscribe(subscriber)
        #expect(subscriber.values == [3, 4])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.dropFirst().subscribe(subscriber)
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        #expect(first.history == [.requested(.max(3))])
        upstream.send(subscription: second)
        #expect(second.history == [.cancelled])
        upstream.send(subscription: first)
        #expect(first.history == [.requested(.max(3)), .cancelled])
    }

    @Test func cancelBeforeTheUpstreamsSubscriptionLeavesTheLateSubscriptionAlone() {
        // As in Combine: the late subscription is neither requested from nor cancelled.
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.dropFirst(0).subscribe(subscriber)
        subscriber.cancel()
        let subscription = ProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.history.isEmpty)
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("Drop")])
    }

    @Test func valuesBeforeTheUpstreamsSubscriptionAreProcessed() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, onValue: { _ in .max(42) })
        upstream.dropFirst(1).subscribe(subscriber)
        #expect(upstream.send(0) == .none)
        #expect(upstream.send(1) == .max(42))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Drop"), .value(1), .completion(.finished)])
    }

    @Test func descriptionMirrorAndEquality() {
        let upstream = InnerProbe<Int, Never>()
        upstream.dropFirst(42).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "Drop")
        #expect(upstream.innerPlaygroundDescription == "Drop")
        #expect(upstream.innerMirrorLabels.isEmpty)
        let a = Publishers.Drop(upstream: Just(1), count: 2)
        #expect(a == Publishers.Drop(upstream: Just(1), count: 2))
        #expect(a != Publishers.Drop(upstream: Just(1), count: 3))
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterFinishing() {
        weak var cancelled: TestSubscriber<Int, Never>?
        weak var finished: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        let upstream = TestPublisher<Int, Never>()
        do {
            let first = TestSubscriber<Int, Never>()
            cancelled = first
            subject.dropFirst(2).subscribe(first)
            first.cancel()
            first.releaseSubscriptions()
            let second = TestSubscriber<Int, Never>()
            finished = second
            upstream.dropFirst(2).subscribe(second)
            upstream.send(completion: .finished)
            second.releaseSubscriptions()
        }
        #expect(cancelled == nil)
        #expect(finished == nil)
    }

    @Test func concurrentSendsDropExactlyTheCount() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.dropFirst(100).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        #expect(subscriber.values.count == 3_900)
        #expect(!subscriber.sawConcurrentSignals)
    }
}

@Suite("Drop traps")
struct DropTrapTests {
    @Test func aNegativeCountStopsTheProgramAtSubscribe() async {
        // Creating the publisher is fine; subscribing traps, as in Combine.
        _ = Empty<Int, Never>().dropFirst(-1)
        await #expect(processExitsWith: .failure) {
            Empty<Int, Never>().dropFirst(-1).subscribe(TestSubscriber<Int, Never>())
        }
    }

    @Test func requestingNoneStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            Empty<Int, Never>(completeImmediately: false).dropFirst()
                .subscribe(TestSubscriber<Int, Never>(initialDemand: .none, onSubscription: { $0.request(.none) }))
        }
    }
}
