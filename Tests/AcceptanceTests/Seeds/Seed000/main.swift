// Seed 000, "Schedulers: receive(on:) and subscribe(on:)", as written: every code block in
// order, in one main.swift. Changes from the seed's text, each marked where it is made:
//   - `import Sluice` / `import SluiceTesting` (for VirtualTimeScheduler) instead of Combine;
//   - Foundation on Linux spells the CFString bridge differently;
//   - the concurrent-queue assertion is inverted, because Sluice keeps order there;
//   - the subscribe(on:) loss, a race, runs as repeated trials until it shows;
//   - the crashing model runs only with `--crash map`, in the acceptance test's child process;
//   - `runMainLoop` scales its waits by SEED_TIME_SCALE for loaded machines, and `settle` keeps
//     the loop running (bounded) until a delivery the next assertion expects has come.
// `assert` below records a failed check instead of stopping, so the test that runs this program
// reports every failed seed assertion with its line.
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
#if canImport(CoreFoundation)
import CoreFoundation
#endif

nonisolated(unsafe) var seedFailures = 0

func assert(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = "",
            file: StaticString = #file, line: UInt = #line) {
    if !condition() {
        seedFailures += 1
        print("SEED ASSERTION FAILED line \(line): \(message())")
    }
}


final class SignalLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

nonisolated func currentThread() -> String { Thread.isMainThread ? "main" : "background" }

func runMainLoop(for seconds: TimeInterval, mode: RunLoop.Mode = .default) {
    // Sluice: waits are scaled by SEED_TIME_SCALE (the test sets 3) so that a loaded CI machine
    // still meets the seed's bounds; the seed's own value is 1.
    let scale = ProcessInfo.processInfo.environment["SEED_TIME_SCALE"].flatMap(Double.init) ?? 1
    let end = Date(timeIntervalSinceNow: seconds * scale)
    while Date() < end {
        _ = RunLoop.main.run(mode: mode, before: min(end, Date(timeIntervalSinceNow: 0.01)))
    }
}

// Sluice: a fixed wait is not enough on a loaded machine, where another thread may not have run
// yet; before an assertion that something arrived, the loop keeps turning until it has (or 10 s).
func settle(mode: RunLoop.Mode = .default, until delivered: () -> Bool) {
    RunLoop.main.run(mode: mode, timeout: 10, until: delivered)
}

let workQueue = DispatchQueue(label: "work")

let sequenceLog = SignalLog()
let sequenceHandle = [1, 2].publisher
    .handleEvents(receiveSubscription: { @Sendable _ in sequenceLog.append("subscription on \(currentThread())") },
                  receiveRequest: { @Sendable _ in sequenceLog.append("request on \(currentThread())") })
    .subscribe(on: workQueue)
    .sink { @Sendable value in sequenceLog.append("value \(value) on \(currentThread())") }
runMainLoop(for: 0.1)
settle { sequenceLog.all.count == 4 }            // Sluice: added, for loaded machines
assert(sequenceLog.all == [
    "subscription on background", "request on background",
    "value 1 on background", "value 2 on background",
])

let expensiveLog = SignalLog()
let expensiveHandle = Deferred { @Sendable () -> Just<Int> in
    expensiveLog.append("parsing on \(currentThread())")    // stands in for decoding a large file
    return Just(42)
}
.subscribe(on: workQueue)
.sink { @Sendable _ in expensiveLog.append("delivered on \(currentThread())") }
runMainLoop(for: 0.1)
settle { expensiveLog.all.count == 2 }           // Sluice: added, for loaded machines
assert(expensiveLog.all == ["parsing on background", "delivered on background"])

// Sluice: the seed's block, run as trials. The loss of value 1 is a race that Combine wins by
// timing too; on Linux the kernel often runs the freshly woken queue thread before the main
// thread returns from `dispatch_async`, and then the subscription exists in time. So the block
// runs up to 100 times: value 2 must arrive on the sender's thread in every trial, and value 1
// must be lost in at least one (the tour reports how often).
var hotTrials: [[String]] = []
repeat {
let hotLog = SignalLog()
let hotSubject = PassthroughSubject<Int, Never>()
let hotHandle = hotSubject
    .subscribe(on: workQueue)
    .sink { @Sendable value in hotLog.append("value \(value) on \(currentThread())") }
hotSubject.send(1)                               // the subscription has not been made yet
runMainLoop(for: 0.1)
workQueue.sync {}                                // Sluice: added, the subscription has been made
workQueue.sync {}                                // Sluice: added, and its request
hotSubject.send(2)
runMainLoop(for: 0.1)
hotTrials.append(hotLog.all)
withExtendedLifetime(hotHandle) {}
} while hotTrials.last != ["value 2 on main"] && hotTrials.count < 100
assert(hotTrials.last == ["value 2 on main"], "\(hotTrials)")    // 1 was lost, and 2 arrived on the sender's thread
assert(hotTrials.allSatisfy { $0.last == "value 2 on main" && $0.count <= 2 }, "\(hotTrials)")

let delivery = PassthroughSubject<Int, Never>()
var deliveredValues: [String] = []
let queuedHandle = delivery.receive(on: DispatchQueue.main).sink { deliveredValues.append("main queue \($0)") }
let immediateHandle = delivery.receive(on: ImmediateScheduler.shared).sink { deliveredValues.append("immediate \($0)") }
delivery.send(1)
assert(deliveredValues == ["immediate 1"])       // the main-queue delivery has not happened yet
runMainLoop(for: 0.05)
settle { deliveredValues.count == 2 }            // Sluice: added, for loaded machines
assert(deliveredValues == ["immediate 1", "main queue 1"])

nonisolated func deliveryOrder(on queue: DispatchQueue) -> [Int] {
    let received = Mutex<[Int]>([])
    let source = PassthroughSubject<Int, Never>()
    let handle = source.receive(on: queue).sink { @Sendable value in received.withLock { $0.append(value) } }
    for value in 0..<1_000 { source.send(value) }
    Thread.sleep(forTimeInterval: 0.1)
    // Sluice: added, for loaded machines: cancelling stops delivery, so wait (bounded) for the rest.
    let end = Date(timeIntervalSinceNow: 10)
    while received.withLock({ $0.count }) < 1_000 && Date() < end { Thread.sleep(forTimeInterval: 0.001) }
    handle.cancel()
    return received.withLock { $0 }
}

var reorderedRuns = 0
for _ in 0..<20 {
    let order = deliveryOrder(on: DispatchQueue.global())
    assert(order.count == 1_000)                 // nothing lost...
    if order != Array(0..<1_000) { reorderedRuns += 1 }
}
// Sluice: the seed measured Combine reordering every run; Sluice's receive(on:) keeps order on a
// concurrent queue (a deliberate improvement, in the README's table), so this line is inverted.
assert(reorderedRuns == 0)                       // ...and, in Sluice, in order
assert(deliveryOrder(on: DispatchQueue(label: "serial")) == Array(0..<1_000))
print("concurrent queue reordered \(reorderedRuns) of 20 runs")

let trackingMode = RunLoop.Mode("ExampleTrackingMode")
// Linux: Foundation has no `as CFString` bridging; CFRunLoopMode is a CFString made from C.
CFRunLoopAddCommonMode(CFRunLoopGetMain(),
                       CFStringCreateWithCString(nil, trackingMode.rawValue, CFStringBuiltInEncodings.UTF8.rawValue))
let keepModeAlive = Timer(timeInterval: 60, repeats: true) { _ in }
RunLoop.main.add(keepModeAlive, forMode: trackingMode)

let scrollUpdates = PassthroughSubject<Int, Never>()
var viaRunLoop = 0
var viaDispatchQueue = 0
var viaOperationQueue = 0
let runLoopHandle = scrollUpdates.receive(on: RunLoop.main).sink { _ in viaRunLoop += 1 }
let dispatchHandle = scrollUpdates.receive(on: DispatchQueue.main).sink { _ in viaDispatchQueue += 1 }
let operationHandle = scrollUpdates.receive(on: OperationQueue.main).sink { _ in viaOperationQueue += 1 }

scrollUpdates.send(1)
runMainLoop(for: 0.2, mode: trackingMode)       // the user is dragging
settle(mode: trackingMode) { viaDispatchQueue == 1 && viaOperationQueue == 1 }   // Sluice: added
assert(viaRunLoop == 0 && viaDispatchQueue == 1 && viaOperationQueue == 1)
runMainLoop(for: 0.05)                           // the drag ends
settle { viaRunLoop == 1 }                       // Sluice: added, for loaded machines
assert(viaRunLoop == 1)
keepModeAlive.invalidate()

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

// Sluice: the seed says this model crashes when a value arrives from a background thread; with
// `--crash map` (the acceptance test's child process) it does, in Swift's isolation check.
if let crashIndex = CommandLine.arguments.firstIndex(of: "--crash"), CommandLine.arguments.dropFirst(crashIndex + 1).first == "map" {
    nonisolated(unsafe) let crashValues = PassthroughSubject<Int, Never>()  // not Sendable, as in Combine
    let crashingModel = CrashingModel()
    crashingModel.bind(crashValues)
    DispatchQueue.global().async { crashValues.send(1) }
    // Sluice: the process stops when the value arrives; 30 s is a bound for a loaded machine.
    RunLoop.main.run(until: Date().addingTimeInterval(30))
    print("SEED CRASH BLOCK DID NOT STOP")
    exit(3)
}

nonisolated(unsafe) let backgroundValues = PassthroughSubject<Int, Never>()

nonisolated func itemLabel(_ count: Int) -> String { "\(count) items" }

extension Publisher where Output == Int {
    /// Built in a nonisolated extension, so its closure carries no actor isolation.
    func itemLabels() -> Publishers.Map<Self, String> { map { "\($0) items" } }
}

@MainActor
final class LabelModel {
    var labels: [String] = []
    private var cancellables = Set<AnyCancellable>()

    // 1. Move the transformation after the hop.
    func bindTransformingAfterHop(_ values: some Publisher<Int, Never>) {
        values
            .receive(on: DispatchQueue.main)
            .map { "\($0) items" }                       // main-actor closure, now on the main thread
            .sink { [weak self] in self?.labels.append("after hop: \($0)") }
            .store(in: &cancellables)
    }

    // 2. Mark the early closure @Sendable, which removes the inferred isolation.
    func bindSendable(_ values: some Publisher<Int, Never>) {
        values
            .map { @Sendable count in "\(count) items" }
            .receive(on: DispatchQueue.main)
            .sink { [weak self] in self?.labels.append("sendable: \($0)") }
            .store(in: &cancellables)
    }

    // 3. Use nonisolated functions or extensions for the early stages.
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

    // 4. Make the final closure's isolation explicit, so a reader sees what the check enforces.
    func bindExplicit(_ values: some Publisher<Int, Never>) {
        values
            .receive(on: DispatchQueue.main)
            .sink { @MainActor [weak self] count in self?.labels.append("explicit: \(count) items") }
            .store(in: &cancellables)
    }
}

let labelModel = LabelModel()
labelModel.bindTransformingAfterHop(backgroundValues)
labelModel.bindSendable(backgroundValues)
labelModel.bindNonisolated(backgroundValues)
labelModel.bindExplicit(backgroundValues)
DispatchQueue.global().async { backgroundValues.send(3) }
runMainLoop(for: 0.2)
settle { labelModel.labels.count == 5 }          // Sluice: added, for loaded machines
assert(Set(labelModel.labels) == [
    "after hop: 3 items", "sendable: 3 items", "extension: 3 items",
    "function: 3 items", "explicit: 3 items",
])

nonisolated func bindOnMain(_ values: some Publisher<Int, Never>,
                            apply: @escaping @MainActor (Int) -> Void) -> AnyCancellable {
    values
        .receive(on: DispatchQueue.main)
        .sink { value in MainActor.assumeIsolated { apply(value) } }
}

var assumedValues: [Int] = []
let assumedHandle = bindOnMain(backgroundValues) { assumedValues.append($0) }
DispatchQueue.global().async { backgroundValues.send(5) }
runMainLoop(for: 0.1)
settle { assumedValues == [5] }                  // Sluice: added, for loaded machines
assert(assumedValues == [5])

struct AnyScheduler<SchedulerTimeType: Strideable>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
    typealias SchedulerOptions = Never

    private let currentTime: () -> SchedulerTimeType
    private let tolerance: () -> SchedulerTimeType.Stride
    private let scheduleNow: (@escaping () -> Void) -> Void
    private let scheduleAfter: (SchedulerTimeType, SchedulerTimeType.Stride, @escaping () -> Void) -> Void
    private let scheduleRepeating: (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride,
                                    @escaping () -> Void) -> any Cancellable

    init<S: Scheduler>(_ base: S) where S.SchedulerTimeType == SchedulerTimeType {
        currentTime = { base.now }
        tolerance = { base.minimumTolerance }
        scheduleNow = { base.schedule(options: nil, $0) }
        scheduleAfter = { base.schedule(after: $0, tolerance: $1, options: nil, $2) }
        scheduleRepeating = { base.schedule(after: $0, interval: $1, tolerance: $2, options: nil, $3) }
    }

    var now: SchedulerTimeType { currentTime() }
    var minimumTolerance: SchedulerTimeType.Stride { tolerance() }

    func schedule(options: Never?, _ action: @escaping () -> Void) { scheduleNow(action) }

    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                  options: Never?, _ action: @escaping () -> Void) {
        scheduleAfter(date, tolerance, action)
    }

    func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                  tolerance: SchedulerTimeType.Stride, options: Never?,
                  _ action: @escaping () -> Void) -> any Cancellable {
        scheduleRepeating(date, interval, tolerance, action)
    }
}

typealias MainScheduler = AnyScheduler<DispatchQueue.SchedulerTimeType>


@MainActor
final class SearchModel {
    private(set) var results: [String] = []
    let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(search: @escaping @Sendable (String) -> AnyPublisher<[String], Never>,
         scheduler: MainScheduler = AnyScheduler(DispatchQueue.main)) {
        query
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates()
            .map(search)
            .switchToLatest()
            .receive(on: scheduler)
            .sink { [weak self] in self?.results = $0 }
            .store(in: &cancellables)
    }
}

let testClock = VirtualTimeScheduler()
let testModel = SearchModel(
    search: { query in Just(["\(query) result"]).eraseToAnyPublisher() },
    scheduler: AnyScheduler(testClock))

testModel.query.send("sw")
testModel.query.send("swift")
testClock.advance(by: .milliseconds(299))
assert(testModel.results.isEmpty)                // still debouncing
testClock.advance(by: .milliseconds(1))
assert(testModel.results == ["swift result"])    // debounced and delivered, at exactly 300 ms

let liveModel = SearchModel(search: { query in Just(["\(query) result"]).eraseToAnyPublisher() })
liveModel.query.send("combine")
runMainLoop(for: 0.4)
settle { liveModel.results == ["combine result"] }   // Sluice: added, for loaded machines
assert(liveModel.results == ["combine result"])

withExtendedLifetime((sequenceHandle, expensiveHandle, queuedHandle, immediateHandle,
                      runLoopHandle, dispatchHandle, operationHandle, assumedHandle)) {}

print(seedFailures == 0 ? "SEED PASSED" : "SEED FAILED \(seedFailures)")
exit(seedFailures == 0 ? 0 : 1)
