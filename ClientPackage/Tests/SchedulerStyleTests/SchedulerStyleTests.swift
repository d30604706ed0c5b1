import Combine
import CombineStyleOperators
import Foundation
import SluiceSchedulers
import Testing

/// Tests written as combine-schedulers' users write them, with `import SluiceSchedulers` where
/// they had `import CombineSchedulers`, beside a library with its own `share(replay:)`.
/// Async tests run on the main actor, as combine-schedulers' own do: a task a test starts then
/// inherits the main actor and reaches its sleep or timer as soon as the awaited advance first
/// suspends, never after the clock has moved on (on a busy machine a task on the global pool can
/// start later than the advance's yields).
@Suite struct SchedulerStyleTests {
    @Test func synchronousAdvanceRunsWhatIsDue() {
        let scheduler = DispatchQueue.test
        var values: [Int] = []
        let a = Just(1).delay(for: 1, scheduler: scheduler).sink { values.append($0) }
        scheduler.advance(by: .milliseconds(999))
        #expect(values == [])
        scheduler.advance(by: .milliseconds(1))
        #expect(values == [1])
        _ = a
    }

    @MainActor
    @Test func aTaskSleepingOnTheSchedulerFinishesAfterAnAwaitedAdvance() async throws {
        let scheduler = DispatchQueue.test
        let task = Task { try await scheduler.sleep(for: .seconds(1)) }
        await scheduler.advance(by: .seconds(1))
        try await task.value
    }

    @MainActor
    @Test func aTimerConsumedWithPrefixInATaskGetsItsTicks() async {
        let scheduler = DispatchQueue.test
        let task = Task {
            var ticks = 0
            for await _ in scheduler.timer(interval: .seconds(1)).prefix(10) { ticks += 1 }
            return ticks
        }
        await scheduler.advance(by: .seconds(10))
        #expect(await task.value == 10)
    }

    @MainActor
    @Test func runFinishesOnceTheTasksTimerEnds() async {
        let scheduler = DispatchQueue.test
        let task = Task {
            var ticks = 0
            for await _ in scheduler.timer(interval: .seconds(1)).prefix(10) { ticks += 1 }
            return ticks
        }
        await scheduler.run()
        #expect(await task.value == 10)
    }

    @MainActor
    @Test func theSchedulersTimerPublisherAcrossAwaitedAdvances() async {
        let scheduler = DispatchQueue.test
        var ticks = 0
        let a = scheduler.timerPublisher(every: .seconds(1)).autoconnect().sink { _ in ticks += 1 }
        await scheduler.advance(by: .seconds(1))
        #expect(ticks == 1)
        await scheduler.advance(by: .seconds(1))
        #expect(ticks == 2)
        await scheduler.advance(by: .seconds(1000))
        #expect(ticks == 1002)
        _ = a
    }

    @Test func erasedSchedulersAndTheLibrarysShareReplay() {
        let scheduler = DispatchQueue.test
        let erased: AnySchedulerOf<DispatchQueue> = scheduler.eraseToAnyScheduler()
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.receive(on: erased).share(replay: 1)
        var first: [Int] = [], late: [Int] = []
        let a = shared.sink { first.append($0) }
        upstream.send(1)
        scheduler.advance()
        let b = shared.sink { late.append($0) }
        #expect(first == [1])
        #expect(late == [1])
        _ = (a, b)
    }

    @Test func immediateAndUnimplementedSchedulersByTheirNames() {
        var values: [Int] = []
        let a = Just(1).delay(for: 5, scheduler: DispatchQueue.immediate).sink { values.append($0) }
        #expect(values == [1])
        let immediate: ImmediateSchedulerOf<DispatchQueue> = DispatchQueue.immediate
        let erased: AnySchedulerOf<DispatchQueue> = .immediate
        _ = (a, immediate, erased)
        let unimplemented: UnimplementedSchedulerOf<DispatchQueue> = DispatchQueue.unimplemented("never used")
        #expect(unimplemented.prefix == "never used")
    }
    /// A program that does not link SluiceTesting (UnimplementedWarning) reports an unimplemented
    /// scheduler that is used on standard error, and still runs the action, instead of failing.
    @Test func withoutSluiceTestingAnUnimplementedSchedulerWarnsOnStandardError() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let executable = try #require([directory, directory.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("UnimplementedWarning") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) })
        let process = Process()
        process.executableURL = executable
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let warned = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == "the action ran\n")
        #expect(warned.contains("warning: Feed (created at UnimplementedWarning/main.swift:8)"), "\(warned)")
        #expect(warned.contains("scheduled an action to run immediately, but it is unimplemented"))
        #expect(process.terminationStatus == 0)
    }
}
