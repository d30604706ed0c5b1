import Foundation
import XCTest
import SluiceRx
import SluiceRxBlocking

/// Schedulers, observe(on:), subscribe(on:) and toBlocking. XCTest, because these need the main
/// thread and its run loop (Linux XCTest runs test methods on the main thread).
final class SchedulerTests: XCTestCase {
    func testMainSchedulerInstanceRunsInlineOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        var immediate: [String] = []
        let subscription = Observable.of("x").observe(on: MainScheduler.instance)
            .subscribe(onNext: { immediate.append($0) })
        XCTAssertEqual(immediate, ["x"])
        subscription.dispose()
    }

    /// RxSwift's `SerialDispatchQueueScheduler(internalSerialQueueName:)` runs everything on a
    /// queue of its own, with that label, one element at a time and in order.
    func testSerialDispatchQueueSchedulerRunsOnItsOwnLabelledQueueInOrder() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "rx.test.serial")
        let seen = History()
        let done = expectation(description: "completed")
        let subscription = Observable.from(Array(0..<200)).observe(on: scheduler)
            .subscribe(onNext: { @Sendable value in seen.append("\(value)@\(rxCurrentQueue())") },
                       onCompleted: { @Sendable in done.fulfill() })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(seen.all, (0..<200).map { "\($0)@rx.test.serial" })
        subscription.dispose()
    }

    /// RxSwift's `ConcurrentMainScheduler.instance` runs work on the main thread: inline when
    /// already there, after a hop from elsewhere.
    func testConcurrentMainSchedulerRunsOnTheMainThread() {
        var inline: [String] = []
        let first = Observable.of("x").observe(on: ConcurrentMainScheduler.instance)
            .subscribe(onNext: { inline.append("\($0) main: \(Thread.isMainThread)") })
        XCTAssertEqual(inline, ["x main: true"], "inline on the main thread")
        let fromBackground = History()
        let subject = PublishSubject<Int>()
        let second = subject.observe(on: ConcurrentMainScheduler.instance)
            .subscribe(onNext: { @Sendable value in fromBackground.append("\(value) main: \(Thread.isMainThread)") })
        DispatchQueue.global().async { subject.onNext(1) }
        runMainLoop { fromBackground.all == ["1 main: true"] }
        XCTAssertEqual(fromBackground.all, ["1 main: true"])
        first.dispose()
        second.dispose()
    }

    func testMainSchedulerAsyncInstanceAlwaysDefers() {
        var deferred: [String] = []
        let subscription = Observable.of("x").observe(on: MainScheduler.asyncInstance)
            .subscribe(onNext: { deferred.append($0) })
        XCTAssertEqual(deferred, [])
        runMainLoop { deferred == ["x"] }
        XCTAssertEqual(deferred, ["x"])
        subscription.dispose()
    }

    func testMainSchedulerInstanceQueuesBehindWorkItQueuedBefore() {
        // From a background thread instance queues; back on the main thread, a new element must
        // not overtake the queued one.
        let subject = PublishSubject<Int>()
        let order = History()
        let subscription = subject.observe(on: MainScheduler.instance)
            .subscribe(onNext: { @Sendable value in order.append("\(value)") })
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            subject.onNext(1)
            sent.signal()
        }
        sent.wait()
        subject.onNext(2)
        runMainLoop { order.all.count == 2 }
        XCTAssertEqual(order.all, ["1", "2"])
        subscription.dispose()
    }

    func testObserveOnAConcurrentSchedulerKeepsOrderIn20Of20Runs() throws {
        var ordered = 0
        for _ in 0..<20 {
            let delivered = try Observable.from(Array(0..<2_000))
                .observe(on: ConcurrentDispatchQueueScheduler(qos: .userInitiated))
                .toBlocking(timeout: 30).toArray()
            if delivered == Array(0..<2_000) { ordered += 1 }
        }
        XCTAssertEqual(ordered, 20)
    }

    func testObserveOnMovesEverythingBelowIt() throws {
        let trace = History()
        _ = try Observable.of(1)
            .map { @Sendable value -> Int in trace.append("before: \(rxCurrentQueue())"); return value }
            .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "rx.test.work"))
            .map { @Sendable value -> Int in trace.append("after: \(rxCurrentQueue())"); return value }
            .observe(on: MainScheduler.instance)
            .map { @Sendable value -> Int in trace.append("back: \(rxCurrentQueue())"); return value }
            .toBlocking(timeout: 10).toArray()
        XCTAssertEqual(trace.all, ["before: main", "after: rx.test.work", "back: main"])
    }

    func testSubscribeOnClosestToTheSourceWins() throws {
        let trace = History()
        let source = Observable<Int>.create { @Sendable observer in
            trace.append("create: \(rxCurrentQueue())")
            observer.onNext(1)
            observer.onCompleted()
            return Disposables.create()
        }
        _ = try source
            .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "rx.test.near"))
            .map { @Sendable value -> Int in trace.append("between: \(rxCurrentQueue())"); return value }
            .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "rx.test.far"))
            .toBlocking(timeout: 10).toArray()
        XCTAssertEqual(trace.all, ["create: rx.test.near", "between: rx.test.near"])
    }

    func testSubscribeOnDoesNotMoveASubjectsElements() {
        let subject = PublishSubject<Int>()
        let trace = History()
        let queue = DispatchQueue(label: "rx.test.subscribe")
        let subscribed = DispatchSemaphore(value: 0)
        let subscription = subject
            .do(onSubscribed: { subscribed.signal() })
            .subscribe(on: SerialDispatchQueueScheduler(serialQueue: queue))
            .subscribe(onNext: { @Sendable value in trace.append("\(value): \(rxCurrentQueue())") })
        XCTAssertEqual(subscribed.wait(timeout: .now() + 10), .success)
        queue.sync {}                               // the request, scheduled after the subscription
        subject.onNext(1)
        XCTAssertEqual(trace.all, ["1: main"])
        subscription.dispose()
    }

    func testOperationQueueSchedulerRunsOnItsQueue() throws {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "rx.test.operations"
        let onQueue = History()
        let values = try Observable.of(1, 2, 3)
            .observe(on: OperationQueueScheduler(operationQueue: queue))
            .map { @Sendable value -> Int in
                onQueue.append(OperationQueue.current === queue ? "queue" : "elsewhere")
                return value
            }
            .toBlocking(timeout: 10).toArray()
        XCTAssertEqual(values, [1, 2, 3])
        XCTAssertEqual(onQueue.all, ["queue", "queue", "queue"])
    }

    func testCurrentThreadSchedulerRunsNestedWorkAfterTheCurrentStep() {
        var order: [String] = []
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            order.append("outer start")
            XCTAssertFalse(CurrentThreadScheduler.isScheduleRequired)
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                order.append("inner")
                return Disposables.create()
            }
            order.append("outer end")
            return Disposables.create()
        }
        XCTAssertEqual(order, ["outer start", "outer end", "inner"])
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
    }

    func testScheduledWorkDisposedBeforeItRunsNeverRuns() {
        var ran = false
        let work = MainScheduler.asyncInstance.schedule(()) { _ in
            ran = true
            return Disposables.create()
        }
        work.dispose()
        runMainLoop(timeout: 0.2) { false }
        XCTAssertFalse(ran)
    }

    func testToBlockingRunsTheMainRunLoopWhileItWaits() throws {
        // Delivery on the main queue while the main thread blocks in toBlocking.
        let values = try Observable.of(1, 2)
            .observe(on: MainScheduler.asyncInstance)
            .toBlocking(timeout: 10).toArray()
        XCTAssertEqual(values, [1, 2])
    }

    func testToBlockingFirstLastSingleMaterialize() throws {
        XCTAssertEqual(try Observable.of(1, 2, 3).toBlocking().first(), 1)
        XCTAssertEqual(try Observable.of(1, 2, 3).toBlocking().last(), 3)
        XCTAssertEqual(try Observable.just(7).toBlocking().single(), 7)
        XCTAssertEqual(try Observable.of(1, 2, 3).toBlocking().single { $0 == 2 }, 2)
        XCTAssertThrowsError(try Observable<Int>.empty().toBlocking().single()) { error in
            XCTAssertEqual("\(error)", "\(RxError.noElements)")
        }
        XCTAssertThrowsError(try Observable.of(1, 2).toBlocking().single()) { error in
            XCTAssertEqual("\(error)", "\(RxError.moreThanOneElement)")
        }
        XCTAssertThrowsError(try Observable<Int>.error(RxTestError.boom).toBlocking().toArray())
        guard case .failed(let elements, let error) = try Observable.concat(.just(1), .error(RxTestError.boom))
            .toBlocking().materialize() else { return XCTFail("expected a failure") }
        XCTAssertEqual(elements, [1])
        XCTAssertEqual("\(error)", "boom")
        guard case .completed(let all) = try Observable.of(4).toBlocking().materialize() else {
            return XCTFail("expected completion")
        }
        XCTAssertEqual(all, [4])
    }

    func testToBlockingInsideAnotherSubscriptionDoesNotWaitBehindIt() {
        var inner: [[Int]] = []
        _ = Observable.of(1, 2).subscribe(onNext: { value in
            inner.append((try? Observable.of(value, value * 10).toBlocking(timeout: 2).toArray()) ?? [])
        })
        XCTAssertEqual(inner, [[1, 10], [2, 20]])
    }

    func testToBlockingTimesOutWithRxErrorTimeout() {
        XCTAssertThrowsError(try Observable<Int>.never().toBlocking(timeout: 0.05).toArray()) { error in
            XCTAssertEqual("\(error)", "\(RxError.timeout)")
        }
    }

    func testBackgroundDeliveryToASendableClosure() {
        let delivered = Counter()
        let subscription = Observable.of(1)
            .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "rx.test.sendable"))
            .subscribe(onNext: { @Sendable _ in delivered.increment() })
        runMainLoop { delivered.value == 1 }
        XCTAssertEqual(delivered.value, 1)
        subscription.dispose()
    }
}
