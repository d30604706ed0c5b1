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

    /// Subscribes now, with unlimited demand, and returns a recorder of everything the
    /// publisher sends, for waits that take one value or a few at a time (``BlockingRecorder/next(_:)``),
    /// look at what has arrived (``BlockingRecorder/availableElements(after:)``), or show that
    /// nothing arrives (``BlockingRecorder/expectNoValue(within:fileID:filePath:line:column:)``).
    /// Each wait lasts up to this `timeout`, or the time it is given.
    public func record() -> BlockingRecorder<Output, Failure> {
        BlockingRecorder(upstream: upstream, timeout: timeout)
    }

    private func wait(for goal: String, stopAfterFirst: Bool) throws -> ([Output], Subscribers.Completion<Failure>?) {
        let subscriber = BlockingSubscriber<Output, Failure>(stopAfterFirst: stopAfterFirst)
        upstream.subscribe(subscriber)
        guard subscriber.wait(until: Date(timeIntervalSinceNow: timeout), for: { subscriber.isDone }) else {
            subscriber.cancel()
            throw BlockingTimeoutError(timeout: timeout, waitingFor: goal, valuesReceived: subscriber.snapshot.0.count)
        }
        if stopAfterFirst { subscriber.cancel() }
        return subscriber.snapshot
    }
}

/// A publisher's values as they arrive on real schedulers, waited for one or a few at a time,
/// as CombineExpectations' recorder: made by `publisher.blocking(timeout:).record()`, which
/// subscribes at once with unlimited demand.
///
/// Each wait runs the current run loop meanwhile, as the other blocking helpers do, so work
/// scheduled on `DispatchQueue.main`, `RunLoop.main` or a timer proceeds when it is called on the
/// main thread (an XCTest method on Linux; not a Swift Testing `@MainActor` test, which on
/// Linux runs on the main queue but not the main thread, so the main queue's work waits until
/// the test returns).
///
/// ```swift
/// let recorder = ticks.blocking(timeout: 5).record()
/// #expect(try recorder.next(2) == [1, 2])     // waits for exactly two values
/// #expect(try recorder.next() == 3)
/// recorder.expectNoValue(within: 0.3)         // a test failure if a value arrives meanwhile
/// ```
public final class BlockingRecorder<Output, Failure: Error>: Cancellable, @unchecked Sendable {
    /// How long `next` and `completion()` wait, in seconds.
    public let timeout: TimeInterval
    private let subscriber = BlockingSubscriber<Output, Failure>(stopAfterFirst: false)
    private let lock = Lock()
    /// How many values `next` has taken.
    private var taken = 0

    init<Upstream: Publisher>(upstream: Upstream, timeout: TimeInterval) where Upstream.Output == Output, Upstream.Failure == Failure {
        self.timeout = timeout
        upstream.subscribe(subscriber)
    }

    /// Every value received so far, without waiting.
    public var values: [Output] { subscriber.snapshot.0 }

    /// The completion, if it has arrived, without waiting.
    public var receivedCompletion: Subscribers.Completion<Failure>? { subscriber.snapshot.1 }

    /// Waits for the next value that `next` has not taken yet, and takes it.
    ///
    /// Throws a ``BlockingTimeoutError`` if none arrives within the timeout, the publisher's
    /// failure if it fails first, and a ``BlockingFinishedError`` if it finishes first.
    public func next() throws -> Output {
        try next(1)[0]
    }

    /// Waits until `count` values that `next` has not taken yet have arrived, and takes them
    /// (exactly `count`: later ones are left for the next call).
    ///
    /// Throws a ``BlockingTimeoutError`` if they have not arrived within the timeout, the
    /// publisher's failure if it fails first, and a ``BlockingFinishedError`` if it finishes first.
    public func next(_ count: Int) throws -> [Output] {
        precondition(count >= 0, "next(_:) needs a count of zero or more")
        let from = lock.locked { taken }
        let goal = count == 1 ? "the next value" : "the next \(count) values"
        let arrived = subscriber.wait(until: Date(timeIntervalSinceNow: timeout)) {
            let (values, completion) = subscriber.snapshot
            return values.count >= from + count || completion != nil
        }
        let (values, completion) = subscriber.snapshot
        let received = max(0, values.count - from)
        if received >= count {
            lock.locked { taken = from + count }
            return Array(values[from..<(from + count)])
        }
        if !arrived {
            throw BlockingTimeoutError(timeout: timeout, waitingFor: goal, valuesReceived: received)
        }
        lock.locked { taken = values.count }
        if case .failure(let error)? = completion { throw error }
        throw BlockingFinishedError(waitingFor: goal, valuesReceived: received)
    }

    /// Runs the current run loop for `seconds` (at least one turn, so work already queued runs
    /// even when the thread is late), then returns every value received so far, from the first:
    /// CombineExpectations' `availableElements`. It throws the publisher's failure if it failed.
    ///
    /// A fixed wait shows what has *not* arrived; to assert that something has, wait for it
    /// with ``next(_:)``, which returns as soon as it is there.
    public func availableElements(after seconds: TimeInterval) throws -> [Output] {
        _ = subscriber.wait(until: Date(timeIntervalSinceNow: seconds)) { false }
        let (values, completion) = subscriber.snapshot
        if case .failure(let error)? = completion { throw error }
        return values
    }

    /// Runs the current run loop for up to `seconds` and reports a test failure at the caller
    /// if a value that ``next(_:)`` has not taken is there (one that arrived before the call
    /// counts too): the inverted expectation, "no value within". A completion is no value. It
    /// returns as soon as a value arrives, and turns the loop at least once.
    ///
    /// - Returns: whether no value arrived.
    @discardableResult
    public func expectNoValue(within seconds: TimeInterval, fileID: StaticString = #fileID,
                              filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) -> Bool {
        let from = lock.locked { taken }
        let arrived = subscriber.wait(until: Date(timeIntervalSinceNow: seconds)) { subscriber.snapshot.0.count > from }
        guard arrived else { return true }
        let unexpected = subscriber.snapshot.0.dropFirst(from).map { String(describing: $0) }
        let seconds = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        TestFailure.report("expectNoValue: expected no value within \(seconds) s, got \(unexpected.joined(separator: ", "))",
                           fileID: fileID, filePath: filePath, line: line, column: column)
        return false
    }

    /// Waits for the completion (a failure is returned, not thrown); throws a
    /// ``BlockingTimeoutError`` if it has not arrived within the timeout.
    public func completion() throws -> Subscribers.Completion<Failure> {
        guard subscriber.wait(until: Date(timeIntervalSinceNow: timeout), for: { subscriber.snapshot.1 != nil }),
              let completion = subscriber.snapshot.1 else {
            throw BlockingTimeoutError(timeout: timeout, waitingFor: "completion", valuesReceived: values.count)
        }
        return completion
    }

    /// Cancels the subscription.
    public func cancel() {
        subscriber.cancel()
    }
}

/// Raised by ``BlockingRecorder/next(_:)`` when the publisher finishes before the values it
/// waits for have arrived.
public struct BlockingFinishedError: Error, CustomStringConvertible, Equatable {
    /// What it was waiting for: `"the next value"`, `"the next 3 values"`.
    public let waitingFor: String
    /// How many of them had arrived.
    public let valuesReceived: Int

    /// Creates the error (for comparisons in tests).
    public init(waitingFor: String, valuesReceived: Int) {
        self.waitingFor = waitingFor
        self.valuesReceived = valuesReceived
    }

    /// `the publisher finished while waiting for the next 3 values (1 value received)`.
    public var description: String {
        "the publisher finished while waiting for \(waitingFor) (\(valuesReceived) value\(valuesReceived == 1 ? "" : "s") received)"
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

    /// Runs the current run loop until `condition` holds or `deadline` passes, turning it at
    /// least once, and returns whether the condition holds. Without sources the run loop
    /// returns at once; then the thread sleeps until a signal arrives (or 5 ms pass).
    func wait(until deadline: Date, for condition: () -> Bool) -> Bool {
        var turned = false
        while !condition() {
            let now = Date()
            if now >= deadline, turned { return condition() }
            let slice = max(now, min(deadline, now.addingTimeInterval(0.005)))
            if !RunLoop.current.run(mode: .default, before: slice) {
                _ = signal.wait(timeout: .now() + max(0, slice.timeIntervalSinceNow))
            }
            turned = true
        }
        return true
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
