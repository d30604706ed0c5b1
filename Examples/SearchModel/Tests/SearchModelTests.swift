import Foundation
import XCTest
import Sluice
import SluiceSchedulers
import SluiceTesting
import SearchModelExample

/// `SearchModel` in virtual time and live on the main queue.
///
/// These are XCTest methods because the model is main-actor isolated and its sink closure
/// carries the runtime isolation check: the scheduler's actions must run on the main thread.
/// Linux XCTest runs test methods there (Swift Testing's `@MainActor` tests do not run on the
/// main thread on Linux, and `@MainActor` XCTest methods break discovery), so each method stays
/// nonisolated and enters the main actor with `MainActor.assumeIsolated`.
final class SearchModelTests: XCTestCase {
    /// The classic virtual-time test of a debounced search: nothing at 299 ms, the result at exactly 300 ms.
    func testNothingAt299MillisecondsAndTheResultAtExactly300() {
        MainActor.assumeIsolated {
            let testClock = VirtualTimeScheduler()
            let testModel = SearchModel(
                search: { query in Just(["\(query) result"]).eraseToAnyPublisher() },
                scheduler: AnyScheduler(testClock))

            testModel.query.send("sw")
            testModel.query.send("swift")
            testClock.advance(by: .milliseconds(299))
            XCTAssertTrue(testModel.results.isEmpty, "still debouncing")
            testClock.advance(by: .milliseconds(1))
            XCTAssertEqual(testModel.results, ["swift result"], "debounced and delivered, at exactly 300 ms")
        }
    }

    /// The same model over a longer input, with marbles: the queries are played from a hot
    /// marble diagram, and `expectMarbles` checks which queries reach the search and when (the
    /// debounce restarting on each edit, `removeDuplicates` dropping a repeated query).
    func testWhichQueriesReachTheSearchAsMarbles() {
        MainActor.assumeIsolated {
            let clock = VirtualTimeScheduler()
            nonisolated(unsafe) let searches = PassthroughSubject<String, Never>()  // not Sendable, as in Combine
            let model = SearchModel(
                search: { query in
                    searches.send(query)
                    return Just(["\(query) result"]).eraseToAnyPublisher()
                },
                scheduler: AnyScheduler(clock))
            let tick = Duration.milliseconds(100)
            let typing = clock.hot("(ab)cd----e---f", values: [
                "a": "sw", "b": "swift", "c": "swiftu", "d": "swiftui", "e": "swiftui", "f": "combine",
            ], tick: tick)
            let typingSubscription = typing.subscribe(model.query)

            // 300 ms after "swift"; 300 ms after the last of "swiftu", "swiftui"; the second
            // "swiftui" (1000 ms) debounces to 1300 ms and is dropped as a duplicate;
            // "combine" at 1400 ms reaches the search at 1700 ms.
            expectMarbles(searches, "---a----b--------c", values: ["a": "swift", "b": "swiftui", "c": "combine"],
                          scheduler: clock, tick: tick)
            withExtendedLifetime(typingSubscription) {}
        }
    }

    /// The same input, recording what the model publishes: a `TimelineRecorder` records the
    /// model's `results` property, sampled after every virtual millisecond, so the times it
    /// shows are exact to the millisecond (a result at 299 ms or 301 ms would not match).
    func testResultsTimelineIsExactToTheMillisecond() {
        MainActor.assumeIsolated {
            let clock = VirtualTimeScheduler()
            let model = SearchModel(
                search: { query in Just(["\(query) result"]).eraseToAnyPublisher() },
                scheduler: AnyScheduler(clock))
            let typing = clock.hot("(ab)cd----e---f", values: [
                "a": "sw", "b": "swift", "c": "swiftu", "d": "swiftui", "e": "swiftui", "f": "combine",
            ], tick: .milliseconds(100))
            let typingSubscription = typing.subscribe(model.query)

            // The model publishes its results by setting a property, not through a publisher:
            // step the clock one millisecond at a time and pass each change to a recorder.
            let observed = PassthroughSubject<[String], Never>()
            let recorder = observed.recordTimeline(on: clock)
            var last = model.results
            for _ in 0..<2_000 {
                clock.advance(by: .milliseconds(1))
                if model.results != last {
                    last = model.results
                    observed.send(last)
                }
            }
            let expected: Timeline<[String], Never> = [
                .subscription(at: .zero),
                .value(at: .milliseconds(300), ["swift result"]),
                .value(at: .milliseconds(800), ["swiftui result"]),
                .value(at: .milliseconds(1700), ["combine result"]),
            ]
            XCTAssertEqual(recorder.timeline, expected,
                           "\n" + recorder.timeline.signals.marbles(tick: .milliseconds(100)) { $0.joined() })
            withExtendedLifetime(typingSubscription) {}
        }
    }

    /// The production default: `AnyScheduler(DispatchQueue.main)`, on the real main run loop.
    func testLiveOnTheMainQueue() {
        MainActor.assumeIsolated {
            let liveModel = SearchModel(search: { query in Just(["\(query) result"]).eraseToAnyPublisher() })
            liveModel.query.send("combine")
            XCTAssertTrue(liveModel.results.isEmpty, "the debounce and the hop are asynchronous")
            RunLoop.main.run(until: { liveModel.results == ["combine result"] })
            XCTAssertEqual(liveModel.results, ["combine result"])
        }
    }
}
