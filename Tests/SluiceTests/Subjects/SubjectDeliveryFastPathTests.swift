import Testing
import Foundation
import Synchronization
@testable import Sluice
import SluiceTesting

/// The subjects' lock-free delivery under unlimited demand (`SubjectSubscription.takesEveryValue`,
/// the atomic `SubjectDelivery.owner` with its private copy of the list) and the sink's
/// in-place closure call: what must still hold about lifetimes, re-entrancy, demand and
/// completion. Interleavings are forced with semaphores (``Handshake``), never with sleeps, and
/// every body runs under the stress suite's watchdog so that a deadlock fails the test.
@Suite("Subject delivery fast path", .serialized)
struct SubjectDeliveryFastPathTests {
    // MARK: - Helpers

    /// Holds a delivery inside a subscriber: the subscriber calls ``arrive()`` and stays there
    /// until the other thread, which waited in ``waitForArrival()``, calls ``letGo()``. Every
    /// wait is bounded; a wait that times out is remembered in ``timedOut``.
    final class Handshake: Sendable {
        static let timeout: DispatchTimeInterval = .seconds(10)
        private let arrived = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let timeouts = StressCounter()

        func arrive() {
            arrived.signal()
            if released.wait(timeout: .now() + Self.timeout) == .timedOut { timeouts.increment() }
        }

        func waitForArrival() -> Bool {
            guard arrived.wait(timeout: .now() + Self.timeout) == .success else { timeouts.increment(); return false }
            return true
        }

        func letGo() { released.signal() }
        var timedOut: Bool { timeouts.value > 0 }
    }

    /// Sets its flag when it is deinitialised.
    final class Tracked: Sendable {
        let flag: Flag
        init(_ flag: Flag) { self.flag = flag }
        deinit { flag.set() }
    }

    /// Requests unlimited demand, hands its subscription out (as an `AnyCancellable`, which does
    /// not hold the subscriber) and holds every value in its handshake; sets a flag on deinit.
    final class BlockingSubscriber: Subscriber, @unchecked Sendable {
        typealias Input = Int
        typealias Failure = Never
        let handshake: Handshake
        let deinitialized: Flag
        let subscriptions: Log<AnyCancellable>

        init(_ handshake: Handshake, _ deinitialized: Flag, _ subscriptions: Log<AnyCancellable>) {
            self.handshake = handshake
            self.deinitialized = deinitialized
            self.subscriptions = subscriptions
        }

        deinit { deinitialized.set() }

        func receive(subscription: Subscription) {
            subscriptions.append(AnyCancellable(subscription))
            subscription.request(.unlimited)
        }

        func receive(_ input: Int) -> Subscribers.Demand { handshake.arrive(); return .none }
        func receive(completion: Subscribers.Completion<Never>) {}
    }

    /// Runs `send` on one thread and, once the delivery has arrived in `handshake`, `whileHeld`
    /// on another; then lets the delivery go. Returns when both have returned.
    static func holdDelivery(_ handshake: Handshake, send: @escaping @Sendable () -> Void,
                             whileHeld: @escaping @Sendable () -> Void) {
        Stress.runOnThreads(2) { thread in
            if thread == 0 { return send() }
            defer { handshake.letGo() }
            guard handshake.waitForArrival() else { return }
            whileHeld()
        }
    }

    typealias Lifetime = (releasedWhileHeld: Bool, releasedAfterSend: Bool, timedOut: Bool)

    /// Holds a delivery of `send`, runs `cancel` meanwhile, and reports whether `deinitialized`
    /// was set while the delivery was held and once `send` had returned.
    static func lifetimeAcrossHeldDelivery(_ handshake: Handshake, _ deinitialized: Flag,
                                           send: @escaping @Sendable () -> Void,
                                           cancel: @escaping @Sendable () -> Void) -> Lifetime {
        let whileHeld = StressBox(false)
        let afterSend = StressBox(false)
        holdDelivery(handshake, send: {
            send()
            afterSend.withLock { $0 = deinitialized.isSet }
        }, whileHeld: {
            cancel()
            whileHeld.withLock { $0 = deinitialized.isSet }
        })
        return (whileHeld.value, afterSend.value, handshake.timedOut)
    }

    static func expectReleasedOnlyAfterTheDelivery(_ outcome: Lifetime, _ what: String,
                                                   sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!outcome.timedOut, "the delivery never reached the \(what), or was never let go",
                sourceLocation: sourceLocation)
        #expect(!outcome.releasedWhileHeld, "the \(what) was freed while it was running",
                sourceLocation: sourceLocation)
        #expect(outcome.releasedAfterSend, "the \(what) outlived the delivery",
                sourceLocation: sourceLocation)
    }

    // MARK: - Lifetimes during a delivery

    /// The list (and the owner's copy) must keep a cancelled subscriber alive while it runs, and no longer.
    @Test func aSubscriberCancelledWhileItsReceiveIsBlockedIsReleasedWhenTheReceiveReturns() async {
        let outcome = await withWatchdog("cancel during a blocked receive") { () -> Lifetime in
            let subject = PassthroughSubject<Int, Never>()
            let handshake = Handshake()
            let deinitialized = Flag()
            let subscriptions = Log<AnyCancellable>()
            subject.subscribe(BlockingSubscriber(handshake, deinitialized, subscriptions))
            return Self.lifetimeAcrossHeldDelivery(handshake, deinitialized,
                                                   send: { subject.send(1) },
                                                   cancel: { subscriptions.all.first?.cancel() })
        }
        guard let outcome else { return }
        // Outliving the delivery would mean the owner's copy of the list kept it.
        Self.expectReleasedOnlyAfterTheDelivery(outcome, "subscriber")
    }

    /// A sink's closures must survive a cancel made while they run, then go as soon as they return.
    @Test func aSinkCancelledWhileItsClosureIsBlockedReleasesItWhenTheClosureReturns() async {
        let outcome = await withWatchdog("sink cancelled during its closure") { () -> (Lifetime, Bool, Bool) in
            let subject = PassthroughSubject<Int, Never>()
            let handshake = Handshake()
            let deinitialized = Flag()
            // Held directly, not through `AnyCancellable`, whose cancel lets go of the sink.
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in },
                                                    receiveValue: { [tracked = Tracked(deinitialized)] _ in
                withExtendedLifetime(tracked) { handshake.arrive() }
            })
            subject.subscribe(sink)
            // Also read the sink's own state: in a debug build the caller holds its own copy of
            // the closure while calling it, so a premature release would not free the captures.
            let keptWhileHeld = StressBox(false)
            let lifetime = Self.lifetimeAcrossHeldDelivery(handshake, deinitialized,
                                                           send: { subject.send(1) },
                                                           cancel: {
                sink.cancel()
                keptWhileHeld.withLock { $0 = Self.closureUse(of: sink) == Subscribers.Sink<Int, Never>.ended | Subscribers.Sink<Int, Never>.oneCall }
            })
            // The sink itself is still referenced: only its closures must have gone.
            let droppedAfterwards = Self.closureUse(of: sink) == Subscribers.Sink<Int, Never>.ended
            return (lifetime, keptWhileHeld.value, droppedAfterwards)
        }
        guard let (lifetime, keptWhileHeld, droppedAfterwards) = outcome else { return }
        Self.expectReleasedOnlyAfterTheDelivery(lifetime, "sink's closure")
        #expect(keptWhileHeld, "the cancel did not leave the closures' release to the delivery using them")
        #expect(droppedAfterwards, "the sink's closures were not released once their call returned")
    }

    /// The sink's record of calls in progress and of the end (its `closureUse`).
    private static func closureUse(of sink: Subscribers.Sink<Int, Never>) -> UInt {
        sink.closureUse.load(ordering: .acquiring)
    }

    /// A misbehaving upstream may call a sink from two threads at once: a cancel during both
    /// calls must leave the closures until the later call returns, not the first.
    @Test func aSinkCalledFromTwoThreadsAtOnceKeepsItsClosuresUntilTheLaterCallReturns() async {
        typealias IntSink = Subscribers.Sink<Int, Never>
        let outcome = await withWatchdog("sink cancelled during two concurrent calls") {
            () -> (states: [UInt], releasedBeforeTheLaterReturned: Bool, releasedAtTheEnd: Bool, timedOut: Bool) in
            let handshakes = [Handshake(), Handshake()]
            let deinitialized = Flag()
            let sink = IntSink(receiveCompletion: { _ in },
                               receiveValue: { [tracked = Tracked(deinitialized)] value in
                withExtendedLifetime(tracked) { handshakes[value].arrive() }
            })
            sink.receive(subscription: Subscriptions.empty)
            let firstReturned = DispatchSemaphore(value: 0)
            let states = StressBox([UInt]())
            let releasedEarly = StressBox(false)
            Stress.runOnThreads(3) { thread in
                switch thread {
                case 0:
                    _ = sink.receive(0)
                    firstReturned.signal()
                case 1:
                    _ = sink.receive(1)
                default:
                    defer { handshakes.forEach { $0.letGo() } }
                    guard handshakes.allSatisfy({ $0.waitForArrival() }) else { return }
                    sink.cancel()
                    states.withLock { $0.append(Self.closureUse(of: sink)) }
                    handshakes[0].letGo()
                    _ = firstReturned.wait(timeout: .now() + Handshake.timeout)
                    states.withLock { $0.append(Self.closureUse(of: sink)) }
                    releasedEarly.withLock { $0 = deinitialized.isSet }
                }
            }
            return (states.value, releasedEarly.value, deinitialized.isSet,
                    handshakes.contains { $0.timedOut })
        }
        guard let outcome else { return }
        #expect(!outcome.timedOut, "a call never arrived, or was never let go")
        #expect(outcome.states == [IntSink.ended | 2 * IntSink.oneCall, IntSink.ended | IntSink.oneCall],
                "cancelled during two calls, then one returned: the end and the calls in progress")
        #expect(!outcome.releasedBeforeTheLaterReturned, "the closures were released while a call was still running")
        #expect(outcome.releasedAtTheEnd, "the closures were not released once both calls had returned")
    }

    /// Keeps its subscription (so the two refer to each other, and nothing else holds it once
    /// the test lets go of it) and, on its first value, runs `onValue` with its subscription;
    /// records whether it had been deinitialised when `onValue` returned.
    final class SubscriptionKeeper: Subscriber, @unchecked Sendable {
        typealias Input = Int
        typealias Failure = Never
        let deinitialized: Flag
        let freedDuringReceive: Flag
        let completions: Log<Subscribers.Completion<Never>>
        let onValue: (Subscription) -> Void
        var subscription: Subscription?

        init(_ deinitialized: Flag, _ freedDuringReceive: Flag, _ completions: Log<Subscribers.Completion<Never>>,
             onValue: @escaping (Subscription) -> Void) {
            self.deinitialized = deinitialized
            self.freedDuringReceive = freedDuringReceive
            self.completions = completions
            self.onValue = onValue
        }

        deinit { deinitialized.set() }

        func receive(subscription: Subscription) {
            self.subscription = subscription
            subscription.request(.unlimited)
        }

        func receive(_ input: Int) -> Subscribers.Demand {
            guard let subscription else { return .none }
            onValue(subscription)
            // Still inside the delivery: the subject must not have let this subscriber go.
            if deinitialized.isSet { freedDuringReceive.set() }
            return .none
        }

        func receive(completion: Subscribers.Completion<Never>) { completions.append(completion) }
    }

    /// A subscription that ends inside its subscriber's own receive (a cancel, or the subject's
    /// completion sent from there) must leave the subscriber alive until the delivery in
    /// progress finishes (the subject calls it in place, and the call is still on the stack),
    /// and let it go then, although the subscriber keeps its subscription. A second subscriber,
    /// delivered to after the first within the same delivery, sees it still alive.
    @Test(arguments: ["cancel", "completion"])
    func aSubscriptionEndedInsideItsSubscribersReceiveLetsTheSubscriberGoWhenTheDeliveryReturns(_ how: String) async {
        let outcome = await withWatchdog("\(how) from inside receive") {
            () -> (Bool, [Bool], Bool, [Subscribers.Completion<Never>]) in
            let subject = PassthroughSubject<Int, Never>()
            let deinitialized = Flag()
            let freedDuringReceive = Flag()
            let completions = Log<Subscribers.Completion<Never>>()
            subject.subscribe(SubscriptionKeeper(deinitialized, freedDuringReceive, completions) { subscription in
                if how == "cancel" {
                    subscription.cancel()
                } else {
                    subject.send(completion: .finished)
                }
            })
            let seenByTheNext = Log<Bool>()
            let next = subject.sink(receiveCompletion: { _ in seenByTheNext.append(deinitialized.isSet) },
                                    receiveValue: { _ in seenByTheNext.append(deinitialized.isSet) })
            subject.send(1)
            withExtendedLifetime(next) {}
            return (freedDuringReceive.isSet, seenByTheNext.all, deinitialized.isSet, completions.all)
        }
        guard let (freedDuringReceive, seenByTheNext, freedAfterSend, completions) = outcome else { return }
        #expect(!freedDuringReceive, "the subscriber was let go while its receive was running")
        // The second subscriber gets the value after a cancel, or the completion (sent from
        // inside the first subscriber, it ends the second too before the value reaches it).
        #expect(seenByTheNext == [false], "the subscriber was let go before the delivery finished")
        #expect(completions == (how == "cancel" ? [] : [.finished]))
        #expect(freedAfterSend, "the subscriber outlived the delivery (its subscription kept it)")
    }

    /// With nobody delivering, a cancel lets the subscriber go at once, although it keeps its
    /// subscription.
    @Test func aSubscriberKeepingItsSubscriptionIsLetGoAtOnceByACancelWhileIdle() {
        let subject = PassthroughSubject<Int, Never>()
        let keeperFreed = Flag()
        var subscription: Subscription?
        do {
            let keeper = SubscriptionKeeper(keeperFreed, Flag(), Log()) { _ in }
            subject.subscribe(keeper)
            subscription = keeper.subscription
        }
        #expect(subscription != nil)
        #expect(!keeperFreed.isSet, "the subject holds a live subscription's subscriber")
        subscription?.cancel()
        #expect(keeperFreed.isSet, "the cancel did not let the subscriber go")
    }

    // MARK: - Re-entrancy

    /// A nested send after a self-cancel must skip the cancelled subscriber even though the owner's copy still lists it.
    @Test func aValueSentAfterCancellingFromInsideReceiveSkipsTheCanceller() async {
        let outcome = await withWatchdog("cancel then send from inside receive") {
            () -> (TestSubscriber<Int, Never>, TestSubscriber<Int, Never>) in
            let subject = PassthroughSubject<Int, Never>()
            var own: Subscription?
            let quitter = TestSubscriber<Int, Never>(onSubscription: { own = $0 }, onValue: { value in
                if value == 1 {
                    own?.cancel()
                    subject.send(2)
                }
                return .none
            })
            let other = TestSubscriber<Int, Never>()
            subject.subscribe(quitter)
            subject.subscribe(other)
            subject.send(1)
            subject.send(3)
            return (quitter, other)
        }
        guard let (quitter, other) = outcome else { return }
        #expect(quitter.values == [1], "nothing after its own cancel")
        // Nested, as in Combine: 2 goes out at once, before 1 reaches the later subscriber.
        #expect(other.values == [2, 1, 3])
        #expect(!other.sawConcurrentSignals)
    }

    /// List changes made inside a delivery must apply from the next value, not to the one being delivered.
    @Test func subscribingOrCancellingFromInsideReceiveTakesEffectFromTheNextValue() async {
        let outcome = await withWatchdog("subscribe and cancel from inside receive") {
            () -> (host: [Int], joiner: [Int], victim: [Int]) in
            let subject = PassthroughSubject<Int, Never>()
            let joiner = TestSubscriber<Int, Never>()
            let victim = TestSubscriber<Int, Never>()
            let host = TestSubscriber<Int, Never>(onValue: { value in
                if value == 1 {
                    subject.subscribe(joiner)
                    victim.cancel()
                }
                return .none
            })
            subject.subscribe(host)
            subject.subscribe(victim)
            subject.send(1)
            subject.send(2)
            subject.send(3)
            return (host.values, joiner.values, victim.values)
        }
        guard let outcome else { return }
        #expect(outcome.host == [1, 2, 3])
        #expect(outcome.joiner == [2, 3], "a subscriber joining during a delivery misses that value, then gets every value")
        #expect(outcome.victim == [], "a subscriber cancelled during an earlier subscriber's receive gets nothing more")
    }

    // MARK: - Concurrency, demand and completion

    /// Lock-free delivery must still serialise concurrent senders into one order that every subscriber sees.
    @Test func valuesFromEightThreadsReachEveryUnlimitedSubscriberOnceInOneOrder() async {
        let threads = 8
        let perThread = 500
        let outcome = await withWatchdog("8 threads sending under unlimited demand") { () -> (lists: [[Int]], overlapped: Bool) in
            let subject = PassthroughSubject<Int, Never>()
            let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
            for subscriber in subscribers { subject.subscribe(subscriber) }
            let sinkValues = Log<Int>()
            let cancellable = subject.sink { sinkValues.append($0) }
            Stress.runOnThreads(threads) { thread in
                for index in 0..<perThread { subject.send(Stress.tag(thread, index)) }
            }
            cancellable.cancel()
            return (subscribers.map(\.values) + [sinkValues.all], subscribers.contains { $0.sawConcurrentSignals })
        }
        guard let outcome else { return }
        #expect(!outcome.overlapped, "two deliveries to one subscriber overlapped")
        let everything = Array(repeating: perThread, count: threads)
        for (number, values) in outcome.lists.enumerated() {
            #expect(values.count == threads * perThread, "subscriber \(number): \(values.count) values")
            #expect(Stress.deliveryProblem(values, threads: threads, perThread: perThread, mustInclude: everything) == nil,
                    "subscriber \(number)")
            #expect(values == outcome.lists[0], "subscriber \(number) saw another order than subscriber 0")
        }
    }

    /// Limited demand takes the locked path beside unlimited subscribers on the fast one, and switches over on `.unlimited`.
    @Test func limitedDemandIsHonouredBesideUnlimitedSubscribersAndCurrentValueComesFirst() async {
        let outcome = await withWatchdog("mixed demand") {
            () -> (unlimited: [Int], limited: [Int], early: [Int], late: [Int]) in
            let subject = PassthroughSubject<Int, Never>()
            let unlimited = TestSubscriber<Int, Never>()
            let limited = TestSubscriber<Int, Never>(initialDemand: .max(2))
            subject.subscribe(unlimited)
            subject.subscribe(limited)
            for value in 1...5 { subject.send(value) }
            limited.request(.max(3))
            for value in 6...10 { subject.send(value) }
            limited.request(.unlimited)
            for value in 11...12 { subject.send(value) }

            let current = CurrentValueSubject<Int, Never>(0)
            let early = TestSubscriber<Int, Never>()
            let late = TestSubscriber<Int, Never>(initialDemand: .none)
            current.subscribe(early)
            current.subscribe(late)
            current.send(1)
            late.request(.unlimited)
            current.send(2)
            current.send(3)
            return (unlimited.values, limited.values, early.values, late.values)
        }
        guard let outcome else { return }
        #expect(outcome.unlimited == Array(1...12))
        #expect(outcome.limited == [1, 2, 6, 7, 8, 11, 12], "exactly the demand granted, then everything once unlimited")
        #expect(outcome.early == [0, 1, 2, 3], "the current value on subscription, then every change")
        #expect(outcome.late == [1, 2, 3], "the current value when demand arrives, then later values")
    }

    /// A sink's delivery mark must be cleared after each value, or an idle cancel would never free the closures.
    @Test func aSinkCancelledWhileIdleReleasesItsClosuresAtOnce() async {
        let outcome = await withWatchdog("sink cancelled while idle") {
            () -> (values: [Int], aliveBeforeCancel: Bool, releasedByCancel: Bool) in
            let subject = PassthroughSubject<Int, Never>()
            let deinitialized = Flag()
            let values = Log<Int>()
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in },
                                                    receiveValue: { [tracked = Tracked(deinitialized)] value in
                withExtendedLifetime(tracked) { values.append(value) }
            })
            subject.subscribe(sink)
            subject.send(1)
            let aliveBeforeCancel = !deinitialized.isSet
            sink.cancel()
            let releasedByCancel = deinitialized.isSet
            subject.send(2)
            withExtendedLifetime(sink) {}
            return (values.all, aliveBeforeCancel, releasedByCancel)
        }
        guard let outcome else { return }
        #expect(outcome.values == [1])
        #expect(outcome.aliveBeforeCancel)
        #expect(outcome.releasedByCancel, "the captured object outlived cancel() with nothing being delivered")
    }

    /// A completion arriving inside the sink's own value closure must run once and leave releasing to that closure's return.
    @Test func aSinkCompletedFromInsideItsValueClosureCompletesOnceAndReleasesBothClosuresAfterward() async {
        let outcome = await withWatchdog("sink completed from inside its value closure") {
            () -> (log: [String], valueClosureAliveInside: Bool, released: (value: Bool, completion: Bool)) in
            let subject = PassthroughSubject<Int, Never>()
            let valueFlag = Flag()
            let completionFlag = Flag()
            let log = Log<String>()
            let aliveInside = StressBox(false)
            let cancellable = subject.sink(receiveCompletion: { [tracked = Tracked(completionFlag)] _ in
                withExtendedLifetime(tracked) { log.append("completion") }
            }, receiveValue: { [tracked = Tracked(valueFlag)] value in
                withExtendedLifetime(tracked) {
                    log.append("value \(value)")
                    subject.send(completion: .finished)
                    aliveInside.withLock { $0 = !valueFlag.isSet }
                    log.append("value \(value) returns")
                }
            })
            subject.send(1)
            let released: (value: Bool, completion: Bool) = (valueFlag.isSet, completionFlag.isSet)
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
            return (log.all, aliveInside.value, released)
        }
        guard let outcome else { return }
        #expect(outcome.log == ["value 1", "completion", "value 1 returns"], "one completion, nested, and nothing after it")
        #expect(outcome.valueClosureAliveInside, "the value closure's captures were freed while it ran")
        #expect(outcome.released.value, "the value closure was not released when it returned")
        #expect(outcome.released.completion, "the completion closure was not released when the value closure returned")
    }

    /// A completion from another thread must queue behind the value in progress and shut later sends out.
    @Test func aCompletionSentDuringADeliveryArrivesAfterItAndStopsLaterValues() async {
        typealias Seen = (values: [Int], completions: Int)
        let outcome = await withWatchdog("completion from another thread during a delivery") {
            () -> (midway: [Seen], blocked: TestSubscriber<Int, Never>, other: TestSubscriber<Int, Never>, timedOut: Bool) in
            let subject = PassthroughSubject<Int, Never>()
            let handshake = Handshake()
            let blocked = TestSubscriber<Int, Never>(onValue: { value in
                if value == 1 { handshake.arrive() }
                return .none
            })
            let other = TestSubscriber<Int, Never>()
            subject.subscribe(blocked)
            subject.subscribe(other)
            let midway = StressBox<[Seen]>([])
            Self.holdDelivery(handshake, send: {
                subject.send(1)
            }, whileHeld: {
                subject.send(completion: .finished)
                subject.send(2)
                let seen: [Seen] = [blocked, other].map { (values: $0.values, completions: $0.completions.count) }
                midway.withLock { $0 = seen }
            })
            subject.send(3)
            return (midway.value, blocked, other, handshake.timedOut)
        }
        guard let outcome else { return }
        #expect(!outcome.timedOut, "the delivery never reached the subscriber, or was never let go")
        #expect(outcome.midway.map { $0.values } == [[1], []], "while 1 is held: nothing else has been delivered")
        #expect(outcome.midway.map { $0.completions } == [0, 0], "the completion must wait for the value in progress")
        #expect(outcome.blocked.values == [1], "values sent after the completion are dropped")
        #expect(outcome.other.values == [1], "the value in progress still reaches the later subscriber, before the completion")
        for subscriber in [outcome.blocked, outcome.other] {
            #expect(subscriber.completions == [.finished])
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil)
        }
    }
    /// A deliberate difference (README, "concurrent `send`"): a value sent from another thread
    /// while a delivery is held does not wait for it: `send` returns at once, and the delivering
    /// thread delivers the value after the one in progress, in order, to every subscriber.
    @Test func aValueSentFromAnotherThreadDuringADeliveryIsQueuedAndDeliveredByTheDeliveringThread() async {
        let outcome = await withWatchdog("value from another thread during a delivery") {
            () -> (midway: [[Int]], threads: [Int: String], values: [[Int]], timedOut: Bool) in
            let subject = PassthroughSubject<Int, Never>()
            let handshake = Handshake()
            let threads = StressBox<[Int: String]>([:])
            let blocked = TestSubscriber<Int, Never>(onValue: { value in
                threads.withLock { $0[value] = "\(pthread_self())" }
                if value == 1 { handshake.arrive() }
                return .none
            })
            let other = TestSubscriber<Int, Never>()
            subject.subscribe(blocked)
            subject.subscribe(other)
            let midway = StressBox<[[Int]]>([])
            let senderThread = StressBox("")
            Self.holdDelivery(handshake, send: {
                subject.send(1)
            }, whileHeld: {
                senderThread.withLock { $0 = "\(pthread_self())" }
                subject.send(2)
                subject.send(3)
                let seen = [blocked.values, other.values]
                midway.withLock { $0 = seen }
            })
            var delivered = threads.value
            delivered[0] = senderThread.value
            return (midway.value, delivered, [blocked.values, other.values], handshake.timedOut)
        }
        guard let outcome else { return }
        #expect(!outcome.timedOut, "the delivery never reached the subscriber, or was never let go")
        #expect(outcome.midway == [[1], []], "while 1 is held, the other thread's sends return without delivering")
        #expect(outcome.values == [[1, 2, 3], [1, 2, 3]], "queued values arrive after the held one, in order")
        #expect(outcome.threads[2] == outcome.threads[1], "the delivering thread delivers the queued values")
        #expect(outcome.threads[2] != outcome.threads[0], "not the thread that sent them")
    }
}
