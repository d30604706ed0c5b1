import Foundation
import Synchronization
import SluiceRx

/// The error the tests send.
enum RxTestError: Error, CustomStringConvertible {
    case boom
    case other(Int)

    var description: String {
        switch self {
        case .boom: return "boom"
        case .other(let value): return "other(\(value))"
        }
    }
}

/// A thread-safe list of strings, for histories recorded from several threads.
final class History: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// Subscribes with the event form and writes each event as text: an element as itself, an
/// error as `x(error)`, completion as `|`.
func rxRecord<O: ObservableType>(_ source: O) -> [String] {
    var events: [String] = []
    let subscription = source.subscribe { event in
        switch event {
        case .next(let element): events.append("\(element)")
        case .error(let error): events.append("x(\(error))")
        case .completed: events.append("|")
        }
    }
    subscription.dispose()
    return events
}

/// Records the events of a subscription that stays open, for tests that send later.
final class EventRecorder<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    private(set) var subscription: Disposable?

    init<O: ObservableType>(_ source: O) where O.Element == Element {
        subscription = source.subscribe { [self] event in
            let text: String
            switch event {
            case .next(let element): text = "\(element)"
            case .error(let error): text = "x(\(error))"
            case .completed: text = "|"
            }
            lock.lock()
            recorded.append(text)
            lock.unlock()
        }
    }

    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

/// Runs the main run loop until `condition` holds or `timeout` passes (a generous bound, not a
/// measurement). Call it on the main thread.
func runMainLoop(timeout: TimeInterval = 5, until condition: () -> Bool) {
    let end = Date(timeIntervalSinceNow: timeout)
    while Date() < end && !condition() {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
    }
}

/// The label of the dispatch queue the caller runs on, or "main" on the main thread.
nonisolated func rxCurrentQueue() -> String {
    if Thread.isMainThread { return "main" }
    return String(cString: rxDispatchQueueLabel(nil))
}

@_silgen_name("dispatch_queue_get_label")
nonisolated func rxDispatchQueueLabel(_ queue: OpaquePointer?) -> UnsafePointer<CChar>

/// Hands a value that is safe to share (a disposable, which is thread-safe) to a task.
struct Shared<Value>: @unchecked Sendable {
    let value: Value
}
