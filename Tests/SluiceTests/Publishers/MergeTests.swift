import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Merge, Merge3...Merge8, MergeMany")
struct MergeTests {
    typealias Sub = TestSubscriber<Int, TestError>

    @Test func interleavesValuesAndFinishesAfterEveryUpstream() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub()
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        b.send(2)
        a.send(3)
        a.send(completion: .finished)
        b.send(4)
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .value(2), .value(3), .value(4)])
        b.send(completion: .finished)
        #expect(subscriber.events.last == .completion(.finished))
        #expect(a.demandLog == [.requested(.unlimited)])
        #expect(b.demandLog == [.requested(.unlimited)])
    }

    @Test func downstreamGetsItsSubscriptionBeforeTheUpstreamsAreSubscribed() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        var sawUpstream = true
        let subscriber = Sub(initialDemand: .none, onSubscription: { _ in sawUpstream = a.hasSubscriber })
        a.merge(with: b).subscribe(subscriber)
        #expect(sawUpstream == false)
        // Without demand each upstream is asked for one value.
        #expect(a.demandLog == [.requested(.max(1))])
        #expect(b.demandLog == [.requested(.max(1))])
    }

    @Test func failureCancelsEveryUpstreamAndIsDeliveredOnce() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub()
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        b.send(completion: .failure(TestError(code: 7)))
        a.send(2)
        a.send(completion: .failure(TestError(code: 8)))
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .completion(.failure(TestError(code: 7)))])
        #expect(a.demandLog == [.requested(.unlimited), .cancelled])
        // Combine cancels the failed upstream too.
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func limitedDemandRunsEachUpstreamOneAhead() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub(initialDemand: .max(1))
        a.merge(with: b).subscribe(subscriber)
        #expect(a.send(1) == .max(1))
        #expect(b.send(2) == .none)   // no demand: waits in b's slot
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        // The drained upstream is asked for one more.
        #expect(b.demandLog == [.requested(.max(1)), .requested(.max(1))])
        #expect(a.demandLog == [.requested(.max(1))])
    }

    @Test func maxOneReplenishedOneAtATime() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub(initialDemand: .max(1), onValue: { _ in .max(1) })
        a.merge(with: b).subscribe(subscriber)
        for i in 0..<5 {
            #expect(a.send(i * 2) == .max(1))
            #expect(b.send(i * 2 + 1) == .max(1))
        }
        #expect(subscriber.values == Array(0..<10))
        #expect(a.demandLog == [.requested(.max(1))])
    }

    @Test func demandArrivingAfterValuesAreReadyDrainsInUpstreamOrder() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let c = TestPublisher<Int, TestError>()
        let subscriber = Sub(initialDemand: .none)
        a.merge(with: b, c).subscribe(subscriber)
        c.send(30)
        a.send(10)
        b.send(20)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(2))
        #expect(subscriber.values == [10, 20])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [10, 20, 30])
        #expect(a.demandLog == [.requested(.max(1)), .requested(.max(1)), .requested(.unlimited)])
        #expect(c.demandLog == [.requested(.max(1)), .requested(.unlimited)])
    }

    @Test func anUpstreamThatIgnoresDemandOverwritesItsSlot() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub(initialDemand: .max(1))
        a.merge(with: b).subscribe(subscriber)
        a.send(100)
        a.send(200)
        a.send(300)
        subscriber.request(.max(1))
        #expect(subscriber.values == [100, 300])
    }

    @Test func finishWaitsForWaitingValues() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub(initialDemand: .none)
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        a.send(completion: .finished)
        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Merge")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .completion(.finished)])
    }

    @Test func cancelMidStreamCancelsEveryUpstreamAndStopsDelivery() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub()
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        subscriber.cancel()
        subscriber.cancel()
        a.send(2)
        b.send(completion: .finished)
        a.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Merge"), .value(1)])
        #expect(a.demandLog == [.requested(.unlimited), .cancelled])
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func reentrantRequestAndValueInsideReceive() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        var subscription: Subscription?
        let subscriber = Sub(initialDemand: .max(1), onSubscription: { subscription = $0 }, onValue: { value in
            if value == 1 {
                subscription?.request(.max(1))
                b.send(2)   // delivered nested, as in Combine
            }
            return .none
        })
        a.merge(with: b).subscribe(subscriber)
        #expect(a.send(1) == .max(1))
        #expect(subscriber.values == [1, 2])
        // The re-entrant request with nothing waiting asks no upstream for more.
        #expect(a.demandLog == [.requested(.max(1))])
        #expect(b.demandLog == [.requested(.max(1))])
    }

    @Test func reentrantFinishInsideReceive() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub(onValue: { _ in
            a.send(completion: .finished)
            b.send(completion: .finished)
            return .none
        })
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .completion(.finished)])
    }

    @Test func cancelFromInsideReceive() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        var subscription: Subscription?
        let subscriber = Sub(onSubscription: { subscription = $0 }, onValue: { _ in
            subscription?.cancel()
            return .none
        })
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        b.send(2)
        #expect(subscriber.values == [1])
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func secondSubscriptionIsCancelled() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub()
        a.merge(with: b).subscribe(subscriber)
        a.sendSubscription()
        #expect(a.demandLog == [.requested(.unlimited), .cancelled])
        a.send(1)
        #expect(subscriber.values == [1])
    }

    @Test func eventsAfterTheEndAreIgnored() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub()
        a.merge(with: b).subscribe(subscriber)
        a.send(completion: .finished)
        a.send(1)                           // after a finished
        a.send(completion: .failure(TestError()))
        b.send(completion: .finished)
        b.send(2)
        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Merge"), .completion(.finished)])
    }

    @Test func everyArityAndMergeMany() {
        let pubs = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        var results: [[Int]] = []
        var cancellables: [AnyCancellable] = []
        func collect<P: Publisher>(_ publisher: P) where P.Output == Int, P.Failure == Never {
            let index = results.count
            results.append([])
            cancellables.append(publisher.sink { results[index].append($0) })
        }
        let p = pubs
        collect(p[0].merge(with: p[1]))
        collect(p[0].merge(with: p[1], p[2]))
        collect(p[0].merge(with: p[1], p[2], p[3]))
        collect(p[0].merge(with: p[1], p[2], p[3], p[4]))
        collect(p[0].merge(with: p[1], p[2], p[3], p[4], p[5]))
        collect(p[0].merge(with: p[1], p[2], p[3], p[4], p[5], p[6]))
        collect(p[0].merge(with: p[1], p[2], p[3], p[4], p[5], p[6], p[7]))
        collect(p[0].merge(with: p[1]).merge(with: p[2]).merge(with: p[3]).merge(with: p[4])
                    .merge(with: p[5]).merge(with: p[6]).merge(with: p[7]))
        collect(p[0].merge(with: p[1]).merge(with: p[2], p[3], p[4], p[5], p[6], p[7]))
        collect(Publishers.MergeMany(p))
        collect(Publishers.MergeMany(p[0], p[1]).merge(with: p[2]))
        for (i, subject) in pubs.enumerated() { subject.send(i) }
        #expect(results[0] == [0, 1])
        #expect(results[1] == [0, 1, 2])
        #expect(results[6] == Array(0..<8))
        #expect(results[7] == Array(0..<8))
        #expect(results[8] == Array(0..<8))
        #expect(results[9] == Array(0..<8))
        #expect(results[10] == [0, 1, 2])
        // Publishers of one type merge into a MergeMany, as in Combine; of different types, into
        // Merge, Merge3, ... Merge8.
        let many: Publishers.MergeMany<PassthroughSubject<Int, Never>> = p[0].merge(with: p[1]).merge(with: p[2])
        #expect(many.publishers.map(ObjectIdentifier.init) == p[0...2].map(ObjectIdentifier.init))
        let m8: Publishers.Merge8 = p[0].merge(with: p[1].eraseToAnyPublisher()).merge(with: p[2]).merge(with: p[3])
            .merge(with: p[4]).merge(with: p[5]).merge(with: p[6]).merge(with: p[7])
        #expect(m8.h === p[7])
        cancellables.forEach { $0.cancel() }
    }

    @Test func equatableWhereTheUpstreamsAre() {
        let just1 = Just(1), just2 = Just(2)
        #expect(just1.merge(with: just2) == Publishers.MergeMany(Just(1), Just(2)))
        #expect(just1.merge(with: just2) != Publishers.MergeMany(Just(1), Just(3)))
        #expect(Publishers.Merge(just1, just2) == Publishers.Merge(Just(1), Just(2)))
        #expect(Publishers.Merge(just1, just2) != Publishers.Merge(Just(1), Just(3)))
        #expect(Publishers.MergeMany([just1, just2]) == Publishers.MergeMany(just1, just2))
        #expect(just1.merge(with: just2, just1) == Publishers.Merge3(just1, just2, just1))
    }

    @Test func mergeManyOfNothingFinishesOnTheFirstRequest() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Publishers.MergeMany<Just<Int>>([]).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Merge")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Merge"), .completion(.finished)])
    }

    @Test func mergeWithSynchronousPublishers() {
        var out: [Int] = []
        let subject = CurrentValueSubject<Int, Never>(0)
        let c = [42].publisher.merge(with: subject).sink { out.append($0) }
        #expect(out == [42, 0])
        c.cancel()
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterFinish() {
        weak var weakSubscriber: Sub?
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            a.merge(with: b).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        a.releaseSubscriber()
        b.releaseSubscriber()
        #expect(weakSubscriber == nil)

        weak var weakFinished: Sub?
        let c = TestPublisher<Int, TestError>()
        let d = TestPublisher<Int, TestError>()
        do {
            let subscriber = Sub()
            weakFinished = subscriber
            c.merge(with: d).subscribe(subscriber)
            c.send(completion: .finished)
            d.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakFinished == nil)
    }

    // With unlimited demand and every upstream subscribed a value goes through without the lock
    // (the gate's lock-free claim); these check what the locked path guaranteed still holds.

    @Test func withUnlimitedDemandAValueSentFromInsideReceiveIsDeliveredNested() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        var depth = 0
        var nestedValues: [Int] = []
        let subscriber = Sub(onValue: { value in
            depth += 1
            defer { depth -= 1 }
            if depth > 1 { nestedValues.append(value) }
            if value == 1 { b.send(2) }
            return .none
        })
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        a.send(3)
        #expect(subscriber.values == [1, 2, 3])
        #expect(nestedValues == [2])
    }

    @Test func withUnlimitedDemandAnUpstreamThatFinishedIsIgnoredWhileTheOthersGoOn() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub()
        a.merge(with: b).subscribe(subscriber)
        a.send(1)
        a.send(completion: .finished)
        a.send(2)                           // after a finished
        b.send(3)
        b.send(completion: .finished)
        b.send(4)
        #expect(subscriber.events == [.subscription("Merge"), .value(1), .value(3), .completion(.finished)])
    }

    @Test func demandTurningUnlimitedDeliversTheWaitingValuesBeforeNewOnes() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let subscriber = Sub(initialDemand: .none)
        a.merge(with: b).subscribe(subscriber)
        b.send(20)
        a.send(10)
        subscriber.request(.unlimited)
        a.send(11)
        b.send(21)
        #expect(subscriber.values == [10, 20, 11, 21])
    }

    @Test func valuesArriveBeforeAndAfterAnUpstreamIsSubscribedLate() {
        let scheduler = DispatchQueue.test
        let a = PassthroughSubject<Int, Never>()
        let late = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        // `late` is subscribed only when the scheduler runs, after a value from `a` went through.
        a.merge(with: late.subscribe(on: scheduler)).subscribe(subscriber)
        a.send(1)
        scheduler.advance()
        late.send(2)
        a.send(3)
        #expect(subscriber.values == [1, 2, 3])
    }

    /// Four threads send through a merge into an unlimited subscriber while a fifth cancels: no
    /// two deliveries overlap, nothing arrives once the senders have stopped after the cancel,
    /// and the subscriber is let go.
    @Test func aCancelRacingLockFreeDeliveriesFromFourThreadsEndsThemAndReleasesTheSubscriber() {
        for _ in 0..<20 {
            weak var weakSubscriber: TestSubscriber<Int, Never>?
            let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
            do {
                let subscriber = TestSubscriber<Int, Never>()
                weakSubscriber = subscriber
                Publishers.MergeMany(subjects).subscribe(subscriber)
                DispatchQueue.concurrentPerform(iterations: 5) { thread in
                    if thread == 4 {
                        while subscriber.values.count < 1_000 {}
                        subscriber.cancel()
                    } else {
                        for i in 0..<5_000 { subjects[thread].send(thread * 5_000 + i) }
                    }
                }
                let countAfterCancel = subscriber.values.count
                for subject in subjects { subject.send(-1) }
                #expect(subscriber.values.count == countAfterCancel)
                #expect(!subscriber.values.contains(-1))
                #expect(Set(subscriber.values).count == subscriber.values.count)
                #expect(!subscriber.sawConcurrentSignals)
                subscriber.releaseSubscriptions()
            }
            #expect(weakSubscriber == nil)
        }
    }

    @Test func subscriptionHasNoMirrorChildren() {
        let subscriber = Sub()
        TestPublisher<Int, TestError>().merge(with: TestPublisher<Int, TestError>()).subscribe(subscriber)
        #expect(Mirror(reflecting: subscriber.subscription!).children.count == 0)
        #expect(subscriber.subscription.map { ($0 as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String } == "Merge")
    }

    @Test func eightProducersOnDifferentThreadsLoseNothingAndNeverOverlap() async {
        let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.MergeMany(subjects).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for (thread, subject) in subjects.enumerated() {
                group.addTask {
                    for i in 0..<10_000 { subject.send(thread * 10_000 + i) }
                    subject.send(completion: .finished)
                }
            }
        }
        let values = subscriber.values
        #expect(values.count == 80_000)
        #expect(Set(values).count == 80_000)
        #expect(subscriber.completions == [.finished])
        #expect(subscriber.events.last == .completion(.finished))
        #expect(!subscriber.sawConcurrentSignals)
        // Each producer's values stay in its own order.
        for thread in 0..<8 {
            let own = values.filter { $0 / 10_000 == thread }
            #expect(own == Array(thread * 10_000..<(thread + 1) * 10_000))
        }
    }

    /// Eight producers send while another thread grants demand one at a time: what arrives
    /// never exceeds what was requested, is never duplicated, and never overlaps.
    @Test func eightProducersWhileDemandArrivesOneAtATimeFromAnotherThread() {
        let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        Publishers.MergeMany(subjects).subscribe(subscriber)
        let requests = 500
        DispatchQueue.concurrentPerform(iterations: 9) { thread in
            if thread == 8 {
                for _ in 0..<requests { subscriber.request(.max(1)) }
            } else {
                for i in 0..<2_000 { subjects[thread].send(thread * 2_000 + i) }
            }
        }
        // PassthroughSubject drops values its subscriber has no demand for.
        let values = subscriber.values
        #expect(values.count <= 1 + requests)
        #expect(Set(values).count == values.count)
        #expect(!subscriber.sawConcurrentSignals)
    }
}

/// A thread-safe counter for concurrency tests.
final class CombiningTestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
