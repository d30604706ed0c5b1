// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
import Foundation
import Sluice

@MainActor
final class FixedItemsModel {
    var label = ""
    private var cancellables = Set<AnyCancellable>()

    // 1. Transform after the hop: every closure then runs on the main queue.
    func bindTransformingAfterTheHop(_ values: some Publisher<Int, Never>) {
        values
            .receive(on: DispatchQueue.main)
            .map { "\($0) items" }
            .sink { [weak self] in self?.label = $0 }
            .store(in: &cancellables)
    }

    // 2. A @Sendable closure carries no actor isolation, so it may run anywhere.
    func bindWithASendableClosure(_ values: some Publisher<Int, Never>) {
        values
            .map { @Sendable count in "\(count) items" }
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.label = $0 }
            .store(in: &cancellables)
    }

    // 3. Build the early stages in nonisolated code (a function, or an extension).
    func bindThroughANonisolatedFunction(_ values: some Publisher<Int, Never>) {
        values
            .map(itemLabel)
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.label = $0 }
            .store(in: &cancellables)
    }
}

nonisolated func itemLabel(_ count: Int) -> String { "\(count) items" }
