import Foundation
import Synchronization
import SluiceRx
import SluiceRxBlocking

// RxSwift's behaviours when subscribing (the four closures, do, unhandled errors, subscribe(with:),
// subjects as observers, bind) and with schedulers (observe(on:), subscribe(on:), MainScheduler,
// hops), run on SluiceRx: RxSwift's spellings over Sluice's engine. The scenarios are built in
// nonisolated code; the crashing children are main-actor code, as a program's top-level code is.

private enum RxTourError: Error, CustomStringConvertible {
    case boom
    var description: String { "boom" }
}

@_silgen_name("dispatch_queue_get_label")
private nonisolated func rxTourQueueLabel(_ queue: OpaquePointer?) -> UnsafePointer<CChar>

/// The current dispatch queue's label, or "main" on the main thread.
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

func rxSpellingScenarios() -> [Scenario] {
    [
        Scenario(id: "rx-on-disposed", topic: .rxSpellings,
                 title: "onDisposed runs once, however a subscription ends",
                 code: #"""
                 Observable.of("a").subscribe(onNext: ..., onCompleted: ..., onDisposed: ...)
                 Observable.concat(.just("a"), .error(boom))
                     .subscribe(onNext: ..., onError: ..., onDisposed: ...)
                 let subscription = live.subscribe(onNext: ..., onDisposed: ...)
                 live.onNext("a"); subscription.dispose(); subscription.dispose(); live.onNext("b")
                 """#,
                 why: "Completion, error and dispose() all end in the subscription's disposal, which "
                     + "calls onDisposed last; a second dispose() finds it already disposed.") {
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
            return Outcome("ended by completion: \(completed); by an error: \(failed); by dispose(), called twice: \(abandoned)",
                           holds: completed == ["a", "|", "disposed"] && failed == ["a", "x(boom)", "disposed"]
                               && abandoned == ["a", "disposed"])
        },
        Scenario(id: "rx-do-order", topic: .rxSpellings,
                 title: "do(...) hooks run in RxSwift's order",
                 code: #"""
                 Observable.of(1)
                     .do(onNext: ..., afterNext: ..., onCompleted: ..., afterCompleted: ...,
                         onSubscribe: ..., onSubscribed: ..., onDispose: ...)
                     .subscribe(onNext: ..., onCompleted: ..., onDisposed: ...)
                 """#,
                 why: "do's on... hooks run before it passes an event down and its after... hooks once that returns; the subscriber "
                     + "is disposed as the completion reaches it, so its onDisposed comes before afterCompleted and onDispose.") {
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
            return Outcome("in this order: " + order.joined(separator: ", "), holds: order == expected)
        },
        Scenario(id: "rx-unhandled-error", topic: .rxSpellings,
                 title: "An unhandled error goes to Hooks.defaultErrorHandler",
                 code: #"""
                 Hooks.defaultErrorHandler = { _, error in ... }
                 parsed.subscribe { event in ... }    // sees .error(boom) itself
                 parsed.subscribe(onNext: { _ in })   // no onError
                 """#,
                 why: "subscribe(onNext:) without onError passes the error to the hook rather than dropping "
                     + "it in silence; the event closure receives .error itself, so nothing is left unhandled.") {
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
            return Outcome("the event closure saw \(events); Hooks.defaultErrorHandler got \(reported.all)",
                           holds: events == ["next(1)", "error(boom)"] && reported.all == ["boom"])
        },
        Scenario(id: "rx-call-stack-cost", topic: .rxSpellings,
                 title: "recordCallStackOnError makes every subscribe dearer",
                 code: #"""
                 Hooks.recordCallStackOnError = true
                 Observable.just(value).subscribe(onNext: { _ in })          // 2,000 times
                 Hooks.recordCallStackOnError = false
                 Observable.just(value).subscribe(onNext: { _ in })          // 2,000 times
                 Observable.just(value).subscribeLogged(onNext: { _ in })    // 2,000 times
                 """#,
                 why: "With the hook on, every subscribe captures the thread's call stack in case an "
                     + "error comes later; subscribeLogged stores only its caller's #fileID and #line.") {
            let count = 2_000
            _ = rxSecondsToSubscribe(200)
            Hooks.recordCallStackOnError = true
            let withStacks = rxSecondsToSubscribe(count)
            Hooks.recordCallStackOnError = false
            let without = rxSecondsToSubscribe(count)
            let logged = rxSecondsToSubscribe(count, logged: true)
            return Outcome("per subscription: \(formatNanoseconds(withStacks, per: count)) with call stacks, "
                           + "\(formatNanoseconds(without, per: count)) without, \(formatNanoseconds(logged, per: count)) with subscribeLogged (2,000 each)",
                           holds: withStacks > 10 * without && logged < withStacks / 10)
        },
        Scenario(id: "rx-subscribe-with", topic: .rxSpellings,
                 title: "subscribe(with:) holds its object weakly",
                 code: #"""
                 names.do(onNext: { _ in sent += 1 }).subscribe(with: header, onNext: { $0.title = $1 },
                                                                onDisposed: { _ in ... }).disposed(by: bag)
                 names.onNext("Ada"); header = nil; names.onNext("Grace"); names.onNext("Hopper")
                 bag = DisposeBag()
                 releasing.subscribe(with: optIn, disposingWhenReleased: true, onNext: { $0.title = $1 })
                 optIn = nil
                 """#,
                 why: "The closures get the object through a weak reference and are skipped once it is gone, but "
                     + "nothing disposes the subscription then, unless disposingWhenReleased: true asks for it.") {
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
            return Outcome("header released: \(weakHeader == nil); the chain ran for \(keptRunning) of 3 elements, 2 sent after it went; onDisposed calls: \(disposedCalls); "
                           + "the disposingWhenReleased subscription still there after its object went: \(releasing.hasObservers)",
                           holds: weakHeader == nil && keptRunning == 3 && disposedCalls == 0 && !releasing.hasObservers)
        },
        Scenario(id: "rx-flat-map-latest", topic: .rxSpellings,
                 title: "flatMapLatest, not a subscribe inside subscribe",
                 code: #"""
                 ids.subscribe(onNext: { liveDetails($0).subscribe().disposed(by: bag) }).disposed(by: bag)
                 let latest = selections.flatMapLatest { liveDetails($0) }.subscribe()
                 latest.dispose()
                 """#,
                 why: "Each inner subscribe lives as long as the bag, so every query stays live; flatMapLatest disposes "
                     + "the previous inner subscription when a new element comes, and disposing it disposes the current one.") {
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
            return Outcome("queries left running: subscribing inside onNext \(nested); flatMapLatest \(switched), and \(afterDispose) after dispose()",
                           holds: nested == 3 && switched == 1 && afterDispose == 0)
        },
        Scenario(id: "rx-subject-observer", topic: .rxSpellings,
                 title: "A subject subscribed to a source takes its completion",
                 code: #"""
                 Observable.of(1, 2).subscribe(selection)    // selection: PublishSubject<Int>
                 selection.onNext(3)
                 Observable.of(1).bind(to: relay)            // relay: PublishRelay<Int>
                 relay.accept(2)
                 """#,
                 why: "A subject is an observer, so it takes the source's completed event and ignores elements "
                     + "after it; a relay has no completion, and bind(to:) passes it elements only.") {
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
            return Outcome("the subject's subscriber got \(selected) (onNext(3) was sent after the source completed it); the relay's got \(relayed)",
                           holds: selected == ["1", "2", "|"] && relayed == ["next(1)", "next(2)"])
        },
        Scenario(id: "rx-bind-crash", topic: .rxSpellings,
                 title: "bind on a chain that fails stops a debug build",
                 code: #"""
                 let parsed = Observable.of("1", "x").map { text -> Int in
                     guard let number = Int(text) else { throw boom }
                     return number
                 }
                 parsed.bind(onNext: { print($0) })
                 """#,
                 why: "bind is for chains that cannot fail, so an error reaching it is a programming "
                     + "error: a debug build stops with \"Binding error:\", a release build prints it.") {
            let (status, output) = runChild("rx-bind-crash")
            let stopped = output.contains("Binding error: boom")
            #if DEBUG
            return Outcome("the child process exited with status \(status); \(stopped ? "it printed \"Binding error: boom\"" : "no binding error in its output")",
                           holds: status != 0 && stopped)
            #else
            return Outcome("a release build logs instead: status \(status), \(stopped ? "\"Binding error: boom\" printed" : "nothing printed")",
                           holds: status == 0 && stopped)
            #endif
        },
        Scenario(id: "rx-observe-on", topic: .rxSpellings,
                 title: "observe(on:) moves everything below it",
                 code: #"""
                 Observable.of(1).map(before)
                     .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "decode")).map(decode)
                     .observe(on: MainScheduler.instance).map(render)
                     .toBlocking(timeout: 5).toArray()
                 """#,
                 why: "observe(on:) delivers each event to the operators below it on its scheduler; toBlocking "
                     + "runs the main run loop while it waits, so the hop back to the main thread can complete.") {
            let trace = SignalLog()
            let values = try? Observable.of(1)
                .map(rxTraced(trace, "before"))
                .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "decode"))
                .map(rxTraced(trace, "decode"))
                .observe(on: MainScheduler.instance)
                .map(rxTraced(trace, "render"))
                .toBlocking(timeout: 5).toArray()
            return Outcome("where each step ran: " + trace.all.joined(separator: ", "),
                           holds: values == [1] && trace.all == ["before: main", "decode: decode", "render: main"])
        },
        Scenario(id: "rx-subscribe-on", topic: .rxSpellings,
                 title: "subscribe(on:) moves the source; the innermost one wins",
                 code: #"""
                 source.map(mapBefore)
                     .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "background"))
                     .map(mapBetween)
                     .observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "other")).map(mapAfter)
                     .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "ignored"))
                     .toBlocking(timeout: 5).toArray()
                 """#,
                 why: "Subscribing travels up from the subscriber to the source, and each subscribe(on:) moves "
                     + "the rest of that trip, so the one nearest the source decides where the source runs.") {
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
            return Outcome("where each step ran: " + trace.all.joined(separator: ", "),
                           holds: trace.all == ["create: background", "map before: background",
                                                "map between: background", "map after: other"])
        },
        Scenario(id: "rx-main-scheduler", topic: .rxSpellings,
                 title: "MainScheduler.instance runs inline; asyncInstance defers",
                 code: #"""
                 Observable.of("x").observe(on: MainScheduler.instance).subscribe(onNext: { ... })
                 Observable.of("x").observe(on: MainScheduler.asyncInstance).subscribe(onNext: { ... })
                 """#,
                 why: "MainScheduler.instance runs the work at once when already on the main thread "
                     + "(it is UIScheduler.shared); asyncInstance always goes through the main queue.") {
            var immediate: [String] = []
            let a = Observable.of("x").observe(on: MainScheduler.instance).subscribe(onNext: { immediate.append($0) })
            let right = immediate
            var deferred: [String] = []
            let b = Observable.of("x").observe(on: MainScheduler.asyncInstance).subscribe(onNext: { deferred.append($0) })
            let before = deferred
            runMainLoop(for: 2, until: { deferred == ["x"] })
            withExtendedLifetime((a, b)) {}
            return Outcome("instance: \(right) when subscribe returned; asyncInstance: \(before) then, after a turn of the main run loop, \(deferred)",
                           holds: right == ["x"] && before.isEmpty && deferred == ["x"])
        },
        Scenario(id: "rx-concurrent-order", topic: .rxSpellings,
                 title: "observe(on:) a concurrent scheduler keeps order",
                 code: #"""
                 Observable.from(Array(0..<2_000))
                     .observe(on: ConcurrentDispatchQueueScheduler(qos: .userInitiated))
                     .toBlocking(timeout: 10).toArray()
                 """#,
                 why: "observe(on:) is Sluice's receive(on:), which keeps its own queue of pending "
                     + "events and delivers one at a time, whichever scheduler runs them.") {
            let ordered = (0..<20).filter { _ in
                let delivered = try? Observable.from(Array(0..<2_000))
                    .observe(on: ConcurrentDispatchQueueScheduler(qos: .userInitiated))
                    .toBlocking(timeout: 10).toArray()
                return delivered == Array(0..<2_000)
            }.count
            return Outcome("2,000 elements, 20 runs: \(ordered) of 20 in order", holds: ordered == 20)
        },
        Scenario(id: "rx-hop-backlog", topic: .rxSpellings,
                 title: "A hop costs time per element and hides a backlog",
                 code: #"""
                 Observable.range(start: 0, count: 100_000).toBlocking().last()
                 Observable.range(start: 0, count: 100_000)
                     .observe(on: SerialDispatchQueueScheduler(qos: .userInitiated)).toBlocking().last()
                 readings.observe(on: SerialDispatchQueueScheduler(qos: .userInitiated))
                     .subscribe(onNext: { _ in usleep(100) })
                 for value in 0..<5_000 { readings.onNext(value) }
                 """#,
                 why: "Every element is queued and handed to another thread, and observe(on:) takes elements as fast "
                     + "as they come, so a slow consumer's backlog grows in memory instead of slowing the producer.") {
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
        Scenario(id: "rx-isolation-crashes", topic: .rxSpellings,
                 title: "Main-actor closures on a background thread stop the process",
                 code: #"""
                 Observable.of(1).observe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "work"))
                     .subscribe(onNext: { lastValue = $0 })                   // in main-actor code
                 Observable<Int>.create { observer in observer.onNext(1); return Disposables.create() }
                     .subscribe(on: SerialDispatchQueueScheduler(internalSerialQueueName: "background"))
                     .subscribe()                                             // in main-actor code
                 """#,
                 why: "Closures written in main-actor code are main-actor isolated and Swift 6 checks that "
                     + "when they run, here on the observe(on:) queue and on the subscribe(on:) queue.") {
            let results = ["rx-observe-on-crash", "rx-subscribe-on-crash"].map(runChild)
            let stopped = results.filter { $0.status != 0 && $0.output.contains("_swift_task_checkIsolated") }.count
            return Outcome("\(stopped) of 2 child processes stopped in _swift_task_checkIsolatedSwift "
                           + "(statuses \(results.map(\.status)))",
                           holds: stopped == 2)
        },
    ]
}

/// The tour's `--child` processes for the RxSwift scenarios; each is main-actor code, as a
/// program's top-level code is.
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
