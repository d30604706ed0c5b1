import Foundation
import Sluice

/// Raised by the blocking helpers when a publisher has not done what they wait for in time.
public struct BlockingTimeoutError: Error, CustomStringConvertible, Equatable {
    /// How long the helper waited, in seconds.
    public let timeout: TimeInterval
    /// What it was waiting for: `"the first value"`, `"completion"`.
    public let waitingFor: String
    /// How many values had arrived when it gave up.
    public let valuesReceived: Int

    /// Creates the error (for comparisons in tests).
    public init(timeout: TimeInterval, waitingFor: String, valuesReceived: Int) {
        self.timeout = timeout
        self.waitingFor = waitingFor
        self.valuesReceived = valuesReceived
    }

    /// `timed out after 0.5 s waiting for completion (2 values received, no completion)`.
    public var description: String {
        let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
        return "timed out after \(seconds) s waiting for \(waitingFor) (\(valuesReceived) value\(valuesReceived == 1 ? "" : "s") received, no completion)"
    }
}

extension Publisher {
    /// Blocking access to this publisher's values, for tests and command-line tools, as
    /// RxBlocking's `toBlocking()`: each method subscribes, then waits up to `timeout` seconds,
    /// running the current run loop meanwhile (so work scheduled on `DispatchQueue.main`,
    /// `RunLoop.main` or the main actor proceeds when called on the main thread), and throws a
    /// ``BlockingTimeoutError`` if the publisher has not got there in time.
    public func blocking(timeout: TimeInterval = 10) -> BlockingPublisher<Self> {
        BlockingPublisher(upstream: self, timeout: timeout)
    }
}

/// A publisher seen through blocking calls; see `blocking(timeout:)`.
public struct BlockingPublisher<Upstream: Publisher> {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    /// The publisher.
    public let upstream: Upstream
    /// How long each call waits, in seconds.
    public let timeout: TimeInterval

    /// Creates blocking access to `upstream`.
    public init(upstream: Upstream, timeout: TimeInterval) {
        self.upstream = upstream
        self.timeout = timeout
    }

    /// Every value, once the publisher finishes; throws its failure if it fails.
    public func values() throws -> [Output] {
        let (values, completion) = try wait(for: "completion", stopAfterFirst: false)
        if case .failure(let error)? = completion { throw error }
        return values
    }

    /// The first value (then cancels), or `nil` if the publisher finishes without one; throws
    /// its failure if it fails first.
    public func first() throws -> Output? {
        let (values, completion) = try wait(for: "the first value", stopAfterFirst: true)
        if let first = values.first { return first }
        if case .failure(let error)? = completion { throw error }
        return nil
    }

    /// The last value, once the publisher finishes, or `nil` if it sent none; throws its
    /// failure if it fails.
    public func last() throws -> Output? {
        try values().last
    }

    /// How the publisher completed (a failure is returned, not thrown), with the values before it.
    public func completion() throws -> (values: [Output], completion: Subscribers.Completion<Failure>) {
        let (values, completion) = try wait(for: "completion", stopAfterFirst: false)
        return (values, completion!)
    }

    private func wait(for goal: String, stopAfterFirst: Bool) throws -> ([Output], Subscribers.Completion<Failure>?) {
        let subscriber = BlockingSubscriber<Output, Failure>(stopAfterFirst: stopAfterFirst)
        upstream.subscribe(subscriber)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !subscriber.isDone {
            let now = Date()
            if now >= deadline {
                subscriber.cancel()
                throw BlockingTimeoutError(timeout: timeout, waitingFor: goal, valuesReceived: subscriber.snapshot.0.count)
            }
            let slice = min(deadline, now.addingTimeInterval(0.005))
            // Without sources the run loop returns at once; then sleep until a signal arrives.
            if !RunLoop.current.run(mode: .default, before: slice) {
                subscriber.waitForSignal(until: slice)
            }
        }
        if stopAfterFirst { subscriber.cancel() }
        return subscriber.snapshot
    }
}

private final class BlockingSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    private let lock = Lock()
    private var subscription: Subscription?
    private var values: [Input] = []
    private var completion: Subscribers.Completion<Failure>?
    private var cancelled = false
    private let stopAfterFirst: Bool
    private let signal = DispatchSemaphore(value: 0)

    init(stopAfterFirst: Bool) {
        self.stopAfterFirst = stopAfterFirst
    }

    var isDone: Bool {
        lock.locked { completion != nil || (stopAfterFirst && !values.isEmpty) }
    }

    var snapshot: ([Input], Subscribers.Completion<Failure>?) { lock.locked { (values, completion) } }

    func waitForSignal(until deadline: Date) {
        _ = signal.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow))
    }

    func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard self.subscription == nil, !cancelled else { return false }
            self.subscription = subscription
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        subscription.request(stopAfterFirst ? .max(1) : .unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.locked { if completion == nil { values.append(input) } }
        signal.signal()
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        lock.locked { if self.completion == nil { self.completion = completion } }
        signal.signal()
    }

    func cancel() {
        let subscription = lock.locked { () -> Subscription? in
            cancelled = true
            defer { self.subscription = nil }
            return self.subscription
        }
        subscription?.cancel()
    }
}
