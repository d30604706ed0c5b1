// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import SluiceSchedulers
import Testing

@MainActor @Test func aSleepingTaskWakesWhenTheClockReachesItsDeadline() async throws {
    let scheduler = DispatchQueue.test
    let task = Task { try await scheduler.sleep(for: .seconds(1)) }
    await scheduler.advance(by: .seconds(1))
    try await task.value                    // finishes
}
