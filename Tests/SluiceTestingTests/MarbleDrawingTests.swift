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
        #expect(timeline.marbles(tick: tick, values: ["x": 10]) == "-x-'42' #", "a value with no key is quoted")
        #expect(timeline.marbles(tick: tick) == "-'10' '42' #", "stretched with spaces where a label is wider than its ticks")
    }

    @Test func longLabelsStretchTheAxisInsteadOfOverlapping() {
        let timeline: Timeline<String, Never> = [.value(at: .milliseconds(100), "swift"), .value(at: .milliseconds(200), "ui"), .finished(at: .milliseconds(300))]
        #expect(timeline.marbles(tick: tick) == "-'swift' 'ui' |", "with a space of room where it stretches")
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

    @Test func rowsOnAStretchedAxisStillReadBackAsWhatHappened() throws {
        // "swift" is wider than the tick before "ui": the axis stretches there. The other row
        // is padded with spaces, which the parser ignores, so it parses back at its own ticks.
        let wide: Timeline<String, Never> = [.value(at: .milliseconds(100), "swift"), .value(at: .milliseconds(200), "ui")]
        let plain: Timeline<String, Never> = [.value(at: .zero, "a"), .value(at: .milliseconds(200), "c"),
                                              .value(at: .milliseconds(300), "d"), .finished(at: .milliseconds(600))]
        var chart = MarbleChart(tick: tick)
        chart.add("wide", wide)
        chart.add("plain", plain)
        #expect(chart.text == """
            wide:  -'swift' 'ui'
            plain: a-       cd--|
            """)
        let row = String(try #require(chart.text.split(separator: "\n").last).dropFirst("plain: ".count))
        let parsed = try MarbleDiagram<String, Never>(row)
        #expect(parsed.events.map(\.tick) == [0, 2, 3, 6])
        #expect(parsed.events.map(\.symbol) == ["a", "c", "d", "|"])
    }

    @Test func untilExtendsAnOpenRow() {
        let timeline: Timeline<String, Never> = [.value(at: .milliseconds(100), "a")]
        var chart = MarbleChart(tick: tick)
        chart.add("", timeline, until: .milliseconds(500))
        #expect(chart.text == "-a---")
    }
}
