import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Catch and TryCatch")
struct CatchTests {
    // MARK: Catch

    @Test func replacesAFailedUpstreamWithTheHandlersPublisher() {
        let failing = (0..<10).publisher.tryMap { value -> Int in
            if value < 5 { return value }
            throw TestError(code: value)
        }
        var handled: [Int] = []
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        failing.catch { error -> Publishers.Sequence<[Int], Never> in
            handled.append((error as? TestError)?.code ?? -1)
            return [3, 2, 1, 0].publisher
        }.subscribe(subscriber)
        #expect(subscriber.events == [
            .subscription("Catch"), .value(0), .value(1), .value(2), .value(3), .value(4),
            .value(3), .value(2), .value(1), .value(0), .completion(.finished),
        ])
        #expect(handled == [5])
    }

    @Test func forwardsRequestsUpstreamAndCarriesTheOutstandingDemandOver() {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(12), onValue: { _ in .max(3) })
        upstream.catch { _ in recovery }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["Catch"])
        subscriber.request(.max(5))
        #expect(upstream.demandLog == [.requested(.max(12)), .requested(.max(5))])
        for value in 1...8 {
            #expect(upstream.send(value) == .max(3))
        }
        #expect(recovery.hasSubscriber == false)
        upstream.send(completion: .failure(TestError()))
        // 12 + 5 asked for, 8 delivered, 8 × 3 more asked for: 33 still owed.
        #expect(recovery.demandLog == [.requested(.max(33))])
        #expect(upstream.demandLog == [.requested(.max(12)), .requested(.max(5))])
        #expect(recovery.send(100) == .max(3))
        recovery.send(completion: .finished)
        #expect(subscriber.values == [1, 2, 3, 4, 5, 6, 7, 8, 100])
        #expect(subscriber.completions == [.finished])
    }

    @Test func finishedIsForwardedOnceWithoutCallingTheHandler() {
        let upstream = TestPublisher<Int, TestError>()
        var handlerCalls = 0
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        upstream.catch { error -> Fail<Int, TestError> in
            handlerCalls += 1
            return Fail(error: error)
        }.subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.send(3) == .none)
        #expect(subscriber.events == [.subscription("Catch"), .value(1), .value(2), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(handlerCalls == 0)
    }

    @Test func theHandlersPublisherMayFailToo() {
        let subscriber = TestSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: TestError(code: 1))
            .catch { error in Fail<Int, TestError>(error: TestError(code: error.code + 1)) }
            .subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Catch"), .completion(.failure(TestError(code: 2)))])
    }

    @Test func recoveringIntoJustWaitsForDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Fail<Int, TestError>(error: TestError()).catch { _ in Just(7) }.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Catch")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Catch"), .value(7), .completion(.finished)])
    }

    @Test func withoutOutstandingDemandTheHandlersPublisherIsNotAskedUntilTheDownstreamAsks() {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.catch { _ in recovery }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.demandLog == [])
        #expect(recovery.hasSubscriber)
        #expect(recovery.demandLog == [])
        subscriber.request(.max(12))
        #expect(recovery.demandLog == [.requested(.max(12))])
        #expect(recovery.send(100) == .none)
        #expect(subscriber.events == [.subscription("Catch"), .value(100)])
    }

    @Test func demandMadeWhileTheHandlersPublisherIsSubscribingIsKept() {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        upstream.catch { _ in recovery }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        subscriber.request(.max(10))
        #expect(recovery.demandLog == [])
        recovery.sendSubscription()
        #expect(recovery.demandLog == [.requested(.max(12))])
        #expect(upstream.demandLog == [.requested(.max(3))])
    }

    @Test func cancelWhileTheHandlersPublisherIsSubscribingCancelsItsSubscriptionWhenItArrives() {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        upstream.catch { _ in recovery }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        subscriber.cancel()
        recovery.sendSubscription()
        #expect(recovery.demandLog == [.cancelled])
        recovery.send(1)
        recovery.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Catch")])
        #expect(upstream.demandLog == [.requested(.max(3))])
    }

    @Test func cancelBeforeRecoveringCancelsTheUpstreamAndNeverCallsTheHandler() {
        let upstream = TestPublisher<Int, TestError>()
        var handlerCalls = 0
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(3) })
        upstream.catch { _ -> Just<Int> in
            handlerCalls += 1
            return Just(0)
        }.subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.max(199))
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
        #expect(subscriber.events == [.subscription("Catch")])
        #expect(handlerCalls == 0)
    }

    @Test func cancelAfterRecoveringCancelsTheHandlersPublisher() {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), onValue: { _ in .max(3) })
        upstream.catch { _ in recovery }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        #expect(recovery.send(1) == .max(3))
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(5))
        #expect(recovery.send(2) == .none)
        recovery.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Catch"), .value(1)])
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(recovery.demandLog == [.requested(.max(2)), .cancelled])
        // A subscription the handler's publisher hands over afterwards is cancelled too.
        recovery.sendSubscription()
        #expect(recovery.demandLog == [.requested(.max(2)), .cancelled, .cancelled])
    }

    @Test func aSecondSubscriptionIsCancelledAndTheFirstKeepsWorking() {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.catch { _ in recovery }.subscribe(subscriber)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        recovery.sendSubscription()
        #expect(recovery.demandLog == [.requested(.unlimited), .cancelled])
        recovery.send(2)
        #expect(subscriber.values == [1, 2])
    }

    @Test func limitedDemandOverTwoSequences() {
        let failing = [1, 2, 3].publisher.tryMap { value -> Int in
            if value == 3 { throw TestError() }
            return value
        }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        failing.catch { _ in [10, 20, 30].publisher }.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 10])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 10, 20])
        #expect(subscriber.completions.isEmpty)
        subscriber.request(.unlimited)
        #expect(subscriber.events.last == .completion(.finished))
        #expect(subscriber.values == [1, 2, 10, 20, 30])
    }

    @Test func cancelFromInsideReceiveStopsTheHandlersPublisher() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 12 { subscription?.cancel() }
                return .none
            })
        Fail<Int, TestError>(error: TestError()).catch { _ in (10...100).publisher }.subscribe(subscriber)
        #expect(subscriber.values == [10, 11, 12])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func requestFromInsideReceiveReachesTheHandlersPublisher() {
        let recovery = TestPublisher<Int, Never>()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.request(.max(2))
                return .none
            })
        Fail<Int, TestError>(error: TestError()).catch { _ in recovery }.subscribe(subscriber)
        recovery.send(1)
        #expect(recovery.demandLog == [.requested(.max(1)), .requested(.max(2))])
        recovery.send(2)
        recovery.send(3)
        #expect(subscriber.values == [1, 2, 3])
    }

    @Test func reflectsLikeCombine() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        TestPublisher<Int, TestError>().catch { _ in Just(1) }.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Catch")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["downstream", "demand"])
        #expect(mirror.children.dropFirst().first.map { String(describing: $0.value) } == "max(0)")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Catch")
        #expect(!(subscription is CustomDebugStringConvertible))
    }

    @Test func theHandlersPublisherSeesASubscriberNamedCatch() {
        let probe = SubscriberProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        Fail<Int, TestError>(error: TestError()).catch { _ in probe }.subscribe(subscriber)
        #expect(probe.descriptions == ["Catch"])
        #expect(probe.mirrorLabels == ["downstream", "demand"])
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, TestError>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.catch { _ in Just(0) }.subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func releasesTheDownstreamAfterTheHandlersPublisherFinishes() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.catch { _ in recovery }.subscribe(subscriber)
            upstream.send(completion: .failure(TestError()))
            recovery.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentRequestsWhileRecoveringAreAllPassedOn() async {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.catch { _ in recovery }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<100 { subscriber.request(.max(1)) }
                }
            }
            group.addTask { recovery.sendSubscription() }
        }
        // Whether a request came before the subscription (and was added to the first request)
        // or after it (and was forwarded), every one of them reaches the new publisher.
        let requested = recovery.demandLog.compactMap(\.requestedCount).reduce(0, +)
        #expect(requested == 800)
        #expect(!recovery.demandLog.contains(.cancelled))
    }

    // MARK: TryCatch

    @Test func tryCatchRecoversLikeCatch() {
        let failing = (0..<10).publisher.tryMap { value -> Int in
            if value < 5 { return value }
            throw TestError()
        }
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(1), onValue: { _ in .max(1) })
        failing.tryCatch { _ in [3, 2, 1, 0].publisher }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["TryCatch"])
        #expect(subscriber.values == [0, 1, 2, 3, 4, 3, 2, 1, 0])
        #expect(subscriber.completions.count == 1)
        if case .finished? = subscriber.completion {} else { Issue.record("expected finished") }
    }

    @Test func tryCatchFailsWithTheErrorTheHandlerThrows() {
        let upstream = TestPublisher<Int, TestError>()
        var handled: [TestError] = []
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryCatch { error -> Just<Int> in
            handled.append(error)
            throw TestError(code: 2)
        }.subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .failure(TestError(code: 1)))
        #expect(upstream.send(-1) == .none)
        upstream.send(completion: .failure(TestError(code: 1)))
        upstream.send(completion: .finished)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 2))
        } else {
            Issue.record("expected a failure")
        }
        #expect(upstream.demandLog == [.requested(.unlimited)])
        #expect(handled == [TestError(code: 1)])
    }

    @Test func tryCatchPassesOnTheHandlersPublishersFailureAsError() {
        let subscriber = TestSubscriber<Int, Error>()
        Fail<Int, TestError>(error: TestError(code: 1))
            .tryCatch { _ in Fail<Int, TestError>(error: TestError(code: 5)) }
            .subscribe(subscriber)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 5))
        } else {
            Issue.record("expected a failure")
        }
    }

    @Test func tryCatchCarriesDemandOver() {
        let upstream = TestPublisher<Int, TestError>()
        let recovery = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(4), onValue: { _ in .max(1) })
        upstream.tryCatch { _ in recovery }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError()))
        #expect(recovery.demandLog == [.requested(.max(4))])
    }

    @Test func tryCatchReflectsLikeCombine() throws {
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .none)
        TestPublisher<Int, TestError>().tryCatch { _ in Just(1) }.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "TryCatch")
        #expect(Mirror(reflecting: subscription).children.map(\.label) == ["downstream", "demand"])
    }

    @Test func operatorsKeepTheirParts() {
        let caught = Fail<Int, TestError>(error: TestError()).catch { _ in Just(2) }
        var out: [Int] = []
        _ = caught.handler(TestError()).sink { out.append($0) }
        #expect(out == [2])
        let tryCaught: Publishers.TryCatch<Fail<Int, TestError>, Just<Int>> =
            Fail(error: TestError(code: 4)).tryCatch { _ in Just(3) }
        #expect(tryCaught.upstream == Fail(error: TestError(code: 4)))
        var tried: [Int] = []
        _ = try? tryCaught.handler(TestError()).sink { tried.append($0) }
        #expect(tried == [3])
    }
}
