// Seed 004, "Schedulers: observe(on:) and subscribe(on:)" (RxSwift), as written: every code
// block in order, in one main.swift, built against SluiceRx. Changes from the seed's text, each
// marked where it is made:
//   - `import SluiceRx` and `import SluiceRxBlocking` instead of `@preconcurrency import RxSwift` and
//     `import RxBlocking`;
//   - Linux has neither Darwin's `pthread_main_np` nor Dispatch's `__dispatch_queue_get_label`,
//     which the seed's `currentQueue()` calls: two stand-ins with the same answers are added;
//   - the three blocks the seed shows crashing run only when the program is started with
//     `--crash NAME`, which the acceptance test does, each in a child process;
//   - after each of the seed's 0.05 s `RunLoop.main.run(until:)` waits, a loaded machine may
//     keep running the main loop (up to 2 s, scaled by SEED_TIME_SCALE) until the delivery the
//     next assertion checks has happened.
// `assert` below records a failed check instead of stopping, so the test that runs this program
// reports every failed seed assertion with its line.
import SluiceRx                         // Sluice: was `@preconcurrency import RxSwift`
import SluiceRxBlocking                 // Sluice: was `import RxBlocking`
import Foundation
import Synchronization

nonisolated(unsafe) var seedFailures = 0

func assert(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = "",
            file: StaticString = #file, line: UInt = #line) {
    if !condition() {
        seedFailures += 1
        print("SEED ASSERTION FAILED line \(line): \(message())")
    }
}

/// Sluice: which of the seed's crashing blocks to run (`--crash NAME`), in a child process.
let seedCrash: String? = CommandLine.arguments.firstIndex(of: "--crash").flatMap {
    CommandLine.arguments.indices.contains($0 + 1) ? CommandLine.arguments[$0 + 1] : nil
}

/// Sluice: a crashing block stops the process asynchronously, on another queue; give it time,
/// then report that it did not stop.
func waitForCrash() -> Never {
    RunLoop.main.run(until: Date().addingTimeInterval(30))
    print("SEED CRASH BLOCK DID NOT STOP")
    exit(3)
}

// Sluice (Linux): stand-ins for Darwin's `pthread_main_np` and for Dispatch's
// `__dispatch_queue_get_label`, which Linux's Dispatch module does not export (the C function
// is there, reached by its symbol name).
nonisolated func pthread_main_np() -> Int32 { Thread.isMainThread ? 1 : 0 }
@_silgen_name("dispatch_queue_get_label")
nonisolated func __dispatch_queue_get_label(_ queue: OpaquePointer?) -> UnsafePointer<CChar>

// Sluice: the seed waits 0.05 s for a main-queue delivery; on a loaded CI machine the delivery
// can come later, so the program keeps the main loop running a little longer when it has not.
func settle(until delivered: () -> Bool) {
    let scale = ProcessInfo.processInfo.environment["SEED_TIME_SCALE"].flatMap(Double.init) ?? 1
    let end = Date(timeIntervalSinceNow: 2 * scale)
    while !delivered() && Date() < end { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

nonisolated func currentQueue() -> String {
    if pthread_main_np() == 1 { return "main" }
    return String(cString: __dispatch_queue_get_label(nil))
}

final class Trace: Sendable {
    private let entries = Mutex<[String]>([])
    func note(_ step: String) { entries.withLock { $0.append("\(step): \(currentQueue())") } }
    var all: [String] { entries.withLock { $0 } }
}

nonisolated func traced(_ trace: Trace, _ step: String) -> (Int) -> Int {
    { value in trace.note(step); return value }
}

let downstream = Trace()
let downstreamValues = try Observable.of(1)
    .map(traced(downstream, "before observe(on:)"))
    .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "work"))
    .map(traced(downstream, "after observe(on:)"))
    .toBlocking().toArray()
assert(downstreamValues == [1])
assert(downstream.all == ["before observe(on:): main", "after observe(on:): work"])

let roundTrip = Trace()
_ = try Observable.of(1)
    .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "decode"))
    .map(traced(roundTrip, "decode"))
    .observe(on: MainScheduler.instance)
    .map(traced(roundTrip, "render"))
    .toBlocking().toArray()
assert(roundTrip.all == ["decode: decode", "render: main"])

nonisolated func tracedSource(_ trace: Trace) -> Observable<Int> {
    Observable.create { observer in
        trace.note("create")
        observer.onNext(1)
        observer.onCompleted()
        return Disposables.create()
    }
}

let upstream = Trace()
_ = try tracedSource(upstream)
    .map(traced(upstream, "map before"))
    .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "background"))
    .map(traced(upstream, "map between"))
    .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "other"))
    .map(traced(upstream, "map after observe(on:)"))
    .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "ignored"))
    .toBlocking().toArray()

assert(upstream.all == [
    "create: background",
    "map before: background",
    "map between: background",                // no observe(on:) yet, so the source's thread continues
    "map after observe(on:): other",
])

var immediate: [String] = []
let immediateSubscription = Observable.of("x").observe(on: MainScheduler.instance)
    .subscribe(onNext: { immediate.append($0) })
assert(immediate == ["x"])                         // delivered before subscribe returned

var deferred: [String] = []
let deferredSubscription = Observable.of("x").observe(on: MainScheduler.asyncInstance)
    .subscribe(onNext: { deferred.append($0) })
assert(deferred == [])                             // not yet: queued on the main queue
RunLoop.main.run(until: Date().addingTimeInterval(0.05))
settle { deferred == ["x"] }                       // Sluice: added, for loaded machines
assert(deferred == ["x"])

nonisolated func orderSurvives() -> Bool {
    let delivered = try? Observable.from(Array(0..<2_000))
        .observe(on: ConcurrentDispatchQueueScheduler(qos: .userInitiated))
        .toBlocking().toArray()
    return delivered == Array(0..<2_000)
}

let orderedRuns = (0..<20).filter { _ in orderSurvives() }.count
assert(orderedRuns == 20)

nonisolated func secondsToDeliver(_ count: Int, hop: Bool) -> Double {
    let start = ContinuousClock.now
    let source = Observable.range(start: 0, count: count)
    let chain = hop ? source.observe(on: SerialDispatchQueueScheduler(qos: .userInitiated)) : source
    _ = try? chain.toBlocking().last()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

// Sluice: the quickest of three alternated runs of each, so that a warm-up or a busy moment
// of a loaded machine does not decide the comparison.
var withoutHop = Double.infinity, withHop = Double.infinity
for _ in 0..<3 {
    withoutHop = min(withoutHop, secondsToDeliver(100_000, hop: false))
    withHop = min(withHop, secondsToDeliver(100_000, hop: true))
}
print("100,000 elements:", withoutHop, "s without a hop,", withHop, "s with one")
assert(withHop > withoutHop)

nonisolated func backlogWhenProducerFinishes() -> (sent: Int, handled: Int) {
    let handled = Atomic(0)
    let allHandled = DispatchSemaphore(value: 0)
    let readings = PublishSubject<Int>()
    let subscription = readings
        .observe(on: SerialDispatchQueueScheduler(qos: .userInitiated))
        .subscribe(onNext: { _ in
            usleep(100)                                   // a slow consumer
            if handled.add(1, ordering: .relaxed).newValue == 20_000 { allHandled.signal() }
        })
    for value in 0..<20_000 { readings.onNext(value) }
    let handledWhenDone = handled.load(ordering: .relaxed)
    allHandled.wait()
    subscription.dispose()
    return (20_000, handledWhenDone)
}

let backlog = backlogWhenProducerFinishes()
print("handled when the producer finished:", backlog.handled, "of", backlog.sent)
assert(backlog.handled < backlog.sent / 2)

// Sluice: the seed shows this block crashing; it runs only in the acceptance test's child
// process (`--crash observe-on`), which checks that it stopped in Swift's isolation check.
if seedCrash == "observe-on" {
    // Crashes: the onNext closure is main-actor isolated and runs on the "work" queue
    var lastValue = 0
    let crashingSubscription = Observable.of(1)
        .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "work"))
        .subscribe(onNext: { lastValue = $0 })
    withExtendedLifetime(crashingSubscription) { waitForCrash() }
}

// Sluice: as above, `--crash subscribe-on`.
if seedCrash == "subscribe-on" {
    // Crashes: the create closure is main-actor isolated and runs where subscribe(on:) sends it
    let crashingSource = Observable<Int>.create { observer in
        observer.onNext(1)
        return Disposables.create()
    }
    .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "background"))
    .subscribe()
    withExtendedLifetime(crashingSource) { waitForCrash() }
}

var safeValue = 0
let safeSubscription = Observable.of(2)
    .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "work"))
    .observe(on: MainScheduler.instance)
    .subscribe(onNext: { safeValue = $0 })
RunLoop.main.run(until: Date().addingTimeInterval(0.05))
settle { safeValue == 2 }                          // Sluice: added, for loaded machines
assert(safeValue == 2)

// Sluice: as above, `--crash map`.
if seedCrash == "map" {
    // Crashes: a closure written in main-actor code is isolated even when it touches nothing
    let crashingMap = Observable.of(1)
        .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "work"))
        .map { $0 * 2 }
        .subscribe()
    withExtendedLifetime(crashingMap) { waitForCrash() }
}

let delivered = Atomic(0)
let sendableSubscription = Observable.of(1)
    .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "work"))
    .subscribe(onNext: { @Sendable value in delivered.add(value, ordering: .relaxed) })
RunLoop.main.run(until: Date().addingTimeInterval(0.05))
settle { delivered.load(ordering: .relaxed) == 1 } // Sluice: added, for loaded machines
assert(delivered.load(ordering: .relaxed) == 1)

withExtendedLifetime((immediateSubscription, deferredSubscription, safeSubscription,
                      sendableSubscription)) {}

print(seedFailures == 0 ? "SEED PASSED" : "SEED FAILED \(seedFailures)")
exit(seedFailures == 0 ? 0 : 1)
