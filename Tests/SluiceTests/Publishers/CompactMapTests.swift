import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("CompactMap and TryCompactMap")
struct CompactMapTests {
    // MARK: CompactMap

    @Test func publishesNonNilResultsAndPassesTheSubscriptionThrough() {
        let upstream = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        upstream.compactMap { Int($0) }.subscribe(subscriber)
        #expect(upstream.send("1") == .max(4))
        #expect(upstream.send("a") == .max(1))
        #expect(upstream.send("6") == .max(4))
        #expect(upstream.send("12.4") == .max(1))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .value(6), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(2))])
    }

    @Test func forwardsFailure() {
        let upstream = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.compactMap { Int($0) }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.events == [.subscription("TestSubscription"), .completion(.failure(TestError(code: 3)))])
    }

    @Test func requestsAndCancelsGoStraightToTheUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.compactMap { $0 }.subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(3)), .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().compactMap { $0.isMultiple(of: 2) ? $0 : nil }.subscribe(subscriber)
        #expect(subscriber.values == [2])
        subscriber.request(.max(2))
        #expect(subscriber.values == [2, 4, 6])
        subscriber.request(.unlimited)
        #expect(subscriber.events.last == .completion(.finished))
        #expect(subscriber.values == [2, 4, 6, 8, 10])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 3 { subscription?.cancel() }
                return .none
            })
        (1...100).publisher.eraseToAnyPublisher().compactMap { $0 }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func compactMapOfCompactMapFusesIntoOne() {
        let subject = PassthroughSubject<String, Never>()
        let first = subject.compactMap { Int($0) }
        let fused: Publishers.CompactMap<PassthroughSubject<String, Never>, Int> =
            first.compactMap { $0.isMultiple(of: 2) ? $0 / 2 : nil }
        #expect(fused.upstream === subject)
        let subscriber = TestSubscriber<Int, Never>()
        fused.subscribe(subscriber)
        for text in ["0", "3", "a", "12", "11", "20"] { subject.send(text) }
        #expect(subscriber.values == [0, 6, 10])
        #expect(subscriber.subscriptionNames == ["PassthroughSubject"])
    }

    @Test func mapAfterCompactMapFusesIntoOneCompactMap() {
        let subject = PassthroughSubject<String, Never>()
        let fused: Publishers.CompactMap<PassthroughSubject<String, Never>, String> =
            subject.compactMap { Int($0) }.map { "\($0 * 2)" }
        #expect(fused.upstream === subject)
        let subscriber = TestSubscriber<String, Never>()
        fused.subscribe(subscriber)
        subject.send("1")
        subject.send("x")
        subject.send("5")
        #expect(subscriber.values == ["2", "10"])
    }

    @Test func aSecondSubscriptionIsPassedThroughLikeEverythingElse() {
        // Pass-through operators keep no state: Combine forwards whatever the upstream sends.
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.compactMap { $0 }.subscribe(subscriber)
        upstream.sendSubscription()
        #expect(subscriber.subscriptionNames == ["TestSubscription", "TestSubscription"])
    }

    @Test func innerDescriptionIsCompactMap() {
        let upstream = InnerProbe<Int, Never>()
        upstream.compactMap { $0 }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "CompactMap")
        #expect(upstream.innerPlaygroundDescription == "CompactMap")
        #expect(upstream.innerMirrorLabels.isEmpty)
        #expect(!upstream.innerIsSubscription)
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.compactMap { $0 }.subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsLoseNothing() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.compactMap { $0.isMultiple(of: 2) ? $0 : nil }.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        #expect(Set(subscriber.values) == Set((0..<4_000).filter { $0.isMultiple(of: 2) }))
        #expect(subscriber.values.count == 2_000)
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: TryCompactMap

    @Test func tryCompactMapHasItsOwnSubscriptionAndSkipsNils() {
        let upstream = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(2), onValue: { _ in .max(4) })
        upstream.tryCompactMap { Int($0) }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["TryCompactMap"])
        #expect(upstream.send("1") == .max(4))
        #expect(upstream.send("b") == .max(1))
        #expect(upstream.send("2") == .max(4))
        subscriber.request(.max(5))
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(upstream.send("3") == .none)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.count == 1)
        #expect(upstream.demandLog == [.requested(.max(2)), .requested(.max(5))])
    }

    @Test func tryCompactMapFailsWithTheThrownErrorAndCancelsUpstream() {
        var calls = 0
        let upstream = TestPublisher<String, Never>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(3), onValue: { _ in .max(10) })
        upstream.tryCompactMap { text -> Int? in
            calls += 1
            if text == "throw" { throw TestError(code: 7) }
            return Int(text)
        }.subscribe(subscriber)
        #expect(upstream.send("2") == .max(10))
        #expect(upstream.send("throw") == .none)
        #expect(upstream.send("9") == .none)
        upstream.send(completion: .finished)
        subscriber.request(.max(1000))
        subscriber.cancel()
        #expect(subscriber.values == [2])
        #expect(subscriber.completions.count == 1)
        #expect((subscriber.completion.flatMap { if case .failure(let e) = $0 { e as? TestError } else { nil } }) == TestError(code: 7))
        #expect(upstream.demandLog == [.requested(.max(3)), .cancelled])
        #expect(calls == 2)
    }

    @Test func tryCompactMapForwardsUpstreamFailure() {
        let upstream = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryCompactMap { Int($0) }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 4))
        } else {
            Issue.record("expected a failure")
        }
    }

    @Test func tryCompactMapCancelIsForwardedOnceAndStopsRequests() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryCompactMap { $0 }.subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(upstream.send(1) == .none)
        #expect(subscriber.values.isEmpty)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func tryCompactMapDemandArrivingLater() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .none)
        upstream.tryCompactMap { $0 }.subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(1))
        #expect(upstream.demandLog == [.requested(.max(1))])
        upstream.send(5)
        #expect(subscriber.values == [5])
    }

    @Test func tryCompactMapCancelsASecondSubscription() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(1))
        upstream.tryCompactMap { $0 }.subscribe(subscriber)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
        // The first subscription is still live.
        subscriber.request(.max(2))
        upstream.send(1)
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled, .requested(.max(2))])
        #expect(subscriber.values == [1])
        #expect(subscriber.subscriptionNames == ["TryCompactMap"])
    }

    @Test func tryCompactMapReleasesTheDownstreamAfterFinishing() {
        weak var weakSubscriber: TestSubscriber<Int, Error>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Error>()
            weakSubscriber = subscriber
            upstream.tryCompactMap { $0 }.subscribe(subscriber)
            upstream.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func tryCompactMapOfTryCompactMapFuses() {
        let subject = PassthroughSubject<String, Never>()
        let fused: Publishers.TryCompactMap<PassthroughSubject<String, Never>, Int> =
            subject.tryCompactMap { Int($0) }.compactMap { value -> Int? in
                if value < 0 { throw TestError(code: value) }
                return value.isMultiple(of: 2) ? value : nil
            }
        #expect(fused.upstream === subject)
        let subscriber = TestSubscriber<Int, Error>()
        fused.subscribe(subscriber)
        for text in ["2", "3", "x", "4", "-1", "6"] { subject.send(text) }
        #expect(subscriber.values == [2, 4])
        #expect(subscriber.completions.count == 1)
    }
}
