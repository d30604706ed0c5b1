// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceTesting
import Testing

@Test func debounceAsMarbles() {
    let scheduler = DispatchQueue.test
    let query = scheduler.hot("(ab)--c", values: ["a": "sw", "b": "swift", "c": "swiftui"], tick: .milliseconds(100))
    expectMarbles(query.debounce(for: .milliseconds(300), scheduler: scheduler),
                  "---b-----c", values: ["b": "swift", "c": "swiftui"], scheduler: scheduler, tick: .milliseconds(100))
}
