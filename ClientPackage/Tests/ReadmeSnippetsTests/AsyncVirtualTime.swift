// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

final class Polls: Sendable {
    private let count = Mutex(0)
    func record() { count.withLock { $0 += 1 } }
    var total: Int { count.withLock { $0 } }
}

/// Polls once a second, on whatever clock it is given.
func poll(clock: some Clock<Duration>, polls: Polls) async throws {
    while true {
        try await clock.sleep(for: .seconds(1))
        polls.record()
    }
}

@Test func twoSecondsOfVirtualTimeRunTwoPolls() {
    let scheduler = DispatchQueue.test
    let polls = Polls()
    let task = Task(executorPreference: scheduler) { try await poll(clock: scheduler.clock, polls: polls) }
    scheduler.advance(by: .seconds(2))   // from synchronous code
    #expect(polls.total == 2)
    task.cancel()
}
