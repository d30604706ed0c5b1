import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("ReplaySubject")
struct ReplaySubjectTests {
    typealias Sub = TestSubscriber<Int, TestError>

    @Test func replaysTheLastValuesToANewSubscriber() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        let subscriber = Sub()
        subject.subscribe(subscriber)
        subject.send(4)
        #expect(subscriber.events == [.subscription("ReplaySubject"), .value(2), .value(3), .value(4)])
        #expect(subject.bufferSize == 2)
    }

    /// Seed 003's failure mode: the replay is attempted while demand is zero and must be
    /// retried when demand arrives.
    @Test func replaysWhenDemandArrivesLongAfterSubscribing() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 1)
        subject.send(7)
        let subscriber = Sub(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [7])
        subject.send(8)
        #expect(subscriber.values == [7])   // no demand left
        subscriber.request(.max(1))
        #expect(subscriber.values == [7, 8])
    }

    @Test func limitedDemandDeliversTheBacklogInPiecesThenLiveValues() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 3)
        for i in 1...3 { subject.send(i) }
        let subscriber = Sub(initialDemand: .max(1))
        subject.subscribe(subscriber)
        #expect(subscriber.values == [1])
        subject.send(4)        // behind the backlog
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 3, 4])
        subject.send(5)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
    }

    @Test func aSubscriberWithoutDemandKeepsTheNewestMissedValues() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
        let subscriber = Sub(initialDemand: .none)
        subject.subscribe(subscriber)
        for i in 1...5 { subject.send(i) }
        subscriber.request(.max(5))
        #expect(subscriber.values == [4, 5])
    }

    @Test func demandReturnedFromReceiveDrainsTheBacklog() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 3)
        for i in 1...3 { subject.send(i) }
        let subscriber = Sub(initialDemand: .max(1), onValue: { _ in .max(1) })
        subject.subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
    }

    @Test func completionWaitsForTheBacklog() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
        subject.send(1)
        subject.send(2)
        let subscriber = Sub(initialDemand: .none)
        subject.subscribe(subscriber)
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaySubject")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaySubject"), .value(1)])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaySubject"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func aSubscriberAfterCompletionGetsTheBacklogThenTheCompletion() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(TestError(code: 3)))
        subject.send(4)
        let subscriber = Sub(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("ReplaySubject")])
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription("ReplaySubject"), .value(1), .value(2), .completion(.failure(TestError(code: 3)))])
        // With nothing to replay, a late subscriber gets the completion at once.
        let empty = ReplaySubject<Int, TestError>(bufferSize: 0)
        empty.send(1)
        empty.send(completion: .finished)
        let late = Sub(initialDemand: .none)
        empty.subscribe(late)
        #expect(late.events == [.subscription("Empty"), .completion(.finished)])
    }

    /// A completion sent while another thread delivers waits behind the values sent before it;
    /// a subscriber arriving meanwhile is owed those values, then the completion (it used to get
    /// the backlog as it stood and the completion at once, missing the queued values).
    @Test func aSubscriberArrivingWhileACompletionWaitsBehindQueuedValuesGetsThoseValues() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 3)
        let entered = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let holder = subject.sink(receiveCompletion: { _ in }, receiveValue: { value in
            if value == 0 {
                entered.signal()
                resume.wait()
            }
        })
        let finished = DispatchSemaphore(value: 0)
        // The thread that delivers 0 then delivers what was queued meanwhile, before `send` returns.
        let delivering = Thread {
            subject.send(0)
            finished.signal()
        }
        delivering.start()
        entered.wait()
        // The other thread is inside the delivery of 0: these wait in the queue.
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        let late = Sub()
        subject.subscribe(late)
        resume.signal()
        finished.wait()
        #expect(late.values == [0, 1, 2])
        #expect(late.completions == [.finished])
        holder.cancel()
    }

    @Test func bufferSizeZeroBehavesAsAPassthroughSubject() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 0)
        subject.send(1)
        let subscriber = Sub(initialDemand: .max(1))
        subject.subscribe(subscriber)
        subject.send(2)
        subject.send(3)
        subscriber.request(.max(1))
        #expect(subscriber.values == [2])
    }

    @Test func cancelStopsDeliveryAndReleasesTheSubscriber() {
        weak var weakSubscriber: Sub?
        let subject = ReplaySubject<Int, TestError>(bufferSize: 3)
        subject.send(1)
        subject.send(2)
        do {
            let subscriber = Sub(initialDemand: .max(1))
            weakSubscriber = subscriber
            subject.subscribe(subscriber)
            subscriber.cancel()
            subscriber.cancel()
            subscriber.request(.max(1))
            subject.send(3)
            #expect(subscriber.values == [1])
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func sendingFromInsideReceiveAndCancellingThere() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 5)
        subject.send(1)
        var subscription: Subscription?
        let subscriber = Sub(onSubscription: { subscription = $0 }, onValue: { value in
            if value < 3 { subject.send(value + 1) }
            if value == 3 { subscription?.cancel() }
            return .none
        })
        subject.subscribe(subscriber)
        subject.send(10)
        #expect(subscriber.values == [1, 2, 3])
        let later = Sub()
        subject.subscribe(later)
        #expect(later.values == [1, 2, 3, 10])
    }

    @Test func adoptsAnUpstreamEagerly() {
        let upstream = TestPublisher<Int, TestError>()
        let subject = ReplaySubject<Int, TestError>(bufferSize: 1)
        let cancellable = upstream.subscribe(subject)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(5)
        let subscriber = Sub()
        subject.subscribe(subscriber)
        #expect(subscriber.values == [5])
        cancellable.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func concurrentSendsAndSubscribersEachSeeEveryValueOnceInOrder() async {
        let subject = ReplaySubject<Int, Never>(bufferSize: 100_000)
        let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
        let holder = CombiningTestBox(subscribers)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<2_000 { subject.send(thread * 2_000 + i) }
                }
            }
            group.addTask {
                for subscriber in holder.value { subject.subscribe(subscriber) }
            }
        }
        let reference = TestSubscriber<Int, Never>()
        subject.subscribe(reference)
        #expect(reference.values.count == 16_000)
        for subscriber in subscribers {
            // Replayed values and live ones together: every value exactly once, in the
            // subject's one order.
            #expect(subscriber.values == reference.values)
            #expect(!subscriber.sawConcurrentSignals)
        }
    }

    @Test func lateDemandFromAnotherThreadWhileSending() async {
        let subject = ReplaySubject<Int, Never>(bufferSize: 10_000)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<5_000 { subject.send(i) }
            }
            group.addTask {
                for _ in 0..<5_000 { subscriber.request(.max(1)) }
            }
        }
        #expect(subscriber.values == Array(0..<5_000))
        #expect(!subscriber.sawConcurrentSignals)
    }
}
