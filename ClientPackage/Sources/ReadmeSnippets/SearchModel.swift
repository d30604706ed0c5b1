// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
import Foundation
import Sluice
import SluiceSchedulers

@MainActor final class SearchModel {
    private(set) var results: [String] = []
    let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(search: @escaping @Sendable (String) -> AnyPublisher<[String], Never>,
         scheduler: AnySchedulerOf<DispatchQueue> = AnyScheduler(DispatchQueue.main)) {
        query.debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates().map(search).switchToLatest()
            .receive(on: scheduler)
            .sink { [weak self] in self?.results = $0 }
            .store(in: &cancellables)
    }
}
