import Foundation
import Synchronization
import SluiceRx
import SluiceRxBlocking

// Seeds 002 ("Subscribing") and 004 ("Schedulers: observe(on:) and subscribe(on:)") measure
// RxSwift; these are their claims run on SluiceRx, RxSwift's spellings over Sluice's engine.
// The scenarios are built in nonisolated code; the crashing children are main-actor code, as
// the seeds' top-level code is.

private enum RxTourError: Error, CustomStringConvertible {
    case boom
    var description: String { "boom" }
}

@_silgen_name("dispatch_queue_get_label")
private nonisolated func rxTourQueueLabel(_ queue: OpaquePointer?) -> UnsafePointer<CChar>

/// The current dispatch queue's label, or "main" on the main thread (seed 004's `currentQueue`).
private nonisolated func rxQueue() -> String {
    Thread.isMainThread ? "main" : String(cString: rxTourQueueLabel(nil))
}

private nonisolated func rxTraced(_ log: SignalLog, _ step: String) -> (Int) -> Int {
    { value in log.append("\(step): \(rxQueue())"); return value }
}

/// Seconds to make `count` subscriptions to `Observable.just` with `subscribe`.
private nonisolated func rxSecondsToSubscribe(_ count: Int, logged: Bool = false) -> Double {
    elapsedSeconds {
        for value in 0..<count {
            if logged {
                _ = Observable.just(value).subscribeLogged(onNext: { _ in })
            } else {
                _ = Observable.just(value).subscribe(onNext: { _ in })
            }
        }
    }
}

func seed002RxScenarios() -> [Scenario] {
    [
        Scenario(id: "rx-on-disposed", seed: "002", section: "The four closures",
                 claim: "SluiceRx: onDisposed runs once however the subscription ends: completion, error, dispose()") {
            var completed: [String] = []
            _ = Observable.of("a").subscribe(onNext: { completed.append($0) }, onCompleted: { completed.append("|") },
                                             onDisposed: { completed.append("disposed") })
            var failed: [String] = []
            _ = Observable.concat(.just("a"), .error(RxTourError.boom))
                .subscribe(onNext: { failed.append($0) }, onError: { failed.append("x(\($0))") },
                           onDisposed: { failed.append("disposed") })
            let live = PublishSubject<String>()
            var abandoned: [String] = []
            let subscription = live.subscribe(onNext: { abandoned.append($0) }, onDisposed: { abandoned.append("disposed") })
            live.onNext("a")
            subscription.dispose()
            subscription.dispose()
            live.onNext("b")
            return Outcome("completed \(completed), failed \(failed), disposed \(abandoned)",
                           holds: completed == ["a", "|", "disposed"] && failed == ["a", "x(boom)", "disposed"]
                               && abandoned == ["a", "disposed"])
        },
        Scenario(id: "rx-do-order", seed: "002", section: "Where do fits in",
                 claim: "SluiceRx: do's hooks run in RxSwift's order; of delivers after onSubscribed; the subscriber's onDisposed before afterCompleted and onDispose") {
            var order: [String] = []
            _ = Observable.of(1)
                .do(onNext: { order.append("onNext \($0)") }, afterNext: { order.append("afterNext \($0)") },
                    onCompleted: { order.append("onCompleted") }, afterCompleted: { order.append("afterCompleted") },
                    onSubscribe: { order.append("onSubscribe") }, onSubscribed: { order.append("onSubscribed") },
                    onDispose: { order.append("onDispose") })
                .subscribe(onNext: { order.append("subscriber \($0)") }, onCompleted: { order.append("subscriber |") },
                           onDisposed: { order.append("subscriber disposed") })
            let expected = ["onSubscribe", "onSubscribed", "onNext 1", "subscriber 1", "afterNext 1", "onCompleted",
                            "subscriber |", "subscriber disposed", "afterCompleted", "onDispose"]
            return Outcome(order.joined(separator: ", "), holds: order == expected)
        },
        Scenario(id: "rx-unhandled-error", seed: "002", section: "Unhandled errors",
                 claim: "SluiceRx: an error no onError handled goes to Hooks.defaultErrorHandler; the event form counts as handling it") {
            let reported = SignalLog()
            let previous = Hooks.defaultErrorHandler
            Hooks.defaultErrorHandler = { _, error in reported.append("\(error)") }
            let parsed = Observable.of("1", "x", "3").map { text -> Int in
                guard let number = Int(text) else { throw RxTourError.boom }
                return number
            }
            var events: [String] = []
            _ = parsed.subscribe { event in events.append(event.debugDescription) }
            _ = parsed.subscribe(onNext: { _ in })
            Hooks.defaultErrorHandler = previous
            return Outcome("event form saw \(events); the handler got \(reported.all)",
                           holds: events == ["next(1)", "error(boom)"] && reported.all == ["boom"])
        },
        Scenario(id: "rx-call-stack-cost", seed: "002", section: "Unhandled errors",
                 claim: "SluiceRx: recordCallStackOnError makes each subscription much dearer (> 10×); subscribeLogged's #fileID/#line costs about nothing") {
            let count = 2_000
            _ = rxSecondsToSubscribe(200)
            Hooks.recordCallStackOnError = true
            let withStacks = rxSecondsToSubscribe(count)
            Hooks.recordCallStackOnError = false
            let without = rxSecondsToSubscribe(count)
            let logged = rxSecondsToSubscribe(count, logged: true)
            return Outcome("per subscription: \(formatNanoseconds(withStacks, per: count)) with call stacks, "
                           + "\(formatNanoseconds(without, per: count)) without, \(formatNanoseconds(logged, per: count)) with subscribeLogged's site",
                           holds: withStacks > 10 * without && logged < withStacks / 10)
        },
        Scenario(id: "rx-subscribe-with", seed: "002", section: "subscribe(with:)",
                 claim: "SluiceRx: subscribe(with:) holds its object weakly, keeps the chain running after it is gone and skips onDisposed; disposingWhenReleased ends it") {
            final class Header { var title = "" }
            let names = PublishSubject<String>()
            var sent = 0
            var disposedCalls = 0
            var bag = DisposeBag()
            var header: Header? = Header()
            weak let weakHeader = header
            names.do(onNext: { _ in sent += 1 })
                .subscribe(with: header!, onNext: { $0.title = $1 }, onDisposed: { _ in disposedCalls += 1 })
                .disposed(by: bag)
            names.onNext("Ada")
            header = nil
            names.onNext("Grace")
            names.onNext("Hopper")
            bag = DisposeBag()
            let keptRunning = sent
            var optIn: Header? = Header()
            let releasing = PublishSubject<String>()
            let ended = releasing.subscribe(with: optIn!, disposingWhenReleased: true, onNext: { $0.title = $1 })
            optIn = nil
            releasing.onNext("Lovelace")
            withExtendedLifetime(ended) {}
            return Outcome("header gone: \(weakHeader == nil); chain ran \(keptRunning) times; onDisposed calls \(disposedCalls); "
                           + "opt-in variant still subscribed: \(releasing.hasObservers)",
                           holds: weakHeader == nil && keptRunning == 3 && disposedCalls == 0 && !releasing.hasObservers)
        },
        Scenario(id: "rx-flat-map-latest", seed: "002", section: "Do not subscribe inside subscribe",
                 claim: "SluiceRx: subscribing inside onNext leaves every query running; flatMapLatest keeps one, and disposing stops it") {
            let running = Mutex(0)
            func liveDetails(_ id: Int) -> Observable<String> {
                Observable.create { observer in
                    running.withLock { $0 += 1 }
                    observer.onNext("details \(id)")
                    return Disposables.create { running.withLock { $0 -= 1 } }
                }
            }
            let bag = DisposeBag()
            let ids = PublishSubject<Int>()
            ids.subscribe(onNext: { liveDetails($0).subscribe().disposed(by: bag) }).disposed(by: bag)
            for id in 1...3 { ids.onNext(id) }
            let nested = running.withLock { $0 }
            running.withLock { $0 = 0 }
            let selections = PublishSubject<Int>()
            let latest = selections.flatMapLatest { liveDetails($0) }.subscribe()
            for id in 1...3 { selections.onNext(id) }
            let switched = running.withLock { $0 }
            latest.dispose()
            let afterDispose = running.withLock { $0 }
            return Outcome("nested: \(nested) running; flatMapLatest: \(switched) running, \(afterDispose) after dispose",
                           holds: nested == 3 && switched == 1 && afterDispose == 0)
        },
        Scenario(id: "rx-subject-observer", seed: "002", section: "Subscribing an observer, or a subject",
                 claim: "SluiceRx: subscribing a subject to a finite source forwards the completion and ends the subject; a relay cannot complete") {
            let selection = PublishSubject<Int>()
            var selected: [String] = []
            let watcher = selection.subscribe(onNext: { selected.append("\($0)") }, onCompleted: { selected.append("|") })
            let binding = Observable.of(1, 2).subscribe(selection)
            selection.onNext(3)
            let relay = PublishRelay<Int>()
            var relayed: [String] = []
            let relayWatcher = relay.subscribe { event in relayed.append(event.debugDescription) }
            let relayBinding = Observable.of(1).bind(to: relay)
            relay.accept(2)
            withExtendedLifetime((watcher, binding, relayWatcher, relayBinding)) {}
            return Outcome("subject: \(selected); relay: \(relayed)",
                           holds: selected == ["1", "2", "|"] && relayed == ["next(1)", "next(2)"])
        },
        Scenario(id: "rx-bind-crash", seed: "002", section: "bind: subscribing when failure is a bug",
                 claim: "SluiceRx: bind on a chain that fails stops a debug build with \"Binding error:\" (child process)") {
            let (status, output) = runChild("rx-bind-crash")
            let stopped = output.contains("Binding error: boom")
            #if DEBUG
            return Outcome("child process exited with status \(status); \(stopped ? "it printed \"Binding error: boom\"" : "no binding error in its output")",
                           holds: status != 0 && stopped)
            #else
            return Outcome("a release build logs instead: status \(status), \(stopped ? "\"Binding error: boom\" printed" : "nothing printed")",
                           holds: status == 0 && stopped)
            #endif
        },
    ]
}

func seed004RxScenarios() -> [Scenario] {
    [
        Scenario(id: "rx-observe-on", seed: "004", section: "observe(on:) moves everything below it",
                 claim: "SluiceRx: observe(on:) moves what is below it; toBlocking runs the main run loop, so a hop back to MainScheduler completes") {
            let trace = SignalLog()
            let values = try? Observable.of(1)
                .map(rxTraced(trace, "before"))
                .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "decode"))
                .map(rxTraced(trace, "decode"))
                .observe(on: MainScheduler.instance)
                .map(rxTraced(trace, "render"))
                .toBlocking(timeout: 5).toArray()
            return Outcome(trace.all.joined(separator: ", "),
                           holds: values == [1] && trace.all == ["before: main", "decode: decode", "render: main"])
        },
        Scenario(id: "rx-subscribe-on", seed: "004", section: "subscribe(on:) moves the source",
                 claim: "SluiceRx: subscribe(on:) moves the source's work; with several, the one closest to the source wins") {
            let trace = SignalLog()
            let source = Observable<Int>.create { observer in
                trace.append("create: \(rxQueue())")
                observer.onNext(1)
                observer.onCompleted()
                return Disposables.create()
            }
            _ = try? source
                .map(rxTraced(trace, "map before"))
                .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "background"))
                .map(rxTraced(trace, "map between"))
                .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "other"))
                .map(rxTraced(trace, "map after"))
                .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "ignored"))
                .toBlocking(timeout: 5).toArray()
            return Outcome(trace.all.joined(separator: ", "),
                           holds: trace.all == ["create: background", "map before: background",
                                                "map between: background", "map after: other"])
        },
        Scenario(id: "rx-main-scheduler", seed: "004", section: "MainScheduler.instance and asyncInstance",
                 claim: "SluiceRx: MainScheduler.instance delivers before subscribe returns on the main thread; asyncInstance defers") {
            var immediate: [String] = []
            let a = Observable.of("x").observe(on: MainScheduler.instance).subscribe(onNext: { immediate.append($0) })
            let right = immediate
            var deferred: [String] = []
            let b = Observable.of("x").observe(on: MainScheduler.asyncInstance).subscribe(onNext: { deferred.append($0) })
            let before = deferred
            runMainLoop(for: 2, until: { deferred == ["x"] })
            withExtendedLifetime((a, b)) {}
            return Outcome("instance: \(right) when subscribe returned; asyncInstance: \(before), then \(deferred)",
                           holds: right == ["x"] && before.isEmpty && deferred == ["x"])
        },
        Scenario(id: "rx-concurrent-order", seed: "004", section: "Order is preserved, even on a concurrent queue",
                 claim: "SluiceRx: observe(on:) a ConcurrentDispatchQueueScheduler keeps 2,000 elements in order, 20 runs of 20") {
            let ordered = (0..<20).filter { _ in
                let delivered = try? Observable.from(Array(0..<2_000))
                    .observe(on: ConcurrentDispatchQueueScheduler(qos: .userInitiated))
                    .toBlocking(timeout: 10).toArray()
                return delivered == Array(0..<2_000)
            }.count
            return Outcome("\(ordered) of 20 runs in order", holds: ordered == 20)
        },
        Scenario(id: "rx-hop-backlog", seed: "004", section: "What a hop costs, and what it hides",
                 claim: "SluiceRx: a hop costs time per element, and hides a backlog: a fast producer finishes with most elements still queued") {
            let count = 100_000
            let (without, with) = quickestSeconds({
                _ = try? Observable.range(start: 0, count: count).toBlocking().last()
            }, {
                _ = try? Observable.range(start: 0, count: count)
                    .observe(on: SerialDispatchQueueScheduler(qos: .userInitiated)).toBlocking().last()
            })
            let total = 5_000
            let handled = Atomic(0)
            let allHandled = DispatchSemaphore(value: 0)
            let readings = PublishSubject<Int>()
            let subscription = readings.observe(on: SerialDispatchQueueScheduler(qos: .userInitiated))
                .subscribe(onNext: { _ in
                    usleep(100)
                    if handled.add(1, ordering: .relaxed).newValue == total { allHandled.signal() }
                })
            for value in 0..<total { readings.onNext(value) }
            let handledWhenDone = handled.load(ordering: .relaxed)
            _ = allHandled.wait(timeout: .now() + 30)
            subscription.dispose()
            return Outcome("\(formatNanoseconds(without, per: count)) per element without a hop, \(formatNanoseconds(with, per: count)) with; "
                           + "\(handledWhenDone) of \(total) handled when the producer finished",
                           holds: with > without && handledWhenDone < total / 2)
        },
        Scenario(id: "rx-isolation-crashes", seed: "004", section: "Swift 6: main-actor closures on background threads",
                 claim: "SluiceRx: a main-actor onNext below observe(on:) and a main-actor create moved by subscribe(on:) each stop in the isolation check (child processes)") {
            let results = ["rx-observe-on-crash", "rx-subscribe-on-crash"].map(runChild)
            let stopped = results.filter { $0.status != 0 && $0.output.contains("_swift_task_checkIsolated") }.count
            return Outcome("\(stopped) of 2 child processes stopped in _swift_task_checkIsolatedSwift "
                           + "(statuses \(results.map(\.status)))",
                           holds: stopped == 2)
        },
    ]
}

/// The tour's `--child` processes for these seeds; each is main-actor code, as the seeds' are.
@MainActor
func runRxChild(_ name: String) -> Never {
    switch name {
    case "rx-bind-crash":
        let parsed = Observable.of("1", "x").map { text -> Int in
            guard let number = Int(text) else { throw RxTourError.boom }
            return number
        }
        let binding = parsed.bind(onNext: { print($0) })
        withExtendedLifetime(binding) {}
    case "rx-observe-on-crash":
        var lastValue = 0
        let subscription = Observable.of(1)
            .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "work"))
            .subscribe(onNext: { lastValue = $0 })
        runMainLoop(for: 30)    // the process stops at the crash; a bound for a loaded machine
        withExtendedLifetime((subscription, lastValue)) {}
    case "rx-subscribe-on-crash":
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            return Disposables.create()
        }
        .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "background"))
        .subscribe()
        runMainLoop(for: 30)    // the process stops at the crash; a bound for a loaded machine
        withExtendedLifetime(subscription) {}
    default:
        exit(64)
    }
    print("no crash")
    exit(0)
}
