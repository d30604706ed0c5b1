import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("FlatMap")
struct FlatMapTests {
    typealias Child = TestPublisher<Int, TestError>
    typealias Sub = TestSubscriber<Int, TestError>

    /// An upstream of indices into `children`, flat-mapped to them.
    final class Fixture {
        let upstream = TestPublisher<Int, TestError>()
        let children = (0..<4).map { _ in Child() }
        let subscriber: Sub

        init(maxPublishers: Subscribers.Demand = .unlimited, subscriber: Sub = Sub()) {
            self.subscriber = subscriber
            let children = self.children
            upstream.flatMap(maxPublishers: maxPublishers) { children[$0] }.subscribe(subscriber)
        }
    }

    @Test func mergesChildValuesAndFinishesAfterUpstreamAndChildren() {
        let f = Fixture()
        f.upstream.send(0)
        f.upstream.send(1)
        f.children[0].send(10)
        f.children[1].send(20)
        f.children[0].send(11)
        f.upstream.send(completion: .finished)
        f.children[0].send(completion: .finished)
        #expect(f.subscriber.completions.isEmpty)
        f.children[1].send(completion: .finished)
        #expect(f.subscriber.events == [.subscription("FlatMap"), .value(10), .value(20), .value(11), .completion(.finished)])
        #expect(f.upstream.demandLog == [.requested(.unlimited)])
        #expect(f.children[0].demandLog == [.requested(.unlimited)])
    }

    @Test func sequencesOfSequences() {
        var out: [Int] = []
        let c = (1..<4).publisher.flatMap { ($0..<$0 + 2).publisher }.sink { out.append($0) }
        #expect(out == [1, 2, 2, 3, 3, 4])
        c.cancel()
    }

    @Test func downstreamGetsItsSubscriptionBeforeTheUpstreamIsSubscribed() {
        let upstream = TestPublisher<Int, TestError>()
        var upstreamSubscribed = true
        let subscriber = Sub(initialDemand: .none, onSubscription: { _ in upstreamSubscribed = upstream.hasSubscriber })
        upstream.flatMap(maxPublishers: .none) { _ in Child() }.subscribe(subscriber)
        #expect(upstreamSubscribed == false)
        #expect(upstream.demandLog == [.requested(.none)])
    }

    @Test func maxPublishersOneSubscribesToOneChildAtATimeInOrder() {
        let f = Fixture(maxPublishers: .max(1))
        #expect(f.upstream.demandLog == [.requested(.max(1))])
        f.upstream.send(0)
        f.children[0].send(1)
        f.children[0].send(2)
        f.children[0].send(completion: .finished)
        #expect(f.upstream.demandLog == [.requested(.max(1)), .requested(.max(1))])
        f.upstream.send(1)
        f.children[1].send(3)
        f.upstream.send(completion: .finished)
        f.children[1].send(completion: .finished)
        #expect(f.subscriber.events == [.subscription("FlatMap"), .value(1), .value(2), .value(3), .completion(.finished)])
        // No more publishers are asked for once everything is done.
        #expect(f.upstream.demandLog == [.requested(.max(1)), .requested(.max(1))])
    }

    @Test func concatMapOverSequences() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        (1..<4).publisher.flatMap(maxPublishers: .max(1)) { ($0..<$0 + 3).publisher }.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3, 2, 3, 4, 3, 4, 5])
        #expect(subscriber.completions == [.finished])
    }

    @Test func limitedDemandBuffersInArrivalOrderAndRefillsEachChild() {
        let f = Fixture(subscriber: Sub(initialDemand: .max(2)))
        f.upstream.send(0)
        f.upstream.send(1)
        #expect(f.children[0].demandLog == [.requested(.max(1))])
        #expect(f.children[0].send(666) == .max(1))
        #expect(f.children[0].send(777) == .max(1))
        #expect(f.children[1].send(888) == .none)   // no demand: waits
        #expect(f.children[0].send(999) == .none)
        #expect(f.subscriber.values == [666, 777])
        f.subscriber.request(.max(10))
        #expect(f.subscriber.values == [666, 777, 888, 999])
        // One more for every waiting value delivered, from the child that sent it.
        #expect(f.children[1].demandLog == [.requested(.max(1)), .requested(.max(1))])
        #expect(f.children[0].demandLog == [.requested(.max(1)), .requested(.max(1))])
    }

    @Test func maxOneDemandReplenishedOneAtATime() {
        let f = Fixture(subscriber: Sub(initialDemand: .max(1), onValue: { _ in .max(1) }))
        f.upstream.send(0)
        for i in 0..<5 {
            #expect(f.children[0].send(i) == .max(1))
        }
        #expect(f.subscriber.values == [0, 1, 2, 3, 4])
        #expect(f.children[0].demandLog == [.requested(.max(1))])
    }

    @Test func limitedToUnlimitedDrainsAndAsksEveryChild() {
        let f = Fixture(subscriber: Sub(initialDemand: .max(1)))
        f.upstream.send(0)
        f.children[0].send(1)
        f.children[0].send(2)
        f.subscriber.request(.unlimited)
        #expect(f.subscriber.values == [1, 2])
        #expect(f.children[0].demandLog == [.requested(.max(1)), .requested(.unlimited)])
        #expect(f.children[0].send(3) == .none)
        #expect(f.subscriber.values == [1, 2, 3])
    }

    @Test func bufferedValuesHoldBackTheCompletion() {
        let f = Fixture(subscriber: Sub(initialDemand: .max(1)))
        f.upstream.send(0)
        f.children[0].send(1)
        f.children[0].send(2)
        f.upstream.send(completion: .finished)
        f.children[0].send(completion: .finished)
        #expect(f.subscriber.events == [.subscription("FlatMap"), .value(1)])
        f.subscriber.request(.max(1))
        #expect(f.subscriber.events == [.subscription("FlatMap"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func childFailureCancelsTheOtherChildrenButNotTheUpstream() {
        let f = Fixture()
        f.upstream.send(0)
        f.upstream.send(1)
        f.upstream.send(2)
        f.children[1].send(completion: .failure(TestError(code: 9)))
        #expect(f.subscriber.events == [.subscription("FlatMap"), .completion(.failure(TestError(code: 9)))])
        #expect(f.children[0].demandLog == [.requested(.unlimited), .cancelled])
        #expect(f.children[1].demandLog == [.requested(.unlimited)])
        #expect(f.children[2].demandLog == [.requested(.unlimited), .cancelled])
        #expect(f.upstream.demandLog == [.requested(.unlimited)])
        f.children[2].send(completion: .failure(TestError(code: 10)))
        f.upstream.send(3)
        #expect(f.subscriber.completions.count == 1)
        #expect(!f.children[3].hasSubscriber)
    }

    @Test func upstreamFailureCancelsChildrenBeforeFailing() {
        let f = Fixture(subscriber: Sub(initialDemand: .max(1)))
        var childCancelledFirst = false
        let subscriber = Sub(initialDemand: .max(1), onCompletion: { _ in childCancelledFirst = f.children[0].isCancelled })
        let upstream = TestPublisher<Int, TestError>()
        let children = f.children
        upstream.flatMap { children[$0] }.subscribe(subscriber)
        upstream.send(0)
        children[0].send(1)
        children[0].send(2)   // waits
        upstream.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.events == [.subscription("FlatMap"), .value(1), .completion(.failure(TestError(code: 4)))])
        #expect(childCancelledFirst)
        upstream.send(1)
        #expect(!children[1].hasSubscriber)
    }

    @Test func cancelCancelsChildrenThenUpstreamAndIsIdempotent() {
        let f = Fixture()
        f.upstream.send(0)
        f.upstream.send(1)
        f.subscriber.cancel()
        f.subscriber.cancel()
        f.children[0].send(1)
        f.children[1].send(completion: .finished)
        #expect(f.subscriber.events == [.subscription("FlatMap")])
        #expect(f.children[0].demandLog == [.requested(.unlimited), .cancelled])
        #expect(f.children[1].demandLog == [.requested(.unlimited), .cancelled])
        #expect(f.upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func reentrantRequestAndChildValueInsideReceive() {
        var subscription: Subscription?
        let children = (0..<2).map { _ in Child() }
        let subscriber = Sub(initialDemand: .max(1), onSubscription: { subscription = $0 }, onValue: { value in
            if value == 0 {
                subscription?.request(.max(3))
                children[1].send(100)   // delivered nested: there is demand
            }
            return .none
        })
        let upstream = TestPublisher<Int, TestError>()
        upstream.flatMap(maxPublishers: .max(2)) { children[$0] }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        #expect(children[0].send(0) == .max(1))
        #expect(children[0].send(1) == .max(1))
        #expect(children[0].send(2) == .max(1))
        #expect(children[0].send(3) == .none)
        #expect(subscriber.values == [0, 100, 1, 2])
        #expect(children[0].demandLog == [.requested(.max(1))])
    }

    @Test func childThatPublishesWhileBeingSubscribedDoesNotDeadlock() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .max(2)) { Just($0) }.subscribe(subscriber)
        #expect(upstream.send(666) == .none)
        #expect(subscriber.values == [666])
        #expect(upstream.demandLog == [.requested(.max(2)), .requested(.max(1))])
    }

    @Test func secondSubscriptionIsCancelledAndValuesBeforeSubscriptionIgnored() {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let child = Child()
        let subscriber = Sub()
        upstream.flatMap { _ in child }.subscribe(subscriber)
        upstream.send(1)
        #expect(!child.hasSubscriber)
        upstream.sendSubscription()
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        upstream.send(1)
        #expect(child.hasSubscriber)
    }

    /// The children are found by index among the live ones: after children finish out of
    /// order, each remaining one still delivers and is refilled, and a finished one is ignored.
    @Test func childrenThatFinishOutOfOrderLeaveTheOthersTheirOwnSubscriptions() {
        let f = Fixture(subscriber: Sub(initialDemand: .max(1)))
        for index in 0..<4 { f.upstream.send(index) }
        f.children[1].send(completion: .finished)
        f.children[3].send(completion: .finished)
        #expect(f.children[1].send(10) == .none)   // finished: ignored
        #expect(f.children[2].send(20) == .max(1))
        #expect(f.children[0].send(30) == .none)   // no demand: waits
        f.children[0].send(completion: .finished)
        #expect(f.subscriber.values == [20])
        f.subscriber.request(.max(1))
        #expect(f.subscriber.values == [20, 30])
        // The waiting value's child has finished: nothing to refill.
        #expect(f.children[0].demandLog == [.requested(.max(1))])
        #expect(f.children[2].send(21) == .none)
        f.subscriber.request(.max(1))
        #expect(f.subscriber.values == [20, 30, 21])
        #expect(f.children[2].demandLog == [.requested(.max(1)), .requested(.max(1))])
        f.upstream.send(completion: .finished)
        f.children[2].send(completion: .finished)
        #expect(f.subscriber.completions == [.finished])
    }

    /// With unlimited demand a live child's value goes to the downstream without the lock, and
    /// whether the child is live is read from eight words, one per child while it lasts (child
    /// `i` has word `i % 8` if it is free when the child comes). These children are more than
    /// that (most find their word taken), finish, and are followed by children that take freed
    /// words: every live child still delivers, in the order sent, and a finished child is still
    /// ignored, even when a newer child has its word.
    @Test func childrenBeyondTheLiveWordsAndFinishedOnesWithUnlimitedDemand() {
        let upstream = PassthroughSubject<Int, TestError>()
        let children = (0..<66).map { _ in Child() }
        let subscriber = Sub()
        upstream.flatMap { children[$0] }.subscribe(subscriber)
        for index in 0..<40 { upstream.send(index) }
        for index in 0..<40 { children[index].send(index) }
        #expect(subscriber.values == Array(0..<40))
        children[1].send(completion: .finished)
        children[33].send(completion: .finished)
        #expect(children[1].send(100) == .none)    // finished: ignored
        #expect(children[33].send(133) == .none)   // finished, never had a word: ignored
        for index in 40..<66 { upstream.send(index) }
        // Child 41 has child 1's word now; child 1 is still ignored.
        children[41].send(41)
        children[1].send(101)
        children[32].send(32)
        children[64].send(64)
        #expect(subscriber.values == Array(0..<40) + [41, 32, 64])
        upstream.send(completion: .finished)
        for index in 0..<66 where index != 1 && index != 33 {
            children[index].send(completion: .finished)
        }
        #expect(subscriber.completions == [.finished])
        children[41].send(141)
        #expect(subscriber.values.count == 43)
    }

    @Test func eventsAfterTheEndAreIgnored() {
        let f = Fixture()
        f.upstream.send(0)
        f.upstream.send(completion: .finished)
        f.children[0].send(completion: .finished)
        f.children[0].send(completion: .finished)
        f.children[0].send(5)
        f.upstream.send(1)
        f.upstream.send(completion: .failure(TestError()))
        #expect(f.subscriber.events == [.subscription("FlatMap"), .completion(.finished)])
    }

    @Test func failureCombinations() {
        // Upstream cannot fail, children can: the upstream is given the children's failure type.
        let never = PassthroughSubject<Int, Never>()
        let failing = PassthroughSubject<Int, TestError>()
        let a: Publishers.FlatMap<PassthroughSubject<Int, TestError>, Publishers.SetFailureType<PassthroughSubject<Int, Never>, TestError>> = never.flatMap { _ in failing }
        #expect(a.upstream.upstream === never)
        // Upstream can fail, children cannot: the children are given the upstream's failure type.
        let neverChild = PassthroughSubject<Int, Never>()
        let b: Publishers.FlatMap<Publishers.SetFailureType<PassthroughSubject<Int, Never>, TestError>, PassthroughSubject<Int, TestError>> = failing.flatMap { _ in neverChild }
        #expect(b.transform(0).upstream === neverChild)
        // Neither can fail.
        let c: Publishers.FlatMap<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>> = never.flatMap { _ in neverChild }
        #expect(c.maxPublishers == .unlimited)
        var out: [Int] = []
        var completion: Subscribers.Completion<TestError>?
        let cancellable = a.sink(receiveCompletion: { completion = $0 }, receiveValue: { out.append($0) })
        never.send(1)
        failing.send(42)
        failing.send(completion: .failure(TestError(code: 6)))
        #expect(out == [42])
        #expect(completion == .failure(TestError(code: 6)))
        cancellable.cancel()
    }

    @Test func cancellingTheOuterWhileInnersAreLiveReleasesEverything() {
        weak var weakSubscriber: Sub?
        weak var weakChild: Child?
        let upstream = TestPublisher<Int, TestError>()
        do {
            let child = Child()
            weakChild = child
            let subscriber = Sub()
            weakSubscriber = subscriber
            upstream.flatMap { _ in child }.subscribe(subscriber)
            upstream.send(0)
            child.send(1)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
            child.releaseSubscriber()
        }
        upstream.releaseSubscriber()
        #expect(weakSubscriber == nil)
        #expect(weakChild == nil)
    }

    @Test func releasesTheDownstreamAfterFinish() {
        weak var weakSubscriber: Sub?
        let upstream = TestPublisher<Int, TestError>()
        let child = Child()
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            upstream.flatMap { _ in child }.subscribe(subscriber)
            upstream.send(0)
            child.send(completion: .finished)
            upstream.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func eightChildrenOnDifferentThreadsLoseNothingAndNeverOverlap() async {
        let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let children = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { $0 }.subscribe(subscriber)
        for child in children { upstream.send(child) }
        upstream.send(completion: .finished)
        await withTaskGroup(of: Void.self) { group in
            for (thread, child) in children.enumerated() {
                group.addTask {
                    for i in 0..<10_000 { child.send(thread * 10_000 + i) }
                    child.send(completion: .finished)
                }
            }
        }
        let values = subscriber.values
        #expect(values.count == 80_000)
        #expect(Set(values).count == 80_000)
        #expect(subscriber.events.last == .completion(.finished))
        #expect(subscriber.completions.count == 1)
        #expect(!subscriber.sawConcurrentSignals)
        for thread in 0..<8 {
            #expect(values.filter { $0 / 10_000 == thread } == Array(thread * 10_000..<(thread + 1) * 10_000))
        }
    }

    /// Children that start, publish and finish on four threads at once, with unlimited demand:
    /// their values go without the lock while their words (see above) are set and freed under
    /// it, and each child sends one more value after its end, which is ignored.
    @Test func childrenComingAndGoingOnFourThreadsLoseNothingAndNeverOverlap() {
        let upstream = PassthroughSubject<TestPublisher<Int, Never>, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.flatMap { $0 }.subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for child in 0..<200 {
                let publisher = TestPublisher<Int, Never>()
                upstream.send(publisher)
                // The subject may hand the child over later, on the thread delivering: wait
                // until the flatMap has subscribed to it.
                while !publisher.hasSubscriber { Thread.sleep(forTimeInterval: 0.000_05) }
                for i in 0..<50 { publisher.send((thread * 200 + child) * 50 + i) }
                publisher.send(completion: .finished)
                publisher.send(-1)   // after its end: ignored
            }
        }
        upstream.send(completion: .finished)
        let values = subscriber.values
        #expect(values.count == 40_000)
        #expect(Set(values) == Set(0..<40_000))
        #expect(subscriber.completions == [.finished])
        #expect(!subscriber.sawConcurrentSignals)
        for thread in 0..<4 {
            let range = thread * 10_000..<(thread + 1) * 10_000
            #expect(values.filter { range.contains($0) } == Array(range))
        }
    }

    @Test func eightChildrenWithLimitedDemandNeverExceedIt() async {
        let upstream = PassthroughSubject<AnyPublisher<Int, Never>, Never>()
        let received = CombiningTestCounter()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        upstream.flatMap { $0 }.subscribe(subscriber)
        // Children that publish whatever they are asked for, on their own thread.
        let children = (0..<8).map { t in (0..<1_000).map { t * 1_000 + $0 }.publisher.eraseToAnyPublisher() }
        await withTaskGroup(of: Void.self) { group in
            for child in children {
                let box = CombiningTestBox(child)
                group.addTask { upstream.send(box.value) }
            }
            group.addTask {
                for _ in 0..<500 {
                    received.increment()
                    subscriber.request(.max(2))
                }
            }
        }
        let values = subscriber.values
        #expect(values.count == 10 + 2 * received.value)
        #expect(Set(values).count == values.count)
        #expect(!subscriber.sawConcurrentSignals)
        subscriber.request(.unlimited)
        #expect(subscriber.values.count == 8_000)
    }
}

/// Hands a non-Sendable value to a task in a test that synchronises it by other means.
struct CombiningTestBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
