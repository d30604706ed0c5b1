import Foundation
import Synchronization

/// A thread-safe list for tests that record from several threads.
final class Log<Element: Sendable>: Sendable {
    private let entries = Mutex<[Element]>([])
    func append(_ entry: Element) { entries.withLock { $0.append(entry) } }
    var all: [Element] { entries.withLock { $0 } }
}
