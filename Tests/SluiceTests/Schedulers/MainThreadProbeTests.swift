import XCTest
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers

/// Facts about the test environment that the main-thread tests rely on: XCTest runs test
/// methods on the main thread (Swift Testing's `@MainActor` tests do not, on Linux), and running
/// the main run loop services `DispatchQueue.main`, `RunLoop.main` and main-actor tasks.
final class MainThreadProbeTests: XCTestCase {
    func testXCTestRunsOnTheMainThreadAndCanRunTheMainRunLoop() {
        XCTAssertTrue(Thread.isMainThread)
        MainActor.assumeIsolated {}
        let ran = Flag()
        DispatchQueue.main.async { ran.set() }
        runMainLoop(until: { ran.isSet })
        XCTAssertTrue(ran.isSet)
        let performed = Flag()
        RunLoop.main.schedule { performed.set() }
        runMainLoop(until: { performed.isSet })
        XCTAssertTrue(performed.isSet)
        let onMain = Flag()
        Task { @MainActor in if Thread.isMainThread { onMain.set() } }
        runMainLoop(until: { onMain.isSet })
        XCTAssertTrue(onMain.isSet, "a MainActor task runs on the main thread while the main run loop runs")
    }
}
