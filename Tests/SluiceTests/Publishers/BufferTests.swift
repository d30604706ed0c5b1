import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Buffer")
struct BufferTests {
    typealias Pub = TestPublisher<Int, TestError>
    typealias Sub = TestSubscriber<Int, TestError>

    func make(_ size: Int, _ prefetch: Publishers.PrefetchStrategy,
              _ whenFull: Publishers.BufferingStrategy<TestError>,
              demand: Subscribers.Demand = .none, onValue: @escaping (Int) -> Subscribers.Demand = { _ in .none })
        -> (Pub, Sub)
    {
        let upstream = Pub()
        let subscriber = Sub(initialDemand: demand, onValue: onValue)
        upstream.buffer(size: size, prefetch: prefetch, whenFull: whenFull).subscribe(subscriber)
        return (upstream, subscriber)
    }

    @Test func asksTheUpstreamBeforeTheDownstreamHearsOfTheSubscription() {
        for (prefetch, expected) in [(Publishers.PrefetchStrategy.keepFull, Subscribers.Demand.max(42)), (.byRequest, .unlimited)] {
            let upstream = Pub()
            var requestedFirst = false
            let subscriber = Sub(initialDemand: .none, onSubscription: { _ in requestedFirst = !upstream.demandLog.isEmpty })
            upstream.buffer(size: 42, prefetch: prefetch, whenFull: .dropOldest).subscribe(subscriber)
            #expect(requestedFirst)
            #expect(upstream.demandLog == [.requested(expected)])
            #expect(subscriber.subscriptionNames == ["Buffer"])
        }
    }

    @Test func fullBufferStrategies() {
        let (p1, s1) = make(3, .byRequest, .dropNewest)
        let (p2, s2) = make(3, .byRequest, .dropOldest)
        let (p3, s3) = make(3, .byRequest, .customError { TestError(code: 9) })
        for upstream in [p1, p2, p3] {
            for i in 1...5 { #expect(upstream.send(i) == .none) }
        }
        #expect(p3.demandLog == [.requested(.unlimited), .cancelled])
        for subscriber in [s1, s2, s3] { subscriber.request(.max(3)) }
        #expect(s1.values == [1, 2, 3])
        #expect(s2.values == [3, 4, 5])
        #expect(s3.events == [.subscription("Buffer"), .value(1), .value(2), .value(3), .completion(.failure(TestError(code: 9)))])
        s1.request(.max(1))
        #expect(s1.values == [1, 2, 3])
        #expect(p1.demandLog == [.requested(.unlimited)])
    }

    @Test func keepFullRefillsWhatWasDelivered() {
        let (upstream, subscriber) = make(5, .keepFull, .dropNewest)
        for i in 0..<10 { #expect(upstream.send(i) == .none) }
        subscriber.request(.max(3))
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 1, 2, 3])
        #expect(upstream.demandLog == [.requested(.max(5)), .requested(.max(3)), .requested(.max(1))])
    }

    /// A request whose deliveries return more demand, which moves more of the buffer, refills
    /// the upstream with one request for everything it moved, as Combine's does (a suite run
    /// against Apple's Combine records `max(10)` where one per returned demand would be
    /// `max(1)` and `max(9)`).
    @Test func keepFullRefillsWhatOneRequestMovedInOneRequest() {
        let (upstream, subscriber) = make(10, .keepFull, .dropOldest, demand: .max(5),
                                          onValue: { [5, 10].contains($0) ? .max(5) : .none })
        for i in 0..<15 { _ = upstream.send(i) }
        #expect(subscriber.values == [0, 1, 2, 3, 4])
        #expect(upstream.demandLog == [.requested(.max(10))])
        subscriber.request(.max(9))
        #expect(subscriber.values == Array(0..<15))
        #expect(upstream.demandLog == [.requested(.max(10)), .requested(.max(10))])
    }

    @Test func customErrorWithKeepFullStillForwardsTheRefillAsCombineDoes() {
        let (upstream, subscriber) = make(5, .keepFull, .customError { TestError(code: 1) })
        for i in 0..<10 { upstream.send(i) }
        subscriber.request(.max(3))
        #expect(subscriber.events == [.subscription("Buffer"), .value(0), .value(1), .value(2), .completion(.failure(TestError(code: 1)))])
        #expect(upstream.demandLog == [.requested(.max(5)), .cancelled, .requested(.max(3))])
    }

    @Test func valuesPassStraightThroughWhileThereIsDemand() {
        for prefetch in [Publishers.PrefetchStrategy.byRequest, .keepFull] {
            let (upstream, subscriber) = make(5, prefetch, .dropNewest, demand: .unlimited)
            for i in 0..<10 {
                #expect(upstream.send(i) == (prefetch == .keepFull ? .max(1) : .none))
            }
            #expect(subscriber.values == Array(0..<10))
            #expect(upstream.demandLog == [.requested(prefetch == .keepFull ? .max(5) : .unlimited)])
        }
    }

    @Test func reentrantRequestsIncludingNone() {
        for prefetch in [Publishers.PrefetchStrategy.byRequest, .keepFull] {
            var subscription: Subscription?
            let upstream = Pub()
            let subscriber = Sub(initialDemand: .max(3), onSubscription: { subscription = $0 }, onValue: { _ in
                subscription?.request(.max(1))
                subscription?.request(.none)   // ignored, as in Combine
                return .none
            })
            upstream.buffer(size: 5, prefetch: prefetch, whenFull: .dropNewest).subscribe(subscriber)
            for i in 0..<10 { upstream.send(i) }
            #expect(subscriber.values == Array(0..<10))
        }
    }

    @Test func afterFinishingBufferedValuesAreStillDeliveredThenFinished() {
        let (upstream, subscriber) = make(3, .byRequest, .dropOldest)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("Buffer")])
        // Combine still buffers values that arrive after the upstream finished.
        upstream.send(1)
        upstream.send(2)
        subscriber.request(.max(2))
        #expect(subscriber.events == [.subscription("Buffer"), .value(1), .value(2)])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Buffer"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func upstreamFailureIsDeliveredAtOnceDroppingWhatHasNoDemand() {
        let (upstream, subscriber) = make(3, .byRequest, .dropOldest)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 4)))
        upstream.send(2)
        #expect(subscriber.events == [.subscription("Buffer"), .completion(.failure(TestError(code: 4)))])
        subscriber.request(.max(2))
        #expect(subscriber.events == [.subscription("Buffer"), .completion(.failure(TestError(code: 4)))])
    }

    @Test func failureFromInsideReceiveComesAfterTheValuesWithDemand() {
        var upstreamRef: Pub?
        let upstream = Pub()
        upstreamRef = upstream
        let subscriber = Sub(initialDemand: .none, onValue: { _ in
            upstreamRef?.send(completion: .failure(TestError(code: 5)))
            return .none
        })
        upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
        for i in 1...5 { upstream.send(i) }
        subscriber.request(.max(3))
        // Combine delivers values after the failure here; Sluice never forwards anything after
        // a completion, so the values that had demand go first.
        #expect(subscriber.events == [.subscription("Buffer"), .value(1), .value(2), .value(3), .completion(.failure(TestError(code: 5)))])
    }

    @Test func limitedDemandOneAtATime() {
        let (upstream, subscriber) = make(10, .byRequest, .dropNewest, demand: .max(1), onValue: { _ in .max(1) })
        for i in 0..<5 { upstream.send(i) }
        #expect(subscriber.values == [0, 1, 2, 3, 4])
        let (other, slow) = make(10, .byRequest, .dropNewest, demand: .max(1))
        for i in 0..<5 { other.send(i) }
        for _ in 0..<4 { slow.request(.max(1)) }
        #expect(slow.values == [0, 1, 2, 3, 4])
    }

    @Test func cancelStopsDeliveryCancelsUpstreamAndReleasesTheDownstream() {
        weak var weakSubscriber: Sub?
        let upstream = Pub()
        do {
            let subscriber = Sub(initialDemand: .none)
            weakSubscriber = subscriber
            upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
            upstream.send(1)
            subscriber.cancel()
            subscriber.cancel()
            subscriber.request(.max(1))
            #expect(subscriber.values.isEmpty)
            subscriber.releaseSubscriptions()
        }
        upstream.releaseSubscriber()
        #expect(weakSubscriber == nil)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func releasesTheDownstreamAfterFinish() {
        weak var weakSubscriber: Sub?
        let upstream = Pub()
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            upstream.buffer(size: 1, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
            upstream.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func secondSubscriptionIsCancelledAndValuesBeforeSubscriptionIgnored() {
        let upstream = Pub(sendsSubscriptionOnSubscribe: false)
        let subscriber = Sub()
        upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        upstream.sendSubscription()
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        upstream.send(2)
        #expect(subscriber.events == [.subscription("Buffer"), .value(2)])
    }

    @Test func mirrorAndStrategies() {
        let subscriber = Sub(initialDemand: .none)
        Pub().buffer(size: 13, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
        let mirror = Mirror(reflecting: subscriber.subscription!)
        #expect(mirror.children.map(\.label) == ["values", "state", "downstreamDemand", "terminal"])
        #expect(mirror.children.map { String(describing: $0.value) } == ["[]", "subscribed", "max(0)", "nil"])
        #expect(Publishers.PrefetchStrategy.keepFull == .keepFull)
        #expect(Publishers.PrefetchStrategy.keepFull != .byRequest)
        #expect(Set([Publishers.PrefetchStrategy.keepFull, .byRequest, .keepFull]).count == 2)
        let buffer = Pub().buffer(size: 4, prefetch: .byRequest, whenFull: .dropOldest)
        #expect(buffer.size == 4)
        #expect(buffer.prefetch == .byRequest)
    }

    @Test func concurrentValuesAndRequestsNeverExceedDemandOrOverlap() async {
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.buffer(size: 100_000, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<20_000 { upstream.send(i) }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<2_500 { subscriber.request(.max(1)) }
                }
            }
        }
        #expect(subscriber.values == Array(0..<10_000))
        #expect(!subscriber.sawConcurrentSignals)
        subscriber.request(.unlimited)
        #expect(subscriber.values == Array(0..<20_000))
    }
}
