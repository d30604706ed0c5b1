import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// Time: a debounced search on virtual time, timers that need connecting, and what the main run
// loop's modes hold back.

func timeScenarios() -> [Scenario] {
    [
        Scenario(id: "search-model", topic: .time,
                 title: "Virtual time: a debounced search answers at exactly 300 ms",
                 code: #"""
                 // SearchModel: query.debounce(for: .milliseconds(300), scheduler: scheduler).removeDuplicates()
                 //     .map(search).switchToLatest().receive(on: scheduler).sink { results = $0 }
                 let model = SearchModel(search: search, scheduler: AnyScheduler(testScheduler))
                 model.query.send("sw"); model.query.send("swift")
                 testScheduler.advance(by: .milliseconds(299)); testScheduler.advance(by: .milliseconds(1))
                 SearchModel(search: search).query.send("combine")    // on DispatchQueue.main
                 """#,
                 why: "The model takes its scheduler as a parameter, so a test passes a virtual clock that moves "
                     + "only when told, and debounce fires at exactly 300 ms of it, without waiting.") {
            // The model is main-actor isolated, its `query` too (a subject is not Sendable, as in
            // Combine), and the tour runs on the main thread.
            MainActor.assumeIsolated { () -> Outcome in
                let testClock = VirtualTimeScheduler()
                let testModel = SearchModel(search: { query in Just(["\(query) result"]).eraseToAnyPublisher() },
                                            scheduler: AnyScheduler(testClock))
                // The same pipeline, recorded, for the diagram.
                let queries = testModel.query.recordTimeline(on: testClock)
                let results = testModel.query
                    .debounce(for: .milliseconds(300), scheduler: AnyScheduler(testClock))
                    .removeDuplicates()
                    .map { query in Just(["\(query) result"]).eraseToAnyPublisher() }
                    .switchToLatest()
                    .receive(on: AnyScheduler(testClock))
                    .recordTimeline(on: testClock)
                testModel.query.send("sw")
                testModel.query.send("swift")
                testClock.advance(by: .milliseconds(299))
                let at299 = testModel.results
                testClock.advance(by: .milliseconds(1))
                let at300 = testModel.results
                testClock.advance(by: .milliseconds(200))
                let liveModel = SearchModel(search: { query in Just(["\(query) result"]).eraseToAnyPublisher() })
                liveModel.query.send("combine")
                runMainLoop(for: 3, until: { liveModel.results == ["combine result"] })
                let live = liveModel.results
                var chart = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300)) → switchToLatest → receive(on:)")
                chart.add("query", queries.timeline, until: .milliseconds(500))
                chart.add("results", results.timeline, until: .milliseconds(500),
                          label: { $0.joined(separator: ",") })
                return Outcome("results at 299 ms: \(at299); at 300 ms: \(at300); the same model live on DispatchQueue.main: \(live)",
                               holds: at299.isEmpty && at300 == ["swift result"] && live == ["combine result"],
                               svg: chart.svg, marbles: chart.text)
            }
        },
        Scenario(id: "timer-connect", topic: .time,
                 title: "Timer.publish does nothing until connect() or autoconnect()",
                 code: #"""
                 let timer = Timer.publish(every: 0.02, on: .main, in: .common)
                 timer.sink { _ in ... }    // then 150 ms of the main run loop
                 let connection = timer.connect()
                 timer.sink { _ in ... }
                 Timer.publish(every: 0.02, on: .main, in: .common).autoconnect().sink { _ in ... }
                 """#,
                 why: "Timer.publish returns a connectable publisher: the timer is put on the run loop only by "
                     + "connect(), or by autoconnect() when the first subscriber arrives.") {
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
            return Outcome("ticks in the 150 ms before connect(): \(beforeConnect); after connect(): \(connected); "
                           + "with autoconnect(): \(auto)",
                           holds: beforeConnect == 0 && connected >= 3 && auto >= 3, svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "timer-modes", topic: .time,
                 title: "During a scroll, a .common timer fires and .default pauses",
                 code: #"""
                 Timer.publish(every: 0.02, on: .main, in: .common).autoconnect().sink { _ in ... }
                 Timer.publish(every: 0.02, on: .main, in: .default).autoconnect().sink { _ in ... }
                 RunLoop.main.run(mode: trackingMode, for: 0.3)    // as while a scroll view is dragged
                 """#,
                 why: "A timer fires only in the run-loop modes it was added to: .common means every mode marked "
                     + "common, which includes the scrolling mode, and .default is not that mode.") {
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
            var chart = MarbleChart(tick: .milliseconds(20),
                                    title: "two 20 ms timers while the main run loop is in another mode for 300 ms")
            chart.add(".common", commonLine.timeline, until: .milliseconds(300))
            chart.add(".default", defaultLine.timeline, until: .milliseconds(300))
            return Outcome("0.3 s with the main run loop in another mode, as when a user drags a scroll view on macOS: "
                           + "the .common timer fired \(common) times, the .default one \(defaultMode)",
                           holds: common > 0 && defaultMode == 0, svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "run-loop-tracking", topic: .time,
                 title: "RunLoop.main waits out a scroll; DispatchQueue.main does not",
                 code: #"""
                 updates.receive(on: RunLoop.main).sink { ... }
                 updates.receive(on: DispatchQueue.main).sink { ... }
                 updates.receive(on: OperationQueue.main).sink { ... }
                 updates.send(1)
                 RunLoop.main.run(mode: trackingMode, for: 0.2)    // as while a scroll view is dragged
                 """#,
                 why: "RunLoop.main as a scheduler performs its work in the default mode only, while the main "
                     + "queue, which OperationQueue.main runs on, is served in every common mode.") {
            let (trackingMode, keepAlive) = makeTrackingMode("SluiceTourTrackingMode")
            defer { keepAlive.invalidate() }
            let updates = PassthroughSubject<Int, Never>()
            var viaRunLoop = 0, viaDispatchQueue = 0, viaOperationQueue = 0
            let sent = WallClockTimeline(resolution: .milliseconds(20)), runLoopLine = WallClockTimeline(resolution: .milliseconds(20))
            let dispatchLine = WallClockTimeline(resolution: .milliseconds(20))
            let operationLine = WallClockTimeline(resolution: .milliseconds(20))
            let a = updates.receive(on: RunLoop.main).sink { viaRunLoop += 1; runLoopLine.value("\($0)") }
            let b = updates.receive(on: DispatchQueue.main).sink { viaDispatchQueue += 1; dispatchLine.value("\($0)") }
            let c = updates.receive(on: OperationQueue.main).sink { viaOperationQueue += 1; operationLine.value("\($0)") }
            sent.value("1")
            updates.send(1)
            runMainLoop(for: 0.2, mode: trackingMode)
            runMainLoop(for: 5, mode: trackingMode, until: { viaDispatchQueue == 1 && viaOperationQueue == 1 })
            let whileTracking = (viaRunLoop, viaDispatchQueue, viaOperationQueue)
            runMainLoop(for: 1, until: { viaRunLoop == 1 })
            withExtendedLifetime((a, b, c)) {}
            var chart = MarbleChart(tick: .milliseconds(20),
                                    title: "send(1), then 200 ms with the run loop in another mode, then the default mode")
            chart.add("send", sent.timeline, until: .milliseconds(260))
            chart.add("DispatchQueue.main", dispatchLine.timeline, until: .milliseconds(260))
            chart.add("OperationQueue.main", operationLine.timeline, until: .milliseconds(260))
            chart.add("RunLoop.main", runLoopLine.timeline, until: .milliseconds(260))
            return Outcome("while the run loop is in another mode, as when a user drags a scroll view on macOS: "
                           + "RunLoop.main delivered \(whileTracking.0), DispatchQueue.main \(whileTracking.1), "
                           + "OperationQueue.main \(whileTracking.2); back in the default mode: RunLoop.main \(viaRunLoop)",
                           holds: whileTracking == (0, 1, 1) && viaRunLoop == 1, svg: chart.svg, marbles: chart.text)
        },
    ]
}

/// A search screen's model: the query is debounced, each new query replaces the search in
/// flight, and results arrive on `scheduler`, which a test replaces with virtual time.
@MainActor
final class SearchModel {
    private(set) var results: [String] = []
    let query = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(search: @escaping @Sendable (String) -> AnyPublisher<[String], Never>,
         scheduler: AnySchedulerOf<DispatchQueue> = AnyScheduler(DispatchQueue.main)) {
        query
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates()
            .map(search)
            .switchToLatest()
            .receive(on: scheduler)
            .sink { [weak self] in self?.results = $0 }
            .store(in: &cancellables)
    }
}
