// Seed 002, "Subscribing" (RxSwift), as written: every code block in order, in one main.swift,
// built against SluiceRx. Changes from the seed's text, each marked where it is made:
//   - `import SluiceRx` instead of `@preconcurrency import RxSwift` and `import RxCocoa`
//     (SluiceRx's Hooks are safe to set from Swift 6 code, so no @preconcurrency is needed);
//   - the record helper and `DemoError`, which the seed takes from its earlier article
//     ("Observables and Observers"), are written out below;
//   - the block the seed shows crashing (`bind` on a failing chain) runs only when the program
//     is started with `--crash bind`, which the acceptance test does in a child process.
// `assert` below records a failed check instead of stopping, so the test that runs this program
// reports every failed seed assertion with its line.
import SluiceRx                         // Sluice: was `@preconcurrency import RxSwift` and `import RxCocoa`
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

// Sluice: from "Observables and Observers", which this seed builds on: the error its examples
// throw, and `record`, which subscribes with the event form and writes each event as text
// (an element as itself, an error as `x(error)`, completion as `|`).
enum DemoError: Error { case boom }

func record<Element>(_ source: Observable<Element>) -> [String] {
    var events: [String] = []
    let subscription = source.subscribe { event in
        switch event {
        case .next(let element): events.append("\(element)")
        case .error(let error): events.append("x(\(error))")
        case .completed: events.append("|")
        }
    }
    subscription.dispose()
    return events
}

var lifecycle: [String] = []
let lifecycleSubscription = Observable.of("a", "b").subscribe(
    onNext: { lifecycle.append("next \($0)") },
    onError: { lifecycle.append("error \($0)") },
    onCompleted: { lifecycle.append("completed") },
    onDisposed: { lifecycle.append("disposed") }
)
assert(lifecycle == ["next a", "next b", "completed", "disposed"])

var failing: [String] = []
let failingSubscription = Observable.concat(.just("a"), .error(DemoError.boom)).subscribe(
    onNext: { failing.append("next \($0)") },
    onError: { failing.append("error \($0)") },
    onCompleted: { failing.append("completed") },
    onDisposed: { failing.append("disposed") }
)
assert(failing == ["next a", "error boom", "disposed"])

let liveSource = PublishSubject<String>()
var abandoned: [String] = []
let abandonedSubscription = liveSource.subscribe(
    onNext: { abandoned.append("next \($0)") },
    onCompleted: { abandoned.append("completed") },
    onDisposed: { abandoned.append("disposed") }
)
liveSource.onNext("a")
abandonedSubscription.dispose()
liveSource.onNext("b")                                  // nobody is listening any more
assert(abandoned == ["next a", "disposed"])

var order: [String] = []
let orderSubscription = Observable.of(1, 2)
    .do(
        onNext: { order.append("do onNext \($0)") },
        afterNext: { order.append("do afterNext \($0)") },
        onCompleted: { order.append("do onCompleted") },
        afterCompleted: { order.append("do afterCompleted") },
        onSubscribe: { order.append("do onSubscribe") },
        onSubscribed: { order.append("do onSubscribed") },
        onDispose: { order.append("do onDispose") }
    )
    .subscribe(
        onNext: { order.append("subscriber next \($0)") },
        onCompleted: { order.append("subscriber completed") },
        onDisposed: { order.append("subscriber disposed") }
    )

assert(order == [
    "do onSubscribe", "do onSubscribed",
    "do onNext 1", "subscriber next 1", "do afterNext 1",
    "do onNext 2", "subscriber next 2", "do afterNext 2",
    "do onCompleted", "subscriber completed", "subscriber disposed",
    "do afterCompleted", "do onDispose",
])

var described: [String] = []
let eventSubscription = Observable.of(1, 2).subscribe { event in
    switch event {
    case .next(let value): described.append("value \(value)")
    case .error(let error): described.append("failed with \(error)")
    case .completed: described.append("finished")
    }
}
assert(described == ["value 1", "value 2", "finished"])

let parsed = Observable.of("1", "2", "x", "4").map { text -> Int in
    guard let number = Int(text) else { throw DemoError.boom }
    return number
}
assert(record(parsed) == ["1", "2", "x(boom)"])          // "4" is never parsed

final class ErrorLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

nonisolated func installUnhandledErrorHandler(into log: ErrorLog) {
    Hooks.defaultErrorHandler = { _, error in
        log.append("\(error)")                         // and assertionFailure() in debug builds
    }
}

let unhandledErrors = ErrorLog()
installUnhandledErrorHandler(into: unhandledErrors)

let careless = parsed.subscribe(onNext: { _ in })        // no onError
assert(unhandledErrors.all == ["boom"])

nonisolated func secondsToSubscribe(times: Int) -> Double {
    let start = ContinuousClock.now
    for _ in 0..<times {
        _ = Observable.just(1).subscribe(onNext: { _ in })
    }
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

Hooks.recordCallStackOnError = true
let withStacks = secondsToSubscribe(times: 2_000)
Hooks.recordCallStackOnError = false
let withoutStacks = secondsToSubscribe(times: 2_000)
print("2,000 subscriptions:", withStacks, "s with call stacks,", withoutStacks, "s without")
assert(withStacks > 10 * withoutStacks)

final class ProfileHeader {
    private(set) var title = ""
    func show(_ name: String) { title = name }
}

let names = PublishSubject<String>()
var namesSent = 0
var headerDisposedCalls = 0
var appWideBag = DisposeBag()                             // lives longer than the header

var header: ProfileHeader? = ProfileHeader()
weak var weakHeader = header

names
    .do(onNext: { _ in namesSent += 1 })
    .subscribe(with: header!,
               onNext: { header, name in header.show(name) },
               onDisposed: { _ in headerDisposedCalls += 1 })
    .disposed(by: appWideBag)

names.onNext("Ada")
assert(header?.title == "Ada")

header = nil
assert(weakHeader == nil)

names.onNext("Grace")
names.onNext("Hopper")
assert(namesSent == 3)                                   // the chain still runs for a dead header

appWideBag = DisposeBag()                                // finally dispose the subscription
assert(headerDisposedCalls == 0)                         // onDisposed was skipped: no object to pass

var runningQueries = 0
@MainActor func liveDetails(for id: Int) -> Observable<String> {
    Observable.create { observer in
        runningQueries += 1
        observer.onNext("details for \(id)")
        return Disposables.create { runningQueries -= 1 }
    }
}

let selectedIDs = PublishSubject<Int>()
let screenBag = DisposeBag()
var shownDetails: [String] = []

selectedIDs.subscribe(onNext: { id in
    liveDetails(for: id)
        .subscribe(onNext: { shownDetails.append($0) })
        .disposed(by: screenBag)
}).disposed(by: screenBag)

selectedIDs.onNext(1)
selectedIDs.onNext(2)
selectedIDs.onNext(3)
assert(runningQueries == 3)                              // every old query is still running

runningQueries = 0
let selections = PublishSubject<Int>()
let latestDetails = selections
    .flatMapLatest { id in liveDetails(for: id) }
    .subscribe(onNext: { shownDetails.append($0) })

selections.onNext(1)
selections.onNext(2)
selections.onNext(3)
assert(runningQueries == 1)                              // only the query for 3 is running
latestDetails.dispose()
assert(runningQueries == 0)                              // and disposing the chain stops it

let selection = PublishSubject<Int>()
var selected: [String] = []
let selectionWatcher = selection.subscribe(
    onNext: { selected.append("\($0)") },
    onCompleted: { selected.append("|") }
)

let firstBinding = Observable.of(1, 2).subscribe(selection)   // forwards the completion too
selection.onNext(3)                                            // ignored: the subject has completed
assert(selected == ["1", "2", "|"])

var labelText = ""
let titleBinding = Observable.of("Inbox", "Inbox (1)").bind(onNext: { labelText = $0 })
assert(labelText == "Inbox (1)")

// Sluice: the seed shows this block crashing; it runs only in the acceptance test's child
// process (`--crash bind`), which checks that it stopped with "Binding error:".
if seedCrash == "bind" {
    // Crashes in a debug build: bind treats an error as a programmer error
    let parsedBinding = parsed.bind(onNext: { print($0) })
    withExtendedLifetime(parsedBinding) {}
    print("SEED CRASH BLOCK DID NOT STOP")
    exit(3)
}

withExtendedLifetime((lifecycleSubscription, failingSubscription, orderSubscription,
                      eventSubscription, careless, selectionWatcher, firstBinding,
                      titleBinding)) {}

print(seedFailures == 0 ? "SEED PASSED" : "SEED FAILED \(seedFailures)")
exit(seedFailures == 0 ? 0 : 1)
