import Testing
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// A list several tasks append to.
private final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

private actor Counter {
    var value = 0
    func increment() -> Int {
        value += 1
        return value
    }
}

/// Code under test that takes any clock, as async code written for `ContinuousClock` does.
private func pollThreeTimes(clock: some Clock<Duration>, journal: Journal) async throws {
    for round in 1...3 {
        try await clock.sleep(for: .seconds(1))
        journal.append("poll \(round)")
    }
}

@Suite("TestScheduler as a Clock and task executor")
struct TestSchedulerClockTests {
    @Test func aTaskOnTheSchedulerRunsOnlyInsideAdvanceAndItsSleepRegistersThere() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let journal = Journal()
        let task = Task(executorPreference: scheduler) {
            journal.append("started")
            try await clock.sleep(for: .seconds(1))
            journal.append("woke")
            return 42
        }
        #expect(journal.all == [], "nothing runs before the clock is advanced")
        #expect(scheduler.sleeperCount == 0)

        await scheduler.advance(by: .milliseconds(999))
        #expect(journal.all == ["started"])
        #expect(scheduler.sleeperCount == 1)
        #expect(scheduler.pendingActionCount == 1)
        #expect(scheduler.nextDueDate?.date == scheduler.now.advanced(by: .milliseconds(1)))

        await scheduler.advance(by: .milliseconds(1))
        #expect(journal.all == ["started", "woke"])
        #expect(scheduler.sleeperCount == 0)
        #expect(scheduler.pendingActionCount == 0)
        #expect(try await task.value == 42)
    }

    @Test func asyncSleepsAndCombineActionsShareOneVirtualTime() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let journal = Journal()
        let start = scheduler.now
        scheduler.schedule(after: start.advanced(by: .milliseconds(500))) { journal.append("combine 0.5") }
        scheduler.schedule(after: start.advanced(by: .milliseconds(1500))) { journal.append("combine 1.5") }
        let task = Task(executorPreference: scheduler) {
            try await clock.sleep(for: .seconds(1))
            journal.append("async 1")
            scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(250))) { journal.append("combine 1.25") }
            try await clock.sleep(for: .seconds(1))
            journal.append("async 2")
        }
        await scheduler.advance(by: .seconds(2))
        #expect(journal.all == ["combine 0.5", "async 1", "combine 1.25", "combine 1.5", "async 2"])
        #expect(scheduler.now == start.advanced(by: .seconds(2)))
        try await task.value
    }

    @Test func aLoopOfSleepsAdvancesExactlyAsFarAsTheVirtualTimeAllows() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let journal = Journal()
        let task = Task(executorPreference: scheduler) {
            try await pollThreeTimes(clock: clock, journal: journal)
        }
        await scheduler.advance(by: .seconds(2))
        #expect(journal.all == ["poll 1", "poll 2"])
        await scheduler.advance(by: .milliseconds(999))
        #expect(journal.all == ["poll 1", "poll 2"])
        await scheduler.advance(by: .milliseconds(1))
        #expect(journal.all == ["poll 1", "poll 2", "poll 3"])
        try await task.value
    }

    @Test func runFinishesEverySleepingTask() async throws {
        let scheduler = DispatchQueue.test
        let journal = Journal()
        let task = Task(executorPreference: scheduler) {
            try await pollThreeTimes(clock: scheduler.clock, journal: journal)
        }
        await scheduler.run()
        #expect(journal.all == ["poll 1", "poll 2", "poll 3"])
        #expect(scheduler.now == DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)).advanced(by: .seconds(3)))
        try await task.value
    }

    @Test func childTasksAndActorsCalledFromATaskOnTheSchedulerRunThereToo() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let counter = Counter()
        let journal = Journal()
        let task = Task(executorPreference: scheduler) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for delay in [3, 1, 2] {
                    group.addTask {
                        try await clock.sleep(for: .seconds(delay))
                        let count = await counter.increment()
                        journal.append("child \(delay) -> \(count)")
                    }
                }
                try await group.waitForAll()
            }
        }
        await scheduler.advance(by: .seconds(1))
        #expect(journal.all == ["child 1 -> 1"])
        await scheduler.advance(by: .seconds(2))
        #expect(journal.all == ["child 1 -> 1", "child 2 -> 2", "child 3 -> 3"])
        try await task.value
    }

    @Test func aTaskRunningElsewhereIsAdvancedAfterWaitingForItToSleep() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let task = Task.detached {
            try await clock.sleep(for: .seconds(5))
            return "done"
        }
        await scheduler.waitForSleepers()
        #expect(scheduler.sleeperCount == 1)
        await scheduler.advance(by: .seconds(4))
        #expect(scheduler.sleeperCount == 1)
        await scheduler.advance(by: .seconds(1))
        #expect(try await task.value == "done")
        #expect(scheduler.sleeperCount == 0)
    }

    @Test func waitForSleepersCountsSeveralSleepers() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let tasks = (1...3).map { seconds in
            Task.detached {
                try await clock.sleep(for: .seconds(seconds))
                return seconds
            }
        }
        await scheduler.waitForSleepers(3)
        await scheduler.advance(by: .seconds(3))
        var results: [Int] = []
        for task in tasks { results.append(try await task.value) }
        #expect(results == [1, 2, 3])
    }

    @Test func cancellingASleepingTaskRemovesItsWakeUpAndThrows() async {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let journal = Journal()
        let task = Task(executorPreference: scheduler) {
            do {
                try await clock.sleep(for: .seconds(10))
                journal.append("woke")
            } catch {
                journal.append("threw \(type(of: error))")
            }
        }
        await scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingActionCount == 1)
        task.cancel()
        #expect(scheduler.pendingActionCount == 0, "the wake-up left the queue at once")
        #expect(scheduler.sleeperCount == 0)
        await scheduler.advance()
        #expect(journal.all == ["threw CancellationError"])
        await task.value
        await scheduler.advance(by: .seconds(20))
        #expect(journal.all == ["threw CancellationError"])
    }

    @Test func aTaskCancelledBeforeItSleepsThrowsWithoutSchedulingAnything() async {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let task = Task(executorPreference: scheduler) { () -> String in
            do {
                try await clock.sleep(for: .seconds(1))
                return "woke"
            } catch {
                return "\(type(of: error))"
            }
        }
        task.cancel()
        await scheduler.advance()
        #expect(await task.value == "CancellationError")
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func cancellingATaskRunningElsewhereEndsItsSleep() async {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let task = Task.detached { () -> String in
            do {
                try await clock.sleep(for: .seconds(1))
                return "woke"
            } catch {
                return "\(type(of: error))"
            }
        }
        await scheduler.waitForSleepers()
        task.cancel()
        #expect(await task.value == "CancellationError")
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func aDeadlineThatIsNotInTheFutureReturnsAtOnce() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        await scheduler.advance(by: .seconds(5))
        try await clock.sleep(until: clock.now)
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        try await clock.sleep(for: .zero)
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func theClockTellsTheSchedulersTime() {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        let start = clock.now
        #expect(start.time == scheduler.now)
        scheduler.advance(by: .milliseconds(1500))
        #expect(start.duration(to: clock.now) == .milliseconds(1500))
        #expect(start.advanced(by: .milliseconds(1500)) == clock.now)
        #expect(start < clock.now)
        #expect(clock.minimumResolution == .zero)
    }

    @Test func runLoopAndOperationQueueTestSchedulersAreClocksToo() async throws {
        let runLoop = RunLoop.test
        let runLoopStart = runLoop.clock.now
        let queue = OperationQueue.test
        let task = Task(executorPreference: runLoop) {
            try await runLoop.clock.sleep(for: .milliseconds(250))
        }
        await runLoop.advance(by: .milliseconds(250))
        try await task.value
        #expect(runLoopStart.duration(to: runLoop.clock.now) == .milliseconds(250))
        await queue.advance(by: .seconds(2))
        #expect(queue.clock.now.time == queue.now)
    }

    @Test func theSchedulersOwnSleepUsesTheSamePath() async throws {
        let scheduler = DispatchQueue.test
        let journal = Journal()
        let task = Task(executorPreference: scheduler) {
            try await scheduler.sleep(for: .seconds(2))
            journal.append("slept")
        }
        await scheduler.advance(by: .seconds(1))
        #expect(scheduler.sleeperCount == 1)
        await scheduler.advance(by: .seconds(1))
        #expect(journal.all == ["slept"])
        try await task.value
    }

    @Test func combineOperatorsAndAsyncSendersOnOneClock() async throws {
        let scheduler = DispatchQueue.test
        let clock = scheduler.clock
        nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()  // not Sendable, as in Combine
        var received: [Int] = []
        let cancellable = subject.debounce(for: .seconds(1), scheduler: scheduler).sink { received.append($0) }
        let sender = Task(executorPreference: scheduler) {
            subject.send(1)
            try await clock.sleep(for: .milliseconds(500))
            subject.send(2)
            try await clock.sleep(for: .seconds(2))
            subject.send(3)
        }
        await scheduler.advance(by: .seconds(1))
        #expect(received == [])
        await scheduler.advance(by: .milliseconds(500))
        #expect(received == [2])
        await scheduler.advance(by: .seconds(2))
        #expect(received == [2, 3])
        try await sender.value
        cancellable.cancel()
    }

    @Test func aTimerStreamOnTheSchedulerTicksInVirtualTimeAndItsEndCancelsTheWork() async {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let journal = Journal()
        let consumer = Task(executorPreference: scheduler) {
            var ticks = 0
            for await time in scheduler.timer(interval: .seconds(1)) {
                ticks += 1
                journal.append("tick at \(start.distance(to: time).magnitude / 1_000_000_000)")
                if ticks == 3 { break }
            }
        }
        await scheduler.advance(by: .seconds(2))
        #expect(journal.all == ["tick at 1", "tick at 2"])
        #expect(scheduler.pendingActionCount == 1)
        await scheduler.advance(by: .seconds(1))
        #expect(journal.all == ["tick at 1", "tick at 2", "tick at 3"])
        #expect(scheduler.pendingActionCount == 0, "leaving the loop cancelled the repeating action")
        await consumer.value
    }

    @Test func cancellingTheTimersConsumerCancelsTheRepeatingWork() async {
        let scheduler = DispatchQueue.test
        let consumer = Task(executorPreference: scheduler) {
            var ticks = 0
            for await _ in scheduler.timer(interval: .seconds(1)) { ticks += 1 }
            return ticks
        }
        await scheduler.advance(by: .seconds(3))
        #expect(scheduler.pendingActionCount == 1)
        consumer.cancel()
        #expect(scheduler.pendingActionCount == 0)
        await scheduler.advance()
        #expect(await consumer.value == 3)
    }
}
