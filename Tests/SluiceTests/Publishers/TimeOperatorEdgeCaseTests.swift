import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
import Synchronization

/// The edges of each time operator at exact virtual times: a value at the boundary instant,
/// completion and failure while a value is pending, cancellation while pending, no demand.
@Suite("Time operator edge cases on TestScheduler")
struct TimeOperatorEdgeCaseTests {
    typealias Timed = TimeOperatorTests.Timed

    // MARK: delay

    @Test func delayFinishedWhilePendingComesAfterTheValue() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.delay(for: .milliseconds(200), scheduler: scheduler).subscribe(timed.subscriber())
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(completion: .finished)
        scheduler.advance(by: .milliseconds(100))
        #expect(timed.events == ["1@200"])
        scheduler.advance(by: .milliseconds(100))
        #expect(timed.events == ["1@200", "|@300"])
    }

    // MARK: debounce

    /// The debounce timer's action holds the subscription (as a scheduled action holds what it
    /// will run); a cancel with a value waiting drops the timer, and with it the subscription,
    /// at once rather than when the timer would have come due.
    @Test func debounceCancelledWithAValueWaitingLetsGoOfItsSubscriptionAtOnce() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        weak var weakSubscription: AnyObject?
        do {
            let subscriber = TestSubscriber<Int, TestError>()
            subject.debounce(for: .seconds(10), scheduler: scheduler).subscribe(subscriber)
            subject.send(1)
            weakSubscription = subscriber.subscription.map { $0 as AnyObject }
            #expect(weakSubscription != nil)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscription == nil, "the cancelled timer still holds the subscription")
        scheduler.advance(by: .seconds(20))
        #expect(scheduler.pendingActionCount == 0)
    }

    /// A value that arrives at the very instant the pending one comes due: whichever was
    /// scheduled first at that instant runs first (the scheduler's FIFO order).
    @Test func debounceValueArrivingAtTheDueInstant() {
        for sendFirst in [true, false] {
            let scheduler = DispatchQueue.test
            let timed = Timed<String>(scheduler)
            let subject = PassthroughSubject<String, TestError>()
            let due = scheduler.now.advanced(by: .milliseconds(300))
            if sendFirst { scheduler.schedule(after: due) { subject.send("b") } }
            subject.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(timed.subscriber())
            subject.send("a")
            if !sendFirst { scheduler.schedule(after: due) { subject.send("b") } }
            scheduler.advance(by: .seconds(1))
            #expect(timed.events == (sendFirst ? ["b@600"] : ["a@300", "b@600"]))
        }
    }

    // MARK: throttle

    @Test func throttleFinishedWhilePendingFlushesTheValueFirst() {
        for latest in [true, false] {
            let scheduler = DispatchQueue.test
            let timed = Timed<Int>(scheduler)
            let subject = PassthroughSubject<Int, TestError>()
            subject.throttle(for: .milliseconds(100), scheduler: scheduler, latest: latest).subscribe(timed.subscriber())
            subject.send(1)
            scheduler.advance(by: .milliseconds(10))
            subject.send(2)
            subject.send(3)
            subject.send(completion: .finished)
            scheduler.advance(by: .milliseconds(100))
            #expect(timed.events == ["1@0", latest ? "3@100" : "2@100", "|@100"])
        }
    }

    @Test func throttleCancelledWhilePendingDeliversNothingMore() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        subject.throttle(for: .milliseconds(100), scheduler: scheduler, latest: true).subscribe(subscriber)
        subject.send(1)
        scheduler.advance()
        subject.send(2)
        subscriber.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
        #expect(scheduler.pendingActionCount == 0)
    }

    /// A value arriving exactly one interval after the last emission starts no new wait.
    @Test func throttleValueAtTheWindowBoundaryGoesOutAtOnce() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.throttle(for: .milliseconds(100), scheduler: scheduler, latest: true).subscribe(timed.subscriber())
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(2)
        scheduler.advance()
        #expect(timed.events == ["1@0", "2@100"])
    }

    @Test func throttleDropsWhatComesDueWithoutDemand() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = timed.subscriber(demand: .max(1))
        subject.throttle(for: .milliseconds(100), scheduler: scheduler, latest: true).subscribe(subscriber)
        subject.send(1)
        scheduler.advance(by: .milliseconds(10))
        subject.send(2)
        scheduler.advance(by: .milliseconds(200))
        #expect(timed.events == ["1@0"], "2 came due with no demand")
        subscriber.request(.max(1))
        scheduler.advance(by: .milliseconds(10))
        #expect(timed.events == ["1@0"], "a dropped value is not replayed when demand arrives")
        subject.send(3)
        scheduler.advance()
        #expect(timed.events == ["1@0", "3@220"])
    }

    // MARK: timeout

    @Test func timeoutForwardsAnUpstreamFailureAndStopsTheTimer() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.timeout(.milliseconds(500), scheduler: scheduler).subscribe(timed.subscriber())
        scheduler.advance(by: .milliseconds(100))
        subject.send(completion: .failure(TestError(code: 4)))
        scheduler.advance()
        #expect(timed.events == ["#@100"])
        scheduler.advance(by: .seconds(1))
        #expect(timed.events == ["#@100"], "the timer does not fire after the failure")
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func timeoutCompletionWhileAValueIsQueuedComesAfterIt() {
        let scheduler = DispatchQueue.test
        let timed = Timed<Int>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.timeout(.milliseconds(500), scheduler: scheduler).subscribe(timed.subscriber())
        subject.send(1)
        subject.send(completion: .finished)
        #expect(timed.events == [], "values and completion go out on the scheduler")
        scheduler.advance()
        #expect(timed.events == ["1@0", "|@0"])
    }

    @Test func timeoutCancelledBeforeItFiresDeliversNothing() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.timeout(.milliseconds(500), scheduler: scheduler).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(100))
        subscriber.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.events == [.subscription("Timeout")])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(scheduler.pendingActionCount == 0)
    }

    // MARK: collect(.byTime)

    @Test func collectByTimeCancelledWhileAWindowIsOpenDeliversNothingAndStopsItsTimer() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.values == [])
        #expect(scheduler.pendingActionCount == 0)
    }

    /// A value sent once the clock stands at a window's end falls in the next window.
    @Test func collectByTimeValueAtTheWindowBoundaryFallsInTheNextWindow() {
        let scheduler = DispatchQueue.test
        let timed = Timed<[Int]>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(timed.subscriber())
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(2)
        scheduler.advance(by: .milliseconds(999))
        #expect(timed.events == ["[1]@1000"])
        scheduler.advance(by: .milliseconds(1))
        #expect(timed.events == ["[1]@1000", "[2]@2000"])
    }

    /// Windows that close while the downstream has no demand are held (Sluice keeps them, see
    /// the README), and go out on the scheduler once demand arrives, never on the requesting
    /// thread; the completion waits behind them. (The upstream runs free once the downstream
    /// has asked for anything, as Combine's `collect(.byTime)` asks it for one value with each
    /// value it takes.)
    @Test func collectByTimeHoldsWindowsWithoutDemandAndDeliversThemOnTheScheduler() {
        let scheduler = DispatchQueue.test
        let timed = Timed<[Int]>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = timed.subscriber(demand: .max(1))
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        #expect(timed.events == ["[1]@1000"])
        subject.send(2)
        scheduler.advance(by: .seconds(1))
        subject.send(3)
        scheduler.advance(by: .seconds(1))
        subject.send(completion: .finished)
        scheduler.advance()
        #expect(timed.events == ["[1]@1000"])
        subscriber.request(.max(1))
        #expect(timed.events == ["[1]@1000"], "not on the thread that asked")
        scheduler.advance()
        #expect(timed.events == ["[1]@1000", "[2]@3000"])
        scheduler.advance(by: .milliseconds(500))
        subscriber.request(.max(1))
        scheduler.advance()
        #expect(timed.events == ["[1]@1000", "[2]@3000", "[3]@3500", "|@3500"])
    }

    @Test func collectByTimeFailureDiscardsTheOpenWindow() {
        let scheduler = DispatchQueue.test
        let timed = Timed<[Int]>(scheduler)
        let subject = PassthroughSubject<Int, TestError>()
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(timed.subscriber())
        subject.send(1)
        scheduler.advance(by: .milliseconds(500))
        subject.send(completion: .failure(TestError()))
        scheduler.advance()
        #expect(timed.events == ["#@500"])
    }
}

/// A scheduler whose repeating actions fire once already inside `schedule`, before it returns:
/// what a concurrent queue does to a short due time when the scheduling thread is preempted.
/// It counts the repeating actions nobody has cancelled.
final class FiresBeforeReturningScheduler: Scheduler, @unchecked Sendable {
    typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
    typealias SchedulerOptions = DispatchQueue.SchedulerOptions

    private let live = Mutex<Int>(0)
    /// Repeating actions scheduled and not cancelled: each would fire every interval for ever.
    var liveRepeatingActions: Int { live.withLock { $0 } }

    var now: SchedulerTimeType { SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)) }
    var minimumTolerance: SchedulerTimeType.Stride { .zero }

    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) { action() }

    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                  options: SchedulerOptions?, _ action: @escaping () -> Void) { action() }

    func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
                  options: SchedulerOptions?, _ action: @escaping () -> Void) -> Cancellable {
        live.withLock { $0 += 1 }
        let cancelled = Mutex(false)
        action()
        return AnyCancellable { [self] in
            let first = cancelled.withLock { was in defer { was = true }; return !was }
            if first { live.withLock { $0 -= 1 } }
        }
    }
}

@Suite("debounce's timer against a scheduler that fires before returning")
struct DebounceTimerRaceTests {
    /// The timer is scheduled between two critical sections; if it fires before it is stored,
    /// the stored timer must not be left repeating every due time until the next value.
    @Test func aTimerThatFiresBeforeItIsStoredIsCancelled() {
        let scheduler = FiresBeforeReturningScheduler()
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        let cancellable = subject.debounce(for: .milliseconds(1), scheduler: scheduler).sink { values.append($0) }
        subject.send(1)
        #expect(values == [1])
        #expect(scheduler.liveRepeatingActions == 0, "the fired timer is left repeating")
        subject.send(2)
        #expect(values == [1, 2])
        #expect(scheduler.liveRepeatingActions == 0)
        cancellable.cancel()
    }
}
