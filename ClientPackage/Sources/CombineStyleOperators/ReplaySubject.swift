import Combine
import Foundation

/// A subject that replays its last `bufferSize` values to every new subscriber: the library's
/// own, as third-party Combine libraries ship one (Combine has none).
public final class ReplaySubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private let bufferSize: Int
    private var buffer: [Output] = []
    private var subscriptions: [ReplaySubscription] = []
    private var completion: Subscribers.Completion<Failure>?

    public init(bufferSize: Int) {
        self.bufferSize = bufferSize
    }

    public func send(_ value: Output) {
        lock.lock(); defer { lock.unlock() }
        guard completion == nil else { return }
        buffer.append(value)
        if buffer.count > bufferSize { buffer.removeFirst(buffer.count - bufferSize) }
        subscriptions.forEach { $0.buffer.buffer(value: value) }
    }

    public func send(completion: Subscribers.Completion<Failure>) {
        lock.lock(); defer { lock.unlock() }
        guard self.completion == nil else { return }
        self.completion = completion
        subscriptions.forEach { $0.buffer.complete(completion) }
    }

    public func send(subscription: Combine.Subscription) {
        subscription.request(.unlimited)
    }

    public func receive<S: Combine.Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.lock(); defer { lock.unlock() }
        let subscription = ReplaySubscription(AnySubscriber(subscriber))
        subscriptions.append(subscription)
        subscriber.receive(subscription: subscription)
        buffer.forEach { subscription.buffer.buffer(value: $0) }
        if let completion { subscription.buffer.complete(completion) }
    }

    private final class ReplaySubscription: Combine.Subscription {
        let buffer: DemandBuffer<AnySubscriber<Output, Failure>>

        init(_ subscriber: AnySubscriber<Output, Failure>) {
            buffer = DemandBuffer(subscriber: subscriber)
        }

        func request(_ demand: Subscribers.Demand) { buffer.demand(demand) }
        func cancel() { buffer.cancel() }
    }
}

extension Publisher {
    /// Shares one subscription to the upstream and replays its last `count` values to each new
    /// subscriber: this library's, through its own `ReplaySubject`.
    public func share(replay count: Int) -> Publishers.Autoconnect<Publishers.Multicast<Self, ReplaySubject<Output, Failure>>> {
        multicast { ReplaySubject(bufferSize: count) }.autoconnect()
    }
}
