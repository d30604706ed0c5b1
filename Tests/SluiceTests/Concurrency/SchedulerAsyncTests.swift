import Testing
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Scheduler.sleep and Scheduler.timer", .timeLimit(.minutes(1)))
struct SchedulerAsyncTests {
    @Test func sleepOnADispatchQueueWakesNoEarlierThanTheDeadline() async throws {
        let queue = DispatchQueue(label: "SchedulerAsyncTests.sleep")
        let deadline = queue.now.advanced(by: .milliseconds(20))
        try await queue.sleep(until: deadline)
        #expect(queue.now >= deadline)
        try await queue.sleep(for: .milliseconds(1))
    }

    @Test func cancellingASleepOnADispatchQueueThrowsAtOnce() async {
        let queue = DispatchQueue(label: "SchedulerAsyncTests.cancel")
        let sleeper = Task { try await queue.sleep(for: .seconds(3600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aTaskAlreadyCancelledDoesNotScheduleTheSleep() async {
        let scheduler = DispatchQueue.test
        let erased = scheduler.eraseToAnyScheduler()
        let steps = DispatchQueue.test
        let sleeper = Task(executorPreference: steps) { try await erased.sleep(for: .seconds(1)) }
        sleeper.cancel()
        await steps.advance()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func sleepOnAnyScheduledSchedulerIsOneActionThatCancellingRemoves() async throws {
        // Through `AnyScheduler` the generic `Scheduler.sleep` is used, not the test
        // scheduler's own: its wake-up is an ordinary scheduled action.
        let scheduler = DispatchQueue.test
        let erased = scheduler.eraseToAnyScheduler()
        let finishes = Task(executorPreference: scheduler) {
            try await erased.sleep(for: .seconds(2))
            return "woke"
        }
        await scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingActionCount == 1)
        await scheduler.advance(by: .seconds(1))
        #expect(try await finishes.value == "woke")
        #expect(scheduler.pendingActionCount == 0, "the one-shot wake-up does not repeat")

        let cancelled = Task(executorPreference: scheduler) { try await erased.sleep(for: .seconds(2)) }
        await scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingActionCount == 1)
        cancelled.cancel()
        #expect(scheduler.pendingActionCount == 0, "cancelling removed the scheduled wake-up")
        await scheduler.advance()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    @Test func sleepOnTheImmediateSchedulerReturnsAtOnceAndThrowsWhenCancelled() async throws {
        // An immediate scheduler that waited would hold this for an hour: the suite's time
        // limit fails it.
        try await ImmediateScheduler.shared.sleep(for: .seconds(3600))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await ImmediateScheduler.shared.sleep(for: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    @Test func aTimerOnARealQueueTicksUntilTheLoopEnds() async {
        let queue = CancelCountingScheduler(DispatchQueue(label: "SchedulerAsyncTests.timer"))
        let start = queue.now
        var ticks: [DispatchQueue.SchedulerTimeType] = []
        for await tick in queue.scheduler.timer(interval: .milliseconds(5)) {
            ticks.append(tick)
            if ticks.count == 3 { break }
        }
        #expect(ticks.count == 3)
        #expect(ticks == ticks.sorted())
        #expect(ticks.allSatisfy { $0 > start })
        #expect(queue.scheduled == 1 && queue.cancelled == 1, "leaving the loop cancelled the repeating work")
    }

    @Test func cancellingASleepOnARealQueueCancelsItsScheduledWakeUp() async {
        // The generic Scheduler.sleep (a DispatchQueue has no sleep of its own): its wake-up is
        // scheduled on the queue, and cancelling the task cancels it.
        let queue = CancelCountingScheduler(DispatchQueue(label: "SchedulerAsyncTests.sleepCancel"))
        let sleeper = Task { try await queue.scheduler.sleep(for: .seconds(3600)) }
        #expect(await eventually { queue.scheduled == 1 })
        #expect(queue.cancelled == 0)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(queue.cancelled == 1, "the wake-up was cancelled, not left on the queue for an hour")
    }

    @Test func aSleepOnARealQueueThatWakesCancelsItsRepeatingWakeUp() async throws {
        let queue = CancelCountingScheduler(DispatchQueue(label: "SchedulerAsyncTests.sleepWake"))
        try await queue.scheduler.sleep(for: .milliseconds(5))
        #expect(queue.scheduled == 1 && queue.cancelled == 1, "it fires once")
    }

    @Test func aTimerStreamThatGoesAwayCancelsItsWork() {
        let scheduler = DispatchQueue.test
        do {
            let stream = scheduler.timer(interval: .seconds(1))
            #expect(scheduler.pendingActionCount == 1)
            withExtendedLifetime(stream) {}
        }
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func aTimerWithANewestOnlyBufferKeepsTheLatestTick() async {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let stream = scheduler.timer(interval: .seconds(1), bufferingPolicy: .bufferingNewest(1))
        await scheduler.advance(by: .seconds(3))
        var iterator = stream.makeAsyncIterator()
        let tick = await iterator.next()
        #expect(tick == start.advanced(by: .seconds(3)))
    }
}

/// A real scheduler behind `AnyScheduler`'s closure initialiser, counting the repeating work it
/// schedules and the cancels of that work.
private final class CancelCountingScheduler: Sendable {
    private final class Counts: Sendable {
        let value = Mutex((scheduled: 0, cancelled: 0))
    }

    private let counts = Counts()
    let scheduler: AnySchedulerOf<DispatchQueue>

    init(_ queue: DispatchQueue) {
        let counts = counts
        scheduler = AnyScheduler(
            minimumTolerance: { queue.minimumTolerance },
            now: { queue.now },
            scheduleImmediately: { queue.schedule(options: $0, $1) },
            delayed: { queue.schedule(after: $0, tolerance: $1, options: $2, $3) },
            interval: { date, interval, tolerance, options, action in
                counts.value.withLock { $0.scheduled += 1 }
                let work = queue.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
                return CountedCancel(work: work, counts: counts)
            })
    }

    /// Counts explicit cancels only. (The queue's own cancellable also cancels when released,
    /// but a scheduler's `Cancellable` need not: a bridge must call `cancel()`.)
    private final class CountedCancel: Cancellable {
        let work: Cancellable
        let counts: Counts

        init(work: Cancellable, counts: Counts) {
            self.work = work
            self.counts = counts
        }

        func cancel() {
            counts.value.withLock { $0.cancelled += 1 }
            work.cancel()
        }
    }

    var now: DispatchQueue.SchedulerTimeType { scheduler.now }
    var scheduled: Int { counts.value.withLock { $0.scheduled } }
    var cancelled: Int { counts.value.withLock { $0.cancelled } }
}
