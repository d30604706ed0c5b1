import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("ReplaceError")
struct ReplaceErrorTests {
    @Test func aFailureIsReplacedByTheElementAndAFinish() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.replaceError(with: 42).subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(42), .completion(.finished)])
    }

    @Test func valuesAndFinishPassThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        upstream.replaceError(with: 40).subscribe(subscriber)
        #expect(upstream.send(41) == .max(1))
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.send(-1) == .none)
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(41), .completion(.finished)])
    }

    @Test func theReplacementWaitsForOutstandingDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.replaceError(with: 42).subscribe(subscriber)
        // The one unit of demand is used by this value.
        #expect(upstream.send(9) == .none)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(9)])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(9), .value(42), .completion(.finished)])
        #expect(upstream.send(-1) == .none)
    }

    @Test func demandReturnedFromReceiveCounts() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        upstream.replaceError(with: 42).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.values == [1, 42])
        #expect(subscriber.completions == [.finished])
    }

    @Test func handsItsSubscriptionDownstreamWhenTheUpstreamsArrives() {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        upstream.replaceError(with: 0).subscribe(subscriber)
        #expect(subscriber.subscriptionNames.isEmpty)
        upstream.sendSubscription()
        #expect(subscriber.subscriptionNames == ["ReplaceError"])
        #expect(upstream.demandLog == [.requested(.max(10))])
        subscriber.request(.max(1))
        #expect(upstream.demandLog == [.requested(.max(10)), .requested(.max(1))])
    }

    @Test func signalsBeforeTheUpstreamsSubscriptionActAsInCombine() {
        // A value is ignored; a finish is forwarded.
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, onValue: { _ in .max(42) })
        upstream.replaceError(with: 1).subscribe(subscriber)
        #expect(upstream.send(0) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceError"), .completion(.finished)])
    }

    @Test func cancelIsForwardedOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _ in .max(1) })
        upstream.replaceError(with: 42).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.unlimited)
        subscriber.cancel()
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(subscriber.events == [.subscription("ReplaceError")])
    }

    @Test func aFailureBeforeTheUpstreamsSubscriptionIsReplacedOnceDemandArrives() {
        let upstream = InnerProbe<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.replaceError(with: 9).subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("ReplaceError")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(9), .completion(.finished)])
        let late = ProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.history == [.cancelled])
    }

    @Test func aSecondSubscriptionIsCancelledEvenAfterCancel() {
        let upstream = InnerProbe<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.replaceError(with: 42).subscribe(subscriber)
        let first = ProbeSubscription()
        let other = ProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: other)
        #expect(first.history == [.requested(.max(1))])
        #expect(other.history == [.cancelled])
        subscriber.cancel()
        #expect(first.history == [.requested(.max(1)), .cancelled])
        upstream.send(subscription: other)
        #expect(other.history == [.cancelled, .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.eraseToAnyPublisher().setFailureType(to: TestError.self).replaceError(with: 0).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(5))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions == [.finished])
    }

    @Test func reentrantRequestFromInsideReceive() {
        var subscription: Subscription?
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.request(.max(1))
                return .none
            })
        upstream.replaceError(with: 9).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.values == [1, 2, 9])
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1)), .requested(.max(1))])
    }

    @Test func descriptionMirrorAndEquality() {
        let upstream = InnerProbe<Int, TestError>()
        upstream.replaceError(with: 0).subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "ReplaceError")
        #expect(upstream.innerPlaygroundDescription == "ReplaceError")
        #expect(upstream.innerMirrorLabels.isEmpty)
        let a = Publishers.ReplaceError(upstream: Fail<Int, TestError>(error: TestError()), output: 1)
        #expect(a == Publishers.ReplaceError(upstream: Fail<Int, TestError>(error: TestError()), output: 1))
        #expect(a != Publishers.ReplaceError(upstream: Fail<Int, TestError>(error: TestError()), output: 2))
        #expect(a != Publishers.ReplaceError(upstream: Fail<Int, TestError>(error: TestError(code: 2)), output: 1))
    }

    @Test func releasesTheDownstreamAfterTheReplacement() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, TestError>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.replaceError(with: 1).subscribe(subscriber)
            upstream.send(completion: .failure(TestError()))
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentFailureAndRequestDeliverTheReplacementOnce() async {
        for _ in 0..<200 {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            upstream.replaceError(with: 5).subscribe(subscriber)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { upstream.send(completion: .failure(TestError())) }
                group.addTask { subscriber.request(.max(1)) }
            }
            #expect(subscriber.values == [5])
            #expect(subscriber.completions == [.finished])
            #expect(!subscriber.sawConcurrentSignals)
        }
    }
}
