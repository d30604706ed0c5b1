import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

private struct OtherError: Error, Equatable {
    var wrapped: TestError
}

@Suite("MapError")
struct MapErrorTests {
    @Test func convertsTheFailureAndPassesEverythingElseThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, OtherError>(initialDemand: .max(2), onValue: { _ in .max(5) })
        upstream.mapError { OtherError(wrapped: $0) }.subscribe(subscriber)
        #expect(upstream.send(1) == .max(5))
        upstream.send(completion: .failure(TestError(code: 9)))
        #expect(subscriber.events == [
            .subscription("TestSubscription"), .value(1), .completion(.failure(OtherError(wrapped: TestError(code: 9)))),
        ])
        #expect(upstream.demandLog == [.requested(.max(2))])
    }

    @Test func finishedIsForwarded() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, OtherError>()
        upstream.mapError { OtherError(wrapped: $0) }.subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .completion(.finished)])
    }

    @Test func requestsAndCancelsGoStraightToTheUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, OtherError>(initialDemand: .none)
        upstream.mapError { OtherError(wrapped: $0) }.subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
    }

    @Test func bothInitialisersKeepTheTransform() {
        let upstream = Fail<Int, TestError>(error: TestError(code: 1))
        let labelled = Publishers.MapError(upstream: upstream, transform: { OtherError(wrapped: $0) })
        let unlabelled = Publishers.MapError(upstream: upstream, { OtherError(wrapped: $0) })
        #expect(labelled.transform(TestError(code: 2)) == OtherError(wrapped: TestError(code: 2)))
        #expect(unlabelled.transform(TestError(code: 3)) == OtherError(wrapped: TestError(code: 3)))
    }

    @Test func limitedDemandAndCancelFromInsideReceive() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, OtherError>(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 3 { subscription?.cancel() }
                return .none
            })
        (1...10).publisher.eraseToAnyPublisher().setFailureType(to: TestError.self).mapError { OtherError(wrapped: $0) }.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(5))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func innerDescriptionIsMapError() {
        let upstream = InnerProbe<Int, TestError>()
        upstream.mapError { OtherError(wrapped: $0) }.subscribe(TestSubscriber<Int, OtherError>())
        #expect(upstream.innerDescription == "MapError")
        #expect(upstream.innerPlaygroundDescription == "MapError")
        #expect(!upstream.innerIsSubscription)
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, OtherError>?
        let subject = PassthroughSubject<Int, TestError>()
        do {
            let subscriber = TestSubscriber<Int, OtherError>()
            weakSubscriber = subscriber
            subject.mapError { OtherError(wrapped: $0) }.subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }
}
