// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice

func search(_ text: String) -> AnyPublisher<[String], Never> {
    Just(["\(text) result"]).eraseToAnyPublisher()
}

let query = PassthroughSubject<String, Never>()
let cancellable = query
    .debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
    .removeDuplicates()
    .map { text in search(text) }
    .switchToLatest()
    .receive(on: DispatchQueue.main)
    .sink { results in print(results) }
