// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
import Foundation
import Sluice

@MainActor
final class ItemsModel {
    var label = ""
    private var cancellables = Set<AnyCancellable>()

    func bind(_ values: some Publisher<Int, Never>) {
        values
            .map { "\($0) items" }              // main-actor closure, run on the sender's thread
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.label = $0 }
            .store(in: &cancellables)
    }
}
