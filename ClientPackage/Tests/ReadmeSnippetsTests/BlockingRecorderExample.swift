// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceTesting
import Testing

@Test func valuesFromAnotherQueueOneAtATime() throws {
    nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()  // not Sendable, as in Combine
    let recorder = subject.blocking(timeout: 5).record()
    DispatchQueue(label: "sender").async {
        subject.send(1)
        subject.send(2)
    }
    #expect(try recorder.next(2) == [1, 2])
    recorder.expectNoValue(within: 0.1)
}
