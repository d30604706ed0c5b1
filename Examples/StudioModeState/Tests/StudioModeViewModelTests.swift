import Foundation
import XCTest
import Sluice
import SluiceSchedulers
import SluiceTesting
import StudioModeStateExample

/// The UI subscription. XCTest, on the main thread: the view model's sink closures are
/// main-actor isolated and Swift checks at run time that they run on the main thread (see
/// SearchModelTests for why not Swift Testing).
final class StudioModeViewModelTests: XCTestCase {
    /// With a test scheduler for the main queue: the session has the state, and the page shows
    /// it only when the main queue runs.
    func testThePageUpdatesOnlyWhenTheMainQueueRuns() {
        let h = SessionHarness()
        let mainQueue = DispatchQueue.test
        MainActor.assumeIsolated {
            let model = StudioModeViewModel(session: h.session, scheduler: AnyScheduler(mainQueue))
            h.session.connect()
            h.settle()
            h.connection(1).deliverAll()
            h.settle()
            XCTAssertEqual(h.session.studioModeEnabled, false)
            XCTAssertEqual(model.label, "Studio mode: unknown", "nothing until the main queue runs")
            mainQueue.advance()
            XCTAssertEqual(model.label, "Studio mode: off")

            h.server.setStudioModeEnabled(true)
            h.connection(1).deliverAll()
            h.settle()
            mainQueue.advance()
            XCTAssertEqual(model.label, "Studio mode: on")

            h.session.disconnect()
            h.settle()
            mainQueue.advance()
            XCTAssertEqual(model.label, "Studio mode: unknown")
            XCTAssertFalse(model.hasEnded)

            h.session.close()
            h.settle()
            mainQueue.advance()
            XCTAssertTrue(model.hasEnded)
        }
    }

    /// The production default, `DispatchQueue.main`, on the real main run loop; the session's
    /// queue and the fake's deliveries on other threads.
    func testLiveOnTheMainQueue() {
        let h = SessionHarness(studioModeEnabled: true)
        MainActor.assumeIsolated {
            let model = StudioModeViewModel(session: h.session)
            h.session.connect()
            h.settle()
            DispatchQueue.global().async { h.connection(1).deliverAll() }
            RunLoop.main.run(until: { model.isStudioModeEnabled == true })
            XCTAssertEqual(model.label, "Studio mode: on")

            h.server.setStudioModeEnabled(false)
            DispatchQueue.global().async { h.connection(1).deliverAll() }
            RunLoop.main.run(until: { model.isStudioModeEnabled == false })
            XCTAssertEqual(model.label, "Studio mode: off")

            h.session.disconnect()
            RunLoop.main.run(until: { model.isStudioModeEnabled == nil })
            XCTAssertEqual(model.label, "Studio mode: unknown")
        }
    }
}
