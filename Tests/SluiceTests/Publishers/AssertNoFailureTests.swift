import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// The failing path stops the process (fatalError), so only the paths that do not fail are
// tested here.
@Suite("AssertNoFailure")
struct AssertNoFailureTests {
    @Test func passesValuesFinishAndTheSubscriptionThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.assertNoFailure().subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .value(2), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func returnsTheDownstreamsDemandAndForwardsRequestsAndCancel() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(4) })
        upstream.assertNoFailure("checked").subscribe(subscriber)
        #expect(upstream.send(1) == .max(4))
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(3)), .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2, 3]).assertNoFailure().subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(5))
        #expect(subscriber.events.last == .completion(.finished))
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 { subscription?.cancel() }
                return .none
            })
        Publishers.Sequence<ClosedRange<Int>, TestError>(sequence: 1...50).assertNoFailure().subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func keepsItsPartsAndTheCallSite() {
        let line: UInt = #line + 1
        let checked = Just(1).assertNoFailure("prefix")
        #expect(checked.prefix == "prefix")
        #expect(checked.line == line)
        #expect("\(checked.file)".hasSuffix("AssertNoFailureTests.swift"))
        #expect(checked.upstream == Just(1))
        let unprefixed = Publishers.AssertNoFailure(upstream: Just(1), prefix: "", file: "f.swift", line: 7)
        #expect(unprefixed.prefix == "")
        #expect("\(unprefixed.file)" == "f.swift")
        #expect(unprefixed.line == 7)
    }

    @Test func theUpstreamSeesAnInnerNamedAssertNoFailure() {
        let probe = SubscriberProbe<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        probe.assertNoFailure("p").subscribe(subscriber)
        #expect(probe.descriptions == ["AssertNoFailure"])
        #expect(probe.mirrorLabels == ["file", "line", "prefix"])
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, TestError>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.assertNoFailure().subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsThroughASubjectLoseNothing() async {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.assertNoFailure().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<500 { subject.send(thread * 500 + i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(Set(subscriber.values) == Set(0..<4_000))
        #expect(subscriber.completions == [.finished])
        #expect(!subscriber.sawConcurrentSignals)
    }
}
