import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("RemoveDuplicates and TryRemoveDuplicates")
struct RemoveDuplicatesTests {
    @Test func dropsConsecutiveDuplicatesAndAsksForOneMoreInstead() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        upstream.removeDuplicates().subscribe(subscriber)
        let answers = [1, 2, 2, 50, 30, 30, 1].map { upstream.send($0) }
        #expect(answers == [.max(4), .max(4), .max(1), .max(4), .max(4), .max(1), .max(4)])
        upstream.send(completion: .finished)
        #expect(subscriber.events == [
            .subscription("RemoveDuplicates"), .value(1), .value(2), .value(50), .value(30), .value(1),
            .completion(.finished),
        ])
        #expect(upstream.demandLog == [.requested(.max(2))])
    }

    @Test func comparesWithTheLastValuePassedOn() {
        var comparisons: [String] = []
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.removeDuplicates { previous, next in
            comparisons.append("\(previous)-\(next)")
            return previous >= next
        }.subscribe(subscriber)
        for value in [1, 2, 2, 50, 30, 10, 51] { upstream.send(value) }
        #expect(subscriber.values == [1, 2, 50, 51])
        // The comparator is not called for the first value; 10 is compared with 50, the last
        // value passed on, not with 30.
        #expect(comparisons == ["1-2", "2-2", "2-50", "50-30", "50-10", "50-51"])
    }

    @Test func forwardsRequestsOneForOneAndCompletesOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(5))
        upstream.removeDuplicates().subscribe(subscriber)
        subscriber.request(.max(15))
        subscriber.request(.max(5))
        upstream.send(completion: .failure(TestError(code: 2)))
        upstream.send(completion: .finished)
        #expect(upstream.send(3) == .none)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("RemoveDuplicates"), .completion(.failure(TestError(code: 2)))])
        #expect(upstream.demandLog == [.requested(.max(5)), .requested(.max(15)), .requested(.max(5))])
    }

    @Test func cancelIsForwardedOnceAndStopsEverything() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.removeDuplicates().subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("RemoveDuplicates"), .value(1)])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 1, 2, 2, 3, 3, 3, 4].publisher.eraseToAnyPublisher().removeDuplicates().subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completions == [.finished])
    }

    @Test func demandArrivingAfterSubscription() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.removeDuplicates().subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(2))
        #expect(upstream.demandLog == [.requested(.max(2))])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 { subscription?.cancel() }
                return .none
            })
        [1, 1, 2, 3, 4].publisher.eraseToAnyPublisher().removeDuplicates().subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.removeDuplicates().subscribe(subscriber)
        upstream.sendSubscription()
        subscriber.request(.max(2))
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled, .requested(.max(2))])
        #expect(subscriber.subscriptionNames == ["RemoveDuplicates"])
    }

    @Test func theSameSubscriptionSentAgainIsCancelled() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.removeDuplicates().subscribe(subscriber)
        let subscription = ProbeSubscription()
        upstream.send(subscription: subscription)
        upstream.send(subscription: subscription)
        #expect(subscription.history == [.cancelled])
        subscriber.cancel()
        #expect(subscription.history == [.cancelled, .cancelled])
    }

    @Test func mirrorShowsTheDownstreamAndTheLastValue() {
        let upstream = InnerProbe<Int, Never>()
        upstream.removeDuplicates().subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "RemoveDuplicates")
        #expect(upstream.innerPlaygroundDescription == "RemoveDuplicates")
        #expect(upstream.innerMirrorLabels == ["downstream", "last"])
        #expect(upstream.innerMirrorValue("last") == "nil")
        upstream.send(subscription: ProbeSubscription())
        upstream.send(4)
        #expect(upstream.innerMirrorValue("last") == "Optional(4)")
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.removeDuplicates().subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsAreDeliveredSerially() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.removeDuplicates().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        // Every value is distinct, so none is a duplicate of the one before it.
        #expect(subscriber.values.count == 4_000)
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: TryRemoveDuplicates

    @Test func tryRemoveDuplicatesFailsWithTheThrownErrorAndCancelsUpstream() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(3), onValue: { _ in .max(10) })
        upstream.tryRemoveDuplicates { previous, next in
            calls += 1
            if next == 42 { throw TestError(code: 42) }
            return previous == next
        }.subscribe(subscriber)
        let answers = [1, 2, 2, 1, 42, 42, 43].map { upstream.send($0) }
        #expect(answers == [.max(10), .max(10), .max(1), .max(10), .none, .none, .none])
        upstream.send(completion: .finished)
        subscriber.request(.max(1000))
        subscriber.cancel()
        #expect(subscriber.values == [1, 2, 1])
        #expect(subscriber.subscriptionNames == ["TryRemoveDuplicates"])
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 42))
        } else {
            Issue.record("expected a failure")
        }
        #expect(upstream.demandLog == [.requested(.max(3)), .cancelled])
        #expect(calls == 4)
    }

    @Test func tryRemoveDuplicatesForwardsUpstreamFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryRemoveDuplicates { $0 == $1 }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 5)))
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 5))
        } else {
            Issue.record("expected a failure")
        }
        let probe = InnerProbe<Int, TestError>()
        probe.tryRemoveDuplicates { $0 == $1 }.subscribe(TestSubscriber<Int, Error>())
        #expect(probe.innerDescription == "TryRemoveDuplicates")
        #expect(probe.innerMirrorLabels == ["downstream", "last"])
    }
}
