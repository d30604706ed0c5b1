import Foundation
import Sluice
import SluiceExtras
import Testing

/// Sluice's async API called from main-actor code, in Swift 6 mode, with a value that is not
/// `Sendable`: each call runs in its caller's isolation, so the value never crosses an actor
/// boundary. Were one of them to run elsewhere, Swift 6 would reject this file ("non-Sendable
/// type ... cannot exit main actor-isolated context"), so compiling it is half the test.
@MainActor
@Suite("Async API from main-actor code")
struct MainActorAsyncCallTests {
    /// Not `Sendable`: a class with mutable state.
    final class Document {
        var title: String
        init(title: String) { self.title = title }
    }

    @Test func firstValueOfANonSendableValue() async throws {
        let document = try await Just(Document(title: "first")).firstValue
        #expect(document.title == "first")
    }

    @Test func lastValueOfANonSendableValue() async throws {
        let document = try await [Document(title: "a"), Document(title: "b")].publisher.lastValue
        #expect(document.title == "b")
    }

    @Test func aFuturesValueOfANonSendableValue() async {
        let future = Future<Document, Never> { promise in promise(.success(Document(title: "future"))) }
        let document = await future.value
        #expect(document.title == "future")
    }

    @Test func aThrowingFuturesValueOfANonSendableValue() async throws {
        let future = Future<Document, Error> { promise in promise(.success(Document(title: "future"))) }
        let document = try await future.value
        #expect(document.title == "future")
    }

    @Test func valuesOfNonSendableValues() async {
        var titles: [String] = []
        for await document in [Document(title: "a"), Document(title: "b")].publisher.values {
            titles.append(document.title)
        }
        #expect(titles == ["a", "b"])
    }
}
