// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceTesting
import Testing

@Test func oneRunCheckedAtEachOutput() {
    let scheduler = DispatchQueue.test
    let tick = Duration.milliseconds(100)
    let fetch = scheduler.cold(events: [.value(at: .milliseconds(100), "page"), .finished(at: .milliseconds(100))])
    let polls = scheduler.cold("p 4.9s p 4.9s p|", tick: tick)
    let requests = polls.recordTimeline(on: scheduler)
    let pages = polls.flatMap { _ in fetch }.recordTimeline(on: scheduler)
    scheduler.advance(by: .seconds(11))
    expectMarbles(requests, "p 4.9s p 4.9s p|", tick: tick)
    expectMarbles(pages, "-x 4.9s x 4.9s (x|)", values: ["x": "page"], tick: tick)
    expectSubscriptions(fetch.subscriptions, "^!", "5s ^!", "10s ^!", tick: tick)
    #expect(scheduler.pendingActionCount == 0)
    #expect(scheduler.elapsed == .seconds(11))
}
