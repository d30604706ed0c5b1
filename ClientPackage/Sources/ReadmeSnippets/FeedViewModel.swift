// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
import Sluice
import SluiceExtras

@MainActor
final class FeedViewModel {
    var items: [String] = []
    var title = ""
    private var cancellables: Set<AnyCancellable> = []

    init(feed: some Publisher<[String], Never>, titles: some Publisher<String, Never>) {
        feed.sinkOnMainActor { [weak self] items in self?.items = items }   // main-actor state, checked
            .store(in: &cancellables)
        titles.assignOnMainActor(to: \.title, on: self)                      // held weakly: no cycle
            .store(in: &cancellables)
    }
}
