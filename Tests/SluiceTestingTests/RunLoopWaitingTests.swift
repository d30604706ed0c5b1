import XCTest
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// `RunLoop.run(mode:timeout:until:)` and `run(mode:for:)`, on the main thread (XCTest runs its
/// test methods there on Linux).
final class RunLoopWaitingTests: XCTestCase {
    func testRunUntilReturnsOnceMainQueueWorkMakesTheConditionHold() {
        nonisolated(unsafe) var done = false    // written and read on the main thread only
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { done = true }
        XCTAssertFalse(done)
        XCTAssertTrue(RunLoop.main.run(until: { done }))
        XCTAssertTrue(done)
    }

    func testRunUntilReturnsFalseWhenTheTimeoutPasses() {
        XCTAssertFalse(RunLoop.main.run(timeout: 0.05, until: { false }))
    }

    func testRunUntilChecksTheConditionBeforeTurningTheLoop() {
        nonisolated(unsafe) var ran = false    // written and read on the main thread only
        RunLoop.main.perform { ran = true }
        XCTAssertTrue(RunLoop.main.run(until: { true }))
        XCTAssertFalse(ran, "an already true condition returns without running pending work")
        RunLoop.main.run(for: 0.02)
        XCTAssertTrue(ran)
    }

    func testRunUntilTurnsTheLoopAtLeastOnceEvenWhenTheTimeHasPassed() {
        nonisolated(unsafe) var ran = false    // written and read on the main thread only
        DispatchQueue.main.async { ran = true }
        XCTAssertTrue(RunLoop.main.run(timeout: 0, until: { ran }), "the one turn runs the queued work")
    }

    func testRunForTurnsTheLoopAtLeastOnceEvenWhenTheTimeHasPassed() {
        nonisolated(unsafe) var ran = false    // written and read on the main thread only
        DispatchQueue.main.async { ran = true }
        RunLoop.main.run(for: 0)
        XCTAssertTrue(ran, "work queued before the call runs in the one turn")
    }

    func testRunForRunsOnlyTheGivenMode() {
        nonisolated(unsafe) var ran = false    // written and read on the main thread only
        RunLoop.main.perform(inModes: [.default]) { ran = true }
        let other = RunLoop.Mode("RunLoopWaitingTestsOtherMode")
        let keepAlive = Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }
        RunLoop.main.add(keepAlive, forMode: other)
        defer { keepAlive.invalidate() }
        RunLoop.main.run(mode: other, for: 0.05)
        XCTAssertFalse(ran, "default-mode work waits while the loop runs in another mode")
        RunLoop.main.run(for: 0.05)
        XCTAssertTrue(ran)
    }

    func testRunUntilDeliversAReceiveOnMainPipeline() {
        var values: [Int] = []
        let handle = [1, 2, 3].publisher.receive(on: RunLoop.main).sink { values.append($0) }
        XCTAssertEqual(values, [])
        XCTAssertTrue(RunLoop.main.run(until: { values.count == 3 }))
        XCTAssertEqual(values, [1, 2, 3])
        withExtendedLifetime(handle) {}
    }
}
