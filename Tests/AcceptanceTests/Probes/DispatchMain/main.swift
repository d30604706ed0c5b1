// A command-line program kept alive with `dispatchMain()`, the usual way on Linux. The main
// queue is then drained by a thread that is not the process's first, so `Thread.isMainThread` is
// false there, yet it is where main-actor code runs: every "is this main?" decision in Sluice and
// its companions must say yes on it. Prints "PROBE PASSED" and exits 0 when they all do; a
// decision that says no prints "PROBE FAILED: ..." and exits non-zero. Run by SeedProgramTests.
import Dispatch
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceRx
import SluiceSchedulers

final class Probe: @unchecked Sendable {
    let log = TraceLog()
    let subject = PassthroughSubject<Int, Never>()
    var cancellable: AnyCancellable?
    var failures: [String] = []

    func check(_ condition: Bool, _ what: String) {
        if !condition {
            failures.append(what)
            print("PROBE FAILED: \(what)")
        }
    }

    func start() {
        DebugHooks.queueAssertionHandler = { failure in
            print("PROBE FAILED: assertMainThread stopped a value on the main queue: \(failure)")
            exit(3)
        }
        cancellable = subject
            .receive(on: DispatchQueue.main)
            .trace("hop", to: log)
            .assertMainThread(enabled: true)
            .sink { [self] value in onMainQueue(value) }
        nonisolated(unsafe) let subject = subject  // not Sendable, as in Combine
        DispatchQueue.global().async { subject.send(1) }
    }

    func onMainQueue(_ value: Int) {
        print("value \(value) on the main queue; Thread.isMainThread == \(Thread.isMainThread)")
        // Swift's own check: stops the process if this is not the main actor.
        MainActor.assumeIsolated { print("MainActor.assumeIsolated: on the main actor") }
        check(log.entries.last?.isMainThread == true, "trace's entry says off the main thread: \(log.descriptions)")
        var ranInline = false
        UIScheduler.shared.schedule { ranInline = true }
        check(ranInline, "UIScheduler.shared hopped instead of running inline on the main queue")
        MainScheduler.ensureRunningOnMainThread(errorMessage: "PROBE FAILED: MainScheduler says off the main thread")
        print(failures.isEmpty ? "PROBE PASSED" : "PROBE FAILED: \(failures.count) decisions")
        exit(failures.isEmpty ? 0 : 1)
    }
}

/// `keep-alive dispatchMain|runLoop`: which of the main thread's services run while a program
/// is kept alive one way or the other (the README's table). Each service appends its name; after
/// a second the names are printed in a fixed order and the program exits.
func reportWhatRunsWhileKeptAlive(by keeper: String) -> Never {
    final class Names: Sendable {
        let names = Mutex<Set<String>>([])
        func withLock(_ body: (inout Set<String>) -> Void) { names.withLock { body(&$0) } }
        func sorted() -> [String] { names.withLock { $0.sorted() } }
    }
    let ran = Names()
    DispatchQueue.main.async { ran.withLock { _ = $0.insert("DispatchQueue.main") } }
    OperationQueue.main.addOperation { ran.withLock { _ = $0.insert("OperationQueue.main") } }
    Task { @MainActor in ran.withLock { _ = $0.insert("Task @MainActor") } }
    nonisolated(unsafe) let cancellables = [  // not Sendable, as in Combine
        Just(1).receive(on: RunLoop.main).sink { _ in ran.withLock { _ = $0.insert("RunLoop.main") } },
        Timer.publish(every: 0.05, on: .main, in: .common).autoconnect().first()
            .sink { _ in ran.withLock { _ = $0.insert("Timer.publish") } },
    ]
    DispatchQueue.main.async {
        ran.withLock { _ = $0.insert("Thread.isMainThread \(Thread.isMainThread)") }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
        let names = ran.sorted()
        print("kept alive by \(keeper): \(names.joined(separator: ", "))")
        withExtendedLifetime(cancellables) {}
        exit(0)
    }
    if keeper == "runLoop" { RunLoop.main.run() }
    dispatchMain()
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "keep-alive" {
    reportWhatRunsWhileKeptAlive(by: CommandLine.arguments[2])
}

let probe = Probe()
probe.start()
DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
    print("PROBE FAILED: no value reached the main queue in 10 s")
    exit(2)
}
dispatchMain()
