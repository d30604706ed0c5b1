import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Keeps results alive so the optimiser cannot drop the work.
nonisolated(unsafe) var benchSink = 0

func allCases() -> [BenchCase] {
    var cases: [BenchCase] = []

    let chainCount = 1_000_000
    // A hundred sequences of 10,000 values rather than one of a million: `map` and `filter` on a
    // sequence publisher are eager, as in Combine, and build arrays; 8 MB arrays measured the
    // kernel's page faults (8.5 to 17 ns per value from run to run) more than the chain.
    let sequenceRuns = 100
    cases.append(BenchCase(
        name: "sequence → map → filter → sink", unit: "value", operations: chainCount,
        run: { for _ in 0..<sequenceRuns { benchSink &+= sluiceChain(chainCount / sequenceRuns) } },
        baseline: Baseline(name: "hand-written chain", operations: chainCount, run: { benchSink &+= baselineChain(chainCount) }),
        countsAllocations: true))

    cases.append(BenchCase(
        name: "same chain, closures written in main-actor code", unit: "value", operations: chainCount,
        run: { benchSink &+= MainActor.assumeIsolated { sluiceChainMainActor(chainCount) } },
        baseline: Baseline(name: "nonisolated closures", operations: chainCount, run: { benchSink &+= sluiceChain(chainCount) })))

    cases.append(BenchCase(
        name: "subject send → map → filter → sink", unit: "value", operations: chainCount,
        run: { benchSink &+= sluiceSubjectChain(chainCount) },
        baseline: Baseline(name: "hand-written chain + lock", operations: chainCount,
                           run: { benchSink &+= baselineLockedChain(chainCount) }),
        countsAllocations: true))

    for subscribers in [1, 10, 100] {
        let sends = 1_000_000 / subscribers
        cases.append(BenchCase(
            name: "fan-out to \(subscribers) subscriber\(subscribers == 1 ? "" : "s")", unit: "delivery",
            operations: sends * subscribers,
            run: { benchSink &+= sluiceFanOut(subscribers: subscribers, sends: sends) },
            baseline: Baseline(name: "lock + closure loop", operations: sends * subscribers,
                               run: { benchSink &+= baselineFanOut(subscribers: subscribers, sends: sends) })))
    }

    let subscribeCount = 200_000
    cases.append(BenchCase(
        name: "Just.map.sink subscribe and complete", unit: "subscription", operations: subscribeCount,
        run: { benchSink &+= sluiceJustSubscribe(subscribeCount) },
        baseline: Baseline(name: "3 objects + a lock", operations: subscribeCount,
                           run: { benchSink &+= baselineSubscribe(subscribeCount) }),
        countsAllocations: true))

    cases.append(BenchCase(
        name: "subject.map.filter.sink subscribe and cancel", unit: "subscription", operations: subscribeCount,
        run: { benchSink &+= sluiceSubscribeCancel(subscribeCount) },
        baseline: Baseline(name: "3 objects + a lock", operations: subscribeCount,
                           run: { benchSink &+= baselineSubscribe(subscribeCount) }),
        countsAllocations: true))

    let burst = 200_000
    cases.append(BenchCase(
        name: "receive(on:) serial queue, 200k burst", unit: "value", operations: burst,
        run: { benchSink &+= sluiceReceiveOn(burst) },
        baseline: Baseline(name: "DispatchQueue.async each", operations: burst, run: { benchSink &+= baselineDispatch(burst) })))

    // Combining operators (issue 5): every value crosses the operator's lock and, for zip,
    // its per-upstream buffer; the baseline takes one lock per value and runs the same chain.
    let combined = 1_000_000
    cases.append(BenchCase(
        name: "flatMap, 10,000 inner sequences of 100", unit: "value", operations: combined,
        run: { benchSink &+= sluiceFlatMap(inners: combined / 100, each: 100) },
        baseline: Baseline(name: "nested loops + lock", operations: combined,
                           run: { benchSink &+= baselineNested(outer: combined / 100, inner: 100) }),
        countsAllocations: true))
    cases.append(BenchCase(
        name: "merge of two subjects", unit: "value", operations: combined,
        run: { benchSink &+= sluiceMerge(combined) },
        baseline: Baseline(name: "hand-written chain + lock", operations: combined,
                           run: { benchSink &+= baselineLockedChain(combined) }),
        countsAllocations: true))
    cases.append(BenchCase(
        name: "combineLatest of two subjects", unit: "value", operations: combined,
        run: { benchSink &+= sluiceCombineLatest(combined) },
        baseline: Baseline(name: "lock + latest pair", operations: combined,
                           run: { benchSink &+= baselineLatestPair(combined) }),
        countsAllocations: true))
    cases.append(BenchCase(
        name: "zip of two subjects", unit: "pair", operations: combined / 2,
        run: { benchSink &+= sluiceZip(combined / 2) },
        baseline: Baseline(name: "lock + two queues", operations: combined / 2,
                           run: { benchSink &+= baselineZipQueues(combined / 2) }),
        countsAllocations: true))

    let debounced = 100_000
    cases.append(BenchCase(
        name: "debounce on TestScheduler", unit: "value", operations: debounced,
        run: { benchSink &+= sluiceDebounce(debounced) },
        baseline: Baseline(name: "closures from an array", operations: debounced, run: { benchSink &+= baselineClosures(debounced) })))

    let actions = 1_000_000
    cases.append(BenchCase(
        name: "TestScheduler, 1,000,000 actions", unit: "action", operations: actions,
        run: { benchSink &+= sluiceTestScheduler(actions) },
        baseline: Baseline(name: "closures from an array", operations: actions, run: { benchSink &+= baselineClosures(actions) })))

    // assertMainThread() (issue 6): compiled out of release builds unless Sluice is built with
    // -DSLUICE_DIAGNOSTICS; the case's name says which kind of build this is.
    cases.append(BenchCase(
        name: "assertMainThread() in a chain: \(DebugHooks.queueAssertionsEnabledByDefault ? "checking" : "compiled out")",
        unit: "value", operations: chainCount,
        run: { benchSink &+= sluiceAssertedChain(chainCount) },
        baseline: Baseline(name: "no assertMainThread", operations: chainCount,
                           run: { benchSink &+= sluiceUncheckedChain(chainCount) }),
        countsAllocations: true))

    let sites = 200_000
    cases.append(BenchCase(
        name: "sink, plain (no call site)", unit: "subscription", operations: sites,
        run: { benchSink &+= sinkPlain(sites) }, baseline: nil))
    cases.append(BenchCase(
        name: "trackedSink (records #fileID/#line)", unit: "subscription", operations: sites,
        run: { benchSink &+= sinkWithSite(sites) },
        baseline: Baseline(name: "plain sink", operations: sites, run: { benchSink &+= sinkPlain(sites) })))
    cases.append(BenchCase(
        name: "sink + live-subscription tracking", unit: "subscription", operations: sites,
        run: { benchSink &+= sinkTracked(sites) },
        baseline: Baseline(name: "plain sink", operations: sites, run: { benchSink &+= sinkPlain(sites) })))
    // DebugHooks.signalChecks (issue 21): a value through a trackedSink made with the checks
    // off costs what one through a plain sink does; made with them on, a lock per value.
    let checked = 1_000_000
    cases.append(BenchCase(
        name: "trackedSink per value, signalChecks off", unit: "value", operations: checked,
        run: { benchSink &+= sinkValues(checked, tracked: true, checks: []) },
        baseline: Baseline(name: "plain sink", operations: checked,
                           run: { benchSink &+= sinkValues(checked, tracked: false, checks: []) }),
        countsAllocations: true))
    cases.append(BenchCase(
        name: "trackedSink per value, signalChecks .all", unit: "value", operations: checked,
        run: { benchSink &+= sinkValues(checked, tracked: true, checks: .all) },
        baseline: Baseline(name: "signalChecks off", operations: checked,
                           run: { benchSink &+= sinkValues(checked, tracked: true, checks: []) }),
        countsAllocations: true))
    cases.append(BenchCase(
        name: "trackedSink subscribe, signalChecks off", unit: "subscription", operations: sites,
        run: { benchSink &+= sinkWithSite(sites) },
        baseline: Baseline(name: "plain sink", operations: sites, run: { benchSink &+= sinkPlain(sites) })))

    // withLatestFrom (issue 21): each value of the left subject goes out with the right's latest.
    cases.append(BenchCase(
        name: "withLatestFrom of two subjects", unit: "value", operations: combined,
        run: { benchSink &+= sluiceWithLatestFrom(combined) },
        baseline: Baseline(name: "lock + latest pair", operations: combined,
                           run: { benchSink &+= baselineLatestPair(combined) }),
        countsAllocations: true))

    let stacks = 2_000
    cases.append(BenchCase(
        name: "sink + Thread.callStackSymbols", unit: "subscription", operations: stacks,
        run: { benchSink &+= sinkWithCallStack(stacks) },
        baseline: Baseline(name: "plain sink", operations: stacks, run: { benchSink &+= sinkPlain(stacks) })))

    // SluiceRx: what Hooks.recordCallStackOnError costs per subscription,
    // and subscribeLogged's #fileID/#line capture, each against plain
    // subscribe(onNext:) (RxCases.swift).
    let rxSubscriptions = 100_000
    cases.append(BenchCase(
        name: "Rx subscribe(onNext:), stacks off", unit: "subscription", operations: rxSubscriptions,
        run: { benchSink &+= rxSubscribe(rxSubscriptions, recordingCallStacks: false) }, baseline: nil))
    let rxStacks = 2_000
    cases.append(BenchCase(
        name: "Rx subscribe, recordCallStackOnError", unit: "subscription", operations: rxStacks,
        run: { benchSink &+= rxSubscribe(rxStacks, recordingCallStacks: true) },
        baseline: Baseline(name: "stacks off", operations: rxStacks,
                           run: { benchSink &+= rxSubscribe(rxStacks, recordingCallStacks: false) })))
    cases.append(BenchCase(
        name: "Rx subscribeLogged (#fileID/#line)", unit: "subscription", operations: rxSubscriptions,
        run: { benchSink &+= rxSubscribeLogged(rxSubscriptions, intoLog: false) },
        baseline: Baseline(name: "stacks off", operations: rxSubscriptions,
                           run: { benchSink &+= rxSubscribe(rxSubscriptions, recordingCallStacks: false) })))
    cases.append(BenchCase(
        name: "Rx subscribeLogged into a site log", unit: "subscription", operations: rxSubscriptions,
        run: { benchSink &+= rxSubscribeLogged(rxSubscriptions, intoLog: true) },
        baseline: Baseline(name: "stacks off", operations: rxSubscriptions,
                           run: { benchSink &+= rxSubscribe(rxSubscriptions, recordingCallStacks: false) })))

    return cases
}

// MARK: Sluice pipelines, built in nonisolated code (see the README on main-actor closures)

@inline(never)
func sluiceChain(_ count: Int) -> Int {
    let total = Mutex(0)
    let cancellable = (0..<count).publisher.map { $0 &* 2 }.filter { $0 % 3 == 0 }.sink { value in total.withLock { $0 &+= value } }
    cancellable.cancel()
    return total.withLock { $0 }
}

/// The same pipeline built in main-actor code: each closure carries Swift's run-time isolation
/// check (the cost of the language-mode decision in docs/ARCHITECTURE.md, paid only by main-actor code).
@MainActor @inline(never)
func sluiceChainMainActor(_ count: Int) -> Int {
    let total = Mutex(0)
    let cancellable = (0..<count).publisher.map { $0 &* 2 }.filter { $0 % 3 == 0 }.sink { value in total.withLock { $0 &+= value } }
    cancellable.cancel()
    return total.withLock { $0 }
}

@inline(never)
func sluiceSubjectChain(_ count: Int) -> Int {
    let total = Mutex(0)
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.map { $0 &* 2 }.filter { $0 % 3 == 0 }.sink { value in total.withLock { $0 &+= value } }
    for value in 0..<count { subject.send(value) }
    cancellable.cancel()
    return total.withLock { $0 }
}

@inline(never)
func sluiceFanOut(subscribers: Int, sends: Int) -> Int {
    let total = Mutex(0)
    let subject = PassthroughSubject<Int, Never>()
    let cancellables = (0..<subscribers).map { _ in subject.sink { value in total.withLock { $0 &+= value } } }
    for value in 0..<sends { subject.send(value) }
    cancellables.forEach { $0.cancel() }
    return total.withLock { $0 }
}

@inline(never)
func sluiceJustSubscribe(_ count: Int) -> Int {
    let total = Mutex(0)
    for value in 0..<count {
        _ = Just(value).map { $0 &+ 1 }.sink { value in total.withLock { $0 &+= value } }
    }
    return total.withLock { $0 }
}

@inline(never)
func sluiceSubscribeCancel(_ count: Int) -> Int {
    let subject = PassthroughSubject<Int, Never>()
    var total = 0
    for _ in 0..<count {
        let cancellable = subject.map { $0 &* 2 }.filter { $0 % 3 == 0 }.sink { total &+= $0 }
        cancellable.cancel()
    }
    return total
}

@inline(never)
func sluiceReceiveOn(_ count: Int) -> Int {
    let queue = DispatchQueue(label: "sluice.serial")
    let subject = PassthroughSubject<Int, Never>()
    let next = Mutex(0)
    let outOfOrder = Mutex(0)
    let done = DispatchSemaphore(value: 0)
    let cancellable = subject.receive(on: queue).sink { value in
        next.withLock { expected in
            if value != expected { outOfOrder.withLock { $0 += 1 } }
            expected = value + 1
        }
        if value == count - 1 { done.signal() }
    }
    for value in 0..<count { subject.send(value) }
    done.wait()
    cancellable.cancel()
    precondition(outOfOrder.withLock { $0 } == 0, "receive(on:) delivered out of order")
    return next.withLock { $0 }
}

@inline(never)
func sluiceFlatMap(inners: Int, each: Int) -> Int {
    let total = Mutex(0)
    let cancellable = (0..<inners).publisher
        .flatMap { base in (0..<each).publisher.map { base &+ $0 } }
        .sink { value in total.withLock { $0 &+= value } }
    cancellable.cancel()
    return total.withLock { $0 }
}

@inline(never)
func sluiceMerge(_ count: Int) -> Int {
    let total = Mutex(0)
    let left = PassthroughSubject<Int, Never>()
    let right = PassthroughSubject<Int, Never>()
    let cancellable = left.merge(with: right).sink { value in total.withLock { $0 &+= value } }
    for value in stride(from: 0, to: count, by: 2) {
        left.send(value)
        right.send(value &+ 1)
    }
    cancellable.cancel()
    return total.withLock { $0 }
}

@inline(never)
func sluiceCombineLatest(_ count: Int) -> Int {
    let total = Mutex(0)
    let left = PassthroughSubject<Int, Never>()
    let right = PassthroughSubject<Int, Never>()
    let cancellable = left.combineLatest(right).sink { pair in total.withLock { $0 &+= pair.0 &+ pair.1 } }
    for value in stride(from: 0, to: count, by: 2) {
        left.send(value)
        right.send(value &+ 1)
    }
    cancellable.cancel()
    return total.withLock { $0 }
}

@inline(never)
func sluiceZip(_ pairs: Int) -> Int {
    let total = Mutex(0)
    let left = PassthroughSubject<Int, Never>()
    let right = PassthroughSubject<Int, Never>()
    let cancellable = left.zip(right).sink { pair in total.withLock { $0 &+= pair.0 &+ pair.1 } }
    // Ten ahead on the left, so the zip really buffers, then one on each side.
    for value in 0..<pairs {
        left.send(value)
        if value >= 10 { right.send(value &- 10) }
    }
    for value in max(0, pairs - 10)..<pairs { right.send(value) }
    cancellable.cancel()
    return total.withLock { $0 }
}

@inline(never)
func sluiceDebounce(_ count: Int) -> Int {
    let scheduler = DispatchQueue.test
    let subject = PassthroughSubject<Int, Never>()
    var total = 0
    let cancellable = subject.debounce(for: .milliseconds(10), scheduler: scheduler).sink { total &+= $0 }
    for value in 0..<count {
        subject.send(value)
        scheduler.advance(by: .milliseconds(10))
    }
    cancellable.cancel()
    precondition(total == (0..<count).reduce(0, +), "debounce lost a value")
    return total
}

@inline(never)
func sluiceTestScheduler(_ count: Int) -> Int {
    let scheduler = DispatchQueue.test
    var total = 0
    for index in 0..<count {
        scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(index % 1_000))) { total &+= 1 }
    }
    scheduler.run()
    precondition(total == count)
    return total
}


/// The bench runs on the main thread, so the check passes when it is compiled in.
@inline(never)
func sluiceAssertedChain(_ count: Int) -> Int {
    let total = Mutex(0)
    let cancellable = (0..<count).publisher.assertMainThread().sink { value in total.withLock { $0 &+= value } }
    cancellable.cancel()
    return total.withLock { $0 }
}

@inline(never)
func sluiceUncheckedChain(_ count: Int) -> Int {
    let total = Mutex(0)
    let cancellable = (0..<count).publisher.sink { value in total.withLock { $0 &+= value } }
    cancellable.cancel()
    return total.withLock { $0 }
}

// MARK: Call-site capture: the cost per subscription of
// remembering where `sink` was called, against plain `sink` and against capturing
// `Thread.callStackSymbols` as RxSwift's `Hooks.recordCallStackOnError` does.

/// Combine's `sink(receiveValue:)`, which records no site.
@inline(never) func sinkPlain(_ n: Int) -> Int {
    var total = 0
    for i in 0..<n { _ = Just(i).sink { total &+= $0 } }
    return total
}
/// `trackedSink { }`: records `#fileID` and `#line`.
@inline(never) func sinkWithSite(_ n: Int) -> Int {
    var total = 0
    for i in 0..<n { _ = Just(i).trackedSink { total &+= $0 } }
    return total
}
/// The same with `DebugHooks.tracksLiveSubscriptions` on: a registry insert and removal each.
@inline(never) func sinkTracked(_ n: Int) -> Int {
    DebugHooks.tracksLiveSubscriptions = true
    defer { DebugHooks.tracksLiveSubscriptions = false }
    return sinkWithSite(n)
}
/// Values sent through a subject into a sink: `trackedSink` made with `checks`, or plain `sink`.
@inline(never) func sinkValues(_ n: Int, tracked: Bool, checks: DebugHooks.SignalChecks) -> Int {
    DebugHooks.signalChecks = checks
    defer { DebugHooks.signalChecks = [] }
    let subject = PassthroughSubject<Int, Never>()
    var total = 0
    let cancellable = tracked ? subject.trackedSink { total &+= $0 } : subject.sink { total &+= $0 }
    for value in 0..<n { subject.send(value) }
    cancellable.cancel()
    return total
}

/// Sends alternate between the two subjects (as in the combineLatest case); every left value
/// goes out with the right's latest.
@inline(never)
func sluiceWithLatestFrom(_ count: Int) -> Int {
    let total = Mutex(0)
    let left = PassthroughSubject<Int, Never>()
    let right = PassthroughSubject<Int, Never>()
    let cancellable = left.withLatestFrom(right) { $0 &+ $1 }.sink { value in total.withLock { $0 &+= value } }
    for value in stride(from: 0, to: count, by: 2) {
        right.send(value &+ 1)
        left.send(value)
    }
    cancellable.cancel()
    return total.withLock { $0 }
}

/// Plain `sink` plus `Thread.callStackSymbols`, kept so it is not optimised away.
@inline(never) func sinkWithCallStack(_ n: Int) -> Int {
    var total = 0
    var kept = 0
    for i in 0..<n {
        let stack = Thread.callStackSymbols
        kept &+= stack.count
        _ = Just(i).sink { total &+= $0 }
    }
    return total &+ kept
}
