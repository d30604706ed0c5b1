import Foundation
@testable import ReadmeSnippets
import Sluice
import SluiceTesting
import XCTest

/// What the comments of the README's main-actor example (FeedViewModel) say. XCTest, because it
/// needs the main queue drained, which an XCTest method on Linux's main thread can do.
final class FeedViewModelChecks: XCTestCase {
    func testTheModelTakesValuesOnTheMainActorAndHoldsNothingThatHoldsIt() {
        MainActor.assumeIsolated {
            nonisolated(unsafe) let feed = PassthroughSubject<[String], Never>()  // not Sendable, as in Combine
            let titles = PassthroughSubject<String, Never>()
            var model: FeedViewModel? = FeedViewModel(feed: feed, titles: titles)
            weak let watched = model
            titles.send("News")   // sent on the main actor with nothing queued: assigned at once
            XCTAssertEqual(model?.title, "News")
            DispatchQueue.global().async { feed.send(["a", "b"]) }   // hops to the main actor
            XCTAssertTrue(RunLoop.main.run(timeout: 10) { model?.items.count == 2 })
            XCTAssertEqual(model?.items, ["a", "b"])
            model = nil
            XCTAssertNil(watched, "the model keeps its cancellables, and nothing keeps the model")
        }
    }
}
