import Foundation
import Sluice
import SluiceSchedulers
import SluiceTesting
import Testing

/// The async forms of `advance(by:)`, `advance(to:)` and `run()`, as combine-schedulers' tests use
/// them: tasks that wait on the scheduler get to run between steps.
///
/// Async tests run on one actor of their own: a task a test starts inherits it and reaches its
/// sleep or timer as soon as the awaited advance (which runs in the caller's isolation) first
/// suspends, never after the clock has moved on (on a busy machine a task on the global pool can
/// start later than the advance's yields). Not the main actor: in a Swift Testing process on
/// Linux the main queue is drained by whichever thread runs it, and a test elsewhere that runs
/// `RunLoop.main` can leave main-queue work waiting (seen as a hang in CI).
@Suite(.timeLimit(.minutes(2))) struct AsyncAdvanceTests {
    @AsyncAdvanceTestActor
    @Test func aTaskSleepingOnTheSchedulerFinishesAfterAnAwaitedAdvance() async throws {
        let scheduler = DispatchQueue.test
        let task = Task { try await scheduler.sleep(for: .seconds(1)) }
        await scheduler.advance(by: .seconds(1))
        #expect(scheduler.sleeperCount == 0)
        try await task.value
        #expect(scheduler.now == .init(.init(uptimeNanoseconds: 1_000_000_001)))
    }

    @AsyncAdvanceTestActor
    @Test func aTimerConsumedWithPrefixGetsTenTicksInTenSeconds() async {
        let scheduler = DispatchQueue.test
        let task = Self.countingTenTicks(of: scheduler)
        await scheduler.advance(by: .seconds(10))
        #expect(await task.value == 10)
    }

    @AsyncAdvanceTestActor
    @Test func runReturnsOnceTheTaskHasEndedItsTimer() async {
        let scheduler = DispatchQueue.test
        let task = Self.countingTenTicks(of: scheduler)
        await scheduler.run()
        #expect(await task.value == 10)
        #expect(scheduler.pendingActionCount == 0)
    }

    @AsyncAdvanceTestActor
    @Test func awaitedAdvanceToAnInstantRunsWhatIsDueAndMovesTheClock() async {
        let scheduler = DispatchQueue.test
        let log = Log<Int>()
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { log.append(2) }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append(1) }
        await scheduler.advance(to: scheduler.now.advanced(by: .milliseconds(1500)))
        #expect(log.all == [1])
        #expect(scheduler.now == .init(.init(uptimeNanoseconds: 1_500_000_001)))
        await scheduler.advance()
        #expect(log.all == [1])
        await scheduler.advance(by: .milliseconds(500))
        #expect(log.all == [1, 2])
    }

    @AsyncAdvanceTestActor
    @Test func aTimerPublisherAcrossAwaitedAdvancesIncludingAFarJump() async {
        let scheduler = DispatchQueue.test
        let ticks = Log<Int>()
        let cancellable = Publishers.Timer(every: .seconds(1), scheduler: scheduler).autoconnect().sink { _ in ticks.append(1) }
        await scheduler.advance(by: .seconds(1))
        #expect(ticks.all.count == 1)
        await scheduler.advance(by: .seconds(1))
        #expect(ticks.all.count == 2)
        await scheduler.advance(by: .seconds(1000))
        #expect(ticks.all.count == 1002)
        cancellable.cancel()
    }

    @Test func theYieldCountComesFromSluicesVariableThenCombineSchedulersThenTwenty() {
        #expect(testSchedulerYieldCount(in: [:]) == 20)
        #expect(testSchedulerYieldCount(in: ["TASK_MEGA_YIELD_COUNT": "50"]) == 50)
        #expect(testSchedulerYieldCount(in: ["TASK_MEGA_YIELD_COUNT": "50", "SLUICE_TEST_SCHEDULER_YIELDS": "3"]) == 3)
        #expect(testSchedulerYieldCount(in: ["SLUICE_TEST_SCHEDULER_YIELDS": "many", "TASK_MEGA_YIELD_COUNT": "7"]) == 7)
        #expect(testSchedulerYieldCount(in: ["TASK_MEGA_YIELD_COUNT": "-4"]) == 0)
        #expect(testSchedulerYieldCount(in: ["SLUICE_TEST_SCHEDULER_YIELDS": "1000000"]) == 10_000)
    }

    @Test func awaitedRunStopsAfterMaxStepsWithAFailure() async {
        let scheduler = DispatchQueue.test
        let cancellable = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
        let (_, failures) = await TestFailure.capturingFailures {
            await scheduler.run(maxSteps: 5)
        }
        #expect(failures.count == 1)
        #expect(failures.first?.message.hasPrefix("TestScheduler.run() stopped after 5 actions") == true)
        cancellable.cancel()
    }

    @Test func unimplementedAsAValueAndErasedReportsItsPrefix() {
        let (_, failures) = TestFailure.capturingFailures {
            DispatchQueue.unimplemented.schedule {}
            AnySchedulerOf<RunLoop>.unimplemented("Feed").schedule {}
        }
        #expect(failures.map(\.message).map { $0.components(separatedBy: " ").first } == ["DispatchQueue", "Feed"])
        #expect(DispatchQueue.unimplemented("Search").prefix == "Search")
    }

    @Test func theMainQueueSchedulersTakeNoOptionsAndHaveImmediateAndTestForms() {
        let immediate: ImmediateSchedulerOf<UIScheduler> = UIScheduler.immediate
        var ran = false
        immediate.schedule { ran = true }
        #expect(ran)
        let test: TestSchedulerOf<UIScheduler> = UIScheduler.test
        var later = false
        test.schedule(after: test.now.advanced(by: .seconds(1))) { later = true }
        test.advance(by: .seconds(1))
        #expect(later)
        let erased: AnySchedulerOf<UIScheduler> = .shared
        #expect(erased.minimumTolerance == UIScheduler.shared.minimumTolerance)
    }

    @Test func measureReadsTheSchedulersClockAroundTheWork() {
        let scheduler = DispatchQueue.test
        let elapsed = scheduler.measure { scheduler.advance(by: .milliseconds(250)) }
        #expect(elapsed == .milliseconds(250))
    }

    /// A task (on the tests' actor) that counts ten ticks of the scheduler's timer.
    @AsyncAdvanceTestActor
    static func countingTenTicks(of scheduler: TestSchedulerOf<DispatchQueue>) -> Task<Int, Never> {
        Task {
            var ticks = 0
            for await _ in scheduler.timer(interval: .seconds(1)).prefix(10) { ticks += 1 }
            return ticks
        }
    }
}

/// The actor the async advance tests run on (see ``AsyncAdvanceTests``).
@globalActor actor AsyncAdvanceTestActor {
    static let shared = AsyncAdvanceTestActor()
}
