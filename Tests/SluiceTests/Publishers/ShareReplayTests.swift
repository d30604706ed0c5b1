import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("share(replay:)")
struct ShareReplayTests {
    typealias Pub = TestPublisher<Int, TestError>
    typealias Sub = TestSubscriber<Int, TestError>

    /// Seed 003: subscriber A gets the initial state; B subscribes later with no demand, then
    /// asks for one value. With `share(replay: 1)` B gets the current state (with `share()` it
    /// gets nothing: see MulticastTests).
    @Test func seed003ALateSubscriberWithLateDemandGetsTheCurrentState() {
        let changes = PassthroughSubject<Bool, Never>()
        let state = Just(true).merge(with: changes).share(replay: 1)
        let a = TestSubscriber<Bool, Never>()
        state.subscribe(a)
        #expect(a.values == [true])
        let b = TestSubscriber<Bool, Never>(initialDemand: .none)
        state.subscribe(b)
        #expect(b.values == [])
        b.request(.max(1))
        #expect(b.values == [true])
        changes.send(false)
        #expect(a.values == [true, false])
        #expect(b.values == [true])        // its demand is used up
        b.request(.max(1))
        #expect(b.values == [true, false])
    }

    @Test func subscribesOnceAndReplaysTheLastValues() {
        let upstream = Pub()
        let shared = upstream.share(replay: 2)
        let first = Sub()
        shared.subscribe(first)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        for i in 1...3 { upstream.send(i) }
        let second = Sub()
        shared.subscribe(second)
        upstream.send(4)
        #expect(first.values == [1, 2, 3, 4])
        #expect(second.values == [2, 3, 4])
        #expect(second.subscriptionNames == ["Multicast"])
        #expect(upstream.subscriptionCount == 1)
        #expect(shared.bufferSize == 2)
    }

    @Test func aFirstSubscriberWithoutDemandStillConnectsAndGetsValuesLater() {
        let upstream = Pub()
        let shared = upstream.share(replay: 1)
        let subscriber = Sub(initialDemand: .none)
        shared.subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(1)
        upstream.send(2)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2])
    }

    @Test func afterCompletionLateSubscribersGetTheLastValuesAndTheCompletion() {
        let upstream = Pub()
        let shared = upstream.share(replay: 1)
        let first = Sub()
        shared.subscribe(first)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        let late = Sub(initialDemand: .none)
        shared.subscribe(late)
        #expect(late.events == [.subscription("Multicast")])
        late.request(.max(1))
        #expect(late.events == [.subscription("Multicast"), .value(2), .completion(.finished)])
        #expect(upstream.subscriptionCount == 1)
    }

    @Test func failureReachesEverySubscriberAfterItsBacklog() {
        let upstream = Pub()
        let shared = upstream.share(replay: 2)
        let a = Sub()
        shared.subscribe(a)
        upstream.send(1)
        let b = Sub(initialDemand: .none)
        shared.subscribe(b)
        upstream.send(completion: .failure(TestError(code: 2)))
        #expect(a.events == [.subscription("Multicast"), .value(1), .completion(.failure(TestError(code: 2)))])
        #expect(b.events == [.subscription("Multicast")])
        b.request(.max(1))
        #expect(b.events == [.subscription("Multicast"), .value(1), .completion(.failure(TestError(code: 2)))])
    }

    @Test func theLastCancelDisconnectsAndTheReplayOutlivesIt() {
        let upstream = Pub()
        let shared = upstream.share(replay: 1)
        let a = Sub()
        shared.subscribe(a)
        upstream.send(1)
        a.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        let b = Sub()
        shared.subscribe(b)
        // Reconnected, and the value seen before the disconnection is replayed.
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled, .requested(.unlimited)])
        #expect(b.values == [1])
        upstream.send(2)
        #expect(b.values == [1, 2])
    }

    @Test func limitedDemandThenMore() {
        let upstream = Pub()
        let shared = upstream.share(replay: 3)
        let first = Sub()
        shared.subscribe(first)
        for i in 1...3 { upstream.send(i) }
        let second = Sub(initialDemand: .max(1))
        shared.subscribe(second)
        #expect(second.values == [1])
        second.request(.max(1))
        #expect(second.values == [1, 2])
        second.request(.unlimited)
        #expect(second.values == [1, 2, 3])
    }

    @Test func reentrantCancelInsideReceive() {
        let upstream = Pub()
        let shared = upstream.share(replay: 3)
        let first = Sub()
        shared.subscribe(first)
        for i in 1...3 { upstream.send(i) }
        var subscription: Subscription?
        let second = Sub(onSubscription: { subscription = $0 }, onValue: { value in
            if value == 2 { subscription?.cancel() }
            return .none
        })
        shared.subscribe(second)
        upstream.send(4)
        #expect(second.values == [1, 2])
        #expect(first.values == [1, 2, 3, 4])
    }

    @Test func equatableByIdentity() {
        let upstream = Pub()
        let a = upstream.share(replay: 1)
        let b = upstream.share(replay: 1)
        #expect(a == a)
        #expect(a != b)
        #expect(a.upstream === upstream)
    }

    @Test func releasesTheSubscriberAfterCancel() {
        weak var weakSubscriber: Sub?
        let upstream = Pub()
        let shared = upstream.share(replay: 1)
        let keeper = Sub()
        shared.subscribe(keeper)
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            shared.subscribe(subscriber)
            upstream.send(1)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentProducersAndLateSubscribers() async {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 50_000)
        let first = TestSubscriber<Int, Never>()
        shared.subscribe(first)
        let late = (0..<4).map { _ in TestSubscriber<Int, Never>(initialDemand: .none) }
        let boxed = CombiningTestBox((late, shared))
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<2_000 { upstream.send(thread * 2_000 + i) }
                }
            }
            group.addTask {
                let (subscribers, shared) = boxed.value
                for subscriber in subscribers {
                    shared.subscribe(subscriber)
                    subscriber.request(.unlimited)
                }
            }
        }
        #expect(first.values.count == 16_000)
        for subscriber in late {
            #expect(subscriber.values == first.values)
            #expect(!subscriber.sawConcurrentSignals)
        }
    }
}
