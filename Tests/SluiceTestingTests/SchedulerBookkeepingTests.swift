import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Issue 24: cancelled marble publishers leave nothing queued, `nextDueDate` prints as a time,
/// and reports show in which order actions due at one instant ran.
@Suite("Pending actions and due dates")
struct PendingActionTests {
    let tick = Duration.milliseconds(100)

    @Test func cancellingAColdSubscriptionRemovesItsEventsAtOnce() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("-a-b-c|", tick: tick)
        let recorder = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        #expect(scheduler.pendingActionCount == 3, "b, c and the completion")
        recorder.cancel()
        #expect(scheduler.pendingActionCount == 0)
        #expect(scheduler.nextDueDate == nil)
    }

    @Test func aSubscriberThatCancelsAsItSubscribesLeavesNothingQueued() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("-a-b|", tick: tick)
        let subscriber = TestSubscriber<String, Never>(onSubscription: { $0.cancel() })
        cold.subscribe(subscriber)
        #expect(scheduler.pendingActionCount == 0)
        #expect(cold.subscriptions.first?.ending == .cancelled)
    }

    @Test func expectMarblesWithABangLeavesNothingPending() {
        let scheduler = DispatchQueue.test
        let source = scheduler.cold("-a-b-c|", tick: tick)
        #expect(TestFailure.capturingFailures { expectMarbles(source, "-a-b!", scheduler: scheduler, tick: tick) }.failures.isEmpty)
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func stoppingAHotPublisherRemovesWhatItHadStillToPlay() {
        let scheduler = DispatchQueue.test
        let hot = scheduler.hot("-a-b-c|", tick: tick)
        let recorder = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        #expect(scheduler.pendingActionCount == 3)
        hot.stop()
        #expect(scheduler.pendingActionCount == 0)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.timeline.values == ["a"])
    }

    @Test func aCancelledOneShotActionIsDroppedAndReleasedAtOnce() {
        final class Token: Sendable {}
        let scheduler = DispatchQueue.test
        weak var released: Token?
        var ran = false
        let cancellable: Cancellable = {
            let token = Token()
            released = token
            return scheduler.scheduleCancellable(after: scheduler.now.advanced(by: .seconds(1))) {
                withExtendedLifetime(token) { ran = true }
            }
        }()
        #expect(scheduler.pendingActionCount == 1)
        cancellable.cancel()
        #expect(scheduler.pendingActionCount == 0)
        #expect(released == nil, "what the action captured is released at the cancel")
        scheduler.advance(by: .seconds(2))
        #expect(!ran)
    }

    @Test func nextDueDatePrintsAsTheTimeSinceTheOrigin() {
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .seconds(1))
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(300))) {}
        let due = scheduler.nextDueDate
        #expect(due.map { "\($0)" } == "1.3 s")
        #expect(String(describing: due) == "Optional(1.3 s)")
        #expect(due?.sinceOrigin == .milliseconds(1300))
        #expect(due?.date == scheduler.now.advanced(by: .milliseconds(300)))
        #expect(due == scheduler.dueDate(of: scheduler.now.advanced(by: .milliseconds(300))))
        // It is a date to advance to.
        scheduler.advance(to: due!)
        #expect(scheduler.elapsed == .milliseconds(1300))
        #expect(scheduler.nextDueDate == nil)
    }

    @Test func aReportGivesAnIntervalAsATime() {
        let scheduler = DispatchQueue.test
        let (_, failures) = TestFailure.capturingFailures { () -> Cancellable in
            let repeating = scheduler.schedule(after: scheduler.now, interval: .zero) {}
            scheduler.advance(by: .seconds(1))
            return repeating
        }
        #expect(failures.first?.message.hasPrefix("TestScheduler: a repeating action with an interval of 0 fired") == true)
    }
}

@Suite("Order at one instant")
struct OrderAtOneInstantTests {
    /// Ticks counting 1, 2, 3… every 5 s from a repeating action scheduled now, and a failure
    /// due at 30 s that is scheduled when `timeout` is subscribed: both are due at 30 s.
    private func ticksAndATimeout(on scheduler: TestSchedulerOf<DispatchQueue>)
        -> (ticks: PassthroughSubject<Int, Boom>, timer: Cancellable, timeout: AnyPublisher<Int, Boom>)
    {
        let ticks = PassthroughSubject<Int, Boom>()
        var count = 0
        let timer = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5)), interval: .seconds(5)) {
            count += 1
            ticks.send(count)
        }
        return (ticks, timer, Fail(error: Boom(code: 30)).delay(for: .seconds(30), scheduler: scheduler).eraseToAnyPublisher())
    }

    /// A timer tick and a timeout both due at 30 s: which runs first is decided by the order
    /// they were scheduled in, and the report says so.
    @Test func aMismatchAtAnInstantShowsTheOrderItsActionsRanIn() throws {
        let scheduler = DispatchQueue.test
        let (ticks, timer, timeout) = ticksAndATimeout(on: scheduler)
        let values = Dictionary(uniqueKeysWithValues: (1...6).map { ("\($0)", $0) })
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(ticks.merge(with: timeout), "-12345#", values: values, errors: ["#": Boom(code: 30)],
                          scheduler: scheduler, tick: .seconds(5))
        }
        timer.cancel()
        #expect(try #require(failures.first).message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 5 s; times since the scheduler's origin, now 30 s)
            expected: -12345#
            actual:   -12345(6#)
            first difference: expected failure Boom(30) at 30 s, got value 6 at 30 s
            at 30 s, actions ran in the order they were scheduled: value 6 in action #1 (scheduled at 0, repeating every 5 s), then failure in action #2 (scheduled at 0 for 30 s)
            """)
    }

    @Test func aRecordedTimelineKnowsTheActionOfEachEvent() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<String, Never>()
        let recorder = subject.recordTimeline(on: scheduler)
        subject.send("by the test")
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { subject.send("in an action") }
        scheduler.advance(by: .seconds(3))
        #expect(recorder.timeline.actions == [
            nil, nil,
            TestSchedulerAction(number: 1, schedulingOrder: 1, scheduledAt: .zero, due: .seconds(2), interval: nil),
        ])
        #expect(Timeline<String, Never>([.value(at: .zero, "x")]).actions == [nil], "a timeline written by hand has none")
    }

    @Test func theRunningActionIsKnownOnlyWhileItRuns() {
        let scheduler = DispatchQueue.test
        var seen: [TestSchedulerAction?] = []
        scheduler.advance(by: .seconds(1))
        let repeating = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(2)) {
            seen.append(scheduler.runningAction)
        }
        scheduler.advance(by: .seconds(3))
        repeating.cancel()
        #expect(scheduler.runningAction == nil)
        #expect(seen == [
            TestSchedulerAction(number: 1, schedulingOrder: 1, scheduledAt: .seconds(1), due: .seconds(2), interval: .seconds(2)),
            TestSchedulerAction(number: 2, schedulingOrder: 1, scheduledAt: .seconds(1), due: .seconds(4), interval: .seconds(2)),
        ])
        #expect(seen.first??.description == "action #1 (scheduled at 1 s, repeating every 2 s)")
    }

    @Test func aChartOfSeveralRecordingsShowsTheOrderAcrossThem() {
        let scheduler = DispatchQueue.test
        let (ticks, timer, timeout) = ticksAndATimeout(on: scheduler)
        let tickRecorder = ticks.recordTimeline(on: scheduler)
        let output = ticks.merge(with: timeout).recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(30))
        timer.cancel()
        var chart = MarbleChart(tick: .seconds(5))
        chart.add("ticks", tickRecorder.timeline)
        chart.add("output", output.timeline)
        #expect(chart.text == """
            ticks:  -123456
            output: -12345(6#)
            """)
        #expect(chart.runOrder == "at 30 s: ticks value 6 in action #1 (scheduled at 0, repeating every 5 s), "
            + "then output value 6 in action #1 (scheduled at 0, repeating every 5 s), "
            + "then output failure in action #2 (scheduled at 0 for 30 s)")
    }
}
