import Foundation
#if canImport(CoreFoundation)
import CoreFoundation
#endif
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// A thread-safe list of what happened, in order.
final class SignalLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

nonisolated func currentThread() -> String { Thread.isMainThread ? "main" : "background" }

/// Runs the main run loop in `mode` for `seconds`, or until `condition` holds: SluiceTesting's
/// `RunLoop.run(mode:timeout:until:)`, which turns the loop at least once.
func runMainLoop(for seconds: TimeInterval, mode: RunLoop.Mode = .default, until condition: () -> Bool = { false }) {
    RunLoop.main.run(mode: mode, timeout: seconds, until: condition)
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

/// The quickest of three runs of each of two bodies, alternated, so that warming up or a busy
/// moment of the machine does not decide a comparison of the two.
func quickestSeconds(_ first: () -> Void, _ second: () -> Void) -> (first: Double, second: Double) {
    var quickest = (first: Double.infinity, second: Double.infinity)
    for _ in 0..<3 {
        quickest.first = min(quickest.first, elapsedSeconds(first))
        quickest.second = min(quickest.second, elapsedSeconds(second))
    }
    return quickest
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

/// Records values on the wall clock, as a `Timeline`, for scenarios that run on real queues and
/// the real run loop (the virtual-time ones use `recordTimeline(on:)`). Times are measured from
/// the recorder's creation and rounded to `resolution`, the tick of the chart they are drawn
/// on; append from any thread.
final class WallClockTimeline: Sendable {
    private let start = DispatchTime.now().uptimeNanoseconds
    private let resolution: UInt64
    private let events = Mutex<[Timeline<String, Never>.Event]>([])

    init(resolution: Duration) {
        let (seconds, attoseconds) = resolution.components
        self.resolution = max(1, UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }

    private var now: Duration {
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        let rounded = (elapsed + resolution / 2) / resolution * resolution
        return .nanoseconds(Int64(rounded))
    }

    func value(_ label: String) {
        let at = now
        events.withLock { $0.append(.value(at: at, label)) }
    }

    var timeline: Timeline<String, Never> { Timeline(events.withLock { $0 }) }
}
