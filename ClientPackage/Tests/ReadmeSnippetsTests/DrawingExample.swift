// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceTesting
import Testing

@Test func drawDebounce() throws {
    let scheduler = DispatchQueue.test
    let words = ["a": "sw", "b": "swift", "c": "swiftui"]
    let query = scheduler.hot("(ab)---c", values: words, tick: .milliseconds(100))
    let queries = query.recordTimeline(on: scheduler)
    let results = query.debounce(for: .milliseconds(300), scheduler: scheduler).recordTimeline(on: scheduler)
    scheduler.advance(by: .seconds(1))

    var chart = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300))")
    chart.add("query", queries.timeline, values: words)
    chart.add("results", results.timeline, values: words)
    #expect(chart.text == """
        query:   (ab)---c---
        results: ---b------c
        """)
    try chart.svg.write(toFile: NSTemporaryDirectory() + "debounce.svg", atomically: true, encoding: .utf8)
}
