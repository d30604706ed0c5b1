import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("HandleEvents")
struct HandleEventsTests {
    /// Subscribes a subscriber whose signals go into the same log as the hooks, so that the log
    /// shows which came first.
    private static func logged<Failure: Error>(
        _ upstream: TestPublisher<Int, Failure>,
        log: EventLog,
        initialDemand: Subscribers.Demand = .none,
        onValue: @escaping (Int) -> Subscribers.Demand = { _ in .none }
    ) -> TestSubscriber<Int, Failure> {
        let subscriber = TestSubscriber<Int, Failure>(
            initialDemand: initialDemand,
            onSubscription: { log.append("downstream subscription \($0)") },
            onValue: { value in
                log.append("downstream value \(value)")
                return onValue(value)
            },
            onCompletion: { log.append("downstream completion \($0)") })
        upstream.handleEvents(
            receiveSubscription: { log.append("hook subscription \($0)") },
            receiveOutput: { log.append("hook output \($0)") },
            receiveCompletion: { log.append("hook completion \($0)") },
            receiveCancel: { log.append("hook cancel") },
            receiveRequest: { log.append("hook request \($0)") }
        ).subscribe(subscriber)
        return subscriber
    }

    @Test func runsEachHookBeforeForwarding() {
        let upstream = TestPublisher<Int, TestError>()
        let log = EventLog()
        let subscriber = Self.logged(upstream, log: log, onValue: { .max($0) })
        #expect(subscriber.subscriptionNames == ["HandleEvents"])
        #expect(upstream.send(0) == .none)
        #expect(upstream.send(2) == .max(2))
        subscriber.request(.max(14))
        subscriber.request(.none)
        upstream.send(completion: .finished)
        #expect(log.entries == [
            "hook subscription TestSubscription",
            "downstream subscription HandleEvents",
            "hook output 0",
            "downstream value 0",
            // No hook for the `.none` the downstream returned.
            "hook output 2",
            "downstream value 2",
            "hook request max(2)",
            "hook request max(14)",
            "hook request max(0)",
            "hook completion finished",
            "downstream completion finished",
        ])
        // The demand returned from a value goes back as the return, not through `request`.
        #expect(upstream.demandLog == [.requested(.max(14)), .requested(.none)])
    }

    @Test func theSubscriptionHookRunsBeforeTheDownstreamHasItAndTheCancelHookBeforeTheUpstreamIsCancelled() {
        let upstream = TestPublisher<Int, Never>()
        var subscriber: TestSubscriber<Int, Never>?
        var seenBySubscriptionHook: [TestSubscriber<Int, Never>.Event]?
        var upstreamCancelledAtCancelHook: Bool?
        let publisher = upstream.handleEvents(
            receiveSubscription: { _ in seenBySubscriptionHook = subscriber?.events },
            receiveCancel: { upstreamCancelledAtCancelHook = upstream.isCancelled })
        subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        publisher.subscribe(subscriber!)
        #expect(seenBySubscriptionHook == [])
        subscriber!.cancel()
        #expect(upstreamCancelledAtCancelHook == false)
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
    }

    @Test func failureRunsTheCompletionHookFirst() {
        let upstream = TestPublisher<Int, TestError>()
        let log = EventLog()
        _ = Self.logged(upstream, log: log, initialDemand: .unlimited)
        upstream.send(completion: .failure(TestError()))
        #expect(log.entries.suffix(2) == ["hook completion failure(TestError(1))", "downstream completion failure(TestError(1))"])
    }

    @Test func afterCompletionNothingMoreIsForwardedAndNoHookRuns() {
        let upstream = TestPublisher<Int, TestError>()
        let log = EventLog()
        let subscriber = Self.logged(upstream, log: log, initialDemand: .unlimited, onValue: { .max($0) })
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.send(144) == .none)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(subscriber.events == [.subscription("HandleEvents"), .completion(.finished)])
        #expect(log.entries == [
            "hook subscription TestSubscription",
            "downstream subscription HandleEvents",
            "hook request unlimited",
            "hook completion finished",
            "downstream completion finished",
        ])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func cancelRunsTheHookOnceAndStopsEverything() {
        let upstream = TestPublisher<Int, TestError>()
        let log = EventLog()
        let subscriber = Self.logged(upstream, log: log, initialDemand: .max(2), onValue: { _ in .max(5) })
        subscriber.cancel()
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("HandleEvents")])
        #expect(upstream.demandLog == [.requested(.max(2)), .cancelled])
        #expect(log.entries == [
            "hook subscription TestSubscription",
            "downstream subscription HandleEvents",
            "hook request max(2)",
            "hook cancel",
        ])
    }

    @Test func extraSubscriptionsRunTheHookAndAreCancelled() {
        let upstream = TestPublisher<Int, TestError>()
        let log = EventLog()
        let subscriber = Self.logged(upstream, log: log)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
        subscriber.cancel()
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled, .cancelled, .cancelled])
        #expect(log.entries == [
            "hook subscription TestSubscription",
            "downstream subscription HandleEvents",
            "hook subscription TestSubscription",
            "hook cancel",
        ])
        #expect(subscriber.subscriptionNames == ["HandleEvents"])
    }

    @Test func aValueBeforeTheSubscriptionIsForwardedAsCombineDoes() {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let log = EventLog()
        let subscriber = Self.logged(upstream, log: log, onValue: { _ in .max(42) })
        #expect(upstream.send(144) == .max(42))
        #expect(subscriber.events == [.value(144)])
        #expect(log.entries == ["hook output 144", "downstream value 144", "hook request max(42)"])
    }

    @Test func limitedDemandAndDemandArrivingLater() {
        var requests: [Subscribers.Demand] = []
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...4).publisher.handleEvents(receiveRequest: { requests.append($0) }).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.max(5))
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completions == [.finished])
        #expect(requests == [.max(1), .max(2), .max(5)])
    }

    @Test func cancelInsideTheOutputHookStopsThatValue() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { subscription = $0 })
        (1...10).publisher
            .handleEvents(receiveOutput: { if $0 == 3 { subscription?.cancel() } })
            .subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func requestAndCancelFromInsideReceive() {
        let upstream = TestPublisher<Int, Never>()
        var subscription: Subscription?
        var requests: [Subscribers.Demand] = []
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 1 { subscription?.request(.max(1)) }
                if value == 2 { subscription?.cancel() }
                return .none
            })
        upstream.handleEvents(receiveRequest: { requests.append($0) }).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(subscriber.values == [1, 2])
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1)), .cancelled])
        #expect(requests == [.max(1), .max(1)])
    }

    @Test func releasesItsHooksAfterCompletion() {
        weak var weakCanary: Canary?
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        do {
            let canary = Canary()
            weakCanary = canary
            upstream.handleEvents(receiveOutput: { _ in _ = canary }).subscribe(subscriber)
        }
        #expect(weakCanary != nil)
        upstream.send(completion: .finished)
        #expect(weakCanary == nil)
    }

    @Test func releasesItsHooksAndTheDownstreamAfterCancel() {
        weak var weakCanary: Canary?
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let canary = Canary()
            weakCanary = canary
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.handleEvents(receiveCancel: { _ = canary }).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakCanary == nil)
        #expect(weakSubscriber == nil)
    }

    @Test func reflectsLikeCombine() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        TestPublisher<Int, Never>().handleEvents().subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "HandleEvents")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "HandleEvents")
    }

    @Test func hooksAreMutableProperties() {
        var publisher = Just(1).handleEvents()
        #expect(publisher.receiveOutput == nil)
        var seen: [Int] = []
        publisher.receiveOutput = { seen.append($0) }
        _ = publisher.sink { _ in }
        #expect(seen == [1])
    }

    @Test func concurrentRequestsAreAllSeenAndForwarded() async {
        let upstream = TestPublisher<Int, Never>()
        let log = EventLog()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.handleEvents(receiveRequest: { log.append("\($0)") }).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<100 { subscriber.request(.max(1)) }
                }
            }
        }
        #expect(log.entries.count == 800)
        #expect(upstream.demandLog == Array(repeating: .requested(.max(1)), count: 800))
    }
}
