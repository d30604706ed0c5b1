import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
import Synchronization

/// A publisher in front of a ``TestPublisher`` that remembers how the subscriber it was given
/// describes itself, so that tests can check what an operator hands its upstream (the inner
/// subscriber of a pass-through operator never reaches the downstream).
final class SubscriberProbe<Output, Failure: Error>: Publisher, @unchecked Sendable {
    let upstream: TestPublisher<Output, Failure>
    private let lock = Mutex<[(description: String, mirrorLabels: [String])]>([])

    init(_ upstream: TestPublisher<Output, Failure> = TestPublisher()) {
        self.upstream = upstream
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let labels = Mirror(reflecting: subscriber).children.compactMap(\.label)
        let description = String(describing: subscriber)
        lock.withLock { $0.append((description, labels)) }
        upstream.receive(subscriber: subscriber)
    }

    /// How each subscriber described itself, in subscription order.
    var descriptions: [String] { lock.withLock { $0.map(\.description) } }

    /// The labels of the last subscriber's mirror.
    var mirrorLabels: [String] { lock.withLock { $0.last?.mirrorLabels ?? [] } }
}

/// A text stream that records every `write`, so tests can check both the lines and how they
/// were written (`print(_:to:)` writes `""`, the line, then `"\n"`).
final class RecordingStream: TextOutputStream, @unchecked Sendable {
    private let lock = Mutex<[String]>([])

    func write(_ string: String) {
        lock.withLock { $0.append(string) }
    }

    var writes: [String] { lock.withLock { $0 } }

    /// The text written, split into lines (without the final empty one).
    var lines: [String] {
        let text = writes.joined()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Collects strings from closures that may run on any thread.
final class EventLog: @unchecked Sendable {
    private let lock = Mutex<[String]>([])

    func append(_ entry: String) {
        lock.withLock { $0.append(entry) }
    }

    var entries: [String] { lock.withLock { $0 } }
}

/// A class instance whose lifetime tests can watch.
final class Canary: @unchecked Sendable {}

extension TestPublisher.DemandEvent {
    /// The number of values a `.requested` event asked for (`nil` for unlimited or a cancel).
    var requestedCount: Int? {
        if case .requested(let demand) = self { return demand.max }
        return nil
    }
}
