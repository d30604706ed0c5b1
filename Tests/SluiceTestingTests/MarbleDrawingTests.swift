import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Drawing timelines as text marble diagrams")
struct MarbleDrawingTests {
    let tick = Duration.milliseconds(100)

    /// Plays `diagram` through a cold publisher and draws what was recorded.
    private func roundTrip(_ diagram: String) -> String {
        let scheduler = DispatchQueue.test
        let recorder = scheduler.cold(diagram, tick: tick).recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(10))
        return recorder.timeline.marbles(tick: tick)
    }

    @Test func aRecordedTimelineDrawsBackAsItsDiagram() {
        #expect(roundTrip("-a-b--c|") == "-a-b--c|")
        #expect(roundTrip("-a-(bc)--|") == "-a-(bc)--|")
        #expect(roundTrip("--a--") == "--a")
        #expect(roundTrip("(a|)") == "(a|)")
    }

    @Test func valuesAreDrawnWithTheirKeysAndErrorsAsACross() {
        let timeline: Timeline<Int, Boom> = [.value(at: .milliseconds(100), 10), .value(at: .milliseconds(300), 42), .failure(at: .milliseconds(400), Boom())]
        #expect(timeline.marbles(tick: tick, values: ["x": 10, "y": 42]) == "-x-y#")
        // '42' would take four ticks before the failure one tick later: abbreviated, with a key
        // that is no key of the dictionary.
        #expect(timeline.marbles(tick: tick, values: ["x": 10, "a": 7]) == """
            -x-b#
            keys: b = 42
            """)
        #expect(timeline.marbles(tick: tick, values: ["x": 10]) == """
            -x-a#
            keys: a = 42
            """)
        #expect(timeline.marbles(tick: tick) == """
            -a-b#
            keys: a = 10, b = 42
            """)
        let fits: Timeline<Int, Boom> = [.value(at: .milliseconds(100), 42), .failure(at: .milliseconds(600), Boom())]
        #expect(fits.marbles(tick: tick) == "-'42'-#", "a label with room before the next event stays quoted")
    }

    @Test func longLabelsAreAbbreviatedAndTheAxisStaysLinear() throws {
        // Typing without a values dictionary: "s", "sw", "swi" at consecutive ticks, "swif" later.
        // Before issue 24 this drew as s'sw' 'swi'----'swif', stretched out of all proportion.
        let typing: Timeline<String, Never> = [.value(at: .zero, "s"), .value(at: .milliseconds(100), "sw"),
                                               .value(at: .milliseconds(200), "swi"), .value(at: .milliseconds(700), "swif")]
        let drawn = typing.marbles(tick: tick)
        #expect(drawn == """
            sab----c
            keys: a = sw, b = swi, c = swif
            """)
        let row = String(try #require(drawn.split(separator: "\n").first))
        #expect(try MarbleDiagram<String, Never>(row).events.map(\.tick) == [0, 1, 2, 7], "one character per tick")
        let timeline: Timeline<String, Never> = [.value(at: .milliseconds(100), "swift"), .value(at: .milliseconds(200), "ui"), .finished(at: .milliseconds(300))]
        #expect(timeline.marbles(tick: tick) == """
            -ab|
            keys: a = swift, b = ui
            """)
    }

    @Test func subscriptionAndCancelAreDrawnWhenAsked() {
        let timeline: Timeline<String, Never> = [.subscription(at: .zero), .value(at: .milliseconds(200), "a"), .cancel(at: .milliseconds(400))]
        var chart = MarbleChart(tick: tick)
        chart.add("", timeline, showsSubscription: true)
        #expect(chart.text == "^-a-!")
        #expect(timeline.marbles(tick: tick) == "--a-!")
    }

    @Test func chartsAlignRowsOnOneTimeAxis() {
        let input: Timeline<String, Never> = [.value(at: .zero, "sw"), .value(at: .zero, "swift"), .value(at: .milliseconds(600), "swiftui"), .finished(at: .milliseconds(700))]
        let output: Timeline<String, Never> = [.value(at: .milliseconds(300), "swift"), .finished(at: .milliseconds(700))]
        var chart = MarbleChart(tick: tick)
        chart.add("query", input, values: ["a": "sw", "b": "swift", "c": "swiftui"])
        chart.add("debounced", output, values: ["b": "swift"])
        #expect(chart.text == """
            query:     (ab)--c|
            debounced: ---b---|
            """)
        // The group takes its width in ticks, as when it is written, and the same instants
        // stay in the same column.
        let lines = chart.text.split(separator: "\n").map { Array($0.dropFirst("debounced: ".count)) }
        #expect(lines[0].lastIndex(of: "|") == lines[1].lastIndex(of: "|"))
    }

    @Test func rowsWithAbbreviatedLabelsStillReadBackAsWhatHappened() throws {
        // "swift" is wider than the tick before "ui": both get keys that the other row does not
        // use, and every row parses back at its own ticks.
        let wide: Timeline<String, Never> = [.value(at: .milliseconds(100), "swift"), .value(at: .milliseconds(200), "ui")]
        let plain: Timeline<String, Never> = [.value(at: .zero, "a"), .value(at: .milliseconds(200), "c"),
                                              .value(at: .milliseconds(300), "d"), .finished(at: .milliseconds(600))]
        var chart = MarbleChart(tick: tick)
        chart.add("wide", wide)
        chart.add("plain", plain)
        #expect(chart.text == """
            wide:  -be----
            plain: a-cd--|
                   keys: b = swift, e = ui
            """)
        let rows = chart.text.split(separator: "\n").map(String.init)
        let parsedPlain = try MarbleDiagram<String, Never>(String(rows[1].dropFirst("plain: ".count)))
        #expect(parsedPlain.events.map(\.tick) == [0, 2, 3, 6])
        #expect(parsedPlain.events.map(\.symbol) == ["a", "c", "d", "|"])
        let parsedWide = try MarbleDiagram<String, Never>(String(rows[0].dropFirst("wide:  ".count)), values: ["b": "swift", "e": "ui"])
        #expect(parsedWide.events.map(\.tick) == [1, 2])
    }

    @Test func aGroupThatCannotFitStillStretchesTheAxisWithSpaces() throws {
        // A group takes its width in ticks; the syntax cannot draw "(ab)" one tick before "c",
        // so that row reads later than it happened, padded with spaces the parser ignores.
        let grouped: Timeline<String, Never> = [.value(at: .zero, "a"), .value(at: .zero, "b"), .value(at: .milliseconds(100), "c")]
        let other: Timeline<String, Never> = [.value(at: .milliseconds(100), "x"), .value(at: .milliseconds(200), "y")]
        var chart = MarbleChart(tick: tick)
        chart.add("g", grouped)
        chart.add("o", other)
        #expect(chart.text == """
            g: (ab) c
            o: -    xy
            """)
        let row = String(try #require(chart.text.split(separator: "\n").last).dropFirst("o: ".count))
        #expect(try MarbleDiagram<String, Never>(row).events.map(\.tick) == [1, 2])
    }

    @Test func untilExtendsAnOpenRow() {
        let timeline: Timeline<String, Never> = [.value(at: .milliseconds(100), "a")]
        var chart = MarbleChart(tick: tick)
        chart.add("", timeline, until: .milliseconds(500))
        #expect(chart.text == "-a---")
    }
}
