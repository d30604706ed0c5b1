import Foundation
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

/// Runs the main run loop in `mode` until `condition` holds or `timeout` passes (a generous
/// bound, not a measurement: tests assert the result, never the time taken). Call it on the
/// main thread.
func runMainLoop(for duration: TimeInterval? = nil, mode: RunLoop.Mode = .default, timeout: TimeInterval = 5,
                 until condition: () -> Bool = { false }) {
    let end = Date(timeIntervalSinceNow: duration ?? timeout)
    while Date() < end {
        if duration == nil && condition() { return }
        _ = RunLoop.main.run(mode: mode, before: min(end, Date(timeIntervalSinceNow: 0.01)))
    }
}
