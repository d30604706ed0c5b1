import Foundation
import SluiceTesting
import Synchronization

/// A thread-safe flag for tests that wait on the main run loop.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// A thread-safe list for tests that record from several threads.
final class Log<Element: Sendable>: Sendable {
    private let entries = Mutex<[Element]>([])
    func append(_ entry: Element) { entries.withLock { $0.append(entry) } }
    var all: [Element] { entries.withLock { $0 } }
}

/// Runs the main run loop for `duration`, or until `condition` holds (within `timeout`), through
/// SluiceTesting's `RunLoop.run(mode:timeout:until:)`. Call it on the main thread.
func runMainLoop(for duration: TimeInterval? = nil, mode: RunLoop.Mode = .default, timeout: TimeInterval = 5,
                 until condition: () -> Bool = { false }) {
    if let duration {
        RunLoop.main.run(mode: mode, for: duration)
    } else {
        RunLoop.main.run(mode: mode, timeout: timeout, until: condition)
    }
}
