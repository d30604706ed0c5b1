import Testing
import Foundation
import Sluice
import SluiceTesting

/// Seed 000's search model: it debounces the query by 300 ms on an injected scheduler and
/// delivers the results through the same scheduler. (The seed also has `removeDuplicates` and
/// `switchToLatest`, which live in other operator families; here the search is synchronous, so
/// `map` stands in for `map(search).switchToLatest()` without changing any timing.)
@MainActor
final class SearchModel: ObservableObject {
    @Published private(set) var results: [String] = []
    let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(search: @escaping @Sendable (String) -> [String],
         scheduler: AnySchedulerOf<DispatchQueue> = AnyScheduler(DispatchQueue.main)) {
        query
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .map(search)
            .receive(on: scheduler)
            .sink { [weak self] in self?.results = $0 }
            .store(in: &cancellables)
    }
}

@Sendable private func search(_ query: String) -> [String] { ["\(query) result"] }

/// The seed 000 debounce example written three ways; all three pin the same exact virtual times.
@MainActor
@Suite("Seed 000 debounce example, three ways")
struct DebounceExampleTests {
    // 1. With TimelineRecorder: the whole history, with times, in one comparison.
    @Test func withTimelineRecorder() {
        let clock = VirtualTimeScheduler()
        let model = SearchModel(search: search, scheduler: AnyScheduler(clock))
        let recorder = model.$results.recordTimeline(on: clock)
        model.query.send("sw")
        model.query.send("swift")
        clock.advance(by: .milliseconds(500))
        model.query.send("swiftui")
        clock.advance(by: .seconds(1))
        #expect(recorder.timeline == [
            .subscription(at: .zero),
            .value(at: .zero, []),                              // @Published's current value
            .value(at: .milliseconds(300), ["swift result"]),  // debounced and delivered at exactly 300 ms
            .value(at: .milliseconds(800), ["swiftui result"]),
        ])
    }

    // 2. With marbles: the query as a hot diagram, the results as the expected diagram.
    @Test func withMarbles() {
        let clock = VirtualTimeScheduler()
        let model = SearchModel(search: search, scheduler: AnyScheduler(clock))
        let tick = Duration.milliseconds(100)
        let typing = clock.hot("(ab)-c", values: ["a": "sw", "b": "swift", "c": "swiftui"], tick: tick)
        let feeding = typing.subscribe(model.query)
        expectMarbles(model.$results, "e--s----u",
                      values: ["e": [], "s": ["swift result"], "u": ["swiftui result"]],
                      scheduler: clock, tick: tick)
        feeding.cancel()
    }

    // 3. With plain assertions, as the seed writes it.
    @Test func withPlainAssertions() {
        let clock = VirtualTimeScheduler()
        let model = SearchModel(search: search, scheduler: AnyScheduler(clock))
        model.query.send("sw")
        model.query.send("swift")
        clock.advance(by: .milliseconds(299))
        #expect(model.results.isEmpty)                       // still debouncing
        clock.advance(by: .milliseconds(1))
        #expect(model.results == ["swift result"])           // debounced and delivered, at exactly 300 ms
    }

    // The same run drawn: the query above, the results below, on one axis.
    @Test func drawnAsAChart() throws {
        let clock = VirtualTimeScheduler()
        let model = SearchModel(search: search, scheduler: AnyScheduler(clock))
        let queries = model.query.recordTimeline(on: clock)
        let results = model.$results.dropFirstValue().recordTimeline(on: clock)
        model.query.send("sw")
        model.query.send("swift")
        clock.advance(by: .milliseconds(500))
        model.query.send("swiftui")
        clock.advance(by: .seconds(1))
        var chart = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300))")
        chart.add("query", queries.timeline, values: ["a": "sw", "b": "swift", "c": "swiftui"], until: .seconds(1))
        chart.add("results", results.timeline.mapValues { $0.first ?? "" }, values: ["B": "swift result", "C": "swiftui result"],
                  until: .seconds(1))
        #expect(chart.text == """
            query:   (ab)-c----
            results: ---B----C-
            """)
        if let directory = ProcessInfo.processInfo.environment["SLUICE_MARBLE_OUTPUT"] {
            try chart.svg.write(toFile: directory + "/debounce.svg", atomically: true, encoding: .utf8)
            var labelled = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300))")
            labelled.add("query", queries.timeline, until: .seconds(1))
            labelled.add("results", results.timeline.mapValues { $0.first ?? "" }, until: .seconds(1))
            try labelled.svg.write(toFile: directory + "/debounce-labelled.svg", atomically: true, encoding: .utf8)
            try chart.text.write(toFile: directory + "/debounce.txt", atomically: true, encoding: .utf8)
        }
    }
}

private extension Publisher {
    /// Skips `@Published`'s current value (until `dropFirst` lands in this branch).
    func dropFirstValue() -> AnyPublisher<Output, Failure> {
        var seen = false
        return compactMapValue { value in
            defer { seen = true }
            return seen ? value : nil
        }
    }

    func compactMapValue<T>(_ transform: @escaping (Output) -> T?) -> AnyPublisher<T, Failure> {
        map(transform).filter { $0 != nil }.map { $0! }.eraseToAnyPublisher()
    }
}

private extension Timeline {
    /// The same timeline with each value transformed.
    func mapValues<T>(_ transform: (Output) -> T) -> Timeline<T, Failure> {
        Timeline<T, Failure>(events.map { event in
            switch event {
            case .subscription(let time): return .subscription(at: time)
            case .value(let time, let value): return .value(at: time, transform(value))
            case .finished(let time): return .finished(at: time)
            case .failure(let time, let error): return .failure(at: time, error)
            case .cancel(let time): return .cancel(at: time)
            }
        })
    }
}
