import Foundation
import Sluice
import SluiceSchedulers

// "Injecting the scheduler": a search view model written as it would be for Combine on Apple
// platforms. Two changes, both forced by this being a library target that its tests import:
// the declarations are `public`, and the usual hand-written `AnyScheduler` eraser is Sluice's
// `AnySchedulerOf<DispatchQueue>`, which forwards options too (`MainScheduler` is the name such
// code commonly gives the eraser, so the initialiser reads as it did before).

/// The scheduler `SearchModel` debounces and delivers on: any scheduler with dispatch time,
/// `DispatchQueue.main` in production and `DispatchQueue.test` (virtual time) in tests.
public typealias MainScheduler = AnySchedulerOf<DispatchQueue>

/// A search view model: it debounces the query by 300 ms, drops a query equal to the previous
/// one, runs the search for the latest query only, and publishes the results on its scheduler.
///
/// The scheduler is injected, defaulting to the main queue, and both the debounce and the
/// delivery hop use it, so a test that passes a test scheduler controls all of its timing, and
/// the production default goes through the same eraser: the code path under test is the one
/// that ships.
@MainActor
public final class SearchModel {
    /// The latest results, set on the scheduler after the debounce and the search.
    public private(set) var results: [String] = []
    /// Send each edit of the search field here.
    public let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    /// Creates the model.
    ///
    /// - Parameters:
    ///   - search: runs a search; called on the scheduler (after the debounce), so it is
    ///     `@Sendable` and must not touch main-actor state.
    ///   - scheduler: where the debounce waits and the results are delivered.
    public init(search: @escaping @Sendable (String) -> AnyPublisher<[String], Never>,
                scheduler: MainScheduler = AnyScheduler(DispatchQueue.main)) {
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
