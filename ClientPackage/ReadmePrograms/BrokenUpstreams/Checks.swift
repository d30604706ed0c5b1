import Sluice
import SluiceExtras
import Synchronization

// What the comments of the README's example (main.swift) say, checked when CI runs the program.
@MainActor
func checkExample() {
    precondition(DebugHooks.signalChecks == [.concurrentCalls, .valuesBeyondDemand, .signalsAfterCompletion],
                 "brokenUpstreams: \(DebugHooks.signalChecks)")
    let violations = Mutex<[String]>([])
    DebugHooks.signalViolationHandler = { violation in violations.withLock { $0.append("\(violation)") } }
    prices.send(3.5)   // from one thread, within the sink's demand: nothing to report
    violations.withLock { precondition($0.isEmpty, "violations: \($0)") }
    cancellable.cancel()
}
