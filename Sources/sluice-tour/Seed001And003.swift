import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// Seed 001, "Schedulers and threads".

func seed001Scenarios() -> [Scenario] {
    [
        Scenario(id: "timer-connect", seed: "001", section: "Timers, and why Timer.publish needs connect",
                 claim: "Timer.publish does nothing until connect() or autoconnect()") {
            var unconnected = 0
            let ticks = WallClockTimeline(resolution: .milliseconds(10))
            let timer = Timer.publish(every: 0.02, on: .main, in: .common)
            let idle = timer.sink { _ in unconnected += 1 }
            runMainLoop(for: 0.15)
            let beforeConnect = unconnected
            var connected = 0
            ticks.value("connect")
            let connection = timer.connect()
            let ticking = timer.sink { _ in connected += 1; ticks.value("tick") }
            runMainLoop(for: 2, until: { connected >= 3 })
            connection.cancel()
            var auto = 0
            let autoconnected = Timer.publish(every: 0.02, on: .main, in: .common).autoconnect().sink { _ in auto += 1 }
            runMainLoop(for: 2, until: { auto >= 3 })
            autoconnected.cancel()
            withExtendedLifetime((idle, ticking)) {}
            var chart = MarbleChart(tick: .milliseconds(10),
                                    title: "Timer.publish(every: 0.02): 150 ms unconnected, then c = connect(), t = a tick")
            chart.add("timer", ticks.timeline, until: .milliseconds(240), label: { $0 == "connect" ? "c" : "t" })
            return Outcome("ticks before connect(): \(beforeConnect); after connect(): \(connected); with autoconnect(): \(auto)",
                           holds: beforeConnect == 0 && connected >= 3 && auto >= 3, svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "timer-modes", seed: "001", section: "Timers, and why Timer.publish needs connect",
                 claim: "A timer in .common keeps firing while the run loop tracks; one in .default pauses") {
            let (trackingMode, keepAlive) = makeTrackingMode("SluiceTourTimerTracking")
            defer { keepAlive.invalidate() }
            var common = 0, defaultMode = 0
            let commonLine = WallClockTimeline(resolution: .milliseconds(20))
            let defaultLine = WallClockTimeline(resolution: .milliseconds(20))
            let a = Timer.publish(every: 0.02, on: .main, in: .common).autoconnect().sink { _ in
                common += 1
                commonLine.value("t")
            }
            let b = Timer.publish(every: 0.02, on: .main, in: .default).autoconnect().sink { _ in
                defaultMode += 1
                defaultLine.value("t")
            }
            runMainLoop(for: 0.3, mode: trackingMode)
            runMainLoop(for: 5, mode: trackingMode, until: { common > 0 })    // a loaded machine may be late
            a.cancel()
            b.cancel()
            var chart = MarbleChart(tick: .milliseconds(20), title: "two 20 ms timers while the main run loop tracks for 300 ms")
            chart.add(".common", commonLine.timeline, until: .milliseconds(300))
            chart.add(".default", defaultLine.timeline, until: .milliseconds(300))
            return Outcome("while tracking for 0.3 s: .common fired \(common) times, .default \(defaultMode)",
                           holds: common > 0 && defaultMode == 0, svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "serial-confinement", seed: "001", section: "Thread confinement in practice",
                 claim: "receive(on: a private serial queue) right after a subject fed from many threads runs every downstream stage on that one queue") {
            let queue = DispatchQueue(label: "com.example.sync")
            let subject = PassthroughSubject<Int, Never>()
            let log = TraceLog()
            let done = DispatchSemaphore(value: 0)
            let handle = subject.receive(on: queue)
                .map { $0 * 2 }
                .trace("downstream", to: log)
                .sink { @Sendable value in if value == -2 { done.signal() } }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for i in 0..<250 { subject.send(thread * 250 + i) }
            }
            subject.send(-1)
            _ = done.wait(timeout: .now() + 10)
            handle.cancel()
            let labels = Set(log.entries.filter { if case .value = $0.signal { true } else { false } }.map { $0.context.queueLabel })
            let count = log.entries.filter { if case .value = $0.signal { true } else { false } }.count
            return Outcome("\(count) values sent from 4 threads arrived on queues \(labels.sorted())",
                           holds: count == 1_001 && labels == ["com.example.sync"])
        },
    ]
}

// Seed 003, "subscribe(on:)/receive(on:) placement and the .share() cache".

func seed003Scenarios() -> [Scenario] {
    [
        Scenario(id: "construction-runs-at-once", seed: "003", section: "<1> and <2>; makePublisher()",
                 claim: "Work done while building a publisher runs at once, on the caller's thread; inside Deferred it waits for the subscription") {
            let log = SignalLog()
            func makePublisher() -> Just<Int> {
                log.append("constructed on \(currentThread())")
                return Just(1)
            }
            let queue = DispatchQueue(label: "session")
            let eager = makePublisher().subscribe(on: queue).sink { _ in }
            let eagerLog = log.all
            let lazy = Deferred { makePublisher() }.subscribe(on: queue).sink { _ in }
            runMainLoop(for: 2, until: { log.all.count == 2 })
            withExtendedLifetime((eager, lazy)) {}
            return Outcome("plain: \(eagerLog.first ?? "-") before subscribe(on:) could act; Deferred: \(log.all.last ?? "-")",
                           holds: eagerLog == ["constructed on main"] && log.all == ["constructed on main", "constructed on background"])
        },
        Scenario(id: "share-no-replay", seed: "003", section: ".share(), a cached instance and a cached value are three things",
                 claim: "share() does not replay: B, subscribing after A got the state, receives nothing until the next change") {
            let (a, b) = lateSubscriber { $0.share().eraseToAnyPublisher() }
            return Outcome("A received \(a); B (subscribed later, demand .none, then .max(1)) received \(b)",
                           holds: a == [true] && b.isEmpty)
        },
        Scenario(id: "share-replay", seed: "003", section: "Why a custom shareReplay can drop values in SwiftUI",
                 claim: "share(replay: 1) replays the current state to B, even when B's demand arrives after it subscribed") {
            let scheduler = DispatchQueue.test
            let (a, b) = lateSubscriber { $0.share(replay: 1).eraseToAnyPublisher() }
            let state = PassthroughSubject<Bool, Never>()
            let shared = state.share(replay: 1)
            let first = shared.recordTimeline(on: scheduler)
            state.send(true)
            scheduler.advance(by: .seconds(2))
            let late = shared.recordTimeline(on: scheduler, initialDemand: .none)
            scheduler.advance(by: .seconds(1))
            late.request(.max(1))
            scheduler.advance(by: .seconds(1))
            var chart = MarbleChart(tick: .seconds(1), title: "share(replay: 1): B asks for demand one tick after subscribing")
            chart.add("A", first.timeline, showsSubscription: true, until: .seconds(5))
            chart.add("B", late.timeline, showsSubscription: true, until: .seconds(5))
            return Outcome("A received \(a); B (subscribed later, demand .none, then .max(1)) received \(b)",
                           holds: a == [true] && b == [true], svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "serial-cache", seed: "003", section: "The cache must look up and create on one isolation",
                 claim: "Lookup-create-store on one serial session queue never creates two shared publishers for concurrent first callers") {
            let session = StudioSession()
            let callers = 200
            let publishers = Mutex<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: callers) { _ in
                let cancellable = session.studioModeStatePublisher().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
                _ = cancellable
                publishers.withLock { $0.append(session.lastHandedOut) }
            }
            let created = session.created.load(ordering: .sequentiallyConsistent)
            let distinct = Set(publishers.withLock { $0 }).count
            return Outcome("\(callers) concurrent first callers: \(created) shared publisher created, \(distinct) distinct instance handed out",
                           holds: created == 1 && distinct == 1)
        },
    ]
}

/// A subscribes and gets the initial state; B subscribes later with demand `.none`, then asks
/// for one value. Returns what each received.
private func lateSubscriber(_ share: (AnyPublisher<Bool, Never>) -> AnyPublisher<Bool, Never>) -> ([Bool], [Bool]) {
    let state = PassthroughSubject<Bool, Never>()
    let shared = share(state.eraseToAnyPublisher())
    var a: [Bool] = []
    let first = shared.sink { a.append($0) }
    state.send(true)
    let b = TestSubscriber<Bool, Never>(initialDemand: .none)
    shared.subscribe(b)
    b.request(.max(1))
    withExtendedLifetime(first) {}
    return (a, b.values)
}

/// Seed 003's session object reduced to its cache: lookup, create and store happen on one
/// serial queue, reached through `Just(()).receive(on:).flatMap`, as the seed's answer writes it.
final class StudioSession: @unchecked Sendable {
    let sessionQueue = DispatchQueue(label: "session")
    private var cached: AnyPublisher<Bool, Error>?
    private var cachedIdentity = ObjectIdentifier(StudioSession.self)
    let created = Atomic<Int>(0)
    var lastHandedOut: ObjectIdentifier { sessionQueue.sync { cachedIdentity } }

    func studioModeStatePublisher() -> AnyPublisher<Bool, Error> {
        Just(())
            .setFailureType(to: Error.self)
            .receive(on: sessionQueue)
            .flatMap { [weak self] _ -> AnyPublisher<Bool, Error> in
                guard let self else { return Empty<Bool, Error>().eraseToAnyPublisher() }
                return self.studioModeStateOnQueue()
            }
            .eraseToAnyPublisher()
    }

    private func studioModeStateOnQueue() -> AnyPublisher<Bool, Error> {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        if let cached { return cached }
        created.add(1, ordering: .sequentiallyConsistent)
        let shared = Publishers.Share(upstream: Just(true).setFailureType(to: Error.self).eraseToAnyPublisher())
        cachedIdentity = ObjectIdentifier(shared)
        let erased = shared.eraseToAnyPublisher()
        cached = erased
        return erased
    }
}
