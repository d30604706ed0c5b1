import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// A search view model with the usual Combine chain: the query is debounced by 300 ms on an
/// injected scheduler, repeated queries are dropped, each query starts a search whose results
/// replace any search still running, and the results are delivered through the same scheduler.
/// (`results` is `@Published` here only so that the tests can record it.)
@MainActor
final class SearchModel: ObservableObject {
    @Published private(set) var results: [String] = []
    let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(search: @escaping @Sendable (String) -> AnyPublisher<[String], Never>,
         scheduler: AnySchedulerOf<DispatchQueue> = AnyScheduler(DispatchQueue.main)) {
        query
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates()
            .map(search)
            .switchToLatest()
            .receive(on: scheduler)
            .sink { [weak self] in self?.results = $0 }
            .store(in: &cancellables)
    }
}

/// A search that answers at once. It logs each query it is asked, so that a test can see
/// which queries got past the debounce and `removeDuplicates`.
private func search(logging searches: Log<String>) -> @Sendable (String) -> AnyPublisher<[String], Never> {
    { query in
        searches.append(query)
        return Just(["\(query) result"]).eraseToAnyPublisher()
    }
}

/// The debounced-search example written three ways, on one input: "sw" and "swift" at 0 ms,
/// "swiftui" at 500 ms, then "swiftu" at 900 ms and "swiftui" again at 1000 ms. All three pin the
/// same exact virtual times: the results of "swift" at 300 ms and of "swiftui" at 800 ms, and
/// nothing for the second "swiftui", which debounces at 1300 ms and is dropped as a duplicate.
@MainActor
@Suite("Debounced search example, three ways")
struct DebounceExampleTests {
    /// Types the input on `clock`, which starts at 0 ms.
    private func type(into model: SearchModel, on clock: VirtualTimeScheduler) {
        model.query.send("sw")
        model.query.send("swift")
        clock.advance(by: .milliseconds(500))
        model.query.send("swiftui")
        clock.advance(by: .milliseconds(400))
        model.query.send("swiftu")
        clock.advance(by: .milliseconds(100))
        model.query.send("swiftui")
        clock.advance(by: .seconds(1))
    }

    // 1. With TimelineRecorder: the whole history, with times, in one comparison.
    @Test func withTimelineRecorder() {
        let clock = VirtualTimeScheduler()
        let searches = Log<String>()
        let model = SearchModel(search: search(logging: searches), scheduler: AnyScheduler(clock))
        let recorder = model.$results.recordTimeline(on: clock)
        type(into: model, on: clock)
        #expect(recorder.timeline == [
            .subscription(at: .zero),
            .value(at: .zero, []),                                // @Published's current value
            .value(at: .milliseconds(300), ["swift result"]),    // debounced and delivered at exactly 300 ms
            .value(at: .milliseconds(800), ["swiftui result"]),  // nothing at 1300 ms: a duplicate
        ])
        #expect(searches.all == ["swift", "swiftui"])
    }

    // 2. With marbles: the input as a hot diagram, the results as the expected diagram. A group
    // takes its width in ticks, so "c" is at tick 5 and "d" at tick 9.
    @Test func withMarbles() {
        let clock = VirtualTimeScheduler()
        let searches = Log<String>()
        let model = SearchModel(search: search(logging: searches), scheduler: AnyScheduler(clock))
        let tick = Duration.milliseconds(100)
        let typing = clock.hot("(ab)-c---de", values: ["a": "sw", "b": "swift", "c": "swiftui", "d": "swiftu", "e": "swiftui"],
                               tick: tick)
        let feeding = typing.subscribe(model.query)
        expectMarbles(model.$results, "e--s----u-----",
                      values: ["e": [], "s": ["swift result"], "u": ["swiftui result"]],
                      scheduler: clock, tick: tick)
        #expect(searches.all == ["swift", "swiftui"])
        feeding.cancel()
    }

    // 3. With plain assertions, as a Combine test on Apple platforms writes it, continued over the same input.
    @Test func withPlainAssertions() {
        let clock = VirtualTimeScheduler()
        let searches = Log<String>()
        let model = SearchModel(search: search(logging: searches), scheduler: AnyScheduler(clock))
        model.query.send("sw")
        model.query.send("swift")
        clock.advance(by: .milliseconds(299))
        #expect(model.results.isEmpty)                       // still debouncing
        clock.advance(by: .milliseconds(1))
        #expect(model.results == ["swift result"])           // debounced and delivered, at exactly 300 ms

        clock.advance(by: .milliseconds(200))                // 500 ms
        model.query.send("swiftui")
        clock.advance(by: .milliseconds(299))
        #expect(model.results == ["swift result"])
        clock.advance(by: .milliseconds(1))                  // 800 ms
        #expect(model.results == ["swiftui result"])

        clock.advance(by: .milliseconds(100))                // 900 ms
        model.query.send("swiftu")
        clock.advance(by: .milliseconds(100))
        model.query.send("swiftui")
        clock.advance(by: .milliseconds(300))                // 1300 ms: debounced, but a duplicate
        #expect(model.results == ["swiftui result"])
        #expect(searches.all == ["swift", "swiftui"])
    }

    // Why the chain has switchToLatest: with a search that takes 400 ms, a query debounced
    // while the previous search still runs cancels it, and only the latest results arrive.
    @Test func aSlowSearchIsReplacedByTheNextQuery() {
        let clock = VirtualTimeScheduler()
        let searches = Log<String>()
        let model = SearchModel(search: { query in
            searches.append(query)
            return Just(["\(query) result"]).delay(for: .milliseconds(400), scheduler: clock).eraseToAnyPublisher()
        }, scheduler: AnyScheduler(clock))
        let recorder = model.$results.recordTimeline(on: clock)
        model.query.send("swift")                            // searched at 300 ms, due at 700 ms
        clock.advance(by: .milliseconds(350))
        model.query.send("swiftui")                          // searched at 650 ms, due at 1050 ms
        clock.advance(by: .seconds(1))
        #expect(searches.all == ["swift", "swiftui"])
        #expect(recorder.timeline == [
            .subscription(at: .zero),
            .value(at: .zero, []),
            .value(at: .milliseconds(1050), ["swiftui result"]),
        ])
    }

    // The same run drawn: the input above, the results below, on one axis.
    @Test func drawnAsAChart() throws {
        let clock = VirtualTimeScheduler()
        let model = SearchModel(search: search(logging: Log()), scheduler: AnyScheduler(clock))
        let queries = model.query.recordTimeline(on: clock)
        let results = model.$results.dropFirst().recordTimeline(on: clock)
        type(into: model, on: clock)
        var chart = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300))")
        let typed = ["a": "sw", "b": "swift", "c": "swiftui", "d": "swiftu"]
        chart.add("query", queries.timeline, values: typed, until: .milliseconds(1500))
        chart.add("results", results.timeline.mapValues { $0.first ?? "" }, values: ["B": "swift result", "C": "swiftui result"],
                  until: .milliseconds(1500))
        #expect(chart.text == """
            query:   (ab)-c---dc----
            results: ---B----C------
            """)
        if let directory = ProcessInfo.processInfo.environment["SLUICE_MARBLE_OUTPUT"] {
            try chart.svg.write(toFile: directory + "/debounce.svg", atomically: true, encoding: .utf8)
            var labelled = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300))")
            labelled.add("query", queries.timeline, until: .milliseconds(1500))
            labelled.add("results", results.timeline.mapValues { $0.first ?? "" }, until: .milliseconds(1500))
            try labelled.svg.write(toFile: directory + "/debounce-labelled.svg", atomically: true, encoding: .utf8)
            try chart.text.write(toFile: directory + "/debounce.txt", atomically: true, encoding: .utf8)
        }
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
