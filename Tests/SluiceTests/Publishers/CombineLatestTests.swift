import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("CombineLatest, CombineLatest3, CombineLatest4")
struct CombineLatestTests {
    typealias Sub = TestSubscriber<String, TestError>

    func pair(_ a: TestPublisher<Int, TestError>, _ b: TestPublisher<String, TestError>) -> Publishers.Map<Publishers.CombineLatest<TestPublisher<Int, TestError>, TestPublisher<String, TestError>>, String> {
        a.combineLatest(b) { "\($0)\($1)" }
    }

    @Test func emitsTheLatestValuesOnceEveryUpstreamHasOne() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<(Int, String), TestError>()
        a.combineLatest(b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        b.send("x")
        a.send(3)
        b.send("y")
        #expect(subscriber.values.map { "\($0.0)\($0.1)" } == ["2x", "3x", "3y"])
        #expect(subscriber.subscriptionNames == ["CombineLatest"])
        #expect(a.demandLog == [.requested(.unlimited)])
        #expect(b.demandLog == [.requested(.unlimited)])
    }

    @Test func upstreamsAreSubscribedBeforeTheDownstreamGetsItsSubscription() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        var upstreamsSubscribed = false
        let subscriber = Sub(initialDemand: .none, onSubscription: { _ in
            upstreamsSubscribed = a.hasSubscriber && b.hasSubscriber
        })
        pair(a, b).subscribe(subscriber)
        #expect(upstreamsSubscribed)
        #expect(a.demandLog == [])
    }

    @Test func finishesOnlyWhenEveryUpstreamHasFinished() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.send(1)
        b.send("x")
        a.send(completion: .finished)
        b.send("y")
        #expect(subscriber.values == ["1x", "1y"])
        #expect(subscriber.completions.isEmpty)
        b.send(completion: .finished)
        #expect(subscriber.events.last == .completion(.finished))
    }

    @Test func anUpstreamThatNeverEmitsStillCountsAsFinished() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.send(completion: .finished)
        b.send("x")
        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("CombineLatest"), .completion(.finished)])
    }

    @Test func failureCancelsTheOtherUpstreamsOnly() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.send(completion: .failure(TestError(code: 3)))
        b.send("x")
        a.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.events == [.subscription("CombineLatest"), .completion(.failure(TestError(code: 3)))])
        #expect(a.demandLog == [.requested(.unlimited)])
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func limitedDemandDropsCombinationsWithoutDemand() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub(initialDemand: .max(1))
        pair(a, b).subscribe(subscriber)
        #expect(a.send(1) == .none)
        #expect(b.send("x") == .none)
        #expect(subscriber.values == ["1x"])
        a.send(2)
        b.send("y")
        // A request does not emit the latest values; the next upstream value does.
        subscriber.request(.max(1))
        #expect(subscriber.values == ["1x"])
        a.send(3)
        #expect(subscriber.values == ["1x", "3y"])
        #expect(a.demandLog == [.requested(.max(1)), .requested(.max(1))])
        #expect(b.demandLog == [.requested(.max(1)), .requested(.max(1))])
    }

    @Test func demandReturnedFromReceiveIsKeptNotForwarded() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub(initialDemand: .max(1), onValue: { _ in .max(1) })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        b.send("x")
        a.send(2)
        a.send(3)
        #expect(subscriber.values == ["1x", "2x", "3x"])
        #expect(a.demandLog == [.requested(.max(1))])
    }

    @Test func reentrantRequestIsForwardedToEveryUpstream() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        var subscription: Subscription?
        let subscriber = Sub(initialDemand: .max(10), onSubscription: { subscription = $0 }, onValue: { _ in
            subscription?.request(.max(666))
            return .none
        })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        #expect(b.send("x") == .none)
        #expect(a.demandLog == [.requested(.max(10)), .requested(.max(666))])
        #expect(b.demandLog == [.requested(.max(10)), .requested(.max(666))])
    }

    @Test func aValueSentFromInsideReceiveOnlyUpdatesTheLatestValues() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub(onValue: { value in
            if value == "1x" { a.send(2) }
            return .none
        })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        b.send("x")
        #expect(subscriber.values == ["1x"])
        b.send("y")
        #expect(subscriber.values == ["1x", "2y"])
    }

    @Test func cancelMidStream() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        var subscription: Subscription?
        let subscriber = Sub(onSubscription: { subscription = $0 }, onValue: { _ in
            subscription?.cancel()
            return .none
        })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        b.send("x")
        a.send(2)
        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("CombineLatest"), .value("1x")])
        #expect(a.demandLog == [.requested(.unlimited), .cancelled])
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func secondSubscriptionIsCancelled() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        b.sendSubscription()
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
        a.send(1)
        b.send("x")
        #expect(subscriber.values == ["1x"])
    }

    @Test func eventsAfterTheEndAreIgnored() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.send(1)
        b.send("x")
        a.send(completion: .finished)
        a.send(completion: .finished)   // counted once
        a.send(9)                       // ignored: a has finished
        b.send("y")
        b.send(completion: .finished)
        b.send("z")
        b.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("CombineLatest"), .value("1x"), .value("1y"), .completion(.finished)])
    }

    @Test func threeAndFourUpstreamsAndTransforms() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let d = PassthroughSubject<Int, Never>()
        var three: [String] = []
        var four: [Int] = []
        var threeSum: [Int] = []
        let c1 = a.combineLatest(b, c).sink { three.append("\($0)\($1)\($2)") }
        let c2 = a.combineLatest(b, c, d) { $0 + $1 + $2 + $3 }.sink { four.append($0) }
        let c3 = a.combineLatest(b, c) { $0 * $1 * $2 }.sink { threeSum.append($0) }
        a.send(1)
        b.send(2)
        c.send(3)
        d.send(4)
        a.send(5)
        #expect(three == ["123", "523"])
        #expect(four == [10, 14])
        #expect(threeSum == [6, 30])
        let four4 = Publishers.CombineLatest4(a, b, c, d)
        #expect(four4.d === d)
        c1.cancel(); c2.cancel(); c3.cancel()
    }

    @Test func equatableWhereTheUpstreamsAre() {
        #expect(Just(1).combineLatest(Just(2)) == Publishers.CombineLatest(Just(1), Just(2)))
        #expect(Just(1).combineLatest(Just(2)) != Publishers.CombineLatest(Just(1), Just(3)))
        #expect(Just(1).combineLatest(Just(2), Just(3), Just(4)) == Publishers.CombineLatest4(Just(1), Just(2), Just(3), Just(4)))
    }

    @Test func synchronousUpstreams() {
        var out: [String] = []
        let c = [1, 2].publisher.combineLatest(["a", "b"].publisher) { "\($0)\($1)" }.sink { out.append($0) }
        #expect(out == ["2a", "2b"])
        c.cancel()
    }

    @Test func anUpstreamThatFailsWhileBeingSubscribedStillComesAfterTheSubscription() {
        let subscriber = TestSubscriber<(Int, Int), TestError>()
        Fail<Int, TestError>(error: TestError(code: 5)).combineLatest(TestPublisher<Int, TestError>()).subscribe(subscriber)
        #expect(subscriber.events.map(\.description) == ["subscription(CombineLatest)", "failure(TestError(5))"])
    }

    @Test func mirror() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        let labels = Mirror(reflecting: subscriber.subscription!).children.map(\.label)
        #expect(labels == ["downstream", "upstreamSubscriptions", "demand", "buffers"])
    }

    @Test func mirrorBuffersHoldEachUpstreamsLatestValueInUpstreamOrder() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<String, Never>()
        let c = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<(Int, String, Int), Never>()
        a.combineLatest(b, c).subscribe(subscriber)
        a.send(1)
        c.send(3)
        let buffers = Mirror(reflecting: subscriber.subscription!).children.first { $0.label == "buffers" }?.value as? [Any?]
        #expect(buffers?.map { $0.map { "\($0)" } ?? "nil" } == ["1", "nil", "3"])
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterFinish() {
        weak var weakSubscriber: Sub?
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            pair(a, b).subscribe(subscriber)
            a.send(1)
            b.send("x")
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        a.releaseSubscriber()
        b.releaseSubscriber()
        #expect(weakSubscriber == nil)

        weak var weakFinished: Sub?
        let c = TestPublisher<Int, TestError>()
        let d = TestPublisher<String, TestError>()
        do {
            let subscriber = Sub()
            weakFinished = subscriber
            pair(c, d).subscribe(subscriber)
            c.send(completion: .finished)
            d.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakFinished == nil)
    }

    @Test func eightProducersOnDifferentThreadsLoseNothingAndNeverOverlap() async {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<(Int, Int, Int, Int), Never>()
        subjects[0].combineLatest(subjects[1], subjects[2], subjects[3]).subscribe(subscriber)
        for (index, subject) in subjects.enumerated() { subject.send(-1 - index) }
        // Two producers per upstream; every value sent produces exactly one combination.
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                let subject = subjects[thread % 4]
                group.addTask {
                    for i in 0..<10_000 { subject.send(thread * 10_000 + i) }
                }
            }
        }
        let values = subscriber.values
        #expect(values.count == 1 + 80_000)
        #expect(!subscriber.sawConcurrentSignals)
        for slot in 0..<4 {
            let component: [Int] = values.map { [$0.0, $0.1, $0.2, $0.3][slot] }
            let expected = Set([-1 - slot] + (0..<8).filter { $0 % 4 == slot }.flatMap { t in (0..<10_000).map { t * 10_000 + $0 } })
            #expect(Set(component) == expected)
            // Each producer's values appear in the order it sent them.
            for thread in (0..<8) where thread % 4 == slot {
                let own = component.filter { $0 >= 0 && $0 / 10_000 == thread }
                var deduplicated: [Int] = []
                for value in own where deduplicated.last != value { deduplicated.append(value) }
                #expect(deduplicated == Array(thread * 10_000..<(thread + 1) * 10_000))
            }
        }
    }
}
