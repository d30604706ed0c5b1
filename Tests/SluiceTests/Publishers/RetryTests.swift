import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Retry")
struct RetryTests {
    @Test func resubscribesAfterEachFailureAndRequestsWhatIsStillOwed() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(5))
        upstream.retry(3).subscribe(subscriber)
        #expect(upstream.subscriptionCount == 1)
        for attempt in 1...3 {
            #expect(upstream.send(attempt) == .none)
            upstream.send(completion: .failure(TestError(code: attempt)))
            #expect(upstream.subscriptionCount == attempt + 1)
        }
        #expect(upstream.demandLog == [.requested(.max(5)), .requested(.max(4)), .requested(.max(3)), .requested(.max(2))])
        #expect(subscriber.events == [.subscription("Retry"), .value(1), .value(2), .value(3)])
        // The retries are used up: the next failure is passed on.
        #expect(upstream.send(4) == .none)
        upstream.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.events == [
            .subscription("Retry"), .value(1), .value(2), .value(3), .value(4),
            .completion(.failure(TestError(code: 4))),
        ])
        // Everything after the end is ignored.
        #expect(upstream.send(5) == .none)
        upstream.send(completion: .failure(TestError(code: 5)))
        subscriber.request(.max(112))
        #expect(upstream.subscriptionCount == 4)
        #expect(subscriber.events.count == 6)
        #expect(upstream.demandLog == [.requested(.max(5)), .requested(.max(4)), .requested(.max(3)), .requested(.max(2))])
    }

    @Test func retryZeroPassesTheFirstFailureOn() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.retry(0).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Retry"), .value(1), .completion(.failure(TestError()))])
        #expect(upstream.demandLog == [.requested(.max(1))])
        #expect(upstream.subscriptionCount == 1)
    }

    @Test func finishingNeedsNoRetry() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        upstream.retry(3).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("Retry"), .value(1), .value(2), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(upstream.subscriptionCount == 1)
    }

    @Test func finishesAfterARetry() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(4))
        upstream.retry(3).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError()))
        upstream.send(3)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [
            .subscription("Retry"), .value(1), .value(2), .value(3), .value(4), .completion(.finished),
        ])
        #expect(upstream.demandLog == [.requested(.max(4)), .requested(.max(2))])
    }

    @Test(arguments: [nil, -1] as [Int?])
    func nilOrNegativeRetriesForever(retries: Int?) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        Publishers.Retry(upstream: upstream, retries: retries).subscribe(subscriber)
        for _ in 0..<10_000 {
            upstream.send(completion: .failure(TestError()))
        }
        #expect(upstream.send(0) == .none)
        #expect(subscriber.events == [.subscription("Retry"), .value(0)])
        #expect(upstream.subscriptionCount == 10_001)
        #expect(upstream.demandLog == Array(repeating: .requested(.max(1)), count: 10_001))
    }

    @Test func manySynchronousRetriesDoNotRecurse() {
        var attempts = 0
        let subscriber = TestSubscriber<Int, TestError>()
        Deferred { () -> Fail<Int, TestError> in
            attempts += 1
            return Fail(error: TestError(code: attempts))
        }
        .retry(10_000)
        .subscribe(subscriber)
        #expect(attempts == 10_001)
        #expect(subscriber.events == [.subscription("Retry"), .completion(.failure(TestError(code: 10_001)))])
    }

    @Test func synchronousFailuresThenSuccess() {
        var attempts = 0
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        Deferred { () -> AnyPublisher<Int, TestError> in
            attempts += 1
            if attempts < 5 { return AnyPublisher(Fail(error: TestError())) }
            return AnyPublisher(Publishers.Sequence(sequence: [attempts, 100]))
        }
        .retry(5)
        .subscribe(subscriber)
        #expect(attempts == 5)
        #expect(subscriber.events == [.subscription("Retry"), .value(5)])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Retry"), .value(5), .value(100), .completion(.finished)])
    }

    @Test func sendsItselfDownstreamWhenTheFirstUpstreamSubscriptionArrives() {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { .max($0) })
        upstream.retry(5).subscribe(subscriber)
        #expect(subscriber.events == [])
        upstream.sendSubscription()
        #expect(subscriber.events == [.subscription("Retry")])
        #expect(upstream.demandLog == [.requested(.max(3))])
        // Demand the downstream returns is passed upstream through `request`, not returned.
        #expect(upstream.send(5) == .none)
        #expect(upstream.demandLog == [.requested(.max(3)), .requested(.max(5))])
        #expect(subscriber.events == [.subscription("Retry"), .value(5)])
    }

    @Test func aValueArrivingBeforeTheNewSubscriptionCountsAgainstTheDemand() {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(2) })
        upstream.retry(1).subscribe(subscriber)
        upstream.sendSubscription()
        upstream.send(completion: .failure(TestError()))
        // Resubscribed, but the upstream has not handed over the new subscription yet.
        #expect(upstream.send(1) == .none)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(3)), .requested(.max(4))])
        #expect(subscriber.events == [.subscription("Retry"), .value(1)])
    }

    @Test func demandAskedForLaterIsForwarded() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.retry(2).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancelIsForwardedOnceAndStopsEverything() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        upstream.retry(3).subscribe(subscriber)
        #expect(upstream.demandLog == [])
        subscriber.cancel()
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.send(42) == .none)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.demandLog == [.cancelled])
        #expect(upstream.subscriptionCount == 1)
        #expect(subscriber.events == [.subscription("Retry")])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 3 { subscription?.cancel() }
                return .none
            })
        (1...100).publisher.retry(1).subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func requestFromInsideReceiveIsForwarded() {
        let upstream = TestPublisher<Int, TestError>()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.request(.max(1))
                return .none
            })
        upstream.retry(1).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1)), .requested(.max(1))])
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.demandLog.last == .requested(.max(1)))
        #expect(subscriber.values == [1, 2])
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.retry(1).subscribe(subscriber)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        upstream.send(1)
        #expect(subscriber.values == [1])
        #expect(subscriber.subscriptionNames == ["Retry"])
    }

    @Test func reflectsLikeCombine() throws {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        TestPublisher<Int, TestError>().retry(1).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Retry")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Retry")
    }

    @Test func isEquatableWhenTheUpstreamIs() {
        // Built directly: Combine specialises `Just.retry(_:)` to return the `Just` itself.
        #expect(Publishers.Retry(upstream: Just(1), retries: 2) == Publishers.Retry(upstream: Just(1), retries: 2))
        #expect(Publishers.Retry(upstream: Just(1), retries: 2) != Publishers.Retry(upstream: Just(1), retries: 3))
        #expect(Publishers.Retry(upstream: Just(1), retries: 2) != Publishers.Retry(upstream: Just(2), retries: 2))
        #expect(Publishers.Retry(upstream: Just(1), retries: nil).retries == nil)
        let fail = Fail<Int, TestError>(error: TestError())
        #expect(fail.retry(4) == Publishers.Retry(upstream: fail, retries: 4))
        #expect(fail.retry(4).upstream == fail)
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        let upstream = TestPublisher<Int, TestError>()
        do {
            let subscriber = TestSubscriber<Int, TestError>()
            weakSubscriber = subscriber
            upstream.retry(1).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func releasesTheDownstreamAfterTheFinalFailure() {
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        let upstream = TestPublisher<Int, TestError>()
        do {
            let subscriber = TestSubscriber<Int, TestError>()
            weakSubscriber = subscriber
            upstream.retry(1).subscribe(subscriber)
            upstream.send(completion: .failure(TestError()))
            upstream.send(completion: .failure(TestError()))
            #expect(subscriber.completions == [.failure(TestError())])
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentRequestsAllReachTheUpstream() async {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        upstream.retry(1).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<100 { subscriber.request(.max(1)) }
                }
            }
        }
        #expect(upstream.demandLog.count == 800)
        for value in 0..<10 { upstream.send(value) }
        upstream.send(completion: .failure(TestError()))
        // The new subscription is asked for exactly what is still owed.
        #expect(upstream.demandLog.last == .requested(.max(790)))
        #expect(subscriber.values == Array(0..<10))
    }
}
