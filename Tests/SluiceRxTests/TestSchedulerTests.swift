import Foundation
import Testing
import SluiceRx
import SluiceRxTest

@Suite("SluiceRxTest: RxTest's TestScheduler on SluiceTesting's virtual time")
struct TestSchedulerTests {
    @Test("a hot observable plays at its ticks; start(created:subscribed:disposed:) records what arrives and when")
    func hotObservable() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .completed(300),
        ])
        let result = scheduler.start { xs.map { $0 * 10 } }
        #expect(result.events == [.next(210, 20), .next(220, 30), .completed(300)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test("disposing at 250 ends the subscription there")
    func disposal() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "a"), .next(260, "b"), .completed(300)])
        let result = scheduler.start(disposed: 250) { xs.asObservable() }
        #expect(result.events == [.next(210, "a")])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }

    @Test("a cold observable plays from each subscription; errors are recorded")
    func coldObservable() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, RxTestError.boom)])
        let result = scheduler.start { xs.asObservable() }
        #expect(result.events == [.next(210, 1), .error(220, RxTestError.boom)])
        #expect(xs.subscriptions == [Subscription(200, 220)])
    }

    /// The time operators are Sluice's, with Combine's semantics: a completion (and throttle's
    /// first element) goes through the scheduler, so on this scheduler, with RxTest's processing
    /// delay, it arrives a tick later than RxSwift's would; `throttle(latest: false)` emits the
    /// first element of each window at the window's end, where RxSwift drops it.
    @Test("debounce, throttle and delay run on virtual time: one tick is one second")
    func timeOperators() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(212, 2), .next(220, 3), .completed(240),
        ])
        let debounced = scheduler.start { xs.debounce(.seconds(5), scheduler: scheduler) }
        #expect(debounced.events == [.next(217, 2), .next(225, 3), .completed(241)])

        let delayScheduler = TestScheduler(initialClock: 0)
        let ys = delayScheduler.createHotObservable([.next(210, 1), .completed(220)])
        let delayed = delayScheduler.start { ys.delay(.seconds(3), scheduler: delayScheduler) }
        #expect(delayed.events == [.next(213, 1), .completed(223)])

        let throttleScheduler = TestScheduler(initialClock: 0)
        let zs = throttleScheduler.createHotObservable([
            .next(210, 1), .next(211, 2), .next(212, 3), .next(230, 4), .completed(250),
        ])
        let throttled = throttleScheduler.start { zs.throttle(.seconds(5), latest: false, scheduler: throttleScheduler) }
        #expect(throttled.events == [.next(211, 1), .next(216, 3), .next(231, 4), .completed(251)])
    }

    @Test("observe(on:) the test scheduler adds RxTest's one-tick processing delay, unless it is off")
    func processingDelay() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let result = scheduler.start { xs.observe(on: scheduler) }
        #expect(result.events == [.next(211, 1), .completed(221)])

        let exact = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let ys = exact.createHotObservable([.next(210, 1), .completed(220)])
        #expect(exact.start { ys.observe(on: exact) }.events == [.next(210, 1), .completed(220)])
    }

    @Test("marble diagrams: hot and cold observables from SluiceTesting's marbles")
    func marbles() {
        let scheduler = TestScheduler(initialClock: 0)
        let hot = scheduler.createHotObservable("--a--b--|", values: ["a": 1, "b": 2])
        let observer = scheduler.createObserver(Int.self)
        let subscription = hot.subscribe(observer)
        scheduler.start()
        #expect(observer.events == [.next(2, 1), .next(5, 2), .completed(8)])
        subscription.dispose()

        let cold = scheduler.createColdObservable("-x#", values: ["x": 9], errors: ["#": RxTestError.boom])
        let coldObserver = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(20) { _ = cold.subscribe(coldObserver) }
        scheduler.start()
        #expect(coldObserver.events == [.next(21, 9), .error(22, RxTestError.boom)])
    }

    @Test("scheduleAt and advanceTo move the clock; the clock starts at initialClock")
    func clock() {
        let scheduler = TestScheduler(initialClock: 100)
        #expect(scheduler.clock == 100)
        var ran: [Int] = []
        scheduler.scheduleAt(150) { ran.append(scheduler.clock) }
        scheduler.scheduleAt(300) { ran.append(scheduler.clock) }
        scheduler.advanceTo(200)
        #expect(ran == [150])
        #expect(scheduler.clock == 200)
        scheduler.start()
        #expect(ran == [150, 300])
        #expect(scheduler.now == Date(timeIntervalSince1970: 300))
    }
}
