import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
import Synchronization

// Bugs reported against other reactive libraries for Swift (Combine re-implementations, RxSwift),
// each as the test that keeps it out of Sluice. A test that could hang runs under the stress
// suite's watchdog, so a deadlock fails the test rather than the run.

/// A publisher handed to several threads at once, which is what the test is about (Combine's
/// operator types are not `Sendable`).
private struct AcrossThreads<P: Publisher>: @unchecked Sendable {
    let publisher: P
}

@Suite("Regressions of other reactive libraries")
struct OtherLibrariesRegressionTests {
    // MARK: A subscriber added during a send

    final class Model: ObservableObject {
        @Published var query = "a"
    }

    @Test func aPublishedSubscriberAddedWhileAChangeIsDeliveredStartsFromTheNewValue() {
        let model = Model()
        var first: [String] = []
        var second: [String] = []
        var storedWhileDelivering: [String] = []
        var inner: AnyCancellable?
        let outer = model.$query.sink { value in
            first.append(value)
            storedWhileDelivering.append(model.query)
            guard value == "b", inner == nil else { return }
            inner = model.$query.sink { second.append($0) }
        }
        model.query = "b"
        model.query = "c"
        #expect(first == ["a", "b", "c"])
        #expect(second == ["b", "c"])
        // The will-set order is kept for reading the property: still the old value.
        #expect(storedWhileDelivering == ["a", "a", "b"])
        #expect(model.query == "c")
        outer.cancel()
        inner?.cancel()
    }

    @Test func aPublishedPropertySetAgainWhileItsChangeIsDeliveredKeepsTheLaterValue() {
        let model = Model()
        var seen: [String] = []
        let cancellable = model.$query.sink { value in
            seen.append(value)
            if value == "b" { model.query = "c" }
        }
        model.query = "b"
        #expect(seen == ["a", "b", "c"])
        #expect(model.query == "c")
        var late: [String] = []
        let lateSink = model.$query.sink { late.append($0) }
        #expect(late == ["c"])
        cancellable.cancel()
        lateSink.cancel()
    }

    @Test func aCurrentValueSubjectSubscriberAddedDuringASendStartsFromTheNewValue() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var second: [Int] = []
        var inner: AnyCancellable?
        let outer = subject.sink { value in
            guard value == 1, inner == nil else { return }
            inner = subject.sink { second.append($0) }
        }
        subject.send(1)
        subject.value = 2
        #expect(second == [1, 2])
        outer.cancel()
        inner?.cancel()
    }

    @Test func anObjectWillChangeSubscriberAddedDuringASendHearsOnlyLaterChanges() {
        let model = Model()
        var outerCount = 0
        var innerCount = 0
        var inner: AnyCancellable?
        let outer = model.objectWillChange.sink {
            outerCount += 1
            guard inner == nil else { return }
            inner = model.objectWillChange.sink { innerCount += 1 }
        }
        model.query = "b"
        #expect((outerCount, innerCount) == (1, 0))
        model.query = "c"
        #expect((outerCount, innerCount) == (2, 1))
        outer.cancel()
        inner?.cancel()
    }

    // MARK: ObservableObject and reflection

    /// A model whose mirror shows none of its fields.
    final class Redacted: ObservableObject, CustomReflectable {
        @Published var token = "secret"
        @Published var count = 0
        var customMirror: Mirror { Mirror(self, children: [] as [Mirror.Child]) }
    }

    class RedactedBase: CustomReflectable {
        @Published var inherited = 0
        var customMirror: Mirror { Mirror(self, children: [] as [Mirror.Child]) }
    }

    final class RedactedDerived: RedactedBase, ObservableObject {
        @Published var own = 0
    }

    @Test func objectWillChangeFindsPublishedPropertiesThatACustomMirrorHides() {
        let model = Redacted()
        #expect(Mirror(reflecting: model).children.isEmpty)
        var changes = 0
        let cancellable = model.objectWillChange.sink { changes += 1 }
        model.token = "other"
        model.count = 1
        #expect(changes == 2)
        let derived = RedactedDerived()
        var derivedChanges = 0
        let derivedCancellable = derived.objectWillChange.sink { derivedChanges += 1 }
        derived.inherited = 1
        derived.own = 1
        #expect(derivedChanges == 2)
        cancellable.cancel()
        derivedCancellable.cancel()
    }

    // MARK: share

    @Test func prefixOneSharedWithReplayZippedWithItselfGivesOnePairWithoutDeadlock() async {
        let pairs = await withWatchdog("prefix(1).share(replay: 1) zipped with itself") { () -> [String] in
            var pairs: [String] = []
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.prefix(1).share(replay: 1)
            let cancellable = shared.zip(shared).sink(receiveCompletion: { _ in pairs.append("finished") },
                                                      receiveValue: { pairs.append("\($0.0),\($0.1)") })
            subject.send(7)
            subject.send(8)
            cancellable.cancel()
            let justShared = Just(1).prefix(1).share(replay: 1)
            let second = justShared.zip(justShared).sink { pairs.append("just \($0.0),\($0.1)") }
            second.cancel()
            return pairs
        }
        #expect(pairs == ["7,7", "finished", "just 1,1"])
    }

    @Test(arguments: [0, 1])
    func twoThreadsSubscribingFirstToOneShareAtOnceAreBothServed(replay: Int) {
        for _ in 0..<200 {
            let subject = PassthroughSubject<Int, Never>()
            let subscriptions = Log<Int>()
            let upstream = subject.handleEvents(receiveSubscription: { _ in subscriptions.append(1) })
            let shared = AcrossThreads(publisher: replay == 0
                ? upstream.share().eraseToAnyPublisher()
                : upstream.share(replay: replay).eraseToAnyPublisher())
            let seen = [Log<Int>(), Log<Int>()]
            let cancellables = Mutex<[AnyCancellable]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let cancellable = shared.publisher.sink { seen[index].append($0) }
                cancellables.withLock { $0.append(cancellable) }
            }
            subject.send(1)
            subject.send(2)
            #expect(subscriptions.all == [1])
            #expect(seen[0].all == [1, 2])
            #expect(seen[1].all == [1, 2])
            cancellables.withLock { $0.forEach { $0.cancel() } }
        }
    }

    @Test func shareWithReplayOfTwoGivesSubscribersJoiningFromEightThreadsAGaplessRun() {
        let count = 2_000
        for _ in 0..<5 {
            let subject = PassthroughSubject<Int, Never>()
            let shared = AcrossThreads(publisher: subject.share(replay: 2))
            let runs = (0..<8).map { _ in Log<Int>() }
            let completions = Log<Int>()
            let cancellables = Mutex<[AnyCancellable]>([])
            let first = shared.publisher.sink { _ in }
            let producer = Thread { for value in 0..<count { subject.send(value) }; subject.send(completion: .finished) }
            producer.start()
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let cancellable = shared.publisher.sink(receiveCompletion: { _ in completions.append(index) },
                                              receiveValue: { runs[index].append($0) })
                cancellables.withLock { $0.append(cancellable) }
            }
            while completions.all.count < 8 { Thread.sleep(forTimeInterval: 0.001) }
            for run in runs.map(\.all) {
                #expect(run.last == count - 1)
                if let start = run.first {
                    #expect(run == Array(start..<count))
                }
            }
            first.cancel()
            cancellables.withLock { $0.forEach { $0.cancel() } }
        }
    }

    /// As Combine: `share()` is `multicast` through one `PassthroughSubject` with `autoconnect()`,
    /// so a subscriber after completion gets only the completion, and a subscriber after every
    /// other has cancelled subscribes the upstream again, through the same subject.
    @Test func shareAfterCompletionGivesOnlyTheCompletionAndAfterEveryCancelResubscribes() {
        let subject = PassthroughSubject<Int, Never>()
        var subscriptions = 0
        let shared = subject.handleEvents(receiveSubscription: { _ in subscriptions += 1 }).share()
        var first: [String] = []
        let a = shared.sink { first.append("\($0)") }
        subject.send(1)
        a.cancel()
        let b = shared.sink { first.append("again \($0)") }
        subject.send(2)
        #expect(subscriptions == 2)
        subject.send(completion: .finished)
        var late: [String] = []
        let c = shared.sink(receiveCompletion: { _ in late.append("finished") }, receiveValue: { late.append("\($0)") })
        #expect(first == ["1", "again 2"])
        #expect(late == ["finished"])
        #expect(subscriptions == 2)
        b.cancel()
        c.cancel()
    }

    /// `share(replay:)` (documented in the README): the replayed values outlive both a
    /// disconnection and the completion. After every subscriber has cancelled, the next one gets
    /// the kept values and subscribes the upstream again; after completion, a subscriber gets the
    /// last values and the completion, and the upstream is not subscribed again.
    @Test func shareWithReplayKeepsItsValuesAcrossCancelAndCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        var subscriptions = 0
        let shared = subject.handleEvents(receiveSubscription: { _ in subscriptions += 1 }).share(replay: 2)
        var afterCancel: [Int] = []
        let a = shared.sink { _ in }
        subject.send(1)
        subject.send(2)
        subject.send(3)
        a.cancel()
        let b = shared.sink { afterCancel.append($0) }
        #expect(afterCancel == [2, 3])
        #expect(subscriptions == 2)
        subject.send(4)
        subject.send(completion: .finished)
        var afterCompletion: [String] = []
        let c = shared.sink(receiveCompletion: { _ in afterCompletion.append("finished") },
                            receiveValue: { afterCompletion.append("\($0)") })
        #expect(afterCancel == [2, 3, 4])
        #expect(afterCompletion == ["3", "4", "finished"])
        #expect(subscriptions == 2)
        b.cancel()
        c.cancel()
    }

    // MARK: Future, completion and deinit

    @Test(arguments: ["serial", "concurrent"])
    func aFutureFulfilledOnAConcurrentQueueDeliversItsValueBeforeItsCompletion(receivingQueue: String) {
        let fulfilling = DispatchQueue(label: "fulfil", attributes: .concurrent)
        let receiving = receivingQueue == "serial"
            ? DispatchQueue(label: "receive")
            : DispatchQueue(label: "receive", attributes: .concurrent)
        for round in 0..<300 {
            let events = Log<String>()
            let done = DispatchSemaphore(value: 0)
            let cancellable = Future<Int, Never> { promise in
                nonisolated(unsafe) let promise = promise  // not Sendable, as in Combine
                fulfilling.async { promise(.success(round)) }
            }
            .receive(on: receiving)
            .sink(receiveCompletion: { _ in events.append("finished"); done.signal() },
                  receiveValue: { events.append("\($0)") })
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(events.all == ["\(round)", "finished"])
            cancellable.cancel()
        }
    }

    /// Holds the only reference to itself through its sink's closure, and cancels that sink when
    /// it goes: the sink's completion releases the closure, so the deinit runs inside the
    /// completion that the cancel is about.
    final class CancelsItsSinkOnDeinit {
        var cancellable: AnyCancellable?
        let deinitialized: Flag
        init(deinitialized: Flag) { self.deinitialized = deinitialized }
        deinit {
            cancellable?.cancel()
            deinitialized.set()
        }
    }

    @Test(arguments: ["subject", "just", "future on another thread"])
    func anObjectWhoseDeinitCancelsTheSinkDeliveringItsCompletionNeitherDeadlocksNorTraps(source: String) async {
        let deinitialized = Flag()
        let returned = await withWatchdog("deinit cancelling its sink, \(source)") { () -> Bool in
            let subject = PassthroughSubject<Int, Never>()
            let publisher: AnyPublisher<Int, Never>
            switch source {
            case "subject": publisher = subject.eraseToAnyPublisher()
            case "just": publisher = Just(1).eraseToAnyPublisher()
            default:
                publisher = Future { promise in
                    nonisolated(unsafe) let promise = promise  // not Sendable, as in Combine
                    DispatchQueue.global().async { promise(.success(1)) }
                }
                    .eraseToAnyPublisher()
            }
            var owner: CancelsItsSinkOnDeinit? = CancelsItsSinkOnDeinit(deinitialized: deinitialized)
            owner?.cancellable = publisher.sink(receiveCompletion: { [owner] _ in _ = owner },
                                                receiveValue: { [owner] _ in _ = owner })
            owner = nil
            subject.send(completion: .finished)
            while !deinitialized.isSet { Thread.sleep(forTimeInterval: 0.001) }
            return true
        }
        #expect(returned == true)
        #expect(deinitialized.isSet)
    }

    // MARK: combineLatest

    /// As Combine: combineLatest finishes when every upstream has finished, also when one of
    /// them finished without a value (so it can never send a tuple); it does not finish early.
    @Test func combineLatestWithAnInputThatFinishesEmptyFinishesWhenEveryInputHas() {
        let empty = PassthroughSubject<Int, Never>()
        let other = PassthroughSubject<String, Never>()
        var events: [String] = []
        let cancellable = empty.combineLatest(other).sink(receiveCompletion: { _ in events.append("finished") },
                                                          receiveValue: { events.append("\($0)") })
        empty.send(completion: .finished)
        other.send("x")
        #expect(events.isEmpty)
        other.send(completion: .finished)
        #expect(events == ["finished"])
        cancellable.cancel()
    }

    // MARK: Time

    /// Values at the given milliseconds through `operator` on a virtual clock; what comes out,
    /// as "value@ms".
    private func timed(_ inputs: [(ms: Int, value: Int)], until end: Int,
                       _ transform: (AnyPublisher<Int, Never>, TestSchedulerOf<DispatchQueue>) -> AnyPublisher<Int, Never>)
        -> [String]
    {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let subject = PassthroughSubject<Int, Never>()
        var out: [String] = []
        let cancellable = transform(subject.eraseToAnyPublisher(), scheduler).sink { value in
            let ms = (scheduler.now.dispatchTime.uptimeNanoseconds - start.dispatchTime.uptimeNanoseconds) / 1_000_000
            out.append("\(value)@\(ms)")
        }
        for input in inputs {
            scheduler.advance(to: start.advanced(by: .milliseconds(input.ms)))
            subject.send(input.value)
        }
        scheduler.advance(to: start.advanced(by: .milliseconds(end)))
        cancellable.cancel()
        return out
    }

    @Test(arguments: [true, false])
    func throttleForOneSecondAndForAThousandMillisecondsBehaveIdentically(latest: Bool) {
        let inputs = [(0, 1), (100, 2), (400, 3), (1_200, 4), (1_300, 5), (2_500, 6), (2_600, 7)]
        let seconds = timed(inputs, until: 5_000) { $0.throttle(for: .seconds(1), scheduler: $1, latest: latest).eraseToAnyPublisher() }
        let milliseconds = timed(inputs, until: 5_000) {
            $0.throttle(for: .milliseconds(1000), scheduler: $1, latest: latest).eraseToAnyPublisher()
        }
        #expect(seconds == milliseconds)
        // 6 and 7 both fall in the window that ends at 3,000 ms: one of them goes out then.
        #expect(seconds == (latest ? ["1@0", "3@1000", "5@2000", "7@3000"]
                                   : ["1@0", "2@1000", "4@2000", "6@3000"]))
    }

    /// Apple's documentation: debounce publishes an element only after `dueTime` passes between
    /// events. A timer ticking every second, debounced by half a second, lets each tick through
    /// half a second late; debounced by two seconds, it lets nothing through while it ticks, and
    /// the last tick two seconds after the ticking stops.
    @Test func debounceOfATimerOnATestSchedulerEmitsWhatTheDocumentationSays() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        func milliseconds(_ time: DispatchQueue.SchedulerTimeType) -> Int {
            Int((time.dispatchTime.uptimeNanoseconds - start.dispatchTime.uptimeNanoseconds) / 1_000_000)
        }
        var short: [String] = []
        var long: [String] = []
        let ticks = scheduler.timerPublisher(every: .seconds(1)).autoconnect().prefix(while: { milliseconds($0) <= 4_000 })
        let a = ticks.debounce(for: .milliseconds(500), scheduler: scheduler)
            .sink { short.append("\(milliseconds($0))@\(milliseconds(scheduler.now))") }
        let timer = PassthroughSubject<Int, Never>()
        let b = timer.debounce(for: .seconds(2), scheduler: scheduler)
            .sink { long.append("\($0)@\(milliseconds(scheduler.now))") }
        let feeding = scheduler.timerPublisher(every: .seconds(1)).autoconnect().sink { time in
            let ms = milliseconds(time)
            if ms <= 4_000 { timer.send(ms) }
        }
        scheduler.advance(by: .seconds(4))
        #expect(long.isEmpty)
        scheduler.advance(by: .seconds(6))
        #expect(short == ["1000@1500", "2000@2500", "3000@3500", "4000@4500"])
        #expect(long == ["4000@6000"])
        a.cancel()
        b.cancel()
        feeding.cancel()
    }

    @Test func testSchedulerRunsActionsDueAtOneInstantFirstInFirstOutAlsoWhenScheduledFromAnAction() {
        let scheduler = DispatchQueue.test
        let instant = scheduler.now.advanced(by: .seconds(1))
        var order: [String] = []
        scheduler.schedule(after: instant) {
            order.append("a")
            scheduler.schedule(after: instant) { order.append("a's child, due now") }
            scheduler.schedule { order.append("a's immediate child") }
        }
        scheduler.schedule(after: instant) { order.append("b") }
        scheduler.schedule(after: instant) {
            order.append("c")
            scheduler.schedule(after: instant) { order.append("c's child, due now") }
        }
        scheduler.advance(by: .seconds(1))
        #expect(order == ["a", "b", "c", "a's child, due now", "a's immediate child", "c's child, due now"])
    }
}
