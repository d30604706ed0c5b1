import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// "Main" means where Swift's main actor runs. Swift Testing's `@MainActor` tests on Linux run
/// on the main queue but not on the process's first thread, so `Thread.isMainThread` is false
/// here while `MainActor.assumeIsolated` holds: every main check in Sluice must say yes.
@Suite("Main thread as the main actor defines it")
struct MainActorDiagnosticsTests {
    @MainActor @Test func assertMainThreadPassesOnTheMainActor() {
        MainActor.assumeIsolated {}
        let subscriber = TestSubscriber<Int, Never>()
        Just(1).assertMainThread().subscribe(subscriber)
        #expect(subscriber.values == [1])
    }

    @MainActor @Test func theUISchedulerRunsInlineOnTheMainActor() {
        var ran = false
        UIScheduler.shared.schedule { ran = true }
        #expect(ran, "main-actor code is on the main queue: the action runs at once")
    }

    @MainActor @Test func traceLabelsMainActorCodeAsMain() {
        let log = TraceLog()
        _ = Just(1).trace("ui", to: log).sink { _ in }
        #expect(log.entries.map(\.isMainThread) == [true, true, true, true])
        #expect(ExecutionContext.current.isMainThread)
    }

    /// The README's claim: on Linux a Swift Testing `@MainActor` test runs on the main queue, off
    /// the main thread, so a test that needs `RunLoop.main` is an XCTestCase.
    @MainActor @Test func aSwiftTestingMainActorTestRunsOnTheMainQueueOffTheMainThread() {
        MainActor.assumeIsolated {}
        #expect(!Thread.isMainThread)
    }

    @Test func offTheMainQueueNothingCountsAsMain() async {
        let context = await withCheckedContinuation { continuation in
            DispatchQueue(label: "work").async { continuation.resume(returning: ExecutionContext.current) }
        }
        #expect(!context.isMainThread)
    }
}
