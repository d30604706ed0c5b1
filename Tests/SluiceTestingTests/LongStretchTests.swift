import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Issue 24, "long stretches do not fit a tick": time progression inside diagrams, and
/// publishers built from explicit timed events.
@Suite("Time progression in diagrams")
struct TimeProgressionTests {
    let tick = Duration.milliseconds(100)

    @Test func aProgressionIsThatMuchTimeAndTheCharacterBeforeItKeepsItsTick() throws {
        // As in RxJS: "a" takes its tick, then 4.9 s pass, so "b" is at 5 s.
        let diagram = try MarbleDiagram<String, Never>("a 4.9s b 4.9s c|")
        #expect(diagram.events.map { $0.time(tick: tick) } == [.zero, .seconds(5), .seconds(10), .milliseconds(10_100)])
        #expect(diagram.end.time(tick: tick) == .milliseconds(10_200))
        #expect(diagram.events[1].position == MarbleDiagram<String, Never>.Position(ticks: 1, progression: .milliseconds(4900)))
        #expect(diagram.events.map(\.tick) == [0, 1, 2, 3], "tick counts characters only")
    }

    @Test func unitsDecimalsAndPlacement() throws {
        func times(_ text: String) throws -> [Duration] {
            try MarbleDiagram<String, Never>(text).events.map { $0.time(tick: tick) }
        }
        #expect(try times("300ms a") == [.milliseconds(300)])
        #expect(try times("1.5m a") == [.seconds(90)])
        #expect(try times("0.25ms a") == [.microseconds(250)])
        #expect(try times("- 50ms a") == [.milliseconds(150)], "between ticks")
        #expect(try times("a 1s") == [.zero])
        // "^" after a progression: time zero is there, and what comes before is history.
        let hot = try MarbleDiagram<String, Never>("a 2s ^ -b")
        #expect(hot.events.map { $0.time(tick: tick) } == [.milliseconds(-2100), .milliseconds(200)])
        // Not a progression: it must stand between spaces, and be a number with a unit.
        #expect(try MarbleDiagram<String, Never>("-5s-").events.map(\.symbol) == ["5", "s"])
        #expect(try MarbleDiagram<String, Never>("5 s").events.map(\.symbol) == ["5", "s"])
        #expect(try MarbleDiagram<String, Never>("-1-2").events.map(\.symbol) == ["1", "2"])
        #expect(throws: MarbleSyntaxError.self) { try MarbleDiagram<String, Never>("(a 1s b)") }
    }

    @Test func theLastInstantOfADiagramEndingInAProgressionIsItsEnd() throws {
        let diagram = try MarbleDiagram<String, Never>("a 2s")
        #expect(diagram.last.time(tick: tick) == .milliseconds(2100))
        #expect(try MarbleDiagram<String, Never>("-a-").last.time(tick: tick) == .milliseconds(200))
    }

    @Test func sourcesAndExpectationsPlayProgressions() {
        // A poll every 5 s with 100 ms fetches: no diagram of fifty dashes.
        let scheduler = DispatchQueue.test
        let polls = scheduler.cold("p 4.9s p 4.9s p|", tick: tick)
        let recorder = polls.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(11))
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .zero, "p"), .value(at: .seconds(5), "p"),
                                      .value(at: .seconds(10), "p"), .finished(at: .milliseconds(10_100))])
        #expect(TestFailure.capturingFailures {
            expectMarbles(polls.delay(for: .milliseconds(100), scheduler: scheduler), "-p 4.9s p 4.9s p|",
                          scheduler: scheduler, tick: tick)
        }.failures.isEmpty)
    }

    @Test func longQuietStretchesAreDrawnAsProgressions() throws {
        let scheduler = DispatchQueue.test
        let recorder = scheduler.cold("p 4.9s p 4.9s p|", tick: tick).recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(11))
        let drawn = recorder.timeline.marbles(tick: tick)
        #expect(drawn == "p 4.9s p 4.9s p|")
        // It reads back as the same times.
        #expect(try MarbleDiagram<String, Never>(drawn).events.map { $0.time(tick: tick) }
                == recorder.timeline.signals.map(\.time))
        // A stretch of 20 empty ticks is still dashes.
        let short: Timeline<String, Never> = [.value(at: .zero, "a"), .value(at: .milliseconds(2100), "b")]
        #expect(short.marbles(tick: tick) == "a--------------------b")
    }

    @Test func aMismatchOverLongStretchesStaysReadable() throws {
        let scheduler = DispatchQueue.test
        let polls = scheduler.cold("p 4.9s p 4.9s p|", tick: tick)
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(polls, "p 4.9s p 4.8s p|", scheduler: scheduler, tick: tick)
        }
        #expect(try #require(failures.first).message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 100 ms; times since the scheduler's origin, now 10.1 s)
            expected: p 4.9s p 4.8s p|
            actual:   p 4.9s p 4.8s -p|
            first difference: expected value p at 9.9 s, got value p at 10 s
            """)
    }

    @Test func anExpectedEventBetweenTicksIsMarkedInTheExpectedRowToo() throws {
        let scheduler = DispatchQueue.test
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(scheduler.cold("-a|", tick: tick), "- 50ms a|", scheduler: scheduler, tick: tick)
        }
        #expect(try #require(failures.first).message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 100 ms; times since the scheduler's origin, now 250 ms)
            expected: -a|
                       ↑↑ between ticks, drawn at the tick before: a at 150 ms, | at 250 ms
            actual:   -a|
            first difference: expected value a at 150 ms, got value a at 100 ms
            """)
    }
}

/// Publishers built from explicit timed events, as RxTest's `Recorded` events.
@Suite("Marble publishers from timed events")
struct TimedEventPublisherTests {
    @Test func coldPlaysTheEventsToEachSubscriberFromItsSubscription() {
        let scheduler = DispatchQueue.test
        let fetch = scheduler.cold(events: [.value(at: .milliseconds(100), "page"), .finished(at: .milliseconds(100))])
        let first = fetch.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(5))
        let second = fetch.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(first.timeline == [.subscription(at: .zero), .value(at: .milliseconds(100), "page"), .finished(at: .milliseconds(100))])
        #expect(second.timeline == [.subscription(at: .seconds(5)), .value(at: .milliseconds(5100), "page"),
                                    .finished(at: .milliseconds(5100))])
        #expect(fetch.diagram == nil)
        #expect(fetch.timeline == [.value(at: .milliseconds(100), "page"), .finished(at: .milliseconds(100))])
        #expect(fetch.subscriptions.map(\.description) == ["0 ..< 100 ms (finished)", "5 s ..< 5.1 s (finished)"])
    }

    @Test func coldEventsWaitForDemand() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold(events: [.value(at: .seconds(1), 1), .value(at: .seconds(2), 2), .finished(at: .seconds(3))])
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        cold.subscribe(subscriber)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.history == [.subscription("MarbleSubscription"), .request(.max(1)), .value(1), .request(.max(1)),
                                       .value(2), .completion(.finished)])
    }

    @Test func typedFailuresFromTheEventsOrNamed() {
        let scheduler = DispatchQueue.test
        let failing = scheduler.cold(events: [.value(at: .seconds(1), 1), .failure(at: .seconds(2), Boom(code: 5))])
        let recorder = failing.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(3))
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .seconds(1), 1), .failure(at: .seconds(2), Boom(code: 5))])
        // No failure among the events: name the failure type.
        let typed: ColdMarblePublisher<Int, Boom> = scheduler.cold(events: [.value(at: .seconds(1), 1)], failure: Boom.self)
        let typedRecorder = typed.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(2))
        #expect(typedRecorder.timeline.values == [1])
    }

    @Test func hotPlaysFromItsCreationAndNegativeTimesAreHistory() {
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .seconds(10))
        let ticks = scheduler.hot(events: [.value(at: .seconds(-1), 0), .value(at: .seconds(5), 1), .value(at: .seconds(10), 2),
                                           .finished(at: .seconds(10))])
        let recorder = ticks.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(20))
        #expect(recorder.timeline == [.subscription(at: .seconds(10)), .value(at: .seconds(15), 1), .value(at: .seconds(20), 2),
                                      .finished(at: .seconds(20))])
        #expect(ticks.timeline.first == .value(at: .seconds(-1), 0))
    }

    @Test func eventsThatCannotBePlayedAreAFailureAtTheCaller() {
        let scheduler = DispatchQueue.test
        let line = #line + 2
        let (publishers, failures) = TestFailure.capturingFailures {
            (scheduler.cold(events: [.value(at: .seconds(2), 1), .value(at: .seconds(1), 2)]),
             scheduler.cold(events: [.finished(at: .seconds(1)), .value(at: .seconds(2), 2)]),
             scheduler.hot(events: [.subscription(at: .zero), .value(at: .seconds(2), 2)]))
        }
        #expect(failures.map(\.message) == [
            "marble source: the events are not in time order (1 s: value 2 after 2 s)",
            "marble source: nothing can happen after the completion (2 s: value 2)",
            "marble source: a source plays values, finished and failure; 0: subscription is the subscriber's",
        ])
        #expect(failures.map(\.line) == [line, line + 1, line + 2])
        #expect(publishers.0.timeline.isEmpty && publishers.1.timeline.isEmpty && publishers.2.timeline.isEmpty)
    }
}
