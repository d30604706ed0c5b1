import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

private struct Point: Equatable {
    var x: Int
    var y: Int
    var z: Int { x + y }
}

@Suite("MapKeyPath, MapKeyPath2 and MapKeyPath3")
struct MapKeyPathTests {
    @Test func readsOneKeyPathAndPassesTheSubscriptionThrough() {
        let upstream = TestPublisher<Point, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(3) })
        let publisher: Publishers.MapKeyPath<TestPublisher<Point, TestError>, Int> = upstream.map(\.x)
        publisher.subscribe(subscriber)
        #expect(upstream.send(Point(x: 1, y: 2)) == .max(3))
        #expect(upstream.send(Point(x: 5, y: 0)) == .max(3))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .value(5), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(publisher.keyPath == \Point.x)
    }

    @Test func readsTwoAndThreeKeyPathsAsTuples() {
        let upstream = TestPublisher<Point, Never>()
        var pairs: [String] = []
        var triples: [String] = []
        let c1 = upstream.map(\.x, \.y).sink { pairs.append("\($0.0),\($0.1)") }
        let upstream3 = TestPublisher<Point, Never>()
        let c2 = upstream3.map(\.x, \.y, \.z).sink { triples.append("\($0.0),\($0.1),\($0.2)") }
        upstream.send(Point(x: 1, y: 2))
        upstream3.send(Point(x: 3, y: 4))
        #expect(pairs == ["1,2"])
        #expect(triples == ["3,4,7"])
        c1.cancel()
        c2.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func forwardsFailureAndCancel() {
        let upstream = TestPublisher<Point, TestError>()
        let subscriber = TestSubscriber<(Int, Int), TestError>()
        upstream.map(\.x, \.y).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 2)))
        #expect(subscriber.completions.count == 1)
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func limitedDemandOverASequence() {
        let points = (1...4).map { Point(x: $0, y: 0) }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        points.publisher.map(\.x).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completions.count == 1)
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 { subscription?.cancel() }
                return .none
            })
        (1...10).map { Point(x: $0, y: 0) }.publisher.map(\.x).subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func innerDescriptionsAndMirrors() {
        let one = InnerProbe<Point, Never>()
        one.map(\.x).subscribe(TestSubscriber<Int, Never>())
        #expect(one.innerDescription == "ValueForKey")
        #expect(one.innerPlaygroundDescription == "ValueForKey")
        #expect(one.innerMirrorLabels == ["keyPath"])
        #expect(!one.innerIsSubscription)

        let two = InnerProbe<Point, Never>()
        two.map(\.x, \.y).subscribe(TestSubscriber<(Int, Int), Never>())
        #expect(two.innerDescription == "ValueForKeys")
        #expect(two.innerMirrorLabels == ["keyPath0", "keyPath1"])

        let three = InnerProbe<Point, Never>()
        three.map(\.x, \.y, \.z).subscribe(TestSubscriber<(Int, Int, Int), Never>())
        #expect(three.innerDescription == "ValueForKeys")
        #expect(three.innerMirrorLabels == ["keyPath0", "keyPath1", "keyPath2"])
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Point, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.map(\.y).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func aClosureStillSelectsTheClosureMap() {
        let publisher: Publishers.Map<PassthroughSubject<Point, Never>, Int> =
            PassthroughSubject<Point, Never>().map { $0.x }
        _ = publisher
    }
}
