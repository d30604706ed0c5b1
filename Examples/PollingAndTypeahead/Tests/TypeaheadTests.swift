import Foundation
import Testing
import Sluice
import SluiceTesting
import PollingAndTypeaheadExample

/// The typeahead in virtual time: one run of typing, played from a hot marble diagram, recorded at
/// every output (the searches made, the suggestions, the searching flag, a search's subscription)
/// and checked at each.
@Suite("Typeahead: debounce, no repeats, short queries, latest search only")
struct TypeaheadTests {
    let tick = Duration.milliseconds(100)

    @Test func oneRunOfTypingCheckedAtEveryOutput() {
        let scheduler = DispatchQueue.test
        // Each query's search, answering after 200 ms; "swi" is slow, "err" fails.
        let answers: [String: ColdMarblePublisher<[String], URLError>] = [
            "sw": scheduler.cold("--r|", values: ["r": ["swift", "swiftui"]], failure: URLError.self, tick: tick),
            "swi": scheduler.cold("-----r|", values: ["r": ["swiftui"]], failure: URLError.self, tick: tick),
            "swift": scheduler.cold("--r|", values: ["r": ["swift", "swift-nio"]], failure: URLError.self, tick: tick),
            "err": scheduler.cold("-#", errors: ["#": URLError(.notConnectedToInternet)], tick: tick),
        ]
        let searches = PassthroughSubject<String, Never>()
        let typeahead = Typeahead(debounce: .milliseconds(300), scheduler: scheduler) { term in
            searches.send(term)
            return answers[term]!.eraseToAnyPublisher()
        }
        let searched = searches.recordTimeline(on: scheduler)
        let suggestions = typeahead.suggestions.recordTimeline(on: scheduler)
        let isSearching = typeahead.isSearching.recordTimeline(on: scheduler)
        // "s" and "sw", "swi" at 500 ms, "swift" at 900 ms, "swift " at 1.5 s (the same query
        // once trimmed), "x" at 2 s (too short to search), "err" at 2.5 s.
        let typing = scheduler.hot("ab---c---d-----e----f----g", values: [
            "a": "s", "b": "sw", "c": "swi", "d": "swift", "e": "swift ", "f": "x", "g": "err",
        ], tick: tick)
        let feeding = typing.subscribe(typeahead.query)
        scheduler.advance(by: .seconds(4))

        // Searched 300 ms after each pause in typing, except for the repeat and the short query.
        expectMarbles(searched, "----a---b---c---------------d",
                      values: ["a": "sw", "b": "swi", "c": "swift", "d": "err"], tick: tick)
        // "swi"'s slow answer never shows: "swift" replaced its search. A short query and a
        // failed search both clear the suggestions.
        expectMarbles(suggestions, "------A-------B--------E-----E",
                      values: ["A": ["swift", "swiftui"], "B": ["swift", "swift-nio"], "E": []], tick: tick)
        expectMarbles(isSearching, "F---T-F-T-----F-------------TF", values: ["T": true, "F": false], tick: tick)
        // "swi"'s search was cancelled when "swift" got past the debounce, at 1.2 s.
        expectSubscriptions(answers["swi"]!.subscriptions, "--------^---!", tick: tick)
        #expect(answers["swi"]!.subscriptions.first?.ending == .cancelled)
        #expect(answers["err"]!.subscriptions.first?.ending == .failed)
        #expect(scheduler.pendingActionCount == 0)
        feeding.cancel()
    }
}
