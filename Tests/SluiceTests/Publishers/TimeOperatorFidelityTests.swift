import Testing
import Synchronization
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// The time operators use their scheduler as Combine's do: they read its time and hand it
/// options at the same moments, and keep talking to the upstream where Combine does.
@Suite("Time operators as Combine's")
struct TimeOperatorFidelityTests {
    /// `collect(.byTime)` asks its upstream for one value at a time, as Combine's does (a suite
    /// run against Apple's Combine records it): one for each request of the downstream, and one
    /// more returned with every value it takes, whatever the downstream's demand.
    @Test func collectByTimeAsksForOneValueAtATime() throws {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(2))
        upstream.collect(.byTime(scheduler, .seconds(1))).subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.max(1))])
        let returned = (0..<5).map { upstream.send($0) }
        #expect(returned == Array(repeating: .max(1), count: 5))
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [[0, 1, 2, 3, 4]])
        try #require(subscriber.subscription).request(.max(3))
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1))])
        upstream.send(completion: .finished)
        #expect(upstream.send(5) == .none, "nothing more is asked for once the upstream has finished")
    }

    /// `collect(.byTimeOrCount)` asks the upstream for `count` values per window the
    /// downstream asks for, also when it asks by returning demand for a window the timer
    /// closed (a suite run against Combine in 2019 records that demand ignored; see the
    /// README's differences).
    @Test func collectByTimeOrCountForwardsDemandReturnedForAWindowTheTimerClosed() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(1), onValue: { _ in .max(5) })
        upstream.collect(.byTimeOrCount(scheduler, .seconds(1), 2)).subscribe(subscriber)
        #expect(upstream.demandLog == [.requested(.max(2))])
        _ = upstream.send(0)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [[0]])
        #expect(upstream.demandLog == [.requested(.max(2)), .requested(.max(10))])
    }

    /// A value sent from inside the subscriber of a hop on a scheduler that runs actions in
    /// place (`ImmediateScheduler`) is delivered there and then, nested inside the delivery in
    /// progress, as Combine's action per value run in place delivers it (as a subject's own
    /// re-entrant send is: `PassthroughSubjectTests.reentrantSendFromASinkIsDeliveredNestedAsInCombine`).
    @Test func aHopOnAnImmediateSchedulerDeliversAReentrantValueNestedAsCombineDoes() {
        for hop in ["receive(on:)", "delay", "debounce", "throttle"] {
            let subject = PassthroughSubject<Int, Never>()
            let hopped: AnyPublisher<Int, Never>
            switch hop {
            case "delay": hopped = subject.delay(for: .zero, scheduler: ImmediateScheduler.shared).eraseToAnyPublisher()
            case "debounce": hopped = subject.debounce(for: .zero, scheduler: ImmediateScheduler.shared).eraseToAnyPublisher()
            case "throttle": hopped = subject.throttle(for: .zero, scheduler: ImmediateScheduler.shared, latest: true).eraseToAnyPublisher()
            default: hopped = subject.receive(on: ImmediateScheduler.shared).eraseToAnyPublisher()
            }
            var log: [String] = []
            let cancellable = hopped.sink { value in
                log.append("got \(value)")
                if value < 3 { subject.send(value + 1) }
                log.append("end \(value)")
            }
            subject.send(1)
            #expect(log == ["got 1", "got 2", "got 3", "end 3", "end 2", "end 1"], "\(hop)")
            subject.send(completion: .finished)
            cancellable.cancel()
        }
    }

    /// On a queue, a value the subscriber sends while it is being delivered to comes after it:
    /// the queue runs the action later, as it runs Combine's.
    @Test func aHopOnAQueueDeliversAReentrantValueAfterTheCurrentOne() {
        let queue = DispatchQueue(label: "hop")
        let subject = PassthroughSubject<Int, Never>()
        let log = Mutex<[String]>([])
        let secondDelivered = DispatchSemaphore(value: 0)
        let cancellable = subject.receive(on: queue).sink { value in
            log.withLock { $0.append("got \(value)") }
            if value == 1 { subject.send(2) }
            log.withLock { $0.append("end \(value)") }
            if value == 2 { secondDelivered.signal() }
        }
        subject.send(1)
        #expect(secondDelivered.wait(timeout: .now() + 10) == .success)
        #expect(log.withLock { $0 } == ["got 1", "end 1", "got 2", "end 2"])
        cancellable.cancel()
    }

    @Test func throttleIgnoresARequestForNothing() throws {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        subscription.request(.none)
        subject.send(1)
        scheduler.advance()
        #expect(subscriber.values.isEmpty)
        subscription.request(.max(1))
        subject.send(2)
        scheduler.advance()
        #expect(subscriber.values == [2])
    }

    /// Throttle gives the downstream its subscription before it asks the upstream for values,
    /// as Combine does (a suite run against Apple's Combine on iOS 14 records the first value of
    /// a `@Published` property coming out of a throttle): a value sent as the upstream is asked
    /// finds the downstream's demand and is not dropped.
    @Test(arguments: [false, true])
    func throttlePassesOnAValueSentAsTheUpstreamIsAsked(latest: Bool) {
        let scheduler = DispatchQueue.test
        let current = CurrentValueSubject<Int, Never>(-1)
        var received: [Int] = []
        let cancellable = current.throttle(for: .milliseconds(500), scheduler: scheduler, latest: latest)
            .sink { received.append($0) }
        scheduler.advance(by: .milliseconds(100))
        #expect(received == [-1])
        current.send(1)
        scheduler.advance(by: .milliseconds(100))
        current.send(2)
        scheduler.advance(by: .milliseconds(400))
        #expect(received == [-1, latest ? 2 : 1], "the next window opens half a second after -1")
        cancellable.cancel()

        var finished = false
        var just: [Int] = []
        let single = Just(7).throttle(for: .seconds(1), scheduler: scheduler, latest: latest)
            .sink(receiveCompletion: { _ in finished = true }, receiveValue: { just.append($0) })
        scheduler.advance()
        #expect(just == [7])
        #expect(finished)
        single.cancel()
    }

    @Test func throttleReadsTheTimeOnlyWhileSubscribed() throws {
        let scheduler = RecordingScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        let throttle = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: false)
        throttle.subscribe(subscriber)
        let afterSubscribing = scheduler.nowReads
        #expect(afterSubscribing == 2, "made, then subscribed")
        subject.send(1)
        let afterValue = scheduler.nowReads
        #expect(afterValue == afterSubscribing + 1)
        scheduler.advance()
        #expect(subscriber.values == [1])
        let afterEmit = scheduler.nowReads
        #expect(afterEmit == afterValue + 1, "the emission is stamped")
        subject.send(completion: .finished)
        #expect(scheduler.nowReads == afterEmit + 1)
        subject.send(2)
        #expect(scheduler.nowReads == afterEmit + 1, "no read after the completion")

        let other = PassthroughSubject<Int, Never>()
        let cancelled = TestSubscriber<Int, Never>()
        other.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(cancelled)
        let beforeCancel = scheduler.nowReads
        cancelled.cancel()
        other.send(3)
        #expect(scheduler.nowReads == beforeCancel, "no read after a cancel")
    }

    @Test func measureIntervalReadsTheTimeAtSubscriptionAndForEachValueOnly() {
        let scheduler = RecordingScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<DispatchQueue.SchedulerTimeType.Stride, Never>()
        subject.measureInterval(using: scheduler).subscribe(subscriber)
        #expect(scheduler.nowReads == 1)
        subject.send(1)
        subject.send(2)
        #expect(scheduler.nowReads == 3)
        subscriber.cancel()
        subject.send(3)
        #expect(scheduler.nowReads == 3)
        #expect(subscriber.values.count == 2)
    }

    @Test func debounceSchedulesItsCompletionWithoutTheOptionsItWasGiven() {
        let scheduler = RecordingScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.debounce(for: .milliseconds(10), scheduler: scheduler, options: .init(qos: .userInitiated))
            .subscribe(subscriber)
        subject.send(1)
        scheduler.advance(by: .milliseconds(10))
        subject.send(completion: .finished)
        scheduler.advance()
        #expect(subscriber.values == [1])
        #expect(subscriber.completions == [.finished])
        #expect(scheduler.scheduled == [.repeating(hasOptions: true), .now(hasOptions: false)])
    }

    @Test func timeoutCancelsTheUpstreamWhenCancelledWhileItsCompletionIsOnItsWay() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.timeout(.seconds(5), scheduler: scheduler).subscribe(subscriber)
        upstream.send(completion: .finished)
        subscriber.cancel()
        scheduler.advance()
        #expect(upstream.isCancelled)
        #expect(subscriber.completions.isEmpty)
    }

    /// Delay hands its subscription over at once, as Combine has since iOS 13.3 and macOS
    /// 10.15.2 (the first releases handed it over from an action scheduled with
    /// `schedule(options:)`; OpenCombine's suite, run against Combine, changed with them).
    @Test func delayHandsItsSubscriptionOverAtOnceAndSchedulesNothingBeforeAValue() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        #expect(subscriber.subscription != nil)
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(scheduler.scheduled.isEmpty)
        _ = upstream.send(1)
        #expect(scheduler.scheduled == [.after(hasOptions: false)])
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [1])
    }

    /// `receive(on:)` hands its subscription over at once, as Combine has since iOS 13.3 and
    /// macOS 10.15.2 (the first releases handed it over from a scheduled action and asked the
    /// upstream for nothing until then). So a subject's value sent right after subscribing is
    /// delivered, not dropped for want of demand.
    @Test func receiveOnHandsItsSubscriptionOverAtOnceAndSchedulesNothingBeforeAValue() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.receive(on: scheduler).subscribe(subscriber)
        #expect(subscriber.subscription != nil)
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(scheduler.scheduled.isEmpty)

        let test = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let cancellable = subject.receive(on: test).sink { received.append($0) }
        subject.send(1)
        test.advance()
        #expect(received == [1])
        cancellable.cancel()
    }

    @Test func delayForwardsTheDemandOfValuesDeliveredAfterTheUpstreamFinished() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(3) })
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        _ = upstream.send(1)
        upstream.send(completion: .finished)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == [1])
        #expect(subscriber.completions == [.finished])
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(3))])
    }
}
