import Sluice
import Synchronization

/// A thread-safe log of signals recorded by `trace(_:to:)`: for each signal, what
/// it was, which trace recorded it, and where it ran (main thread or not, and the dispatch
/// queue's label).
///
/// It is the signal log and `currentQueue()` helper that tests of threading write by hand, as
/// one library feature: a test traces the points of a chain it cares about and asserts the
/// log, in order.
///
/// ```swift
/// let log = TraceLog()
/// let c = [1].publisher.trace("source", to: log).subscribe(on: work).receive(on: DispatchQueue.main)
///     .trace("ui", to: log).sink { _ in }
/// // later: log.descriptions == ["ui: subscription on main", ..., "source: value 1 on work", ...]
/// ```
public final class TraceLog: @unchecked Sendable {
    /// One signal seen by a trace.
    public enum Signal: Sendable, Hashable, CustomStringConvertible {
        /// The trace received its subscription; the associated value is its description.
        case subscription(String)
        /// The downstream asked for more (a `request`, or a non-zero demand returned from a value).
        case request(Subscribers.Demand)
        /// A value, as `String(describing:)` prints it.
        case value(String)
        /// The upstream finished.
        case finished
        /// The upstream failed; the associated value describes the error.
        case failure(String)
        /// The downstream cancelled.
        case cancel

        /// `subscription`, `request max(1)`, `value 1`, `finished`, `failure boom`, `cancel`.
        public var description: String {
            switch self {
            case .subscription: return "subscription"
            case .request(let demand): return "request \(demand)"
            case .value(let value): return "value \(value)"
            case .finished: return "finished"
            case .failure(let error): return "failure \(error)"
            case .cancel: return "cancel"
            }
        }
    }

    /// A recorded signal and where it ran.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The label given to `trace`.
        public let label: String
        /// The signal.
        public let signal: Signal
        /// Where it ran.
        public let context: ExecutionContext

        /// Whether it ran on the main thread.
        public var isMainThread: Bool { context.isMainThread }

        /// `"main"` or `"background"`, as a hand-written `currentThread()` helper would say.
        public var thread: String { context.isMainThread ? "main" : "background" }

        /// `label: signal on place`, where place is `main` or the queue's label:
        /// `"search: value 1 on work"`.
        public var description: String { "\(label): \(signal) on \(context)" }
    }

    private let lock = Lock()
    private var storage: [Entry] = []

    /// Creates an empty log.
    public init() {}

    /// The log `trace(_:)` writes to when given no other. Tests that run in parallel should give
    /// each trace its own log.
    public static let shared = TraceLog()

    /// Every entry, in the order recorded.
    public var entries: [Entry] { lock.locked { storage } }

    /// The entries' descriptions, for one-line assertions.
    public var descriptions: [String] { entries.map(\.description) }

    /// The entries recorded by the trace with this label.
    public func entries(labelled label: String) -> [Entry] {
        entries.filter { $0.label == label }
    }

    /// Appends an entry for a signal seen now, on the calling thread.
    public func record(_ signal: Signal, label: String) {
        let entry = Entry(label: label, signal: signal, context: .current)
        lock.locked { storage.append(entry) }
    }

    /// Empties the log.
    public func removeAll() {
        let removed = lock.locked { () -> [Entry] in
            defer { storage = [] }
            return storage
        }
        withExtendedLifetime(removed) {}
    }
}

extension Publisher {
    /// Records every signal passing this point (subscription, request, value, completion,
    /// cancel) in `log`, with the thread and the dispatch queue it happened on.
    ///
    /// Requests and cancels travel upstream and values downstream, so a trace shows both
    /// directions: put one on each side of a `subscribe(on:)` or `receive(on:)` to see what each
    /// moves. Built on `handleEvents`, so the signals pass through unchanged and its subscription
    /// is described as `HandleEvents`.
    @inlinable
    public func trace(_ label: String, to log: TraceLog = .shared) -> Publishers.HandleEvents<Self> {
        handleEvents(
            receiveSubscription: { log.record(.subscription(String(describing: $0)), label: label) },
            receiveOutput: { log.record(.value(String(describing: $0)), label: label) },
            receiveCompletion: { completion in
                switch completion {
                case .finished: log.record(.finished, label: label)
                case .failure(let error): log.record(.failure(String(describing: error)), label: label)
                }
            },
            receiveCancel: { log.record(.cancel, label: label) },
            receiveRequest: { log.record(.request($0), label: label) })
    }
}
