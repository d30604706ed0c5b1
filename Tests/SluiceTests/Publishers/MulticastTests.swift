import Testing
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Multicast, MakeConnectable, Autoconnect, Share")
struct MulticastTests {
    typealias Pub = TestPublisher<Int, TestError>
    typealias Sub = TestSubscriber<Int, TestError>

    @Test func nothingFlowsBeforeConnect() {
        let upstream = Pub()
        let multicast = upstream.multicast { PassthroughSubject<Int, TestError>() }
        let subscriber = Sub()
        multicast.subscribe(subscriber)
        #expect(!upstream.hasSubscriber)
        #expect(subscriber.subscriptionNames == ["Multicast"])
        var connection = multicast.connect()
        #expect(connection is AnyCancellable)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(1)
        connection.cancel()
        upstream.send(2)
        connection = multicast.connect()
        upstream.send(3)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        connection.cancel()
        #expect(subscriber.events == [.subscription("Multicast"), .value(1), .value(3), .completion(.finished)])
    }

    @Test func theSubjectIsCreatedOnceAndSharedByEverySubscriber() {
        var created = 0
        let upstream = PassthroughSubject<Int, TestError>()
        let multicast = upstream.multicast { () -> PassthroughSubject<Int, TestError> in
            created += 1
            return PassthroughSubject()
        }
        let first = Sub()
        let second = Sub()
        multicast.subscribe(first)
        multicast.subscribe(second)
        let connection = multicast.connect()
        upstream.send(1)
        #expect(created == 1)
        #expect(first.values == [1])
        #expect(second.values == [1])
        connection.cancel()
    }

    @Test func multicastSubjectEachSubscriberHonoursItsOwnDemand() {
        let upstream = Pub()
        let subject = PassthroughSubject<Int, TestError>()
        let multicast = upstream.multicast(subject: subject)
        let early = Sub(initialDemand: .max(3))
        multicast.subscribe(early)
        let connection = multicast.connect()
        for i in 1...4 { upstream.send(i) }
        let late = Sub(initialDemand: .max(2))
        multicast.subscribe(late)
        for i in 5...7 { upstream.send(i) }
        upstream.send(completion: .finished)
        let latest = Sub(initialDemand: .none)
        multicast.subscribe(latest)
        #expect(early.events == [.subscription("Multicast"), .value(1), .value(2), .value(3), .completion(.finished)])
        #expect(late.events == [.subscription("Multicast"), .value(5), .value(6), .completion(.finished)])
        #expect(latest.events == [.subscription("Multicast"), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited)])
        connection.cancel()
    }

    @Test func demandReturnedFromReceiveIsRequestedFromTheSubject() {
        let upstream = Pub()
        let multicast = upstream.multicast { PassthroughSubject<Int, TestError>() }
        let subscriber = Sub(initialDemand: .max(1), onValue: { _ in .max(1) })
        multicast.subscribe(subscriber)
        let connection = multicast.connect()
        for i in 1...3 { upstream.send(i) }
        #expect(subscriber.values == [1, 2, 3])
        connection.cancel()
    }

    @Test func cancelStopsDeliveryAndReleasesTheDownstream() {
        weak var weakSubscriber: Sub?
        let upstream = PassthroughSubject<Int, TestError>()
        let multicast = upstream.multicast { PassthroughSubject<Int, TestError>() }
        let connection = multicast.connect()
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            multicast.subscribe(subscriber)
            upstream.send(1)
            subscriber.cancel()
            subscriber.cancel()
            upstream.send(2)
            #expect(subscriber.values == [1])
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
        connection.cancel()
    }

    /// Combine's connection feeds the subject without owning it: a subject nobody else holds
    /// goes away while connected, which cancels the upstream, and cancelling the connection
    /// afterwards is harmless.
    @Test func aConnectionDoesNotKeepItsSubjectAlive() {
        let upstream = Pub()
        weak var weakSubject: PassthroughSubject<Int, TestError>?
        var subject: PassthroughSubject<Int, TestError>? = PassthroughSubject()
        weakSubject = subject
        let connection = upstream.multicast(subject: subject!).connect()
        subject = nil
        #expect(weakSubject == nil)
        #expect(upstream.demandLog == [.cancelled])
        upstream.send(1)
        upstream.send(completion: .finished)
        connection.cancel()
        #expect(upstream.demandLog == [.cancelled])
    }

    @Test func reentrantCancelInsideReceive() {
        let upstream = PassthroughSubject<Int, TestError>()
        let multicast = upstream.multicast { PassthroughSubject<Int, TestError>() }
        var subscription: Subscription?
        let subscriber = Sub(onSubscription: { subscription = $0 }, onValue: { _ in
            subscription?.cancel()
            return .none
        })
        multicast.subscribe(subscriber)
        let connection = multicast.connect()
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.values == [1])
        connection.cancel()
    }

    @Test func makeConnectableIsAMulticastThroughAPassthroughSubject() {
        let upstream = PassthroughSubject<Int, Never>()
        let connectable = upstream.makeConnectable()
        let subscriber = TestSubscriber<Int, Never>()
        connectable.subscribe(subscriber)
        upstream.send(0)
        let connection = connectable.connect()
        upstream.send(1)
        connection.cancel()
        upstream.send(2)
        #expect(subscriber.events == [.subscription("Multicast"), .value(1)])
        let values = (1...3).publisher.makeConnectable()
        var out: [Int] = []
        let c = values.sink { out.append($0) }
        #expect(out.isEmpty)
        let c2 = values.connect()
        #expect(out == [1, 2, 3])
        c.cancel(); c2.cancel()
    }

    @Test func autoconnectConnectsOnTheFirstSubscriberAndDisconnectsAfterTheLast() {
        let upstream = Pub()
        let auto = upstream.multicast { PassthroughSubject<Int, TestError>() }.autoconnect()
        let first = Sub()
        auto.subscribe(first)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        let second = Sub()
        auto.subscribe(second)
        upstream.send(1)
        first.cancel()
        upstream.send(2)
        second.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(first.values == [1])
        #expect(second.values == [1, 2])
        // The next subscriber connects again.
        let third = Sub()
        auto.subscribe(third)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled, .requested(.unlimited)])
        #expect(third.subscriptionNames == ["Multicast"])
    }

    /// A connectable publisher that hands each subscriber the subscription it is given.
    final class HandingConnectable: ConnectablePublisher, @unchecked Sendable {
        typealias Output = Int
        typealias Failure = Never
        let subscription: Subscription
        private(set) var connections = 0, disconnections = 0
        init(_ subscription: Subscription) { self.subscription = subscription }
        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            subscriber.receive(subscription: subscription)
        }
        func connect() -> Cancellable {
            connections += 1
            return AnyCancellable { self.disconnections += 1 }
        }
    }

    @Test func autoconnectsSubscriptionPassesEveryCancelOnAndStillDescribesTheUpstreamAfterIt() throws {
        let upstream = ProbeSubscription()
        let connectable = HandingConnectable(upstream)
        let auto = connectable.autoconnect()
        let first = TestSubscriber<Int, Never>(initialDemand: .none)
        let second = TestSubscriber<Int, Never>(initialDemand: .none)
        auto.subscribe(first)
        auto.subscribe(second)
        let handed = try #require(first.subscription)
        handed.request(.max(3))
        handed.cancel()
        handed.cancel()
        // As Combine: both cancels reach the upstream, but the subscriber is counted out once,
        // so the connection stays up for the second subscriber.
        #expect(upstream.history == [.requested(.max(3)), .cancelled, .cancelled])
        #expect(connectable.disconnections == 0)
        #expect(String(describing: handed) == "ProbeSubscription")
        #expect(handed.combineIdentifier == upstream.combineIdentifier)
        second.cancel()
        #expect(connectable.connections == 1)
        #expect(connectable.disconnections == 1)
    }

    /// Combine connects a second time when a subscriber subscribes another from inside its
    /// `receive(subscription:)` (the first connection is then never cancelled); Sluice connects
    /// once and disconnects when the last of the two leaves (README, "Where Sluice differs").
    @Test func autoconnectSubscribedFromInsideReceiveSubscriptionConnectsOnce() throws {
        let connectable = HandingConnectable(ProbeSubscription())
        let auto = connectable.autoconnect()
        let inner = TestSubscriber<Int, Never>()
        let outer = TestSubscriber<Int, Never>(onSubscription: { _ in auto.subscribe(inner) })
        auto.subscribe(outer)
        #expect(connectable.connections == 1)
        try #require(outer.subscription).cancel()
        #expect(connectable.disconnections == 0)
        try #require(inner.subscription).cancel()
        #expect(connectable.connections == 1)
        #expect(connectable.disconnections == 1)
    }

    @Test func shareSharesOneSubscriptionAndReplaysNothing() {
        let upstream = Pub()
        let shared = upstream.share()
        #expect(upstream.demandLog == [])
        let early = Sub(initialDemand: .max(3))
        shared.subscribe(early)
        #expect(upstream.demandLog == [.requested(.unlimited)])
        #expect(early.subscriptionNames == ["Multicast"])
        for i in 1...4 { upstream.send(i) }
        let late = Sub(initialDemand: .max(2))
        shared.subscribe(late)
        for i in 5...7 { upstream.send(i) }
        upstream.send(completion: .finished)
        let latest = Sub(initialDemand: .none)
        shared.subscribe(latest)
        #expect(early.values == [1, 2, 3])
        #expect(late.values == [5, 6])
        #expect(late.completions == [.finished])
        #expect(latest.events == [.subscription("Multicast"), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited)])
        #expect(upstream.subscriptionCount == 1)
    }

    @Test func shareIsEquatableByIdentity() {
        let upstream = Pub()
        let share1 = upstream.share()
        let share2 = upstream.share()
        #expect(share1 == share1)
        #expect(share1 != share2)
        #expect(share1.upstream === upstream)
    }

    @Test func shareFailureReachesEverySubscriber() {
        let upstream = Pub()
        let shared = upstream.share()
        let a = Sub()
        let b = Sub()
        shared.subscribe(a)
        shared.subscribe(b)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 5)))
        #expect(a.events == [.subscription("Multicast"), .value(1), .completion(.failure(TestError(code: 5)))])
        #expect(b.events == a.events)
    }

    /// Seed 003: subscriber A gets the initial state; B subscribes later with no demand and
    /// then asks for one value. `share()` gives B nothing, as in Combine.
    @Test func seed003ShareGivesALateSubscriberNothing() {
        let changes = PassthroughSubject<Bool, Never>()
        let state = Just(true).merge(with: changes).share()
        let a = TestSubscriber<Bool, Never>()
        state.subscribe(a)
        #expect(a.values == [true])
        let b = TestSubscriber<Bool, Never>(initialDemand: .none)
        state.subscribe(b)
        b.request(.max(1))
        #expect(b.values == [])
        changes.send(false)
        #expect(a.values == [true, false])
        #expect(b.values == [false])
    }

    @Test func sharedSubscribersOnDifferentThreads() async {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share()
        let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
        for subscriber in subscribers { shared.subscribe(subscriber) }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { upstream.send(thread * 1_000 + i) }
                }
            }
        }
        let first = subscribers[0].values
        #expect(first.count == 8_000)
        for subscriber in subscribers {
            #expect(subscriber.values == first)
            #expect(!subscriber.sawConcurrentSignals)
        }
    }

    /// Subscribers join and leave from 8 threads at once: the upstream is never subscribed twice
    /// at the same time (a first subscriber arriving while the previous connection is still
    /// being made waits for it instead of connecting again), and every connection made is
    /// cancelled once everyone has left.
    @Test func autoconnectUnderConcurrentJoinAndCancelConnectsOneAtATime() {
        let live = Mutex((now: 0, most: 0, connections: 0, cancels: 0))
        let upstream = Deferred { Just(1).delay(for: .seconds(60), scheduler: ImmediateScheduler.shared) }
            .handleEvents(receiveSubscription: { _ in
                live.withLock { $0.now += 1; $0.most = max($0.most, $0.now); $0.connections += 1 }
            }, receiveCancel: {
                live.withLock { $0.now -= 1; $0.cancels += 1 }
            })
        // Not Sendable, as in Combine; shared across threads on purpose.
        nonisolated(unsafe) let shared = upstream.makeConnectable().autoconnect()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
                shared.subscribe(subscriber)
                subscriber.cancel()
            }
        }
        let counts = live.withLock { $0 }
        #expect(counts.most == 1, "never two upstream subscriptions at once")
        #expect(counts.now == 0, "everyone left, so the last connection was cancelled")
        #expect(counts.connections == counts.cancels)
        #expect(counts.connections >= 1)
    }
}
