import Foundation
import Synchronization

/// A one-shot signal a test can await: fired from any thread (a completion handler, a sink),
/// awaited by the test. Waits are bounded by the suite's time limit, never by a sleep: when the
/// limit cancels the test, `wait()` throws `CancellationError` at once, so the test fails and
/// tears down (stopping its server, say) instead of hanging.
final class AsyncSignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: CheckedContinuation<Void, Error>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    init() {}

    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Error>] in
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    var isFired: Bool { state.withLock { $0.fired } }

    /// How many waits are suspended (for the tests of this helper).
    var suspendedWaits: Int { state.withLock { $0.waiters.count } }

    /// Returns once the signal has fired; throws `CancellationError` if the task is cancelled
    /// first.
    func wait() async throws {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let outcome = state.withLock { state -> Result<Void, Error>? in
                    if state.fired { return .success(()) }
                    // Cancelled before the continuation was in place: the handler found nothing.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}

/// Polls `condition` until it holds, up to a generous bound (for things that settle on another
/// thread with no event to wait on, such as a session dropping its completion handler).
/// Returns whether it held; tests assert that, never the time taken.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
