import Sluice
import SluiceExtras
import SluiceSchedulers
import Synchronization

/// A publisher that keeps the subscriber an operator hands it, so a test can read that inner
/// object's description and mirror, and feed it signals directly (a subscription it made
/// itself, the same subscription twice), which `TestPublisher` cannot.
final class InnerProbe<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private(set) var inner: Any?
    private var subscriber: AnySubscriber<Output, Failure>?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        inner = subscriber
        self.subscriber = AnySubscriber(subscriber)
    }

    var innerDescription: String? { inner.map { String(describing: $0) } }

    var innerMirrorLabels: [String] {
        inner.map { Mirror(reflecting: $0).children.map { $0.label ?? "" } } ?? []
    }

    func innerMirrorValue(_ label: String) -> String? {
        guard let inner else { return nil }
        return Mirror(reflecting: inner).children.first { $0.label == label }.map { String(describing: $0.value) }
    }

    var innerPlaygroundDescription: String? {
        (inner as? CustomPlaygroundDisplayConvertible).map { String(describing: $0.playgroundDescription) }
    }

    var innerIsSubscription: Bool { inner is Subscription }

    var innerCombineIdentifier: CombineIdentifier? {
        (inner as? CustomCombineIdentifierConvertible)?.combineIdentifier
    }

    func send(subscription: Subscription) { subscriber?.receive(subscription: subscription) }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand { subscriber?.receive(value) ?? .none }

    func send(completion: Subscribers.Completion<Failure>) { subscriber?.receive(completion: completion) }
}

/// A subscription that records what is asked of it.
final class ProbeSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    enum Event: Equatable { case requested(Subscribers.Demand), cancelled }

    private let lock = Mutex<[Event]>([])
    private let onCancel: () -> Void

    /// - Parameter onCancel: runs on every cancel, after it is recorded.
    init(onCancel: @escaping () -> Void = {}) {
        self.onCancel = onCancel
    }

    var history: [Event] { lock.withLock { $0 } }

    func request(_ demand: Subscribers.Demand) { lock.withLock { $0.append(.requested(demand)) } }
    func cancel() {
        lock.withLock { $0.append(.cancelled) }
        onCancel()
    }
    var description: String { "ProbeSubscription" }
}
