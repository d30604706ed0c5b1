import Testing
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// What the stress suite (StressTests.swift) is built from: the watchdog every test runs under,
// real threads started together, small thread-safe boxes, a subscriber wrapper that notices
// values after cancel, and the checks on what a subscriber received.
//
// The bodies run on threads of their own, outside Swift Testing's task, so they record no
// issues themselves: they return what they saw, and the test asserts on it after the watchdog.

// MARK: - The watchdog

/// What became of a body run under ``withWatchdog(_:timeout:sourceLocation:_:)``.
enum WatchdogVerdict<Value: Sendable>: Sendable {
    case finished(Value)
    case timedOut
}

/// Resumes the watchdog's continuation once, with whichever comes first: the body's result or
/// the timeout.
final class WatchdogLatch<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<WatchdogVerdict<Value>, Never>?>

    init(_ continuation: CheckedContinuation<WatchdogVerdict<Value>, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ verdict: WatchdogVerdict<Value>) {
        let waiting = continuation.withLock { slot -> CheckedContinuation<WatchdogVerdict<Value>, Never>? in
            let waiting = slot
            slot = nil
            return waiting
        }
        waiting?.resume(returning: verdict)
    }
}

/// Runs `body` on a thread of its own and returns its result, or records
/// `deadlock: <name> ...` and returns `nil` if it has not finished within `timeout` seconds,
/// so that a deadlock fails the test instead of hanging CI. The test's task is suspended, not
/// blocked, meanwhile (the cooperative pool has only as many threads as cores). A body that
/// never returns is left behind on its thread; nothing waits for it.
func withWatchdog<Value: Sendable>(
    _ name: String,
    timeout: TimeInterval = StressTests.watchdogTimeout,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Value
) async -> Value? {
    // The result crosses from the worker thread to the test's task through the continuation,
    // which ThreadSanitizer cannot follow when the worker resumes it before the task has
    // suspended (a quick body); a lock taken on both sides makes the hand-over visible to it.
    let handOver = StressBox(false)
    let verdict = await withCheckedContinuation { (continuation: CheckedContinuation<WatchdogVerdict<Value>, Never>) in
        let latch = WatchdogLatch(continuation)
        let worker = Thread {
            let value = body()
            handOver.withLock { $0 = true }
            latch.resume(.finished(value))
        }
        worker.name = "StressTests: \(name)"
        worker.start()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            latch.resume(.timedOut)
        }
    }
    _ = handOver.value
    switch verdict {
    case .finished(let value):
        return value
    case .timedOut:
        Issue.record("deadlock: \(name) did not finish within \(Int(timeout)) s", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - Threads and thread-safe state

/// A value behind a `Mutex`, shareable between threads.
final class StressBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    var value: Value { withLock { $0 } }
}

/// An atomic counter.
final class StressCounter: Sendable {
    private let count: Atomic<Int>

    init(_ initial: Int = 0) {
        count = Atomic(initial)
    }

    @discardableResult
    func increment() -> Int {
        count.add(1, ordering: .sequentiallyConsistent).newValue
    }

    @discardableResult
    func decrement() -> Int {
        count.subtract(1, ordering: .sequentiallyConsistent).newValue
    }

    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// Lets a fixed number of threads meet before each round of a loop, so that the work of one
/// round starts on every thread at about the same moment (cheaper than starting threads per
/// round). Spins, and sleeps briefly now and then so that a thread descheduled on a busy
/// machine gets the core back.
final class StressRendezvous: Sendable {
    private let arrivals = Atomic<Int>(0)
    private let parties: Int

    init(parties: Int) {
        self.parties = parties
    }

    /// Waits until every party has arrived at `round` (rounds are 0, 1, 2, ... in order).
    func arrive(round: Int) {
        _ = arrivals.add(1, ordering: .sequentiallyConsistent)
        let everyone = (round + 1) * parties
        var spins = 0
        while arrivals.load(ordering: .sequentiallyConsistent) < everyone {
            spins += 1
            if spins == 1_000 {
                spins = 0
                Thread.sleep(forTimeInterval: 0.000_01)
            }
        }
    }
}

/// The helpers of the stress suite.
enum Stress {
    /// Values are tagged with the thread that sent them: `thread * threadStride + index`.
    static let threadStride = 1_000_000

    /// The value the `index`th send of `thread` carries.
    static func tag(_ thread: Int, _ index: Int) -> Int {
        thread * threadStride + index
    }

    /// Runs `body(0)`, ..., `body(count - 1)` on `count` new threads, released together once
    /// all of them have started, and returns when every one has returned. Real threads: the
    /// kernel preempts them anywhere, which a task group on a two-core machine (two
    /// cooperative threads) or `concurrentPerform` (one worker per core) would not give.
    static func runOnThreads(_ count: Int, _ body: @escaping @Sendable (_ index: Int) -> Void) {
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchGroup()
        let done = DispatchGroup()
        start.enter()
        for index in 0..<count {
            done.enter()
            let thread = Thread {
                ready.signal()
                start.wait()
                body(index)
                done.leave()
            }
            thread.name = "StressTests.worker.\(index)"
            thread.start()
        }
        for _ in 0..<count {
            ready.wait()
        }
        start.leave()
        done.wait()
    }

    /// Polls `condition` until it holds or `timeout` seconds have passed; returns whether it
    /// held.
    @discardableResult
    static func waitUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while !condition() {
            if DispatchTime.now() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.000_2)
        }
        return true
    }

    // MARK: Checks

    /// What is wrong with `values`, tagged with ``tag(_:_:)`` by `threads` threads that sent
    /// `perThread` values each, or `nil` if nothing is:
    /// - every value was sent, and is delivered at most once;
    /// - `ordered`: each thread's values come in the order that thread sent them;
    /// - `gapless`: each thread's values are its first `n` (nothing skipped in between);
    /// - `mustInclude[t]`: thread `t`'s first `mustInclude[t]` values are all there (those
    ///   accepted before the completion).
    static func deliveryProblem(_ values: [Int], threads: Int, perThread: Int, ordered: Bool = true,
                                gapless: Bool = false, mustInclude: [Int]? = nil) -> String? {
        var seen = Set<Int>()
        var indices = Array(repeating: [Int](), count: threads)
        for value in values {
            guard seen.insert(value).inserted else { return "\(value) was delivered twice" }
            let (thread, index) = value.quotientAndRemainder(dividingBy: threadStride)
            guard value >= 0, thread < threads, index < perThread else { return "\(value) was never sent" }
            if ordered, let last = indices[thread].last, last > index {
                return "thread \(thread)'s value \(tag(thread, index)) came after its later value \(tag(thread, last))"
            }
            indices[thread].append(index)
        }
        for thread in 0..<threads {
            let delivered = ordered ? indices[thread] : indices[thread].sorted()
            if gapless, delivered != Array(0..<delivered.count) {
                let missing = (0..<delivered.count).first { !delivered.contains($0) } ?? 0
                return "thread \(thread): \(tag(thread, missing)) is missing although later values of that thread came"
            }
            if let mustInclude {
                let required = mustInclude[thread]
                let present = Set(delivered)
                if let missing = (0..<required).first(where: { !present.contains($0) }) {
                    return "thread \(thread): \(tag(thread, missing)) was accepted (\(required) of its values were) "
                        + "but never delivered (\(delivered.count) were)"
                }
            }
        }
        return nil
    }

    /// What is wrong with the shape of what `subscriber` received, or `nil`: no two signals
    /// overlapped on different threads, at most one subscription, at most one completion
    /// (exactly one if `mustComplete`), and nothing after it.
    static func terminationProblem<Input, Failure: Error>(_ subscriber: TestSubscriber<Input, Failure>,
                                                          mustComplete: Bool) -> String? {
        if subscriber.sawConcurrentSignals { return "two signals overlapped on different threads" }
        let events = subscriber.events
        let subscriptions = events.filter { event -> Bool in
            if case .subscription = event { return true }
            return false
        }
        if subscriptions.count > 1 { return "\(subscriptions.count) subscriptions" }
        let completions = events.indices.filter { index -> Bool in
            if case .completion = events[index] { return true }
            return false
        }
        if completions.count > 1 { return "\(completions.count) completions" }
        if mustComplete, completions.isEmpty { return "no completion (\(events.count) signals)" }
        if let completion = completions.first, completion != events.count - 1 {
            return "\(events.count - 1 - completion) signals after the completion"
        }
        return nil
    }

    /// What is wrong with the values of `combineLatest` of two upstreams, each sending
    /// `perThread` values tagged by thread 0 and thread 1 from its own thread, or `nil`. Under
    /// unlimited demand each upstream value after both have one gives exactly one combination,
    /// so consecutive values differ in exactly one component, by one step, and the last is the
    /// pair of last values.
    static func combineLatestProblem(_ values: [(Int, Int)], perThread: Int) -> String? {
        guard var previous = values.first else { return "nothing was delivered" }
        guard previous.0 / threadStride == 0, previous.1 / threadStride == 1 else {
            return "the first value \(previous) mixes up the upstreams"
        }
        for (position, value) in values.enumerated().dropFirst() {
            let steps = (value.0 - previous.0, value.1 - previous.1)
            guard steps == (1, 0) || steps == (0, 1) else {
                return "value \(position) is \(value) after \(previous): a combination was lost, repeated or reordered"
            }
            previous = value
        }
        let last = (tag(0, perThread - 1), tag(1, perThread - 1))
        guard previous == last else { return "the last value is \(previous), not \(last)" }
        return nil
    }

    /// Whether `part` is `whole` with some elements left out (same order).
    static func isSubsequence(_ part: [Int], of whole: [Int]) -> Bool {
        var position = whole.startIndex
        for element in part {
            while position < whole.endIndex, whole[position] != element {
                position += 1
            }
            guard position < whole.endIndex else { return false }
            position += 1
        }
        return true
    }
}

// MARK: - A subscriber that notices values after cancel

/// What a ``StressFence`` counted.
struct StressTally: Sendable {
    /// `.max(1)` requests made through the fence (each counted before it is made).
    var requested = 0
    var delivered = 0
    /// A value arrived when more values had been delivered than requested.
    var exceededDemand = false
    /// Whether `cancel()` has returned on the cancelling thread.
    var closed = false
    /// Values and completions that entered `receive` after `cancel()` had returned.
    var lateValues = 0
    var lateCompletions = 0
}

/// Stands between a publisher and a `TestSubscriber` (which still records everything and
/// notices overlapping signals): counts the demand granted through ``request()`` and the values
/// delivered, and, once ``cancel()`` has returned, every signal that still enters. The count is
/// taken on entry, under a lock, so a value counted late began its delivery to the subscriber
/// after `cancel()` returned; one value whose delivery the publisher had already begun (it had
/// taken the subscriber out of its state, and is about to call it) can still arrive then, which
/// the contract allows; a second cannot, since deliveries to one subscriber are serial.
final class StressFence<Input, Failure: Error>: Subscriber, Sendable {
    let subscriber: TestSubscriber<Input, Failure>
    private let tally = Mutex(StressTally())

    init(_ subscriber: TestSubscriber<Input, Failure>) {
        self.subscriber = subscriber
    }

    var counts: StressTally { tally.withLock { $0 } }

    /// Asks for one more value.
    func request() {
        tally.withLock { $0.requested += 1 }
        subscriber.request(.max(1))
    }

    /// Cancels, then closes the fence.
    func cancel() {
        subscriber.cancel()
        tally.withLock { $0.closed = true }
    }

    func receive(subscription: Subscription) {
        subscriber.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        tally.withLock { state in
            state.delivered += 1
            if state.delivered > state.requested {
                state.exceededDemand = true
            }
            if state.closed {
                state.lateValues += 1
            }
        }
        return subscriber.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        tally.withLock { state in
            if state.closed {
                state.lateCompletions += 1
            }
        }
        subscriber.receive(completion: completion)
    }
}
