import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// The main thread: a @MainActor model fed from a background thread (four ways that work, one
// that stops the process), MainActor.assumeIsolated after a hop, and UIScheduler.

func mainThreadScenarios() -> [Scenario] {
    [
        Scenario(id: "main-actor-fixes", topic: .mainThread,
                 title: "Four ways for a @MainActor model to take background values",
                 code: #"""
                 values.receive(on: DispatchQueue.main).map { "\($0) items" }.sink { ... }
                 values.map { @Sendable count in "\(count) items" }.receive(on: DispatchQueue.main).sink { ... }
                 values.itemLabels().receive(on: DispatchQueue.main).sink { ... }    // nonisolated extension
                 values.map(itemLabel).receive(on: DispatchQueue.main).sink { ... }  // nonisolated func
                 values.receive(on: DispatchQueue.main).sink { @MainActor [weak self] count in ... }
                 DispatchQueue.global().async { values.send(3) }
                 """#,
                 why: "Each keeps main-actor code off the background thread: the transform runs after the hop, "
                     + "or carries no isolation (@Sendable, nonisolated), or only the closure below the hop is isolated.") {
            let model = MainActor.assumeIsolated { LabelModel() }
            nonisolated(unsafe) let values = PassthroughSubject<Int, Never>()  // sent from other threads; not Sendable, as in Combine
            MainActor.assumeIsolated {
                model.bindTransformingAfterHop(values)
                model.bindSendable(values)
                model.bindNonisolated(values)
                model.bindExplicit(values)
            }
            DispatchQueue.global().async { values.send(3) }
            runMainLoop(for: 2, until: { MainActor.assumeIsolated { model.labels.count == 5 } })
            let labels = MainActor.assumeIsolated { Set(model.labels) }
            return Outcome("\(labels.count) labels set: \(labels.sorted().joined(separator: ", "))",
                           holds: labels == ["after hop: 3 items", "sendable: 3 items", "extension: 3 items",
                                             "function: 3 items", "explicit: 3 items"])
        },
        Scenario(id: "isolation-crash", topic: .mainThread,
                 title: "A main-actor map above receive(on:) stops the process",
                 code: #"""
                 // in a @MainActor class
                 values.map { "\($0) items" }.receive(on: DispatchQueue.main).sink { ... }
                 DispatchQueue.global().async { values.send(1) }
                 """#,
                 why: "A closure written in a @MainActor class is main-actor isolated and Swift 6 checks that "
                     + "when it runs, but the map runs on the sender's background thread, before the hop.") {
            let (status, output) = runChild("isolation-crash")
            let stoppedInCheck = output.contains("_swift_task_checkIsolated") || output.contains("checkIsolated")
            return Outcome("the child process exited with status \(status); "
                           + (stoppedInCheck ? "its backtrace shows _swift_task_checkIsolatedSwift" : "no isolation check in its output"),
                           holds: status != 0 && stoppedInCheck)
        },
        Scenario(id: "assume-isolated", topic: .mainThread,
                 title: "MainActor.assumeIsolated works after a hop to the main queue",
                 code: #"""
                 values.receive(on: DispatchQueue.main)
                     .sink { value in MainActor.assumeIsolated { apply(value) } }    // apply: @MainActor
                 DispatchQueue.global().async { values.send(5) }
                 """#,
                 why: "The main queue runs its blocks on the main actor's executor, so the run-time check in "
                     + "assumeIsolated passes and the main-actor closure can be called.") {
            nonisolated(unsafe) let background = PassthroughSubject<Int, Never>()  // sent from other threads; not Sendable, as in Combine
            let assumedValues = Mutex<[Int]>([])
            let handle = bindOnMain(background) { value in assumedValues.withLock { $0.append(value) } }
            DispatchQueue.global().async { background.send(5) }
            runMainLoop(for: 2, until: { !assumedValues.withLock { $0 }.isEmpty })
            withExtendedLifetime(handle) {}
            let received = assumedValues.withLock { $0 }
            return Outcome("the main-actor closure received \(received)", holds: received == [5])
        },
        Scenario(id: "ui-scheduler", topic: .mainThread,
                 title: "UIScheduler.shared runs inline on main; .asynchronous defers",
                 code: #"""
                 Just("x").receive(on: UIScheduler.shared).sink { ... }
                 Just("x").receive(on: UIScheduler.asynchronous).sink { ... }
                 """#,
                 why: "UIScheduler.shared runs the work at once when already on the main thread with nothing of "
                     + "its own queued (RxSwift's MainScheduler.instance); .asynchronous always goes through the "
                     + "main queue.") {
            var immediate: [String] = []
            let a = Just("x").receive(on: UIScheduler.shared).sink { immediate.append($0) }
            let right = immediate
            var deferred: [String] = []
            let b = Just("x").receive(on: UIScheduler.asynchronous).sink { deferred.append($0) }
            let before = deferred
            runMainLoop(for: 1, until: { deferred == ["x"] })
            withExtendedLifetime((a, b)) {}
            return Outcome("shared: \(right) before subscribe returned; asynchronous: \(before), then \(deferred) "
                           + "after a turn of the main run loop",
                           holds: right == ["x"] && before.isEmpty && deferred == ["x"])
        },
    ]
}

/// The child process of the isolation-crash scenario: a CrashingModel fed from a background
/// thread.
func runIsolationCrash() -> Never {
    let model = MainActor.assumeIsolated { CrashingModel() }
    nonisolated(unsafe) let values = PassthroughSubject<Int, Never>()  // sent from other threads; not Sendable, as in Combine
    MainActor.assumeIsolated { model.bind(values) }
    DispatchQueue.global().async { values.send(1) }
    runMainLoop(for: 30)    // the process stops at the crash; a bound for a loaded machine
    print("no crash")
    exit(0)
}

// MARK: The models, as an app would write them

// Crashes when `values` emits on a background thread
@MainActor
final class CrashingModel {
    var label = ""
    private var cancellables = Set<AnyCancellable>()

    func bind(_ values: some Publisher<Int, Never>) {
        values
            .map { "\($0) items" }                       // main-actor closure, run on the sender's thread
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.label = $0 }
            .store(in: &cancellables)
    }
}

nonisolated func itemLabel(_ count: Int) -> String { "\(count) items" }

extension Publisher where Output == Int {
    /// Built in a nonisolated extension, so its closure carries no actor isolation.
    func itemLabels() -> Publishers.Map<Self, String> { map { "\($0) items" } }
}

@MainActor
final class LabelModel {
    var labels: [String] = []
    private var cancellables = Set<AnyCancellable>()

    func bindTransformingAfterHop(_ values: some Publisher<Int, Never>) {
        values
            .receive(on: DispatchQueue.main)
            .map { "\($0) items" }
            .sink { [weak self] in self?.labels.append("after hop: \($0)") }
            .store(in: &cancellables)
    }

    func bindSendable(_ values: some Publisher<Int, Never>) {
        values
            .map { @Sendable count in "\(count) items" }
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.labels.append("sendable: \($0)") }
            .store(in: &cancellables)
    }

    func bindNonisolated(_ values: some Publisher<Int, Never>) {
        values
            .itemLabels()
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.labels.append("extension: \($0)") }
            .store(in: &cancellables)
        values
            .map(itemLabel)
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.labels.append("function: \($0)") }
            .store(in: &cancellables)
    }

    func bindExplicit(_ values: some Publisher<Int, Never>) {
        values
            .receive(on: DispatchQueue.main)
            .sink { @MainActor [weak self] count in self?.labels.append("explicit: \(count) items") }
            .store(in: &cancellables)
    }
}

nonisolated func bindOnMain(_ values: some Publisher<Int, Never>,
                            apply: @escaping @MainActor (Int) -> Void) -> AnyCancellable {
    values
        .receive(on: DispatchQueue.main)
        .sink { value in MainActor.assumeIsolated { apply(value) } }
}
