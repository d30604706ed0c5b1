import Testing
import Foundation
import Observation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Observable
final class ObservedModel {
    var count = 0
    var label = "a"
    var showsCount = true
}

/// A model shared between threads: its lock is held across `withMutation`, so a read waits for
/// a change in progress (what `Publishers.Observed` asks of such models).
@Observable
final class SharedCounter: @unchecked Sendable {
    @ObservationIgnored private let lock = NSLock()
    @ObservationIgnored private var storage = 0

    var count: Int {
        access(keyPath: \.count)
        return lock.withLock { storage }
    }

    func increment() {
        lock.withLock { withMutation(keyPath: \.count) { storage += 1 } }
    }
}

/// Counts how often the read closure runs.
private final class Reads: @unchecked Sendable {
    var count = 0
}

@Suite("Publishers.Observed (the Observation framework)")
struct ObservedTests {
    @Test func sendsTheCurrentValueOnSubscriptionOnTheSubscribingThread() {
        let model = ObservedModel()
        model.count = 5
        let scheduler = DispatchQueue.test
        var received: [Int] = []
        let cancellable = Publishers.Observed(on: scheduler) { model.count }.sink { received.append($0) }
        #expect(received == [5], "before sink returns, without running the scheduler")
        cancellable.cancel()
    }

    @Test func aChangeSendsTheNewValueOnTheSchedulerAfterTheMutatingCall() {
        let model = ObservedModel()
        let scheduler = DispatchQueue.test
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.Observed(on: scheduler) { model.count }.subscribe(subscriber)
        model.count = 1
        #expect(subscriber.values == [0], "nothing during the mutating call: the read is scheduled")
        scheduler.advance()
        #expect(subscriber.values == [0, 1], "the new value, read after the change")
        model.count = 2
        scheduler.advance()
        #expect(subscriber.values == [0, 1, 2])
        #expect(subscriber.subscriptionNames == ["Observed"])
        scheduler.run()
        #expect(subscriber.completions.isEmpty, "it never completes")
    }

    @Test func changesBeforeTheScheduledReadAreSentAsOneValueTheLatest() {
        let model = ObservedModel()
        let scheduler = DispatchQueue.test
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.Observed(on: scheduler) { model.count }.subscribe(subscriber)
        model.count = 1
        model.count = 2
        model.count = 3
        scheduler.advance()
        #expect(subscriber.values == [0, 3])
    }

    @Test func onlyWhatTheClosureReadIsObservedAndThatIsReadAgainEachTime() {
        let model = ObservedModel()
        let scheduler = DispatchQueue.test
        let subscriber = TestSubscriber<String, Never>()
        Publishers.Observed(on: scheduler) { model.showsCount ? "\(model.count)" : model.label }.subscribe(subscriber)
        model.label = "b"
        scheduler.advance()
        #expect(subscriber.values == ["0"], "label was not read: its change sends nothing")
        model.showsCount = false
        scheduler.advance()
        #expect(subscriber.values == ["0", "b"])
        model.count = 7
        scheduler.advance()
        #expect(subscriber.values == ["0", "b"], "count is no longer read")
        model.label = "c"
        scheduler.advance()
        #expect(subscriber.values == ["0", "b", "c"])
    }

    @Test func aValueWithoutDemandWaitsAndIsReplacedByNewerOnes() {
        let model = ObservedModel()
        let scheduler = DispatchQueue.test
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Publishers.Observed(on: scheduler) { model.count }.subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [0])
        model.count = 1
        scheduler.advance()
        model.count = 2
        scheduler.advance()
        #expect(subscriber.values == [0], "no demand: nothing sent")
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 2], "the latest, delivered on the requesting thread")
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 2], "nothing new to send")
        model.count = 3
        scheduler.advance()
        #expect(subscriber.values == [0, 2, 3])
    }

    @Test func demandReturnedForAValueIsHonoured() {
        let model = ObservedModel()
        let scheduler = DispatchQueue.test
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { $0 == 0 ? .max(1) : .none })
        Publishers.Observed(on: scheduler) { model.count }.subscribe(subscriber)
        model.count = 1
        scheduler.advance()
        model.count = 2
        scheduler.advance()
        #expect(subscriber.values == [0, 1])
    }

    /// A subscriber of `model.count` on a test scheduler, and how often the closure ran.
    fileprivate func subscribedCountingReads(_ model: ObservedModel) -> (TestSubscriber<Int, Never>, TestSchedulerOf<DispatchQueue>, Reads) {
        let scheduler = DispatchQueue.test
        let reads = Reads()
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.Observed(on: scheduler) { () -> Int in
            reads.count += 1
            return model.count
        }.subscribe(subscriber)
        return (subscriber, scheduler, reads)
    }

    @Test func afterACancelNothingIsReadOrSent() {
        let model = ObservedModel()
        let (subscriber, scheduler, reads) = subscribedCountingReads(model)
        let readsBefore = reads.count
        subscriber.cancel()
        model.count = 1
        scheduler.advance()
        model.count = 2
        scheduler.advance()
        #expect(subscriber.values == [0])
        #expect(reads.count == readsBefore)
    }

    /// A cancel between the change (Observation's willSet) and the scheduled read: the read
    /// finds the subscription cancelled and neither reads nor sends.
    @Test func aCancelDuringAChangeStopsTheValueItAnnounced() {
        let model = ObservedModel()
        let (subscriber, scheduler, reads) = subscribedCountingReads(model)
        model.count = 1
        let readsBefore = reads.count
        subscriber.cancel()
        scheduler.advance()
        #expect(subscriber.values == [0])
        #expect(reads.count == readsBefore)
    }

    @Test func aSubscriberThatCancelsInsideADeliveryWhileThreadsKeepChangingGetsNothingMore() {
        let model = SharedCounter()
        let queue = DispatchQueue(label: "observed.cancel")
        let received = Log<Int>()
        let cancelled = Flag()
        var cancellable: AnyCancellable?
        let subscribed = Flag()
        queue.sync {
            cancellable = Publishers.Observed(on: queue) { model.count }.sink { value in
                received.append(value)
                if value >= 50 {
                    cancelled.set()
                    cancellable?.cancel()
                }
            }
            subscribed.set()
        }
        Stress.runOnThreads(3) { _ in
            for _ in 0..<400 { model.increment() }
        }
        queue.sync {}
        queue.sync {}
        #expect(cancelled.isSet)
        let values = received.all
        #expect(values.filter { $0 >= 50 }.count == 1, "nothing after the value whose delivery cancelled: \(values)")
        withExtendedLifetime(cancellable) {}
    }

    @Test func aModelChangedFromSeveralThreadsEndsOnItsFinalValueInOrder() {
        let model = SharedCounter()
        let queue = DispatchQueue(label: "observed.delivery")
        let subscriber = TestSubscriber<Int, Never>()
        Publishers.Observed(on: queue) { model.count }.subscribe(subscriber)
        let threads = 4, perThread = 500
        Stress.runOnThreads(threads) { _ in
            for _ in 0..<perThread { model.increment() }
        }
        #expect(Stress.waitUntil { subscriber.values.last == threads * perThread },
                "the last change's value arrives: \(subscriber.values.suffix(3))")
        let values = subscriber.values
        #expect(values == values.sorted(), "reads on one serial queue of a counter only ever see it grow")
        #expect(!subscriber.sawConcurrentSignals)
        #expect(values.count <= threads * perThread + 1)
    }

    @Test func valuesAfterAChangeArriveOnTheSchedulersQueueAfterTheMutatingCallReturns() {
        let model = ObservedModel()
        let queue = DispatchQueue(label: "observed.model")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "model queue")
        let events = Log<String>()
        var cancellable: AnyCancellable?
        queue.sync {
            cancellable = Publishers.Observed(on: queue) { model.count }.sink { value in
                events.append("value \(value) on \(DispatchQueue.getSpecific(key: key) ?? "another queue")")
            }
        }
        queue.sync {
            model.count = 1
            events.append("mutating call returned")
        }
        queue.sync {}
        queue.sync {}
        #expect(events.all == ["value 0 on model queue", "mutating call returned", "value 1 on model queue"])
        withExtendedLifetime(cancellable) {}
    }
}
