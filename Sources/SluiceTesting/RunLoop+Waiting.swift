import Foundation

extension RunLoop {
    /// Runs the run loop in `mode` until `condition` holds or `timeout` passes, and returns
    /// whether it holds.
    ///
    /// For tests that wait, on the main thread, for work scheduled on `RunLoop.main`,
    /// `DispatchQueue.main`, `OperationQueue.main` or the main actor: the loop turns in slices of
    /// 10 ms, so the condition is checked soon after each piece of work. Unless the condition
    /// already holds, the loop turns at least once, so work already queued for it runs even when
    /// the thread gets to run only after `timeout`. The timeout is a generous bound for a loaded
    /// machine, not a measurement; assert what arrived, never how long it took.
    ///
    /// ```swift
    /// XCTAssertTrue(RunLoop.main.run(until: { model.results == ["swift result"] }))
    /// ```
    @discardableResult
    public func run(mode: RunLoop.Mode = .default, timeout: TimeInterval = 10, until condition: () -> Bool) -> Bool {
        let end = Date(timeIntervalSinceNow: timeout)
        repeat {
            if condition() { return true }
            turn(mode: mode, before: min(end, Date().addingTimeInterval(0.01)))
        } while Date() < end
        return condition()
    }

    /// Runs the run loop in `mode` for `duration` seconds: for tests that show something does
    /// *not* happen while the loop turns (a timer that was never connected, delivery held while
    /// the loop runs in a tracking-style mode).
    ///
    /// The loop turns at least once, so work already queued for it runs even when the thread
    /// gets to run only after `duration` has passed.
    public func run(mode: RunLoop.Mode = .default, for duration: TimeInterval) {
        _ = run(mode: mode, timeout: duration, until: { false })
    }

    /// One turn of the loop; a loop with no sources in `mode` returns at once, so then the
    /// thread naps briefly instead of spinning.
    private func turn(mode: RunLoop.Mode, before limit: Date) {
        if !run(mode: mode, before: limit) {
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}
