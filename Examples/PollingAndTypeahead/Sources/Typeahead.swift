import Foundation
import Sluice

/// A search field's suggestions: send each edit to ``query``; ``suggestions`` and
/// ``isSearching`` are what the field shows.
///
/// A query is trimmed and debounced; a query equal to the previous one starts no search; one
/// shorter than `minimumLength` clears the suggestions without searching; a new query cancels
/// the search still running for the previous one; a search that fails shows no suggestions.
public final class Typeahead {
    /// Send each edit of the search field here.
    public let query = PassthroughSubject<String, Never>()
    /// The suggestions for the latest query.
    public let suggestions: AnyPublisher<[String], Never>
    /// Whether a search is running: `false` at first, `true` from a search's start until its
    /// results (or its failure) arrive.
    public let isSearching: AnyPublisher<Bool, Never>

    /// Creates the typeahead; `search` is called with each query that gets past the debounce.
    public init<S: Scheduler, Failure: Error>(debounce: S.SchedulerTimeType.Stride, minimumLength: Int = 2, scheduler: S,
                                              search: @escaping (String) -> AnyPublisher<[String], Failure>) {
        let terms = query
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .debounce(for: debounce, scheduler: scheduler)
            .removeDuplicates()
            .share()
        let results = terms
            .map { term -> AnyPublisher<[String], Never> in
                guard term.count >= minimumLength else { return Just([]).eraseToAnyPublisher() }
                return search(term).replaceError(with: []).eraseToAnyPublisher()
            }
            .switchToLatest()
            .share()
        suggestions = results.eraseToAnyPublisher()
        isSearching = terms.map { $0.count >= minimumLength }
            .merge(with: results.map { _ in false })
            .prepend(false)
            .removeDuplicates()
            .eraseToAnyPublisher()
    }
}
