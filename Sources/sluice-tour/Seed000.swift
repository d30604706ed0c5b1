import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// Seed 000, "Schedulers: receive(on:) and subscribe(on:)".

func seed000Scenarios() -> [Scenario] {
    let workQueue = DispatchQueue(label: "work")
    return [
        Scenario(id: "producing-thread", seed: "000", section: "Combine does not pick threads",
                 claim: "Without a scheduler operator, every stage runs on the thread that produced the value") {
            let log = SignalLog()
            let subject = PassthroughSubject<Int, Never>()
            let handle = subject
                .map { value -> Int in log.append("map on \(currentThread())"); return value }
                .filter { _ in log.append("filter on \(currentThread())"); return true }
                .sink { _ in log.append("sink on \(currentThread())") }
            let sent = DispatchSemaphore(value: 0)
            DispatchQueue.global().async { subject.send(1); sent.signal() }
            sent.wait()
            subject.send(2)
            handle.cancel()
            let expected = ["map on background", "filter on background", "sink on background",
                            "map on main", "filter on main", "sink on main"]
            return Outcome("sent from a background thread: map, filter, sink all on background; from main: all on main",
                           holds: log.all == expected)
        },
        Scenario(id: "subscribe-on-cold", seed: "000", section: "subscribe(on:) moves the work of cold publishers",
                 claim: "subscribe(on:) moves a sequence's subscription, requests and values, and a Deferred's closure") {
            let sequenceLog = SignalLog()
            let sequenceHandle = [1, 2].publisher
                .handleEvents(receiveSubscription: { @Sendable _ in sequenceLog.append("subscription on \(currentThread())") },
                              receiveRequest: { @Sendable _ in sequenceLog.append("request on \(currentThread())") })
                .subscribe(on: workQueue)
                .sink { @Sendable value in sequenceLog.append("value \(value) on \(currentThread())") }
            runMainLoop(for: 2, until: { sequenceLog.all.count == 4 })
            let expensiveLog = SignalLog()
            let expensiveHandle = Deferred { @Sendable () -> Just<Int> in
                expensiveLog.append("parsing on \(currentThread())")
                return Just(42)
            }
            .subscribe(on: workQueue)
            .sink { @Sendable _ in expensiveLog.append("delivered on \(currentThread())") }
            runMainLoop(for: 2, until: { expensiveLog.all.count == 2 })
            withExtendedLifetime((sequenceHandle, expensiveHandle)) {}
            let holds = sequenceLog.all == ["subscription on background", "request on background",
                                            "value 1 on background", "value 2 on background"]
                && expensiveLog.all == ["parsing on background", "delivered on background"]
            return Outcome("sequence: subscription, request, values on the work queue; Deferred parsed and delivered there",
                           holds: holds)
        },
        Scenario(id: "subscribe-on-subject", seed: "000", section: "subscribe(on:) does nothing useful for a hot publisher",
                 claim: "subscribe(on:) does not move a subject's values, and loses the value sent right after subscribing") {
            var lost = 0
            var secondOnMain = 0
            var runs = 0
            // 20 runs, and more (up to 200) until the race has gone Combine's way once: on Linux
            // the queue's thread often wins, and in a set of 20 it can win every time.
            while runs < 20 || (lost == 0 && runs < 200) {
                runs += 1
                let log = SignalLog()
                let subject = PassthroughSubject<Int, Never>()
                let queue = DispatchQueue(label: "work")
                let handle = subject.subscribe(on: queue).sink { @Sendable value in
                    log.append("value \(value) on \(currentThread())")
                }
                subject.send(1)
                queue.sync {}                    // the subscription, which schedules the request
                queue.sync {}                    // the request
                subject.send(2)
                if !log.all.contains(where: { $0.hasPrefix("value 1") }) { lost += 1 }
                if log.all.last == "value 2 on main" { secondOnMain += 1 }
                handle.cancel()
            }
            return Outcome("value 1 lost in \(lost) of \(runs) runs (the subscription is made later, on the queue); value 2 arrived on the sender's thread (main) in \(secondOnMain) of \(runs)",
                           holds: lost > 0 && secondOnMain == runs,
                           note: lost < runs ? "a race, as in Combine: when the queue's thread wins, the subscription exists in time" : nil)
        },
        Scenario(id: "receive-on-async", seed: "000", section: "receive(on:) moves everything downstream",
                 claim: "receive(on: DispatchQueue.main) is asynchronous even from the main thread; ImmediateScheduler is synchronous") {
            let delivery = PassthroughSubject<Int, Never>()
            var deliveredValues: [String] = []
            let sent = WallClockTimeline(resolution: .milliseconds(10)), viaMain = WallClockTimeline(resolution: .milliseconds(10))
            let viaImmediate = WallClockTimeline(resolution: .milliseconds(10))
            let queued = delivery.receive(on: DispatchQueue.main).sink {
                deliveredValues.append("main queue \($0)")
                viaMain.value("\($0)")
            }
            let immediate = delivery.receive(on: ImmediateScheduler.shared).sink {
                deliveredValues.append("immediate \($0)")
                viaImmediate.value("\($0)")
            }
            sent.value("1")
            delivery.send(1)
            let right = deliveredValues
            // The main thread stays busy for 20 ms before the loop turns, so the diagram shows
            // the main-queue delivery waiting for it.
            Thread.sleep(forTimeInterval: 0.02)
            runMainLoop(for: 1, until: { deliveredValues.count == 2 })
            withExtendedLifetime((queued, immediate)) {}
            var chart = MarbleChart(tick: .milliseconds(10), title: "send(1) on the main thread, then one turn of the main loop")
            chart.add("send", sent.timeline, until: .milliseconds(40))
            chart.add("ImmediateScheduler", viaImmediate.timeline, until: .milliseconds(40))
            chart.add("DispatchQueue.main", viaMain.timeline, until: .milliseconds(40))
            return Outcome("right after send: \(right); after one turn of the main loop: \(deliveredValues)",
                           holds: right == ["immediate 1"] && deliveredValues == ["immediate 1", "main queue 1"],
                           svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "concurrent-order", seed: "000", section: "Serial queues keep order; concurrent queues do not",
                 claim: "receive(on:) a concurrent queue: 1,000 values × 20 runs arrive complete, in order, one at a time") {
            var inOrder = 0
            var complete = 0
            var overlapping = 0
            for _ in 0..<20 {
                let received = Mutex<[Int]>([])
                let active = Atomic<Int>(0)
                let sawOverlap = Atomic<Bool>(false)
                let source = PassthroughSubject<Int, Never>()
                let done = DispatchSemaphore(value: 0)
                let handle = source.receive(on: DispatchQueue.global()).sink(receiveCompletion: { _ in done.signal() }) { @Sendable value in
                    if active.add(1, ordering: .sequentiallyConsistent).newValue > 1 { sawOverlap.store(true, ordering: .relaxed) }
                    received.withLock { $0.append(value) }
                    active.subtract(1, ordering: .sequentiallyConsistent)
                }
                for value in 0..<1_000 { source.send(value) }
                source.send(completion: .finished)
                _ = done.wait(timeout: .now() + 10)
                handle.cancel()
                let order = received.withLock { $0 }
                if order.count == 1_000 { complete += 1 }
                if order == Array(0..<1_000) { inOrder += 1 }
                if sawOverlap.load(ordering: .relaxed) { overlapping += 1 }
            }
            return Outcome("\(complete)/20 complete, \(inOrder)/20 in order, \(overlapping)/20 with overlapping deliveries",
                           holds: complete == 20 && inOrder == 20 && overlapping == 0,
                           note: "Combine reordered 20 of 20 runs in the seed's measurement; Sluice keeps order on a concurrent scheduler (a deliberate difference, see the README)")
        },
        Scenario(id: "run-loop-tracking", seed: "000", section: "Three main schedulers, and scrolling",
                 claim: "RunLoop.main holds delivery while the run loop is in a tracking-style mode; DispatchQueue.main and OperationQueue.main deliver") {
            let (trackingMode, keepAlive) = makeTrackingMode("SluiceTourTrackingMode")
            defer { keepAlive.invalidate() }
            let updates = PassthroughSubject<Int, Never>()
            var viaRunLoop = 0, viaDispatchQueue = 0, viaOperationQueue = 0
            let sent = WallClockTimeline(resolution: .milliseconds(20)), runLoopLine = WallClockTimeline(resolution: .milliseconds(20))
            let dispatchLine = WallClockTimeline(resolution: .milliseconds(20))
            let operationLine = WallClockTimeline(resolution: .milliseconds(20))
            let a = updates.receive(on: RunLoop.main).sink { viaRunLoop += 1; runLoopLine.value("\($0)") }
            let b = updates.receive(on: DispatchQueue.main).sink { viaDispatchQueue += 1; dispatchLine.value("\($0)") }
            let c = updates.receive(on: OperationQueue.main).sink { viaOperationQueue += 1; operationLine.value("\($0)") }
            sent.value("1")
            updates.send(1)
            runMainLoop(for: 0.2, mode: trackingMode)
            runMainLoop(for: 5, mode: trackingMode, until: { viaDispatchQueue == 1 && viaOperationQueue == 1 })
            let whileTracking = (viaRunLoop, viaDispatchQueue, viaOperationQueue)
            runMainLoop(for: 1, until: { viaRunLoop == 1 })
            withExtendedLifetime((a, b, c)) {}
            var chart = MarbleChart(tick: .milliseconds(20), title: "send(1), then 200 ms in a tracking mode, then the default mode")
            chart.add("send", sent.timeline, until: .milliseconds(260))
            chart.add("DispatchQueue.main", dispatchLine.timeline, until: .milliseconds(260))
            chart.add("OperationQueue.main", operationLine.timeline, until: .milliseconds(260))
            chart.add("RunLoop.main", runLoopLine.timeline, until: .milliseconds(260))
            return Outcome("while tracking: RunLoop \(whileTracking.0), DispatchQueue \(whileTracking.1), OperationQueue \(whileTracking.2); after the drag ends: RunLoop \(viaRunLoop)",
                           holds: whileTracking == (0, 1, 1) && viaRunLoop == 1, svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "main-actor-fixes", seed: "000", section: "Swift 6 and the main actor",
                 claim: "The four fixes (transform after the hop, @Sendable, nonisolated code, explicit @MainActor) all deliver a background value") {
            let model = MainActor.assumeIsolated { LabelModel() }
            let values = PassthroughSubject<Int, Never>()
            MainActor.assumeIsolated {
                model.bindTransformingAfterHop(values)
                model.bindSendable(values)
                model.bindNonisolated(values)
                model.bindExplicit(values)
            }
            DispatchQueue.global().async { values.send(3) }
            runMainLoop(for: 2, until: { MainActor.assumeIsolated { model.labels.count == 5 } })
            let labels = MainActor.assumeIsolated { Set(model.labels) }
            return Outcome("\(labels.count) labels: \(labels.sorted().joined(separator: ", "))",
                           holds: labels == ["after hop: 3 items", "sendable: 3 items", "extension: 3 items",
                                             "function: 3 items", "explicit: 3 items"])
        },
        Scenario(id: "isolation-crash", seed: "000", section: "Swift 6 and the main actor",
                 claim: "A main-actor closure before receive(on:), run on a background thread, stops the process in the isolation check") {
            let (status, output) = runChild("isolation-crash")
            let stoppedInCheck = output.contains("_swift_task_checkIsolated") || output.contains("checkIsolated")
            return Outcome("child process exited with status \(status); \(stoppedInCheck ? "backtrace shows _swift_task_checkIsolatedSwift" : "no isolation check in its output")",
                           holds: status != 0 && stoppedInCheck)
        },
        Scenario(id: "assume-isolated", seed: "000", section: "MainActor.assumeIsolated",
                 claim: "MainActor.assumeIsolated after a hop to DispatchQueue.main calls main-actor code") {
            let background = PassthroughSubject<Int, Never>()
            let assumedValues = Mutex<[Int]>([])
            let handle = bindOnMain(background) { value in assumedValues.withLock { $0.append(value) } }
            DispatchQueue.global().async { background.send(5) }
            runMainLoop(for: 2, until: { !assumedValues.withLock { $0 }.isEmpty })
            withExtendedLifetime(handle) {}
            let received = assumedValues.withLock { $0 }
            return Outcome("main-actor closure received \(received)", holds: received == [5])
        },
        Scenario(id: "search-model", seed: "000", section: "Injecting the scheduler",
                 claim: "SearchModel on AnyScheduler(TestScheduler): nothing at 299 ms, the result at exactly 300 ms; the same code on DispatchQueue.main delivers") {
            let testClock = VirtualTimeScheduler()
            let testModel = MainActor.assumeIsolated {
                SearchModel(search: { query in Just(["\(query) result"]).eraseToAnyPublisher() }, scheduler: AnyScheduler(testClock))
            }
            // The same pipeline, recorded, for the diagram.
            let queries = testModel.query.recordTimeline(on: testClock)
            let results = testModel.query
                .debounce(for: .milliseconds(300), scheduler: AnyScheduler(testClock))
                .removeDuplicates()
                .map { query in Just(["\(query) result"]).eraseToAnyPublisher() }
                .switchToLatest()
                .receive(on: AnyScheduler(testClock))
                .recordTimeline(on: testClock)
            testModel.query.send("sw")
            testModel.query.send("swift")
            testClock.advance(by: .milliseconds(299))
            let at299 = MainActor.assumeIsolated { testModel.results }
            testClock.advance(by: .milliseconds(1))
            let at300 = MainActor.assumeIsolated { testModel.results }
            testClock.advance(by: .milliseconds(200))
            let liveModel = MainActor.assumeIsolated {
                SearchModel(search: { query in Just(["\(query) result"]).eraseToAnyPublisher() })
            }
            liveModel.query.send("combine")
            runMainLoop(for: 3, until: { MainActor.assumeIsolated { liveModel.results == ["combine result"] } })
            let live = MainActor.assumeIsolated { liveModel.results }
            var chart = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300)) → switchToLatest → receive(on:)")
            chart.add("query", queries.timeline, until: .milliseconds(500))
            chart.add("results", results.timeline, until: .milliseconds(500),
                      label: { $0.joined(separator: ",") })
            return Outcome("at 299 ms: \(at299); at 300 ms: \(at300); live on DispatchQueue.main: \(live)",
                           holds: at299.isEmpty && at300 == ["swift result"] && live == ["combine result"],
                           svg: chart.svg, marbles: chart.text)
        },
    ]
}

/// The child half of the isolation-crash scenario: seed 000's CrashingModel, made to crash.
func runIsolationCrash() -> Never {
    let model = MainActor.assumeIsolated { CrashingModel() }
    let values = PassthroughSubject<Int, Never>()
    MainActor.assumeIsolated { model.bind(values) }
    DispatchQueue.global().async { values.send(1) }
    runMainLoop(for: 30)    // the process stops at the crash; a bound for a loaded machine
    print("no crash")
    exit(0)
}

// MARK: Seed 000's types, as written in the seed

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

@MainActor
final class SearchModel {
    private(set) var results: [String] = []
    let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(search: @escaping @Sendable (String) -> AnyPublisher<[String], Never>,
         scheduler: AnySchedulerOf<DispatchQueue> = AnyScheduler(DispatchQueue.main)) {
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
