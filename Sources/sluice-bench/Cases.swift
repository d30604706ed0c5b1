import Foundation
import Synchronization
import Sluice
import SluiceTesting

/// Keeps results alive so the optimiser cannot drop the work.
nonisolated(unsafe) var benchSink = 0

func allCases() -> [BenchCase] {
    var cases: [BenchCase] = []

    let chainCount = 1_000_000
    cases.append(BenchCase(
        name: "sequence → map → filter → sink", unit: "value", operations: chainCount,
        run: { benchSink &+= sluiceChain(chainCount) },
        baseline: Baseline(name: "hand-written chain", operations: chainCount, run: { benchSink &+= baselineChain(chainCount) }),
        countsAllocations: true))

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
