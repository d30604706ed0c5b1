import Testing
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// The elements of an SVG document, in order, with their attributes and text.
private final class SVGElements: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        var className: String? { attributes["class"] }
    }

    var elements: [Element] = []
    private var open: [Int] = []
    var error: Error?

    init(_ svg: String) {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = self
        if !parser.parse() { error = parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements.append(Element(name: name, attributes: attributes))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = open.last { elements[index].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    func withClass(_ name: String) -> [Element] { elements.filter { $0.className == name } }
}

@Suite("Drawing timelines as SVG")
struct MarbleSVGTests {
    let tick = Duration.milliseconds(100)
    let timeline: Timeline<String, Boom> = [
        .subscription(at: .zero), .value(at: .milliseconds(100), "a"), .value(at: .milliseconds(300), "swift"),
        .value(at: .milliseconds(300), "b"), .failure(at: .milliseconds(500), Boom(code: 2)),
    ]

    @Test func isAWellFormedSelfContainedSVGDocument() throws {
        let svg = timeline.svg(tick: tick, title: "Search <debounced>")
        let document = SVGElements(svg)
        #expect(document.error == nil)
        let root = try #require(document.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        let width = try #require(Double(root.attributes["width"] ?? ""))
        let height = try #require(Double(root.attributes["height"] ?? ""))
        #expect(root.attributes["viewBox"] == "0 0 \(root.attributes["width"]!) \(root.attributes["height"]!)")
        #expect(width > 200 && height > 60)
        // Self-contained: no scripts, images, links or external styles.
        #expect(!svg.contains("href") && !svg.contains("<script") && !svg.contains("<image") && !svg.contains("url("))
        #expect(document.withClass("background").first?.attributes["fill"] == "#FFFFFF")
        #expect(document.withClass("title").first?.text == "Search <debounced>", "text is escaped and survives parsing")
    }

    @Test func drawsValuesOnATimeAxisWithAFailureCross() throws {
        let document = SVGElements(timeline.svg(tick: tick))
        let marbles = document.withClass("marble")
        #expect(marbles.map { $0.attributes["data-time"] } == ["100 ms", "300 ms", "300 ms"])
        let labels = document.elements.filter { $0.name == "text" && ["a", "swift", "b"].contains($0.text) }.map(\.text)
        #expect(labels == ["a", "swift", "b"])
        // Short labels are circles; a long one is a pill wide enough for its text.
        #expect(document.elements.filter { $0.name == "circle" }.count == 2)
        let pill = try #require(document.elements.first { $0.name == "rect" && $0.attributes["rx"] == "14" })
        #expect(try #require(Double(pill.attributes["width"] ?? "")) >= 5 * 7)
        // Two values at one instant share a group backdrop.
        #expect(document.withClass("group").count == 1)
        #expect(document.withClass("failure").map { $0.attributes["data-time"] } == ["500 ms"])
        #expect(document.withClass("completion").isEmpty)
        // The axis stops at the failure, so there is no arrow.
        #expect(document.withClass("arrow").isEmpty)
        #expect(document.withClass("axis").count == 1)
        #expect(document.withClass("time").map(\.text) == ["100 ms", "300 ms", "500 ms"])
    }

    @Test func timeRunsLeftToRightAndLabelsNeverOverlap() throws {
        let busy: Timeline<String, Never> = [
            .value(at: .milliseconds(100), "first"), .value(at: .milliseconds(200), "second"),
            .value(at: .milliseconds(300), "x"), .value(at: .seconds(2), "later"), .finished(at: .milliseconds(2100)),
        ]
        let document = SVGElements(busy.svg(tick: tick))
        let shapes = document.elements.filter { ($0.name == "circle" || $0.name == "rect") && $0.className == nil }
        func span(_ element: SVGElements.Element) -> ClosedRange<Double> {
            if element.name == "circle" {
                let cx = Double(element.attributes["cx"]!)!, r = Double(element.attributes["r"]!)!
                return (cx - r)...(cx + r)
            }
            let x = Double(element.attributes["x"]!)!, w = Double(element.attributes["width"]!)!
            return x...(x + w)
        }
        let spans = shapes.map(span)
        #expect(spans.count == 4)
        for (left, right) in zip(spans, spans.dropFirst()) {
            #expect(left.upperBound < right.lowerBound, "marbles in time order, with room between them")
        }
        let completion = try #require(document.withClass("completion").first)
        #expect(Double(completion.attributes["x1"]!)! > spans.last!.upperBound)
        #expect(document.withClass("tick").count == 22, "a faint tick per 100 ms from 0 to 2.1 s")
    }

    @Test func chartsShareOneAxisWithGuidesAndRowNames() throws {
        let input: Timeline<String, Never> = [.value(at: .zero, "sw"), .value(at: .zero, "swift"), .finished(at: .milliseconds(700))]
        let output: Timeline<String, Never> = [.value(at: .milliseconds(300), "swift"), .finished(at: .milliseconds(700))]
        var chart = MarbleChart(tick: tick, title: "debounce(for: 300 ms)")
        chart.add("query", input)
        chart.add("debounced", output)
        let document = SVGElements(chart.svg)
        #expect(document.error == nil)
        #expect(document.withClass("row-name").map(\.text) == ["query", "debounced"])
        #expect(document.withClass("row").count == 2)
        #expect(document.withClass("guide").count == 3, "one guide per distinct event time")
        let bars = document.withClass("completion").map { $0.attributes["x1"] }
        #expect(bars.count == 2 && bars[0] == bars[1], "the same instant is at the same x in both rows")
        // The same value gets the same colour in every row.
        let fills = document.elements.filter { $0.name == "rect" || $0.name == "circle" }
            .compactMap { $0.attributes["fill"] }.filter { $0.hasPrefix("#") && $0 != "#FFFFFF" && $0 != "#F3F4F6" }
        #expect(fills == ["#4E79A7", "#F28E2B", "#F28E2B"])
    }

    @Test func cancelAndSubscriptionMarks() {
        var chart = MarbleChart(tick: tick)
        chart.add("", [.subscription(at: .zero), .value(at: .milliseconds(100), 1), .cancel(at: .milliseconds(300))] as Timeline<Int, Never>,
                  showsSubscription: true)
        let document = SVGElements(chart.svg)
        #expect(document.withClass("subscription").count == 1)
        #expect(document.withClass("cancel").count == 1)
        #expect(document.elements.contains { $0.name == "text" && $0.text == "cancel" })
    }
}

extension MarbleSVGTests {
    /// Every kind of mark in one chart; with SLUICE_MARBLE_OUTPUT set, written out to be looked at.
    @Test func showcaseChartParsesAndCanBeWrittenOut() throws {
        let scheduler = DispatchQueue.test
        let tick = Duration.milliseconds(100)
        let source = scheduler.cold("-a-b-(cd)-e|", values: ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5], tick: tick)
        let mapped = source.map { $0 * 10 }.recordTimeline(on: scheduler)
        let failing = source.tryMap { value -> Int in
            if value == 3 { throw Boom(code: 3) }
            return value
        }.recordTimeline(on: scheduler)
        let cancelled = source.recordTimeline(on: scheduler)
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(400))) { cancelled.cancel() }
        let original = source.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(2))
        var chart = MarbleChart(tick: tick, title: "One source, four subscribers")
        chart.add("source", original.timeline)
        chart.add("map { $0 * 10 }", mapped.timeline)
        chart.add("tryMap", failing.timeline, errorLabel: { "\($0)" })
        chart.add("cancelled", cancelled.timeline, showsSubscription: true)
        #expect(chart.text == """
            source:          -1-2-(34)-5|
            map { $0 * 10 }: -a-b-(cd)-e|
            tryMap:          -1-2-#'Boom(3)'
            cancelled:       ^1-2!
                             keys: a = 10, b = 20, c = 30, d = 40, e = 50
            """)
        // Every row reads back at the ticks its events happened at.
        let rows = chart.text.split(separator: "\n").map { String($0.dropFirst("map { $0 * 10 }: ".count)) }
        #expect(try MarbleDiagram<String, Never>(rows[0]).events.map(\.tick) == [1, 3, 5, 5, 10, 11])
        #expect(try MarbleDiagram<String, Never>(rows[1]).events.map(\.tick) == [1, 3, 5, 5, 10, 11])
        let document = SVGElements(chart.svg)
        #expect(document.error == nil)
        #expect(document.withClass("failure-label").map(\.text) == ["Boom(3)"])
        if let directory = ProcessInfo.processInfo.environment["SLUICE_MARBLE_OUTPUT"] {
            try chart.svg.write(toFile: directory + "/showcase.svg", atomically: true, encoding: .utf8)
            try chart.text.write(toFile: directory + "/showcase.txt", atomically: true, encoding: .utf8)
        }
    }
}
