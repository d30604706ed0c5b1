// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sluice

struct Repository: Decodable { let name: String }

func repository(at url: URL) -> AnyPublisher<Repository, Error> {
    URLSession.shared.dataTaskPublisher(for: url)
        .map(\.data)
        .decode(type: Repository.self, decoder: JSONDecoder())
        .retry(2)
        .eraseToAnyPublisher()
}
