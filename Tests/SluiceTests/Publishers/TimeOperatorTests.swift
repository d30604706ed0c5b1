import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Time operators on virtual time: exact instants, boundaries, completion and failure while a
/// value is pending, cancellation while pending.
@Suite("Time operators on TestScheduler")
struct TimeOperatorTests {
    typealias Stride = DispatchQueue.SchedulerTimeType.Stride

    /// Records each value with the virtual time (ms since start) it arrived.
    final class Timed<Value>: @unchecked Sendable {
        var events: [String] = []
        let start: DispatchQueue.SchedulerTimeType
        let scheduler: TestSchedulerOf<DispatchQueue>
        init(_ scheduler: TestSchedulerOf<DispatchQueue>) {
            self.scheduler = scheduler
            start = scheduler.now
        }
        var ms: Int { start.distance(to: scheduler.now).magnitude / 1_000_000 }
        func subscriber(demand: Subscribers.Demand = .unlimited) -> TestSubscriber<Value, TestError> {
            TestSubscriber(initialDemand: demand,
                           onValue: { [unowned self] value in events.append("\(value)@\(ms)"); return .none },
                           onCompletion: { [unowned self] completion in
                               switch completion {
                               case .finished: events.append("|@\(ms)")
                               case .failure: events.append("#@\(ms)")
                               }
                           })
        }
    }

    @Test func receiveOnSchedulesEachValueAndTheCompletion() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.receive(on: scheduler).subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["ReceiveOn"], "the subscription is passed on synchronously")
        #expect(upstream.demandLog == [.requested(.unlimited)], "requests pass through synchronously")
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [])
        #expect(scheduler.pendingActionCount == 1, "a burst rides one scheduled action")
        scheduler.advance()
        #expect(subscriber.events == [.subscription("ReceiveOn"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func receiveOnYieldsTheSchedulerEvery64Values() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.receive(on: scheduler).subscribe(subscriber)
        for value in 0..<100 { subject.send(value) }
        var other: [Int] = []
        scheduler.schedule { other.append(subscriber.values.count) }
        scheduler.advance()
        #expect(subscriber.values == Array(0..<100))
        #expect(other == [64], "other work on the scheduler runs between batches")
    }

    @Test func receiveOnRequestsTheDemandReturnedAfterDelivery() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), onValue: { _ in .max(2) })
        upstream.receive(on: scheduler).subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.demandLog == [.requested(.max(1))])
        scheduler.advance()
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(2))])
    }

    /// A batch already taken from the queue stops at a cancel made from inside the downstream.
    @Test func receiveOnCancelInsideABatchStopsItAtOnce() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { subscription = $0 }, onValue: { value in
            if value == 3 { subscription?.cancel() }
            return .none
        })
        subject.receive(on: scheduler).subscribe(subscriber)
        for value in 1...10 { subject.send(value) }
        scheduler.advance()
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions.isEmpty)
    }

    /// A value an upstream sends before handing over its subscription is refused.
    @Test func receiveOnRefusesAValueBeforeTheSubscription() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Never>()
        upstream.receive(on: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance()
        #expect(subscriber.events.isEmpty)
        upstream.sendSubscription()
        upstream.send(2)
        scheduler.advance()
        #expect(subscriber.values == [2])
    }

    @Test func receiveOnDeliversNothingAfterCancel() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.receive(on: scheduler).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        scheduler.advance()
        #expect(subscriber.values == [])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        upstream.send(2)
        #expect(scheduler.pendingActionCount == 0, "nothing is scheduled after cancel")
    }

    @Test func subscribeOnMovesSubscriptionAndRequestsButNotValues() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.subscribe(on: scheduler).subscribe(subscriber)
        #expect(!upstream.hasSubscriber, "subscribing is scheduled")
        scheduler.advance()
        #expect(subscriber.subscriptionNames == ["SubscribeOn"])
        // The subscriber's request was scheduled from inside the subscribe action, at the same
        // instant, so the same advance ran it.
        #expect(upstream.demandLog == [.requested(.max(1))])
        subscriber.request(.max(2))
        #expect(upstream.demandLog == [.requested(.max(1))], "a later request is scheduled too")
        scheduler.advance()
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(2))])
        upstream.send(1)
        #expect(subscriber.values == [1], "values pass through synchronously")
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(2))])
        scheduler.advance()
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(2)), .cancelled])
    }

    @Test func delayShiftsValuesAndCompletionByTheInterval() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.delay(for: .milliseconds(200), scheduler: scheduler).subscribe(timed.subscriber())
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(2)
        scheduler.advance(by: .milliseconds(100))
        #expect(timed.events == ["1@200"])
        subject.send(completion: .failure(TestError()))
        scheduler.advance(by: .milliseconds(99))
        #expect(timed.events == ["1@200"])
        scheduler.advance(by: .milliseconds(1))
        #expect(timed.events == ["1@200", "2@300"])
        scheduler.advance(by: .milliseconds(99))
        #expect(timed.events == ["1@200", "2@300"])
        scheduler.advance(by: .milliseconds(1))
        #expect(timed.events == ["1@200", "2@300", "#@400"], "a failure is delayed too")
    }

    @Test func delayCancelledWhilePendingDeliversNothing() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        scheduler.advance(by: .seconds(2))
        #expect(subscriber.values == [])
    }

    @Test func debounceEmitsTheLatestValueAfterAQuietPeriod() {
        let scheduler = DispatchQueue.test
        let timed = Timed<String>(scheduler)
        let subject = PassthroughSubject<String, TestError>()
        let subscriber = timed.subscriber()
        subject.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["Debounce"])
        subject.send("s")
        scheduler.advance(by: .milliseconds(100))
        subject.send("sw")
        scheduler.advance(by: .milliseconds(299))
        #expect(timed.events == [])
        scheduler.advance(by: .milliseconds(1))
        #expect(timed.events == ["sw@400"], "exactly at the boundary instant")
        subject.send("swift")
        scheduler.advance(by: .milliseconds(300))
        #expect(timed.events == ["sw@400", "swift@700"])
        scheduler.advance(by: .seconds(10))
        #expect(timed.events == ["sw@400", "swift@700"], "each value once")
    }

    @Test func debounceDropsThePendingValueOnCompletionAndDeliversTheCompletionOnTheScheduler() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(timed.subscriber())
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(completion: .finished)
        #expect(timed.events == [])
        scheduler.advance()
        #expect(timed.events == ["|@100"])
        scheduler.advance(by: .seconds(1))
        #expect(timed.events == ["|@100"])
    }

    @Test func debounceFailureWhilePendingAndCancelWhilePending() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(timed.subscriber())
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        scheduler.advance(by: .seconds(1))
        #expect(timed.events == ["#@0"])

        let other = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        other.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(subscriber)
        other.send(1)
        subscriber.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [])
    }

    @Test func debounceRequestsUnlimitedAndDropsValuesWithoutDemand() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(1)
        scheduler.advance(by: .seconds(1))
        upstream.send(2)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [1], "2 came due with no demand")
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [1])
        upstream.send(3)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [1, 3])
    }

    @Test func throttleLatestAndFirst() {
        for latest in [true, false] {
            let scheduler = DispatchQueue.test
            let timed = Timed<Int>(scheduler)
            let subject = PassthroughSubject<Int, TestError>()
            subject.throttle(for: .milliseconds(100), scheduler: scheduler, latest: latest).subscribe(timed.subscriber())
            subject.send(1)
            scheduler.advance()
            #expect(timed.events == ["1@0"], "the first value goes out on the next turn")
            scheduler.advance(by: .milliseconds(10))
            subject.send(2)
            scheduler.advance(by: .milliseconds(10))
            subject.send(3)
            scheduler.advance(by: .milliseconds(79))
            #expect(timed.events == ["1@0"])
            scheduler.advance(by: .milliseconds(1))
            #expect(timed.events == ["1@0", latest ? "3@100" : "2@100"])
            scheduler.advance(by: .milliseconds(150))
            subject.send(4)
            scheduler.advance()
            #expect(timed.events.last == "4@250", "after a gap the value goes out at once")
        }
    }

    @Test func throttleFlushesThePendingValueBeforeTheCompletion() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.throttle(for: .milliseconds(100), scheduler: scheduler, latest: true).subscribe(timed.subscriber())
        subject.send(1)
        scheduler.advance()
        subject.send(2)
        subject.send(completion: .failure(TestError()))
        scheduler.advance(by: .milliseconds(100))
        #expect(timed.events == ["1@0", "2@100", "#@100"])
    }

    @Test func timeoutFinishesOrFailsWhenTheUpstreamIsSilent() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.timeout(.milliseconds(500), scheduler: scheduler).subscribe(timed.subscriber())
        scheduler.advance(by: .milliseconds(400))
        subject.send(1)
        scheduler.advance(by: .milliseconds(499))
        #expect(timed.events == ["1@400"])
        scheduler.advance(by: .milliseconds(1))
        #expect(timed.events == ["1@400", "|@900"])
        subject.send(2)
        scheduler.advance(by: .seconds(1))
        #expect(timed.events == ["1@400", "|@900"])

        let failing = Timed<Int>(scheduler)
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = failing.subscriber()
        upstream.timeout(.milliseconds(100), scheduler: scheduler, customError: { TestError(code: 9) }).subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["Timeout"])
        scheduler.advance(by: .milliseconds(100))
        #expect(failing.events == ["#@100"])
        #expect(subscriber.completion == .failure(TestError(code: 9)))
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func collectByTimeEmitsNonEmptyWindowsAndFlushesOnFinish() {
        let scheduler = DispatchQueue.test
        let timed = Timed<[Int]>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(timed.subscriber())
        subject.send(1)
        subject.send(2)
        scheduler.advance(by: .milliseconds(1_000))
        #expect(timed.events == ["[1, 2]@1000"])
        scheduler.advance(by: .seconds(1))
        #expect(timed.events == ["[1, 2]@1000"], "an empty window publishes nothing")
        subject.send(3)
        subject.send(completion: .finished)
        scheduler.advance()
        #expect(timed.events == ["[1, 2]@1000", "[3]@2000", "|@2000"])
    }

    @Test func collectByTimeOrCountEmitsAFullBufferAtOnce() {
        let scheduler = DispatchQueue.test
        let timed = Timed<[Int]>(scheduler)
        let upstream = TestPublisher<Int, TestError>()
        upstream.collect(.byTimeOrCount(scheduler, .seconds(2), 2)).subscribe(timed.subscriber(demand: .max(3)))
        #expect(upstream.demandLog == [.requested(.max(6))], "downstream demand times the count")
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        scheduler.advance()
        #expect(timed.events == ["[1, 2]@0"])
        scheduler.advance(by: .seconds(2))
        #expect(timed.events == ["[1, 2]@0", "[3]@2000"])
        upstream.send(4)
        upstream.send(completion: .failure(TestError()))
        scheduler.advance()
        #expect(timed.events == ["[1, 2]@0", "[3]@2000", "#@2000"], "a failure discards what was collected")
    }

    @Test func measureIntervalMeasuresFromSubscription() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Stride, Never>()
        subject.measureInterval(using: scheduler).subscribe(subscriber)
        scheduler.advance(by: .nanoseconds(11))
        subject.send(0)
        scheduler.advance(by: .nanoseconds(3))
        subject.send(0)
        #expect(subscriber.values == [.nanoseconds(11), .nanoseconds(3)])
        #expect(subscriber.subscriptionNames == ["MeasureInterval"])
    }

    @Test func schedulerTimerTicksInVirtualTimeOnlyOnceConnected() {
        let scheduler = DispatchQueue.test
        let timed = Timed<DispatchQueue.SchedulerTimeType>(scheduler)
        let timer = scheduler.timerPublisher(every: .seconds(1))
        let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType, Never>(initialDemand: .max(3))
        timer.subscribe(subscriber)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.values == [], "nothing until connect()")
        let connection = timer.connect()
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.values.map { timed.start.distance(to: $0).magnitude / 1_000_000_000 } == [6, 7, 8])
        connection.cancel()
        var count = 0
        let auto = scheduler.timerPublisher(every: .seconds(1)).autoconnect().sink { _ in count += 1 }
        scheduler.advance(by: .seconds(3))
        #expect(count == 3)
        auto.cancel()
        scheduler.advance(by: .seconds(3))
        #expect(count == 3)
        #expect(scheduler.pendingActionCount == 0, "cancelling the last subscriber stops the timer")
    }
}
