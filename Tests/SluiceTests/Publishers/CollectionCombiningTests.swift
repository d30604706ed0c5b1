import Testing
import Foundation
import Dispatch
import Sluice
import SluiceExtras
import SluiceTesting

@Suite("combineLatest() and zip() of a collection")
struct CollectionCombiningTests {
    typealias Upstream = TestPublisher<Int, TestError>

    func upstreams(_ count: Int) -> [Upstream] { (0..<count).map { _ in Upstream() } }

    /// The README's example, as it stands there.
    @Test func theReadmesSensorTotals() {
        let sensors = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
        var totals: [Int] = []
        let cancellable = sensors.combineLatest().map { $0.reduce(0, +) }.sink { totals.append($0) }
        sensors[0].send(1)
        sensors[1].send(2)
        #expect(totals == [])
        sensors[2].send(3)
        #expect(totals == [6])
        sensors[0].send(10)
        #expect(totals == [6, 15])
        cancellable.cancel()
    }

    // MARK: combineLatest()

    @Test func combineLatestSendsTheLatestOfEachInCollectionOrderOnceAllHaveOne() {
        let sources = upstreams(3)
        let subscriber = TestSubscriber<[Int], TestError>()
        sources.combineLatest().subscribe(subscriber)
        sources[2].send(30)
        sources[0].send(10)
        #expect(subscriber.values.isEmpty)
        sources[1].send(20)
        sources[0].send(11)
        #expect(subscriber.values == [[10, 20, 30], [11, 20, 30]])
        #expect(subscriber.subscriptionNames == ["CombineLatest"])
        #expect(sources.allSatisfy { $0.demandLog == [.requested(.unlimited)] })
    }

    @Test func combineLatestSendsNoMoreThanTheDownstreamAsked() {
        let sources = upstreams(2)
        let subscriber = TestSubscriber<[Int], TestError>(initialDemand: .max(1))
        sources.combineLatest().subscribe(subscriber)
        sources[0].send(1)
        sources[1].send(2)
        sources[1].send(3)
        #expect(subscriber.values == [[1, 2]])
        // A value without demand only updates the latest ones.
        subscriber.request(.max(1))
        sources[0].send(4)
        #expect(subscriber.values == [[1, 2], [4, 3]])
        #expect(sources[0].demandLog == [.requested(.max(1)), .requested(.max(1))])
    }

    @Test func combineLatestFinishesWhenEveryUpstreamHasFinished() {
        let sources = upstreams(3)
        let subscriber = TestSubscriber<[Int], TestError>()
        sources.combineLatest().subscribe(subscriber)
        sources[0].send(completion: .finished)
        sources[1].send(completion: .finished)
        #expect(subscriber.completions.isEmpty)
        sources[2].send(completion: .finished)
        #expect(subscriber.events == [.subscription("CombineLatest"), .completion(.finished)])
    }

    @Test func combineLatestFailsAtTheFirstFailureAndCancelsTheOthers() {
        let sources = upstreams(3)
        let subscriber = TestSubscriber<[Int], TestError>()
        sources.combineLatest().subscribe(subscriber)
        sources[1].send(completion: .failure(TestError(code: 7)))
        sources[0].send(1)
        #expect(subscriber.events == [.subscription("CombineLatest"), .completion(.failure(TestError(code: 7)))])
        #expect(sources[0].isCancelled)
        #expect(sources[2].isCancelled)
        #expect(!sources[1].isCancelled)
    }

    @Test func cancellingCombineLatestCancelsEveryUpstreamAndReleasesTheSubscriber() {
        let sources = upstreams(3)
        weak var released: TestSubscriber<[Int], TestError>?
        do {
            let subscriber = TestSubscriber<[Int], TestError>()
            released = subscriber
            sources.combineLatest().subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(sources.allSatisfy { $0.isCancelled })
        for source in sources { source.releaseSubscriber() }
        #expect(released == nil)
    }

    @Test func anEmptyCollectionFinishesAtOnceWithoutAValue() {
        let none: [Upstream] = []
        let latest = TestSubscriber<[Int], TestError>()
        let zipped = TestSubscriber<[Int], TestError>()
        none.combineLatest().subscribe(latest)
        none.zip().subscribe(zipped)
        #expect(latest.values.isEmpty && latest.completions == [.finished])
        #expect(zipped.values.isEmpty && zipped.completions == [.finished])
    }

    // MARK: zip()

    @Test func zipPairsTheOldestValueOfEachInCollectionOrder() {
        let sources = upstreams(3)
        let subscriber = TestSubscriber<[Int], TestError>()
        sources.zip().subscribe(subscriber)
        sources[0].send(1)
        sources[0].send(2)
        sources[1].send(10)
        sources[2].send(100)
        sources[1].send(20)
        #expect(subscriber.values == [[1, 10, 100]])
        sources[2].send(200)
        #expect(subscriber.values == [[1, 10, 100], [2, 20, 200]])
        #expect(subscriber.subscriptionNames == ["Zip"])
    }

    @Test func zipHandsTheDownstreamItsSubscriptionOnceEveryUpstreamHasSentOne() {
        let late = Upstream(sendsSubscriptionOnSubscribe: false)
        let sources = [Upstream(), late]
        let subscriber = TestSubscriber<[Int], TestError>(initialDemand: .max(2))
        sources.zip().subscribe(subscriber)
        #expect(subscriber.events.isEmpty)
        late.sendSubscription()
        #expect(subscriber.subscriptionNames == ["Zip"])
        #expect(sources.allSatisfy { $0.demandLog == [.requested(.max(2))] })
    }

    @Test func zipFinishesWhenAFinishedUpstreamHasNothingLeftToPair() {
        let sources = upstreams(2)
        let subscriber = TestSubscriber<[Int], TestError>()
        sources.zip().subscribe(subscriber)
        sources[0].send(1)
        sources[0].send(completion: .finished)
        #expect(subscriber.completions.isEmpty)
        sources[1].send(2)
        #expect(subscriber.events == [.subscription("Zip"), .value([1, 2]), .completion(.finished)])
        #expect(sources[1].isCancelled)
        #expect(!sources[0].isCancelled)
    }

    @Test func zipFailsAtTheFirstFailureAndCancelsEveryUpstream() {
        let sources = upstreams(2)
        let subscriber = TestSubscriber<[Int], TestError>()
        sources.zip().subscribe(subscriber)
        sources[0].send(1)
        sources[1].send(completion: .failure(TestError(code: 3)))
        sources[1].send(2)
        #expect(subscriber.events == [.subscription("Zip"), .completion(.failure(TestError(code: 3)))])
        #expect(sources[0].isCancelled)
    }

    @Test func zipOfSubjectsSendingFromFourThreadsPairsEveryValueInOrder() {
        let count = 4, perThread = 2_000
        let subjects = (0..<count).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<[Int], Never>()
        subjects.zip().subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            for value in 0..<perThread { subjects[index].send(value) }
        }
        #expect(!subscriber.sawConcurrentSignals)
        #expect(subscriber.values == (0..<perThread).map { Array(repeating: $0, count: count) })
    }

    @Test func combineLatestOfSubjectsSendingFromFourThreadsIsSerialAndEndsWithTheLastOfEach() {
        let count = 4, perThread = 2_000
        let subjects = (0..<count).map { _ in CurrentValueSubject<Int, Never>(-1) }
        let subscriber = TestSubscriber<[Int], Never>()
        subjects.combineLatest().subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            for value in 0..<perThread { subjects[index].send(value) }
        }
        #expect(!subscriber.sawConcurrentSignals)
        #expect(subscriber.values.count == 1 + count * perThread)
        #expect(subscriber.values.last == Array(repeating: perThread - 1, count: count))
        // Each upstream's entry never goes backwards.
        for index in 0..<count {
            let column = subscriber.values.map { $0[index] }
            #expect(column == column.sorted())
        }
    }
}
