import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
#if canImport(Glibc)
import Glibc
#endif

private let ping = Notification.Name("SluiceTests.ping")
private let pong = Notification.Name("SluiceTests.pong")

private final class Poster {}

@Suite("NotificationCenter.Publisher")
struct NotificationCenterPublisherTests {
    @Test func deliversPostedNotificationsAndDescribesItselfAsCombineDoes() throws {
        let center = NotificationCenter()
        let subscriber = TestSubscriber<Notification, Never>()
        center.publisher(for: ping).subscribe(subscriber)
        center.post(name: ping, object: nil, userInfo: ["n": 1])
        center.post(name: pong, object: nil)
        center.post(name: ping, object: nil, userInfo: ["n": 2])
        #expect(subscriber.values.map { $0.userInfo?["n"] as? Int } == [1, 2])
        #expect(subscriber.values.allSatisfy { $0.name == ping })
        #expect(subscriber.subscriptionNames == ["NotificationCenter Observer"])
        #expect(subscriber.completions.isEmpty, "a notification publisher never completes")

        let subscription = try #require(subscriber.subscription)
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["center", "name", "object", "demand"])
        #expect((mirror.descendant("center") as? NotificationCenter) === center)
        #expect(mirror.descendant("name") as? Notification.Name == ping)
        #expect(mirror.descendant("demand") as? Subscribers.Demand == .unlimited)
        subscriber.cancel()
    }

    @Test func deliversSynchronouslyOnThePostingThread() async {
        let center = NotificationCenter()
        let sinkThreads = Log<pthread_t>()
        let cancellable = center.publisher(for: ping).sink { _ in sinkThreads.append(pthread_self()) }
        let posterThread = Log<pthread_t>()
        let seenWhenPostReturned = Log<Int>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                posterThread.append(pthread_self())
                center.post(name: ping, object: nil)
                seenWhenPostReturned.append(sinkThreads.all.count)
                done.resume()
            }
            thread.start()
        }
        #expect(seenWhenPostReturned.all == [1], "the sink had run by the time post returned")
        #expect(sinkThreads.all.count == 1)
        if let sink = sinkThreads.all.first, let poster = posterThread.all.first {
            #expect(pthread_equal(sink, poster) != 0, "delivered on the posting thread")
        }
        cancellable.cancel()
    }

    @Test func dropsNotificationsWithoutDemandAndAddsTheDemandReturnedFromReceive() {
        let center = NotificationCenter()
        var returned = Subscribers.Demand.none
        let subscriber = TestSubscriber<Notification, Never>(initialDemand: .none, onValue: { _ in returned })
        center.publisher(for: ping).subscribe(subscriber)
        center.post(name: ping, object: nil, userInfo: ["n": 1])
        #expect(subscriber.values.isEmpty, "no demand: dropped, not buffered")
        subscriber.request(.max(1))
        #expect(subscriber.values.isEmpty, "demand does not bring back a dropped notification")
        center.post(name: ping, object: nil, userInfo: ["n": 2])
        center.post(name: ping, object: nil, userInfo: ["n": 3])
        returned = .max(1)
        subscriber.request(.max(1))
        center.post(name: ping, object: nil, userInfo: ["n": 4])
        center.post(name: ping, object: nil, userInfo: ["n": 5])
        returned = .none
        center.post(name: ping, object: nil, userInfo: ["n": 6])
        center.post(name: ping, object: nil, userInfo: ["n": 7])
        #expect(subscriber.values.map { $0.userInfo?["n"] as? Int } == [2, 4, 5, 6])
        subscriber.cancel()
    }

    /// Combine's notification subscription takes `request(.none)` without stopping the program
    /// (OpenCombine's NotificationCenterTests.testZeroDemand, run against Combine): nothing is
    /// delivered for it, and later demand works as usual.
    @Test func aZeroRequestIsIgnored() throws {
        let center = NotificationCenter()
        let subscriber = TestSubscriber<Notification, Never>(initialDemand: .none)
        center.publisher(for: ping).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        subscription.request(.none)
        center.post(name: ping, object: nil)
        #expect(subscriber.values.isEmpty)
        subscription.request(.max(1))
        center.post(name: ping, object: nil)
        center.post(name: ping, object: nil)
        #expect(subscriber.values.count == 1)
        subscriber.cancel()
    }

    @Test func theObserverIsRegisteredBeforeAnyDemand() {
        let center = NotificationCenter()
        let subscriber = TestSubscriber<Notification, Never>(initialDemand: .none, onSubscription: { _ in
            // The observer is in place already: this one is seen (and dropped, for lack of
            // demand) rather than missed.
            center.post(name: ping, object: nil, userInfo: ["n": 0])
        })
        center.publisher(for: ping).subscribe(subscriber)
        subscriber.request(.unlimited)
        center.post(name: ping, object: nil, userInfo: ["n": 1])
        #expect(subscriber.values.map { $0.userInfo?["n"] as? Int } == [1])
        subscriber.cancel()
    }

    @Test func filtersByObject() {
        let center = NotificationCenter()
        let mine = Poster()
        let other = Poster()
        let subscriber = TestSubscriber<Notification, Never>()
        center.publisher(for: ping, object: mine).subscribe(subscriber)
        center.post(name: ping, object: other)
        center.post(name: ping, object: mine)
        center.post(name: ping, object: nil)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.values.first?.object as? Poster === mine)
        subscriber.cancel()
    }

    @Test func cancelRemovesTheObserverFromTheCenterAndReleasesEverything() throws {
        let center = NotificationCenter()
        weak var weakHandler: AnyObject?
        weak var weakSubscriber: TestSubscriber<Notification, Never>?
        weak var weakSubscription: AnyObject?
        do {
            let subscriber = TestSubscriber<Notification, Never>()
            weakSubscriber = subscriber
            center.publisher(for: ping).subscribe(subscriber)
            let subscription = try #require(subscriber.subscription as? NotificationObserverRegistration)
            weakSubscription = subscription
            do {
                let handler: AnyObject = try #require(subscription.observerHandler)
                weakHandler = handler
            }
            #expect(weakHandler != nil, "the center holds the observer block, which holds the handler")
            center.post(name: ping, object: nil)
            #expect(subscriber.values.count == 1)

            subscriber.cancel()
            // Only the center's observer block holds the handler, and the subscription is still
            // alive: the handler is gone, so cancel removed the observer from the center.
            #expect(weakHandler == nil, "cancel removed the observer from the center")
            #expect(subscription.observerHandler == nil)
            center.post(name: ping, object: nil)
            #expect(subscriber.values.count == 1, "nothing after cancel")
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscription == nil)
        #expect(weakSubscriber == nil)
    }

    @Test func aSubscriptionThatGoesAwayWithoutCancelRemovesItsObserver() throws {
        let center = NotificationCenter()
        weak var weakHandler: AnyObject?
        do {
            let subscriber = TestSubscriber<Notification, Never>()
            center.publisher(for: ping).subscribe(subscriber)
            do {
                let subscription = try #require(subscriber.subscription as? NotificationObserverRegistration)
                let handler: AnyObject = try #require(subscription.observerHandler)
                weakHandler = handler
            }
            #expect(weakHandler != nil)
            subscriber.releaseSubscriptions()
        }
        #expect(weakHandler == nil)
        center.post(name: ping, object: nil)
    }

    @Test func anAnyCancellableFromSinkRemovesTheObserverWhenItGoes() {
        let center = NotificationCenter.default
        let name = Notification.Name("SluiceTests.default.\(UUID().uuidString)")
        var count = 0
        var cancellable: AnyCancellable? = center.publisher(for: name).sink { _ in count += 1 }
        center.post(name: name, object: nil)
        cancellable = nil
        center.post(name: name, object: nil)
        #expect(count == 1)
        #expect(cancellable == nil)
    }

    @Test func reentrantPostsAndCancelFromInsideReceive() {
        let center = NotificationCenter()
        var order: [String] = []
        var subscription: Subscription?
        let subscriber = TestSubscriber<Notification, Never>(onSubscription: { subscription = $0 }, onValue: { note in
            let n = note.userInfo?["n"] as? Int ?? -1
            order.append("in \(n)")
            if n == 1 { center.post(name: ping, object: nil, userInfo: ["n": 2]) }
            if n == 2 { subscription?.cancel() }
            order.append("out \(n)")
            return .none
        })
        center.publisher(for: ping).subscribe(subscriber)
        center.post(name: ping, object: nil, userInfo: ["n": 1])
        center.post(name: ping, object: nil, userInfo: ["n": 3])
        #expect(order == ["in 1", "in 2", "out 2", "out 1"])
    }

    @Test func concurrentPostsAreDeliveredOneAtATimeAndNoneIsLost() async {
        let center = NotificationCenter()
        let subscriber = TestSubscriber<Notification, Never>()
        center.publisher(for: ping).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<250 { center.post(name: ping, object: nil) }
                }
            }
        }
        #expect(subscriber.values.count == 1000)
        #expect(!subscriber.sawConcurrentSignals)
        subscriber.cancel()
    }

    @Test func publishersCompareByCenterNameAndObject() {
        let center = NotificationCenter()
        let object = Poster()
        #expect(center.publisher(for: ping) == NotificationCenter.Publisher(center: center, name: ping))
        #expect(center.publisher(for: ping, object: object) == center.publisher(for: ping, object: object))
        #expect(center.publisher(for: ping, object: object) != center.publisher(for: ping, object: Poster()))
        #expect(center.publisher(for: ping) != center.publisher(for: pong))
        #expect(center.publisher(for: ping) != NotificationCenter().publisher(for: ping))
        let publisher = center.publisher(for: ping, object: object)
        #expect(publisher.center === center && publisher.name == ping && publisher.object === object)
    }
}
