import Foundation

/// Runs the main run loop in `mode` until `condition` holds, or for `duration` when one is
/// given, or until `timeout` passes (a generous bound, not a measurement: the tests assert
/// results, never the time taken). Call it on the main thread.
func runMainLoop(for duration: TimeInterval? = nil, mode: RunLoop.Mode = .default, timeout: TimeInterval = 10,
                 until condition: () -> Bool = { false }) {
    let end = Date(timeIntervalSinceNow: duration ?? timeout)
    while Date() < end {
        if duration == nil && condition() { return }
        _ = RunLoop.main.run(mode: mode, before: min(end, Date(timeIntervalSinceNow: 0.01)))
    }
}
