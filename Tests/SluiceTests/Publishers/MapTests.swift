import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

struct TestError: Error, Equatable, CustomStringConvertible {
    var code = 1
    var description: String { "TestError(\(code))" }
}

@Suite("Map and TryMap")
struct MapTests {
    @Test func transformsValuesAndPassesTheSubscriptionThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.map { "\($0 * 2)" }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value("2"), .value("4"), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func forwardsFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.map { $0 + 1 }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.completions == [.failure(TestError())])
    }

    @Test func returnsTheDownstreamsDemandAndForwardsRequestsAndCancel() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(2) })
        upstream.map { $0 }.subscribe(subscriber)
        #expect(upstream.send(1) == .max(2))
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(3)), .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.map { $0 * 10 }.subscribe(subscriber)
        #expect(subscriber.values == [10])
        subscriber.request(.max(2))
        #expect(subscriber.values == [10, 20, 30])
        subscriber.request(.unlimited)
        #expect(subscriber.events.last == .completion(.finished))
        #expect(subscriber.values == [10, 20, 30, 40, 50])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 3 { subscription?.cancel() }
                return .none
            })
        (1...100).publisher.map { $0 }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func mapOfMapFusesIntoOneMap() {
        let subject = PassthroughSubject<Int, Never>()
        let fused: Publishers.Map<PassthroughSubject<Int, Never>, String> = subject.map { $0 + 1 }.map { "\($0)" }
        #expect(fused.upstream === subject)
        var out: [String] = []
        let c = fused.sink { out.append($0) }
        subject.send(1)
        #expect(out == ["2"])
        c.cancel()
    }

    @Test func tryMapFailsWithTheThrownErrorAndCancelsUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryMap { value -> Int in
            if value == 2 { throw TestError(code: 2) }
            return value
        }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["TryMap"])
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(subscriber.values == [1])
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 2))
        } else {
            Issue.record("expected a failure")
        }
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func replaceNilIsAMap() {
        var out: [Int] = []
        let c = [1, nil, 3].publisher.replaceNil(with: 0).sink { out.append($0) }
        #expect(out == [1, 0, 3])
        c.cancel()
    }

    @Test func concurrentSendsThroughASubjectLoseNothing() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.map { $0 * 2 }.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        #expect(subscriber.values.count == 8_000)
        #expect(Set(subscriber.values) == Set((0..<8_000).map { $0 * 2 }))
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func releasesEverythingAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.map { $0 }.subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }
}
