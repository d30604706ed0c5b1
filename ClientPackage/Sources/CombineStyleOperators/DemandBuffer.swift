import Combine
import Foundation

/// Holds values until the subscriber asks for them: the buffer a custom subscription needs when
/// its source pushes regardless of demand.
final class DemandBuffer<S: Subscriber>: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var buffer: [S.Input] = []
    private var demand = Subscribers.Demand.none
    private var completion: Subscribers.Completion<S.Failure>?
    private var finished = false
    private let subscriber: S

    init(subscriber: S) {
        self.subscriber = subscriber
    }

    func buffer(value: S.Input) {
        lock.lock(); defer { lock.unlock() }
        guard !finished, completion == nil else { return }
        buffer.append(value)
        flush()
    }

    func complete(_ completion: Subscribers.Completion<S.Failure>) {
        lock.lock(); defer { lock.unlock() }
        guard !finished, self.completion == nil else { return }
        self.completion = completion
        flush()
    }

    func demand(_ more: Subscribers.Demand) {
        lock.lock(); defer { lock.unlock() }
        demand += more
        flush()
    }

    func cancel() {
        lock.lock(); defer { lock.unlock() }
        finished = true
        buffer.removeAll()
    }

    private func flush() {
        while demand > 0, !buffer.isEmpty, !finished {
            demand -= 1
            demand += subscriber.receive(buffer.removeFirst())
        }
        if buffer.isEmpty, let completion, !finished {
            finished = true
            subscriber.receive(completion: completion)
        }
    }
}
