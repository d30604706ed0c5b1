// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceTesting
import Testing

@Test func debouncedResultsArriveAt300Milliseconds() {
    let clock = VirtualTimeScheduler()                  // = DispatchQueue.test
    let query = PassthroughSubject<String, Never>()
    let results = query.debounce(for: .milliseconds(300), scheduler: clock).map { ["\($0) result"] }
    let recorder = results.recordTimeline(on: clock)
    query.send("sw"); query.send("swift")
    clock.advance(by: .seconds(1))
    #expect(recorder.timeline == [
        .subscription(at: .zero),
        .value(at: .milliseconds(300), ["swift result"]),
    ])
}
