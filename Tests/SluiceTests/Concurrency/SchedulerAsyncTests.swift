import Testing
import Foundation
import Sluice
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
        steps.advance()
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
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingActionCount == 1)
        scheduler.advance(by: .seconds(1))
        #expect(try await finishes.value == "woke")
        #expect(scheduler.pendingActionCount == 0, "the one-shot wake-up does not repeat")

        let cancelled = Task(executorPreference: scheduler) { try await erased.sleep(for: .seconds(2)) }
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingActionCount == 1)
        cancelled.cancel()
        #expect(scheduler.pendingActionCount == 0, "cancelling removed the scheduled wake-up")
        scheduler.advance()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    @Test func sleepOnTheImmediateSchedulerReturnsAtOnce() async throws {
        try await ImmediateScheduler.shared.sleep(for: .seconds(3600))
    }

    @Test func aTimerOnARealQueueTicksUntilTheLoopEnds() async {
        let queue = DispatchQueue(label: "SchedulerAsyncTests.timer")
        let start = queue.now
        var ticks: [DispatchQueue.SchedulerTimeType] = []
        for await tick in queue.timer(interval: .milliseconds(5)) {
            ticks.append(tick)
            if ticks.count == 3 { break }
        }
        #expect(ticks.count == 3)
        #expect(ticks == ticks.sorted())
        #expect(ticks.allSatisfy { $0 > start })
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
        scheduler.advance(by: .seconds(3))
        var iterator = stream.makeAsyncIterator()
        let tick = await iterator.next()
        #expect(tick == start.advanced(by: .seconds(3)))
    }
}
