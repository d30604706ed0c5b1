import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceRx
import SluiceTesting

/// RxTest's `TestScheduler`: virtual time in integer ticks, for testing SluiceRx chains
/// deterministically. Sluice: `SluiceTesting`'s `TestScheduler`, on dispatch time.
///
/// One tick is `resolution` seconds (1 by default), so `debounce(.seconds(1), scheduler:)`
/// waits one tick. As in RxTest, with `simulateProcessingDelay` (the default) work scheduled
/// for now, or for the past, runs one tick later: an `observe(on: scheduler)` moves each event
/// one tick on.
///
/// ```swift
/// let scheduler = TestScheduler(initialClock: 0)
/// let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
/// let result = scheduler.start { xs.map { $0 * 10 } }
/// // result.events == [.next(210, 10), .next(220, 20), .completed(300)]
/// // xs.subscriptions == [Subscription(200, 300)]
/// ```
public final class TestScheduler: SchedulerType, @unchecked Sendable {
    /// The Sluice virtual-time scheduler that keeps the clock and runs the work (RxTest has no
    /// counterpart). Sluice: `SluiceTesting.TestScheduler`.
    public let virtualTimeScheduler: SluiceTesting.TestScheduler<DispatchQueue.SchedulerTimeType,
                                                                 DispatchQueue.SchedulerOptions>
    /// Seconds per tick: the `resolution` RxTest's initialiser takes. SluiceRx's own.
    public let resolution: Double
    /// Whether work scheduled for now (or the past) runs a tick later, as in RxTest: the
    /// `simulateProcessingDelay` RxTest's initialiser takes. SluiceRx's own.
    public let simulateProcessingDelay: Bool
    /// The tick the clock started at: the `initialClock` RxTest's initialiser takes.
    /// SluiceRx's own.
    public let initialClock: TestTime

    private let zero: DispatchQueue.SchedulerTimeType
    private let tickNanoseconds: Int

    /// RxTest's `TestScheduler(initialClock:resolution:simulateProcessingDelay:)`: a scheduler
    /// whose clock starts at `initialClock`. Sluice: a new `SluiceTesting.TestScheduler`.
    public init(initialClock: TestTime, resolution: Double = 1.0, simulateProcessingDelay: Bool = true) {
        precondition(resolution > 0, "TestScheduler needs a positive resolution")
        let engine = SluiceTesting.TestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>()
        virtualTimeScheduler = engine
        self.resolution = resolution
        self.simulateProcessingDelay = simulateProcessingDelay
        self.initialClock = initialClock
        zero = engine.now
        tickNanoseconds = max(1, Int((resolution * 1e9).rounded()))
    }

    /// RxTest's `clock`: the current virtual time, in ticks.
    /// Sluice: the `SluiceTesting.TestScheduler`'s `now`, counted in ticks.
    public var clock: TestTime {
        ticks(of: virtualTimeScheduler.now)
    }

    /// RxTest's `now`: `clock * resolution` seconds after 1970, as a date.
    /// Sluice: the virtual clock, through ``clock``.
    public var now: RxTime {
        Date(timeIntervalSince1970: Double(clock) * resolution)
    }

    /// The virtual-time scheduler, erased, with RxTest's processing delay applied (RxTest has no
    /// counterpart). Sluice: an `AnyScheduler` over the `SluiceTesting.TestScheduler`.
    public var sluiceScheduler: RxEngineScheduler {
        let engine = virtualTimeScheduler
        return AnyScheduler(
            minimumTolerance: { .zero },
            now: { engine.now },
            scheduleImmediately: { [self] _, action in
                engine.schedule(after: adjusted(engine.now), tolerance: .zero, options: nil, action)
            },
            delayed: { [self] time, _, _, action in
                engine.schedule(after: adjusted(time), tolerance: .zero, options: nil, action)
            },
            interval: { [self] time, interval, _, _, action in
                engine.schedule(after: adjusted(time), interval: interval, tolerance: .zero, options: nil, action)
            })
    }

    /// RxTest's `scheduleAt(_:action:)`: runs `action` at tick `time` (a tick later if that is
    /// not in the future and the processing delay is simulated).
    /// Sluice: `schedule(after:tolerance:options:_:)` on the `SluiceTesting.TestScheduler`.
    public func scheduleAt(_ time: TestTime, action: @escaping () -> Void) {
        virtualTimeScheduler.schedule(after: adjusted(instant(of: time)), tolerance: .zero, options: nil, action)
    }

    /// RxTest's `start()`: runs everything scheduled, moving the clock as it goes, until nothing
    /// is left. Sluice: `SluiceTesting.TestScheduler.run()`.
    public func start() {
        virtualTimeScheduler.run()
    }

    /// RxTest's `advanceTo(_:)`: runs everything due up to and including tick `time`, and moves
    /// the clock there. Sluice: `SluiceTesting.TestScheduler.advance(to:)`.
    public func advanceTo(_ time: TestTime) {
        virtualTimeScheduler.advance(to: instant(of: time))
    }

    /// RxTest's `createObserver(_:)`: an observer that records every event with the tick it
    /// arrived at. SluiceRx's own: a ``TestableObserver``.
    public func createObserver<Element>(_ type: Element.Type) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// RxTest's `createHotObservable(_:)`: a hot observable that plays `events` at their ticks
    /// to whoever is subscribed then, and records each subscription.
    /// Sluice: one ``scheduleAt(_:action:)`` per event, on the `SluiceTesting.TestScheduler`.
    public func createHotObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        let observable = TestableObservable<Element>(scheduler: self, events: events, hot: true)
        for recorded in events {
            scheduleAt(recorded.time) { observable.send(recorded.value) }
        }
        return observable
    }

    /// RxTest's `createColdObservable(_:)`: a cold observable that plays `events` to each
    /// subscriber, their ticks counted from its subscription, and records each subscription.
    /// Sluice: one ``scheduleAt(_:action:)`` per event and subscription.
    public func createColdObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        TestableObservable(scheduler: self, events: events, hot: false)
    }

    /// A hot observable played from a marble diagram: one tick per character from now, values
    /// from `values`, errors for `#` from `errors`. RxTest has no marble form.
    /// Sluice: `SluiceTesting`'s `hot(_:values:errors:…)`, a `HotMarblePublisher`.
    public func createHotObservable<Element>(_ marbles: String, values: [String: Element],
                                             errors: [String: Swift.Error] = [:]) -> Observable<Element> {
        virtualTimeScheduler.hot(marbles, values: values, errors: errors, tick: tickDuration).asObservable()
    }

    /// A cold observable played from a marble diagram: one tick per character from each
    /// subscription. RxTest has no marble form.
    /// Sluice: `SluiceTesting`'s `cold(_:values:errors:…)`, a `ColdMarblePublisher`.
    public func createColdObservable<Element>(_ marbles: String, values: [String: Element],
                                              errors: [String: Swift.Error] = [:]) -> Observable<Element> {
        virtualTimeScheduler.cold(marbles, values: values, errors: errors, tick: tickDuration).asObservable()
    }

    /// RxTest's `start(created:subscribed:disposed:create:)`: makes the observable at `created`,
    /// subscribes an observer at `subscribed`, disposes at `disposed`, runs everything, and
    /// returns what the observer recorded. Sluice: three ``scheduleAt(_:action:)`` calls, then
    /// `SluiceTesting.TestScheduler.run()`.
    public func start<Element>(created: TestTime = 100, subscribed: TestTime = 200, disposed: TestTime = 1000,
                               create: @escaping () -> Observable<Element>) -> TestableObserver<Element> {
        var source: Observable<Element>?
        var subscription: Disposable?
        let observer = createObserver(Element.self)
        scheduleAt(created) { source = create() }
        scheduleAt(subscribed) { subscription = source?.subscribe(observer) }
        scheduleAt(disposed) { subscription?.dispose() }
        start()
        return observer
    }

    /// RxTest's `start(disposed:create:)`: `start` with the default creation and subscription
    /// ticks (100, 200). Sluice: as `start(created:subscribed:disposed:create:)`.
    public func start<Element>(disposed: TestTime, create: @escaping () -> Observable<Element>) -> TestableObserver<Element> {
        start(created: 100, subscribed: 200, disposed: disposed, create: create)
    }

    // MARK: Ticks and instants

    internal func instant(of tick: TestTime) -> DispatchQueue.SchedulerTimeType {
        zero.advanced(by: .nanoseconds((tick - initialClock) * tickNanoseconds))
    }

    private func ticks(of instant: DispatchQueue.SchedulerTimeType) -> TestTime {
        initialClock + zero.distance(to: instant).magnitude / tickNanoseconds
    }

    private var tickDuration: Duration {
        .nanoseconds(tickNanoseconds)
    }

    /// RxTest's `adjustScheduledTime`: work due now or earlier runs a tick later when the
    /// processing delay is simulated.
    private func adjusted(_ time: DispatchQueue.SchedulerTimeType) -> DispatchQueue.SchedulerTimeType {
        let now = virtualTimeScheduler.now
        guard time <= now else { return time }
        return simulateProcessingDelay ? instant(of: ticks(of: now) + 1) : now
    }
}

/// RxTest's `TestableObserver`: records every event with its tick.
/// SluiceRx's own; the tick is read from the ``TestScheduler``'s clock.
public final class TestableObserver<Element>: ObserverType, @unchecked Sendable {
    private unowned let scheduler: TestScheduler
    private let lock = NSLock()
    private var recorded: [Recorded<Event<Element>>] = []

    internal init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// RxTest's `TestableObserver.events`: the events so far, with their ticks. SluiceRx's own.
    public var events: [Recorded<Event<Element>>] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// RxTest's `TestableObserver.on(_:)`: records the event at the scheduler's current tick.
    /// SluiceRx's own.
    public func on(_ event: Event<Element>) {
        let time = scheduler.clock
        lock.lock()
        recorded.append(Recorded(time: time, value: event))
        lock.unlock()
    }
}

/// RxTest's `TestableObservable`: a hot or cold test observable, with the events it plays and
/// the subscriptions it has seen. SluiceRx's own: an `Observable.create` whose events are
/// scheduled on the `SluiceTesting.TestScheduler`.
public final class TestableObservable<Element>: ObservableType, @unchecked Sendable {
    /// RxTest's `TestableObservable.recordedEvents`: the events it plays. SluiceRx's own.
    public let recordedEvents: [Recorded<Event<Element>>]

    private unowned let scheduler: TestScheduler
    private let hot: Bool
    private let lock = NSLock()
    private var recordedSubscriptions: [Subscription] = []
    private var observers: [Int: AnyObserver<Element>] = [:]
    private var nextObserver = 0

    internal init(scheduler: TestScheduler, events: [Recorded<Event<Element>>], hot: Bool) {
        self.scheduler = scheduler
        recordedEvents = events
        self.hot = hot
    }

    /// RxTest's `TestableObservable.subscriptions`: every subscription so far, when it started
    /// and when it ended. SluiceRx's own.
    public var subscriptions: [Subscription] {
        lock.lock()
        defer { lock.unlock() }
        return recordedSubscriptions
    }

    /// RxTest's `TestableObservable.subscribe(_:)`: subscribes `observer`, recording the
    /// subscription. Sluice: the unlimited-demand subscription of ``asObservable()``.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        asObservable().subscribe(observer)
    }

    /// The test observable as an observable: an `Observable.create` that registers the observer
    /// (hot) or schedules the events from now (cold), and records when it was subscribed and
    /// when that ended. RxSwift's `asObservable()`; SluiceRx's own (`create` has no Sluice
    /// counterpart).
    public func asObservable() -> Observable<Element> {
        Observable.create { [self] observer in
            let index = startSubscription()
            if hot {
                let key = register(observer)
                return Disposables.create { [self] in
                    unregister(key)
                    endSubscription(index)
                }
            }
            let played = BooleanDisposable()
            let start = scheduler.clock
            for recorded in recordedEvents {
                scheduler.scheduleAt(start + recorded.time) {
                    if !played.isDisposed { observer.on(recorded.value) }
                }
            }
            return Disposables.create { [self] in
                played.dispose()
                endSubscription(index)
            }
        }
    }

    /// Plays one event of a hot observable to its current observers.
    internal func send(_ event: Event<Element>) {
        lock.lock()
        let current = observers.sorted { $0.key < $1.key }.map(\.value)
        lock.unlock()
        for observer in current { observer.on(event) }
    }

    private func register(_ observer: AnyObserver<Element>) -> Int {
        lock.lock()
        defer { lock.unlock() }
        nextObserver += 1
        observers[nextObserver] = observer
        return nextObserver
    }

    private func unregister(_ key: Int) {
        lock.lock()
        let removed = observers.removeValue(forKey: key)
        lock.unlock()
        withExtendedLifetime(removed) {}
    }

    private func startSubscription() -> Int {
        let time = scheduler.clock
        lock.lock()
        defer { lock.unlock() }
        recordedSubscriptions.append(Subscription(time))
        return recordedSubscriptions.count - 1
    }

    private func endSubscription(_ index: Int) {
        let time = scheduler.clock
        lock.lock()
        defer { lock.unlock() }
        let started = recordedSubscriptions[index]
        if started.unsubscribe == .max { recordedSubscriptions[index] = Subscription(started.subscribe, time) }
    }
}
