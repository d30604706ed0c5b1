import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Concatenate: append and prepend")
struct ConcatenateTests {
    typealias Pub = TestPublisher<Int, TestError>
    typealias Sub = TestSubscriber<Int, TestError>

    @Test func prefixThenSuffixWithDemandCarriedOver() {
        let prefix = Pub()
        let suffix = Pub()
        let subscriber = Sub(initialDemand: .max(10), onValue: { .max($0) })
        prefix.append(suffix).subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["Concatenate"])
        #expect(prefix.demandLog == [.requested(.max(10))])
        #expect(!suffix.hasSubscriber)
        #expect(prefix.send(1) == .max(1))
        #expect(prefix.send(2) == .max(2))
        #expect(prefix.send(3) == .max(3))
        prefix.send(completion: .finished)
        // 10 - 3 values + 6 returned.
        #expect(suffix.demandLog == [.requested(.max(13))])
        #expect(prefix.send(4000) == .none)
        #expect(suffix.send(5) == .max(5))
        suffix.send(completion: .finished)
        suffix.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("Concatenate"), .value(1), .value(2), .value(3), .value(5), .completion(.finished)])
        #expect(prefix.demandLog == [.requested(.max(10))])
    }

    @Test func valuesAndSequences() {
        var out: [Int] = []
        let c1 = [3, 4].publisher.prepend(1, 2).append(5).append([6, 7]).prepend(0...0).sink { out.append($0) }
        #expect(out == Array(0...7))
        c1.cancel()
        var done = false
        let c2 = Just(1).append(Just(2)).prepend(Empty()).sink(receiveCompletion: { _ in done = true }, receiveValue: { out.append($0) })
        #expect(out == Array(0...7) + [1, 2])
        #expect(done)
        c2.cancel()
        let p = Pub()
        #expect(p.append(2, 3, 5).suffix.sequence == [2, 3, 5])
        #expect(p.prepend(7, 5).prefix.sequence == [7, 5])
        #expect(p.append(CollectionOfOne(42)).suffix.sequence.first == 42)
    }

    @Test func prefixFailureFailsWithoutSubscribingTheSuffix() {
        let prefix = Pub()
        let suffix = Pub()
        let subscriber = Sub()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(1)
        prefix.send(completion: .failure(TestError(code: 2)))
        prefix.send(2)
        #expect(subscriber.events == [.subscription("Concatenate"), .value(1), .completion(.failure(TestError(code: 2)))])
        #expect(!suffix.hasSubscriber)
    }

    @Test func limitedDemandThenMore() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...2).publisher.append(3, 4).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completions == [.finished])
    }

    @Test func demandRequestedWhileSwitchingAndRequestsOfNothingAreForwarded() {
        let prefix = Pub()
        let suffix = Pub(sendsSubscriptionOnSubscribe: false)
        let subscriber = Sub(initialDemand: .max(10), onValue: { .max($0) })
        prefix.append(suffix).subscribe(subscriber)
        subscriber.request(.none)
        #expect(prefix.send(3) == .max(3))
        #expect(prefix.demandLog == [.requested(.max(10)), .requested(.none)])
        prefix.send(completion: .finished)
        subscriber.request(.max(7))   // no subscription yet: accumulated
        suffix.sendSubscription()
        #expect(suffix.demandLog == [.requested(.max(19))])
        subscriber.request(.unlimited)
        suffix.send(completion: .finished)
        subscriber.request(.max(42))
        #expect(suffix.demandLog == [.requested(.max(19)), .requested(.unlimited)])
    }

    @Test func valuesWithoutDemandAreDropped() {
        let prefix = Pub()
        let subscriber = Sub(initialDemand: .max(1))
        prefix.append(Pub()).subscribe(subscriber)
        prefix.send(1)
        prefix.send(2)
        #expect(subscriber.values == [1])
    }

    @Test func reentrantValuesAreDeliveredNestedWhileDemandLasts() {
        let prefix = Pub()
        let subscriber = Sub(initialDemand: .max(3), onValue: { value in
            if value < 10 { #expect(prefix.send(value + 1) == .none) }
            return .none
        })
        prefix.append().subscribe(subscriber)
        prefix.send(1)
        #expect(subscriber.values == [1, 2, 3])
    }

    @Test func cancelIsIdempotentAndReleasesTheSuffix() {
        weak var weakSuffix: Pub?
        let prefix = Pub()
        let subscriber = Sub(initialDemand: .none)
        do {
            let suffix = Pub()
            weakSuffix = suffix
            prefix.append(suffix).subscribe(subscriber)
        }
        #expect(weakSuffix != nil)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(2))
        prefix.send(completion: .finished)
        #expect(weakSuffix == nil)
        #expect(prefix.demandLog == [.cancelled])
        #expect(subscriber.events == [.subscription("Concatenate")])
    }

    @Test func cancelFromInsideReceive() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { subscription = $0 }, onValue: { value in
            if value == 2 { subscription?.cancel() }
            return .none
        })
        (1...5).publisher.append(6, 7).subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func secondSubscriptionsAreCancelledAndEventsBeforeSubscriptionIgnored() {
        let prefix = Pub(sendsSubscriptionOnSubscribe: false)
        let suffix = Pub()
        let subscriber = Sub()
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(1)
        prefix.send(completion: .finished)
        #expect(subscriber.events.isEmpty)
        prefix.sendSubscription()
        prefix.sendSubscription()
        #expect(prefix.demandLog == [.requested(.unlimited), .cancelled])
        prefix.send(completion: .finished)
        suffix.sendSubscription()
        #expect(suffix.demandLog == [.requested(.unlimited), .cancelled])
        suffix.send(completion: .finished)
        suffix.sendSubscription()
        #expect(suffix.demandLog == [.requested(.unlimited), .cancelled, .cancelled])
        #expect(subscriber.events == [.subscription("Concatenate"), .completion(.finished)])
    }

    @Test func equatableWhereBothSidesAre() {
        #expect(Just(1).append(Just(2)) == Publishers.Concatenate(prefix: Just(1), suffix: Just(2)))
        #expect(Just(1).append(Just(2)) != Publishers.Concatenate(prefix: Just(2), suffix: Just(1)))
    }

    @Test func subscriptionReportsNoMirrorChildren() {
        let subscriber = Sub()
        Pub().append(Pub()).subscribe(subscriber)
        #expect(Mirror(reflecting: subscriber.subscription!).children.count == 0)
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterFinish() {
        weak var weakSubscriber: Sub?
        let prefix = Pub()
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            prefix.append(Pub()).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        prefix.releaseSubscriber()
        #expect(weakSubscriber == nil)

        weak var weakFinished: Sub?
        let first = Pub()
        let second = Pub()
        do {
            let subscriber = Sub()
            weakFinished = subscriber
            first.append(second).subscribe(subscriber)
            first.send(completion: .finished)
            second.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        first.releaseSubscriber()
        second.releaseSubscriber()
        #expect(weakFinished == nil)
    }

    /// As in Combine: the prefix's and the suffix's subscribers both carry the identity of the
    /// subscription the downstream holds, and are of different types.
    @Test func prefixAndSuffixSubscribersShareTheIdentityNotTheType() throws {
        let prefix = InnerProbe<Int, Never>()
        let suffix = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        prefix.append(suffix).subscribe(subscriber)
        prefix.send(subscription: ProbeSubscription())
        prefix.send(completion: .finished)
        let downstreamSubscription = try #require(subscriber.subscription)
        let prefixSide = try #require(prefix.inner)
        let suffixSide = try #require(suffix.inner)
        #expect(prefix.innerCombineIdentifier == downstreamSubscription.combineIdentifier)
        #expect(suffix.innerCombineIdentifier == downstreamSubscription.combineIdentifier)
        #expect(ObjectIdentifier(type(of: prefixSide)) != ObjectIdentifier(type(of: suffixSide)))
        #expect(ObjectIdentifier(type(of: prefixSide)) != ObjectIdentifier(type(of: downstreamSubscription)))
    }

    @Test func concurrentRequestsWhileValuesFlow() async {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        (0..<5_000).publisher.append(5_000..<10_000).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1_250 { subscriber.request(.max(1)) }
                }
            }
        }
        #expect(subscriber.values == Array(0..<10_000))
        #expect(!subscriber.sawConcurrentSignals)
        subscriber.request(.max(1))
        #expect(subscriber.completions == [.finished])
    }
}
