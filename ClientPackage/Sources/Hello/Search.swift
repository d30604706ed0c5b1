import Foundation
import Sluice
import SluiceSchedulers

/// Searches once the user pauses typing: Combine code, unchanged but for `import Sluice`.
final class Search {
    let query = PassthroughSubject<String, Never>()
    let results: AnyPublisher<String, Never>

    init(scheduler: AnySchedulerOf<DispatchQueue>) {
        results = query
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates()
            .map { "results for \($0)" }
            .eraseToAnyPublisher()
    }
}
