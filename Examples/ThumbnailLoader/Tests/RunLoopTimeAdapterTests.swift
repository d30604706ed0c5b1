import Foundation
import Testing
import Sluice
import SluiceSchedulers
import SluiceTesting
import ThumbnailLoaderExample

/// `AnyScheduler(runLoop:)`: a run-loop scheduler through dispatch time.
@Suite struct RunLoopTimeAdapterTests {
    @Test func workScheduledNowRunsOnTheRunLoopScheduler() {
        let runLoop = RunLoop.test
        let adapted = AnySchedulerOf<DispatchQueue>(runLoop: runLoop)
        let log = Log<String>()
        adapted.schedule { log.append("now") }
        #expect(log.all == [], "queued on the run loop, not run inline")
        runLoop.advance()
        #expect(log.all == ["now"])
    }

    @Test func instantsAndDelaysMapOntoTheRunLoopsClock() {
        let runLoop = RunLoop.test
        let adapted = AnySchedulerOf<DispatchQueue>(runLoop: runLoop)
        let start = adapted.now
        let log = Log<String>()
        adapted.schedule(after: start.advanced(by: .milliseconds(100))) { log.append("after 100 ms") }
        runLoop.advance(by: .milliseconds(99))
        #expect(start.distance(to: adapted.now) == .milliseconds(99))
        #expect(log.all == [])
        runLoop.advance(by: .milliseconds(1))
        #expect(log.all == ["after 100 ms"])

        let ticks = adapted.schedule(after: adapted.now.advanced(by: .milliseconds(50)), interval: .milliseconds(50)) {
            log.append("tick")
        }
        runLoop.advance(by: .milliseconds(120))
        #expect(log.all == ["after 100 ms", "tick", "tick"])
        ticks.cancel()
        runLoop.advance(by: .seconds(1))
        #expect(log.all.count == 3)
    }
}
