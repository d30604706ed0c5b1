import XCTest
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// Schedulers on real queues and the real main run loop. XCTest runs these on the main thread;
/// each waits with a generous bound and asserts the result, never the time taken.
final class RealSchedulerTests: XCTestCase {
    private let work = DispatchQueue(label: "work")

    func testWithoutASchedulerOperatorEverythingRunsOnTheProducingThread() {
        let log = Log<String>()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject
            .map { value -> Int in log.append("map \(Thread.isMainThread ? "main" : "background")"); return value }
            .sink { _ in log.append("sink \(Thread.isMainThread ? "main" : "background")") }
        let done = expectation(description: "sent")
        DispatchQueue.global().async {
            subject.send(1)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.all, ["map background", "sink background"])
        cancellable.cancel()
    }

    func testSubscribeOnMovesASequencesAndADeferredsWork() {
        let log = Log<String>()
        let sequence = [1, 2].publisher
            .handleEventsProbe(log)
            .subscribe(on: work)
            .sink { log.append("value \($0) on \(Thread.isMainThread ? "main" : "background")") }
        runMainLoop(until: { log.all.count == 4 })
        XCTAssertEqual(log.all, ["subscription on background", "request on background",
                                 "value 1 on background", "value 2 on background"])
        sequence.cancel()

        let deferredLog = Log<String>()
        let deferred = Deferred { () -> Just<Int> in
            deferredLog.append("parsing on \(Thread.isMainThread ? "main" : "background")")
            return Just(42)
        }
        .subscribe(on: work)
        .sink { _ in deferredLog.append("delivered on \(Thread.isMainThread ? "main" : "background")") }
        runMainLoop(until: { deferredLog.all.count == 2 })
        XCTAssertEqual(deferredLog.all, ["parsing on background", "delivered on background"])
        deferred.cancel()
    }

    func testSubscribeOnDoesNotMoveASubjectsValuesAndLosesTheFirst() {
        let log = Log<String>()
        let subject = PassthroughSubject<Int, Never>()
        // Hold the work queue until after the first send, so the race the seed describes (the
        // subscription is made later, on the queue) always goes the way it does in Combine.
        let gate = DispatchSemaphore(value: 0)
        work.async { gate.wait() }
        let cancellable = subject
            .subscribe(on: work)
            .sink { log.append("value \($0) on \(Thread.isMainThread ? "main" : "background")") }
        subject.send(1)
        gate.signal()
        work.sync {}                      // the subscription, which schedules the request
        work.sync {}                      // the request
        subject.send(2)
        XCTAssertEqual(log.all, ["value 2 on main"])
        cancellable.cancel()
    }

    func testReceiveOnMainIsAsynchronousAndImmediateIsNot() {
        let delivery = PassthroughSubject<Int, Never>()
        let log = Log<String>()
        let queued = delivery.receive(on: DispatchQueue.main).sink { log.append("main queue \($0)") }
        let immediate = delivery.receive(on: ImmediateScheduler.shared).sink { log.append("immediate \($0)") }
        delivery.send(1)
        XCTAssertEqual(log.all, ["immediate 1"])
        runMainLoop(until: { log.all.count == 2 })
        XCTAssertEqual(log.all, ["immediate 1", "main queue 1"])
        queued.cancel()
        immediate.cancel()
    }

    func testReceiveOnAConcurrentQueueKeepsOrderAndNeverOverlaps() {
        for _ in 0..<20 {
            let source = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            source.receive(on: DispatchQueue.global()).subscribe(subscriber)
            for value in 0..<1_000 { source.send(value) }
            source.send(completion: .finished)
            waitUntil { subscriber.completion != nil }
            XCTAssertEqual(subscriber.values, Array(0..<1_000))
            XCTAssertEqual(subscriber.events.last, .completion(.finished))
            XCTAssertFalse(subscriber.sawConcurrentSignals)
        }
    }

    func testDelayOnAConcurrentQueueLosesNothing() {
        let source = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        source.delay(for: .milliseconds(5), scheduler: DispatchQueue.global()).subscribe(subscriber)
        for value in 0..<1_000 { source.send(value) }
        source.send(completion: .finished)
        waitUntil { subscriber.completion != nil }
        XCTAssertEqual(subscriber.values, Array(0..<1_000))
        XCTAssertFalse(subscriber.sawConcurrentSignals)
    }

    /// The other hopping operators on a concurrent queue: nothing they accepted is lost,
    /// order is kept, no two signals overlap, and the completion comes last.
    func testDebounceOnAConcurrentQueueDeliversTheLastValueOfABurstThenTheCompletion() {
        let source = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        // A quiet period far longer than the burst, so no value in the middle comes due.
        source.debounce(for: .milliseconds(500), scheduler: DispatchQueue.global()).subscribe(subscriber)
        for value in 0..<1_000 { source.send(value) }
        waitUntil { !subscriber.values.isEmpty }
        source.send(completion: .finished)
        waitUntil { subscriber.completion != nil }
        // A stall of the sending thread longer than the quiet period lets a middle value out;
        // whatever comes is in order, once each, and ends with the burst's last value.
        XCTAssertEqual(subscriber.values.last, 999)
        XCTAssertEqual(subscriber.values, subscriber.values.sorted())
        XCTAssertEqual(Set(subscriber.values).count, subscriber.values.count, "nothing twice")
        XCTAssertEqual(subscriber.events.last, .completion(.finished))
        XCTAssertFalse(subscriber.sawConcurrentSignals)
    }

    func testThrottleOnAConcurrentQueueKeepsOrderAndEndsWithTheLatestValue() {
        let source = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        source.throttle(for: .milliseconds(2), scheduler: DispatchQueue.global(), latest: true).subscribe(subscriber)
        for value in 0..<1_000 {
            source.send(value)
            if value % 100 == 0 { Thread.sleep(forTimeInterval: 0.003) }
        }
        waitUntil { subscriber.values.last == 999 }
        source.send(completion: .finished)
        waitUntil { subscriber.completion != nil }
        XCTAssertEqual(subscriber.values.last, 999)
        XCTAssertEqual(subscriber.values, subscriber.values.sorted())
        XCTAssertEqual(Set(subscriber.values).count, subscriber.values.count, "nothing twice")
        XCTAssertEqual(subscriber.events.last, .completion(.finished))
        XCTAssertFalse(subscriber.sawConcurrentSignals)
    }

    func testTimeoutOnAConcurrentQueueLosesNothing() {
        let source = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        source.timeout(.seconds(30), scheduler: DispatchQueue.global()).subscribe(subscriber)
        for value in 0..<1_000 { source.send(value) }
        source.send(completion: .finished)
        waitUntil { subscriber.completion != nil }
        XCTAssertEqual(subscriber.values, Array(0..<1_000))
        XCTAssertEqual(subscriber.events.last, .completion(.finished))
        XCTAssertFalse(subscriber.sawConcurrentSignals)
    }

    func testCollectByTimeOnAConcurrentQueueLosesNothing() {
        let source = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        source.collect(.byTime(DispatchQueue.global(), .milliseconds(1))).subscribe(subscriber)
        for value in 0..<1_000 {
            source.send(value)
            if value % 100 == 0 { Thread.sleep(forTimeInterval: 0.002) }
            // A window closes during the burst, however late the timer's thread gets to run.
            if value == 499 { waitUntil { !subscriber.values.isEmpty } }
        }
        source.send(completion: .finished)
        waitUntil { subscriber.completion != nil }
        XCTAssertEqual(subscriber.values.flatMap { $0 }, Array(0..<1_000))
        XCTAssertGreaterThan(subscriber.values.count, 1, "more than one window closed")
        XCTAssertEqual(subscriber.events.last, .completion(.finished))
        XCTAssertFalse(subscriber.sawConcurrentSignals)
    }

    /// A group in the options covers delayed and repeating actions too: the group is left only
    /// once the action has run.
    func testDispatchGroupOptionCoversDelayedActions() {
        let group = DispatchGroup()
        let ran = Log<String>()
        work.schedule(after: work.now.advanced(by: .milliseconds(50)), tolerance: .zero,
                      options: DispatchQueue.SchedulerOptions(group: group)) { ran.append("delayed") }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(ran.all, ["delayed"])
    }

    func testCompletionIsNeverDeliveredBeforeEarlierValues() {
        for _ in 0..<50 {
            let source = PassthroughSubject<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            source.receive(on: DispatchQueue.global()).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for i in 0..<50 { source.send(thread * 50 + i) }
            }
            source.send(completion: .finished)
            waitUntil { subscriber.completion != nil }
            XCTAssertEqual(subscriber.values.count, 200)
            XCTAssertEqual(subscriber.events.last, .completion(.finished))
        }
    }

    func testRunLoopMainHoldsDeliveryInATrackingModeWhileTheQueuesDeliver() {
        let trackingMode = RunLoop.Mode("SluiceTrackingMode")
        let name = CFStringCreateWithCString(nil, trackingMode.rawValue, CFStringBuiltInEncodings.UTF8.rawValue)
        CFRunLoopAddCommonMode(CFRunLoopGetMain(), name)
        let keepModeAlive = Timer(timeInterval: 60, repeats: true) { _ in }
        RunLoop.main.add(keepModeAlive, forMode: trackingMode)
        defer { keepModeAlive.invalidate() }

        let updates = PassthroughSubject<Int, Never>()
        let counts = Log<String>()
        let viaRunLoop = updates.receive(on: RunLoop.main).sink { _ in counts.append("runLoop") }
        let viaDispatch = updates.receive(on: DispatchQueue.main).sink { _ in counts.append("dispatch") }
        let viaOperation = updates.receive(on: OperationQueue.main).sink { _ in counts.append("operation") }
        updates.send(1)
        runMainLoop(mode: trackingMode, until: { Set(counts.all) == ["dispatch", "operation"] })
        runMainLoop(for: 0.1, mode: trackingMode)
        XCTAssertEqual(Set(counts.all), ["dispatch", "operation"], "RunLoop.main waits while the loop tracks")
        runMainLoop(until: { counts.all.count == 3 })
        XCTAssertEqual(counts.all.filter { $0 == "runLoop" }.count, 1, "and delivers when it is back in the default mode")
        viaRunLoop.cancel()
        viaDispatch.cancel()
        viaOperation.cancel()
    }

    func testMainSchedulersSatisfyTheMainActorCheckAfterTheHop() {
        let model = MainModel()
        let source = PassthroughSubject<Int, Never>()
        MainActor.assumeIsolated {
            model.bind(source.receive(on: DispatchQueue.main).eraseToAnyPublisher(), tag: "dispatch")
            model.bind(source.receive(on: RunLoop.main).eraseToAnyPublisher(), tag: "runLoop")
            model.bind(source.receive(on: OperationQueue.main).eraseToAnyPublisher(), tag: "operation")
            model.bind(source.receive(on: UIScheduler.shared).eraseToAnyPublisher(), tag: "ui")
        }
        DispatchQueue.global().async { source.send(3) }
        runMainLoop(until: { MainActor.assumeIsolated { model.labels.count == 4 } })
        MainActor.assumeIsolated {
            XCTAssertEqual(Set(model.labels), ["dispatch 3", "runLoop 3", "operation 3", "ui 3"])
        }
    }

    func testUISchedulerRunsInlineOnTheMainThreadAndItsAsyncVariantDefers() {
        let log = Log<String>()
        UIScheduler.shared.schedule { log.append("inline") }
        XCTAssertEqual(log.all, ["inline"])
        UIScheduler.asynchronous.schedule { log.append("deferred") }
        UIScheduler.shared.schedule { log.append("behind the deferred one") }
        XCTAssertEqual(log.all, ["inline"], "with its own work queued, shared waits its turn")
        runMainLoop(until: { log.all.count == 3 })
        XCTAssertEqual(log.all, ["inline", "deferred", "behind the deferred one"])
        let fromBackground = expectation(description: "hopped")
        DispatchQueue.global().async {
            UIScheduler.shared.schedule {
                XCTAssertTrue(Thread.isMainThread)
                fromBackground.fulfill()
            }
        }
        wait(for: [fromBackground], timeout: 5)
        // As in combine-schedulers, it takes no options: erased, it is an AnySchedulerOf<UIScheduler>.
        let erased: AnySchedulerOf<UIScheduler> = .shared
        XCTAssertTrue(erased.now <= UIScheduler.shared.now)
    }

    func testOperationQueueHonoursMaxConcurrentOperationCount() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let active = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        for _ in 0..<20 {
            queue.schedule {
                let now = active.add(1, ordering: .sequentiallyConsistent).newValue
                _ = peak.max(now, ordering: .sequentiallyConsistent)
                usleep(500)
                active.subtract(1, ordering: .sequentiallyConsistent)
                done.add(1, ordering: .sequentiallyConsistent)
            }
        }
        waitUntil { done.load(ordering: .sequentiallyConsistent) == 20 }
        XCTAssertEqual(peak.load(ordering: .sequentiallyConsistent), 1)
    }

    func testDispatchQueueTimersFireRepeatedlyUntilCancelled() {
        let ticks = Atomic<Int>(0)
        let timer = work.schedule(after: work.now, interval: .milliseconds(10)) {
            ticks.add(1, ordering: .relaxed)
        }
        waitUntil { ticks.load(ordering: .relaxed) >= 3 }
        timer.cancel()
        let after = ticks.load(ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertLessThanOrEqual(ticks.load(ordering: .relaxed), after + 1)
    }

    func testTimerPublishNeedsConnectAndModeMatters() {
        let ticks = Log<Date>()
        let timer = Timer.publish(every: 0.02, on: .main, in: .default)
        let subscription = timer.sink { ticks.append($0) }
        runMainLoop(for: 0.1)
        XCTAssertEqual(ticks.all.count, 0, "nothing until connect()")
        let connection = timer.connect()
        runMainLoop(until: { ticks.all.count >= 2 })
        XCTAssertGreaterThanOrEqual(ticks.all.count, 2)
        connection.cancel()
        subscription.cancel()

        let trackingMode = RunLoop.Mode("SluiceTimerTracking")
        let name = CFStringCreateWithCString(nil, trackingMode.rawValue, CFStringBuiltInEncodings.UTF8.rawValue)
        CFRunLoopAddCommonMode(CFRunLoopGetMain(), name)
        let keepAlive = Timer(timeInterval: 60, repeats: true) { _ in }
        RunLoop.main.add(keepAlive, forMode: trackingMode)
        defer { keepAlive.invalidate() }
        let common = Log<Date>()
        let defaultOnly = Log<Date>()
        let a = Timer.publish(every: 0.02, on: .main, in: .common).autoconnect().sink { common.append($0) }
        let b = Timer.publish(every: 0.02, on: .main, in: .default).autoconnect().sink { defaultOnly.append($0) }
        runMainLoop(mode: trackingMode, until: { !common.all.isEmpty })
        XCTAssertGreaterThan(common.all.count, 0, ".common fires while tracking")
        XCTAssertEqual(defaultOnly.all.count, 0, ".default pauses while tracking")
        a.cancel()
        b.cancel()
    }

    /// As on Apple platforms, the first tick comes one interval after `connect()`, not at once
    /// (Linux Foundation's `Timer(timeInterval:repeats:block:)` fires immediately). A timer never
    /// fires early, so the lower bound cannot flake.
    func testTimerPublishFirstTicksOneIntervalAfterConnect() {
        let ticks = Log<Date>()
        let connected = Date()
        let subscription = Timer.publish(every: 0.3, on: .main, in: .common).autoconnect().sink { ticks.append($0) }
        runMainLoop(until: { ticks.all.count >= 2 })
        subscription.cancel()
        let dates = ticks.all
        XCTAssertGreaterThanOrEqual(dates.count, 2)
        XCTAssertGreaterThanOrEqual(dates[0].timeIntervalSince(connected), 0.29)
        // The second tick is due two intervals after connect, however late the first one ran.
        XCTAssertGreaterThanOrEqual(dates[1].timeIntervalSince(connected), 0.59)
    }

    func testSearchModelOnTheMainQueueDelivers() {
        let model = MainActor.assumeIsolated { SearchModel(search: { Just(["\($0) result"]).eraseToAnyPublisher() }) }
        model.query.send("combine")
        runMainLoop(until: { MainActor.assumeIsolated { model.results == ["combine result"] } })
        MainActor.assumeIsolated { XCTAssertEqual(model.results, ["combine result"]) }
    }

    func testSearchModelOnVirtualTime() {
        let clock = VirtualTimeScheduler()
        let model = MainActor.assumeIsolated {
            SearchModel(search: { Just(["\($0) result"]).eraseToAnyPublisher() }, scheduler: AnyScheduler(clock))
        }
        model.query.send("sw")
        model.query.send("swift")
        clock.advance(by: .milliseconds(299))
        MainActor.assumeIsolated { XCTAssertEqual(model.results, []) }
        clock.advance(by: .milliseconds(1))
        MainActor.assumeIsolated { XCTAssertEqual(model.results, ["swift result"]) }
    }

    private func waitUntil(_ condition: @escaping () -> Bool) {
        let deadline = Date(timeIntervalSinceNow: 10)
        while !condition() && Date() < deadline {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.001))
        }
    }
}

@MainActor
final class MainModel {
    var labels: [String] = []
    private var cancellables = Set<AnyCancellable>()

    nonisolated init() {}

    func bind(_ values: AnyPublisher<Int, Never>, tag: String) {
        // Written in main-actor code: the closure is main-actor isolated, so Swift checks it
        // runs on the main thread. After the hop it does.
        values.sink { [weak self] in self?.labels.append("\(tag) \($0)") }.store(in: &cancellables)
    }
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
            .map(search)
            .flatMapFirst()
            .receive(on: scheduler)
            .sink { [weak self] in self?.results = $0 }
            .store(in: &cancellables)
    }
}

private extension Publisher {
    /// Until `switchToLatest` lands in this branch: subscribe to each inner publisher.
    func flatMapFirst<Inner: Publisher>() -> AnyPublisher<Inner.Output, Never> where Output == Inner, Inner.Failure == Never, Failure == Never {
        let subject = PassthroughSubject<Inner.Output, Never>()
        var holder: [AnyCancellable] = []
        return Deferred { () -> PassthroughSubject<Inner.Output, Never> in
            let outer = self.sink { inner in inner.sink { subject.send($0) }.store(in: &holder) }
            holder.append(outer)
            return subject
        }.eraseToAnyPublisher()
    }

    func handleEventsProbe(_ log: Log<String>) -> AnyPublisher<Output, Failure> {
        ProbePublisher(upstream: self, log: log).eraseToAnyPublisher()
    }
}

/// Records where its subscription and request happen (until `handleEvents` lands here).
private struct ProbePublisher<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure
    let upstream: Upstream
    let log: Log<String>

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        log.append("subscription on \(Thread.isMainThread ? "main" : "background")")
        upstream.subscribe(AnySubscriber<Output, Failure>(
            receiveSubscription: { subscription in
                subscriber.receive(subscription: ProbeSubscription(upstream: subscription, log: log))
            },
            receiveValue: { subscriber.receive($0) },
            receiveCompletion: { subscriber.receive(completion: $0) }))
    }

    final class ProbeSubscription: Subscription, @unchecked Sendable {
        let upstream: Subscription
        let log: Log<String>
        init(upstream: Subscription, log: Log<String>) {
            self.upstream = upstream
            self.log = log
        }
        func request(_ demand: Subscribers.Demand) {
            log.append("request on \(Thread.isMainThread ? "main" : "background")")
            upstream.request(demand)
        }
        func cancel() { upstream.cancel() }
    }
}
