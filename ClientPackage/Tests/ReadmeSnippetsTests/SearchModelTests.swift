// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceTesting
import Testing

@MainActor @Test func theResultArrivesExactly300MillisecondsAfterTheLastKeystroke() {
    let clock = DispatchQueue.test
    let model = SearchModel(search: { Just(["\($0) result"]).eraseToAnyPublisher() },
                            scheduler: AnyScheduler(clock))
    model.query.send("swift")
    clock.advance(by: .milliseconds(299))
    #expect(model.results == [])
    clock.advance(by: .milliseconds(1))
    #expect(model.results == ["swift result"])
}
