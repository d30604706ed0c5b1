import Foundation
#if canImport(CoreFoundation)
import CoreFoundation
#endif
import Synchronization
import Sluice

/// Thread-safe list, the seeds' `SignalLog`.
final class SignalLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

nonisolated func currentThread() -> String { Thread.isMainThread ? "main" : "background" }

/// Runs the main run loop in `mode` for `seconds`, or until `condition` holds.
func runMainLoop(for seconds: TimeInterval, mode: RunLoop.Mode = .default, until condition: () -> Bool = { false }) {
    let end = Date(timeIntervalSinceNow: seconds)
    while Date() < end && !condition() {
        _ = RunLoop.main.run(mode: mode, before: min(end, Date(timeIntervalSinceNow: 0.005)))
    }
}

/// Adds a common run-loop mode to the main run loop, kept alive by a timer, as a scroll view's
/// tracking mode is kept alive by its event sources. Returns the timer to invalidate.
func makeTrackingMode(_ name: String) -> (RunLoop.Mode, Timer) {
    let mode = RunLoop.Mode(name)
    CFRunLoopAddCommonMode(CFRunLoopGetMain(), CFStringCreateWithCString(nil, name, CFStringBuiltInEncodings.UTF8.rawValue))
    let keepAlive = Timer(timeInterval: 60, repeats: true) { _ in }
    RunLoop.main.add(keepAlive, forMode: mode)
    return (mode, keepAlive)
}

func elapsedSeconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func formatNanoseconds(_ seconds: Double, per count: Int) -> String {
    let ns = seconds * 1e9 / Double(count)
    return ns >= 1000 ? String(format: "%.2f µs", ns / 1000) : String(format: "%.0f ns", ns)
}

/// Runs this executable again with `--child NAME` and reports how it ended.
func runChild(_ name: String) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--child", name]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do {
        try process.run()
    } catch {
        return (-1, "could not start: \(error)")
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
