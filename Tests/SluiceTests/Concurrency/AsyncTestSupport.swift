import Foundation
import Synchronization

/// A one-shot signal a test can await: fired from any thread (a completion handler, a sink),
/// awaited by the test. Waits are bounded by the suite's time limit, never by a sleep.
final class AsyncSignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    init() {}

    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isFired: Bool { state.withLock { $0.fired } }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state -> Bool in
                if state.fired { return true }
                state.waiters.append(continuation)
                return false
            }
            if fired { continuation.resume() }
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
