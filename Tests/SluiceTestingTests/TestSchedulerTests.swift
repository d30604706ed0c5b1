import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("TestScheduler")
struct TestSchedulerTests {
    @Test func nothingRunsUntilTheClockAdvances() {
        let scheduler = DispatchQueue.test
        var log: [String] = []
        scheduler.schedule { log.append("now") }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append("1s") }
        #expect(log == [])
        #expect(scheduler.pendingActionCount == 2)
        scheduler.advance()
        #expect(log == ["now"])
        scheduler.advance(by: .milliseconds(999))
        #expect(log == ["now"])
        #expect(scheduler.nextDueDate?.date == scheduler.now.advanced(by: .milliseconds(1)))
        #expect(scheduler.nextDueDate?.sinceOrigin == .seconds(1))
        scheduler.advance(by: .milliseconds(1))
        #expect(log == ["now", "1s"])
        #expect(scheduler.pendingActionCount == 0)
        #expect(scheduler.nextDueDate == nil)
    }

    @Test func sameInstantRunsInSchedulingOrderAndNewWorkInsideTheWindowRuns() {
        let scheduler = DispatchQueue.test
        var log: [Int] = []
        let due = scheduler.now.advanced(by: .seconds(1))
        for i in 0..<5 {
            scheduler.schedule(after: due) { log.append(i) }
        }
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(500))) {
            log.append(-1)
            scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(100))) { log.append(-2) }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) { log.append(-3) }
        }
        scheduler.advance(by: .seconds(1))
        #expect(log == [-1, -2, 0, 1, 2, 3, 4])
        #expect(scheduler.now == due)
    }

    @Test func nowNeverMovesBackwards() {
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .seconds(10))
        let ten = scheduler.now
        var ranAt: DispatchQueue.SchedulerTimeType?
        scheduler.schedule(after: ten.advanced(by: .seconds(-5))) { ranAt = scheduler.now }
        scheduler.advance()
        #expect(ranAt == ten, "an action scheduled in the past runs at the current time")
        scheduler.advance(to: ten.advanced(by: .seconds(-3)))
        #expect(scheduler.now == ten)
    }

    @Test func advancingToAPastInstantRunsWhatIsDueNow() {
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .seconds(10))
        var ran: [String] = []
        scheduler.schedule { ran.append("now") }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { ran.append("later") }
        scheduler.advance(to: scheduler.now.advanced(by: .seconds(-3)))
        #expect(ran == ["now"])
        scheduler.advance(by: .seconds(-1))
        #expect(ran == ["now"])
        #expect(scheduler.pendingActionCount == 1)
    }

    /// A repeating action with no positive interval fires once; if it is not cancelled then, it
    /// is reported and dropped instead of firing forever at one instant. Debounce and timeout
    /// with a zero interval cancel theirs as it fires, and are not reported.
    @Test func aRepeatingActionWithoutAPositiveIntervalFiresOnceThenIsReportedUnlessCancelled() {
        let scheduler = DispatchQueue.test
        var ticks = 0
        let timer = scheduler.schedule(after: scheduler.now, interval: .zero) { ticks += 1 }
        let (_, failures) = TestFailure.capturingFailures {
            scheduler.advance(by: .seconds(5))
        }
        #expect(ticks == 1)
        #expect(failures.count == 1)
        #expect(failures.first?.message.hasPrefix("TestScheduler: a repeating action with an interval of") == true)
        timer.cancel()

        let (_, none) = TestFailure.capturingFailures {
            var debounced: [Int] = []
            var timedOut = false
            let subject = PassthroughSubject<Int, Never>()
            let debounce = subject.debounce(for: .zero, scheduler: scheduler).sink { debounced.append($0) }
            let timeout = subject.timeout(.zero, scheduler: scheduler).sink(receiveCompletion: { _ in timedOut = true },
                                                                          receiveValue: { _ in })
            subject.send(1)
            scheduler.advance(by: .seconds(1))
            #expect(debounced == [1])
            #expect(timedOut)
            withExtendedLifetime((debounce, timeout)) {}
        }
        #expect(none.isEmpty, "zero-interval debounce and timeout are not reported: \(none.map(\.message))")
    }

    @Test func repeatingActionsFireUntilCancelled() {
        let scheduler = DispatchQueue.test
        var ticks: [Int] = []
        let start = scheduler.now
        var cancellable: Cancellable?
        cancellable = scheduler.schedule(after: start.advanced(by: .seconds(1)), interval: .seconds(2)) {
            ticks.append(start.distance(to: scheduler.now).magnitude / 1_000_000_000)
            if ticks.count == 3 { cancellable?.cancel() }
        }
        scheduler.advance(by: .seconds(100))
        #expect(ticks == [1, 3, 5])
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func aRepeatingActionsCancellableCancelsWhenDroppedAndLetsGoOfTheActionAtOnce() {
        final class Captured {}
        let scheduler = DispatchQueue.test
        var fired = 0
        // Discarded: cancelled at once, as an AnyCancellable is.
        _ = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { fired += 1 }
        scheduler.advance(by: .seconds(3))
        #expect(fired == 0)

        weak var released: Captured?
        var kept: Cancellable?
        do {
            let captured = Captured()
            released = captured
            kept = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { withExtendedLifetime(captured) { fired += 1 } }
        }
        scheduler.advance(by: .seconds(2))
        #expect(fired == 3)
        #expect(released != nil)
        kept?.cancel()
        // The action (and what it captured) goes at the cancel, not when its entry comes due.
        #expect(released == nil)
        kept?.cancel()
        scheduler.advance(by: .seconds(2))
        #expect(fired == 3)
        #expect(kept is AnyCancellable)
    }

    @Test func aRunningRepeatingActionCountsAsPendingWithItsNextDueDateUntilItCancelsItself() {
        let scheduler = DispatchQueue.test
        var seen: [String] = []
        var cancellable: Cancellable?
        cancellable = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(2)) {
            seen.append("\(scheduler.pendingActionCount) \(scheduler.nextDueDate?.description ?? "none")")
            if seen.count == 2 {
                cancellable?.cancel()
                seen.append("\(scheduler.pendingActionCount) \(scheduler.nextDueDate?.description ?? "none")")
            }
        }
        scheduler.advance(by: .seconds(10))
        #expect(seen == ["1 3 s", "1 5 s", "0 none"])
        #expect(scheduler.pendingActionCount == 0)
        // Its slot is free again: a new action runs, and a cancel of the old one does nothing.
        var ran = false
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { ran = true }
        cancellable?.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(ran)
    }

    @Test func anActionScheduledWhileARepeatingOneRunsKeepsItsPlaceBehindIt() {
        // The repeating action is due at 0 s, 1 s, 2 s...; the one-shot action scheduled while
        // it runs at 0 s is due at 1 s too, and runs after it there (scheduled later).
        let scheduler = DispatchQueue.test
        var log: [String] = []
        var scheduledOnce = false
        let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {
            log.append("timer")
            if !scheduledOnce {
                scheduledOnce = true
                scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append("once") }
            }
        }
        scheduler.advance(by: .seconds(1))
        #expect(log == ["timer", "timer", "once"])
        timer.cancel()
    }

    @Test func repeatingTimersKeepTheirPlaceAtSharedInstants() {
        let scheduler = DispatchQueue.test
        var log: [Int] = []
        let a = scheduler.schedule(after: scheduler.now, interval: .seconds(2)) { log.append(2) }
        let b = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { log.append(1) }
        scheduler.advance()
        #expect(log == [2, 1])
        scheduler.advance(by: .seconds(2))
        #expect(log == [2, 1, 1, 2, 1])
        a.cancel()
        b.cancel()
    }

    @Test func runDrainsEverythingAndStopsWithAFailureOnAnEndlessTimer() {
        let scheduler = DispatchQueue.test
        var count = 0
        for i in 0..<100 {
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(i))) { count += 1 }
        }
        scheduler.run()
        #expect(count == 100)
        #expect(scheduler.now == DispatchQueue.test.now.advanced(by: .seconds(99)))
        var ticks = 0
        let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { ticks += 1 }
        let (_, failures) = TestFailure.capturingFailures {
            scheduler.run(maxSteps: 50)
        }
        #expect(ticks == 50)
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("TestScheduler.run() stopped after 50 actions") == true)
        #expect(failures.first?.fileID.hasSuffix("TestSchedulerTests.swift") == true)
        timer.cancel()
    }

    @Test func schedulingFromOtherThreadsIsSafe() async {
        let scheduler = DispatchQueue.test
        let counter = Log<Int>()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<500 {
                        scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(i))) { counter.append(thread) }
                    }
                }
            }
        }
        await scheduler.run()
        #expect(counter.all.count == 4_000)
    }

    @Test func otherTimeTypes() {
        let loop = RunLoop.test
        var ran = false
        loop.schedule(after: loop.now.advanced(by: .milliseconds(10))) { ran = true }
        loop.advance(by: .milliseconds(10))
        #expect(ran)
        #expect(loop.now.date == Date(timeIntervalSince1970: 0.01))
        let queue = OperationQueue.test
        queue.advance(by: 1)
        #expect(queue.now.date == Date(timeIntervalSince1970: 1))
        let virtual = VirtualTimeScheduler()
        virtual.advance(by: .milliseconds(299))
        #expect(virtual.now.dispatchTime.uptimeNanoseconds == 299_000_001)
    }

    @Test func unimplementedSchedulerFailsWithItsNameAndSite() {
        let scheduler = DispatchQueue.unimplemented("Search")
        var ran = false
        let (_, failures) = TestFailure.capturingFailures {
            scheduler.schedule { ran = true }
        }
        #expect(ran)
        #expect(failures.count == 1)
        #expect(failures.first?.message.hasPrefix("Search (created at SluiceTestingTests/TestSchedulerTests.swift:") == true)
        #expect(failures.first?.message.hasSuffix("scheduled an action to run immediately, but it is unimplemented") == true)
    }
}

final class Log<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Element] = []
    func append(_ entry: Element) { lock.lock(); entries.append(entry); lock.unlock() }
    var all: [Element] { lock.lock(); defer { lock.unlock() }; return entries }
}
