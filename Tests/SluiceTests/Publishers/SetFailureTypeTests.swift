import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("SetFailureType")
struct SetFailureTypeTests {
    @Test func passesEverythingThroughWithTheNewFailureType() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(4) })
        upstream.setFailureType(to: TestError.self).subscribe(subscriber)
        #expect(upstream.send(1) == .max(4))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(3))])
    }

    @Test func requestsAndCancelsGoStraightToTheUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        upstream.setFailureType(to: TestError.self).subscribe(subscriber)
        #expect(upstream.demandLog.isEmpty)
        subscriber.request(.max(2))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(2)), .cancelled])
    }

    @Test func setFailureTypeTwiceIsOneOperator() {
        let subject = PassthroughSubject<Int, Never>()
        let fused: Publishers.SetFailureType<PassthroughSubject<Int, Never>, TestError> =
            subject.setFailureType(to: Never.self).setFailureType(to: TestError.self)
        #expect(fused.upstream === subject)
        let probe = InnerProbe<Int, Never>()
        probe.setFailureType(to: Never.self).setFailureType(to: TestError.self).subscribe(TestSubscriber<Int, TestError>())
        #expect(probe.innerDescription == "SetFailureType")
        #expect(probe.innerPlaygroundDescription == "SetFailureType")
        #expect(probe.innerMirrorLabels.isEmpty)
    }

    @Test func isEquatableWhenTheUpstreamIs() {
        let a = Publishers.SetFailureType<Just<Int>, TestError>(upstream: Just(1))
        let b = Publishers.SetFailureType<Just<Int>, TestError>(upstream: Just(1))
        let c = Publishers.SetFailureType<Just<Int>, TestError>(upstream: Just(2))
        #expect(a == b)
        #expect(a != c)
    }

    @Test func limitedDemandOverASequenceAndCancelInside() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(2),
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 4 { subscription?.cancel() }
                return .none
            })
        (1...10).publisher.eraseToAnyPublisher().setFailureType(to: TestError.self).subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, TestError>()
            weakSubscriber = subscriber
            subject.setFailureType(to: TestError.self).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }
}
