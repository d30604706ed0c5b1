import Testing
import Dispatch
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Optional.Publisher")
struct OptionalPublisherTests {
    private typealias Sut = Optional<Int>.Publisher

    // MARK: Subscription behaviour

    @Test func aValueWaitsForDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Optional(42).publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Optional")])
        subscriber.request(.max(100))
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Optional"), .value(42), .completion(.finished)])
    }

    @Test func nilFinishesAtOnceWithTheEmptySubscription() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Sut(nil).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .completion(.finished)])
    }

    @Test func requestThenCancelInsideReceiveSubscriptionDelivers() {
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .none,
            onSubscription: { subscription in
                subscription.request(.max(1))
                subscription.cancel()
            })
        Sut(42).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Optional"), .value(42), .completion(.finished)])
    }

    @Test func cancelBeforeDemandDeliversNothing() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Sut(42).subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Optional")])
    }

    @Test func requestFromInsideReceiveDoesNotDeliverTwice() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.request(.unlimited)
                return .none
            })
        Sut(42).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Optional"), .value(42), .completion(.finished)])
    }

    @Test func reflection() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Sut(42).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Optional")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.count == 1)
        #expect(mirror.children.first?.label == nil)
        #expect(mirror.children.first?.value as? Int == 42)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Optional")
    }

    @Test func zeroDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            Optional(1).publisher.subscribe(subscriber)
            subscriber.request(.none)
        }
    }

    @Test func releasesTheSubscriberAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        var kept: Subscription?
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            weakSubscriber = subscriber
            Sut(1).subscribe(subscriber)
            kept = subscriber.subscription
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(kept != nil)
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentRequestsDeliverExactlyOnce() {
        for _ in 0..<200 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            Sut(3).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in subscriber.request(.max(1)) }
            #expect(subscriber.events == [.subscription("Optional"), .value(3), .completion(.finished)])
        }
    }

    // MARK: Specialisations

    @Test func singleValueOperatorsReturnThePublisherWithoutCallingTheClosure() {
        var calls = 0
        let comparator: (Int, Int) -> Bool = { calls += 1; return $0 < $1 }
        let results: [Sut] = [
            Sut(112).min(), Sut(nil).min(), Sut(341).max(), Sut(nil).max(),
            Sut(1).min(by: comparator), Sut(nil).min(by: comparator),
            Sut(2).max(by: comparator), Sut(nil).max(by: comparator),
            Sut(1000).removeDuplicates(), Sut(44).removeDuplicates(by: comparator),
            Sut(3).first(), Sut(nil).first(), Sut(4).last(), Sut(nil).last(),
            Sut(1).replaceError(with: 100), Sut(nil).replaceError(with: 100),
            Sut(1).retry(100), Sut(nil).retry(100),
        ]
        #expect(results == [Sut(112), Sut(nil), Sut(341), Sut(nil), Sut(1), Sut(nil), Sut(2), Sut(nil),
                            Sut(1000), Sut(44), Sut(3), Sut(nil), Sut(4), Sut(nil), Sut(1), Sut(nil),
                            Sut(1), Sut(nil)])
        #expect(calls == 0)
    }

    @Test func predicatesOnNilStayNil() {
        var calls = 0
        let positive: (Int) -> Bool = { calls += 1; return $0 > 0 }
        let contains: Optional<Bool>.Publisher = Sut(10).contains(10)
        #expect(contains == Optional.Publisher(true))
        #expect(Sut(10).contains(12) == Optional.Publisher(false))
        #expect(Sut(nil).contains(10) == Optional.Publisher(nil))
        #expect(Sut(64).contains(where: positive) == Optional.Publisher(true))
        #expect(Sut(nil).contains(where: positive) == Optional.Publisher(nil))
        // Unlike the general operator on an empty stream, nil gives nil, not true.
        #expect(Sut(1).allSatisfy(positive) == Optional.Publisher(true))
        #expect(Sut(0).allSatisfy(positive) == Optional.Publisher(false))
        #expect(Sut(nil).allSatisfy(positive) == Optional.Publisher(nil))
        #expect(calls == 3)
    }

    @Test func countCollectAndReduce() {
        let count: Optional<Int>.Publisher = Sut(10_000).count()
        #expect(count == Optional.Publisher(1))
        #expect(Sut(nil).count() == Optional.Publisher(nil))
        let collected: Optional<[Int]>.Publisher = Sut(13).collect()
        #expect(collected == Optional.Publisher([13]))
        #expect(Sut(nil).collect() == Optional.Publisher([]))
        var calls = 0
        let plus: (Int, Int) -> Int = { calls += 1; return $0 + $1 }
        let reduced: Optional<Int>.Publisher = Sut(4).reduce(2, plus)
        #expect(reduced == Optional.Publisher(6))
        #expect(Sut(nil).reduce(2, plus) == Optional.Publisher(nil))
        let scanned: Optional<Int>.Publisher = Sut(4).scan(2, plus)
        #expect(scanned == Optional.Publisher(6))
        #expect(Sut(nil).scan(2, plus) == Optional.Publisher(nil))
        #expect(calls == 2)
    }

    @Test func mapCompactMapAndFilters() {
        var calls = 0
        let mapped: Optional<String>.Publisher = Sut(42).map { calls += 1; return String($0) }
        #expect(mapped == Optional.Publisher("42"))
        #expect(Sut(nil).map { calls += 1; return String($0) } == Optional.Publisher(nil))
        #expect(calls == 1)
        #expect(Sut(42).compactMap { $0 == 42 ? "42" : nil } == Optional.Publisher("42"))
        #expect(Sut(100).compactMap { $0 == 42 ? "42" : nil } == Optional.Publisher(nil))
        let is42: (Int) -> Bool = { $0 == 42 }
        #expect(Sut(42).filter(is42) == Sut(42))
        #expect(Sut(-13).filter(is42) == Sut(nil))
        #expect(Sut(42).first(where: is42) == Sut(42))
        #expect(Sut(-13).last(where: is42) == Sut(nil))
        #expect(Sut(42).drop(while: { $0 != 42 }) == Sut(42))
        #expect(Sut(-13).drop(while: { $0 != 42 }) == Sut(nil))
        #expect(Sut(98).prefix(while: { $0.isMultiple(of: 2) }) == Sut(98))
        #expect(Sut(99).prefix(while: { $0.isMultiple(of: 2) }) == Sut(nil))
    }

    @Test func dropFirstPrefixAndOutputAt() {
        #expect(Sut(10_000).dropFirst() == Sut(nil))
        #expect(Sut(10_000).dropFirst(100) == Sut(nil))
        #expect(Sut(10_000).dropFirst(0) == Sut(10_000))
        #expect(Sut(nil).dropFirst() == Sut(nil))
        #expect(Sut(98).prefix(0) == Sut(nil))
        #expect(Sut(98).prefix(1) == Sut(98))
        #expect(Sut(98).prefix(1000) == Sut(98))
        #expect(Sut(12).output(at: 0) == Sut(12))
        #expect(Sut(12).output(at: 1) == Sut(nil))
        #expect(Sut(nil).output(at: 0) == Sut(nil))
    }

    @Test func outputInRange() {
        #expect(Sut(12).output(in: 0..<10) == Sut(12))
        #expect(Sut(12).output(in: 0..<(Int.max - 2)) == Sut(12))
        #expect(Sut(nil).output(in: 0..<10) == Sut(nil))
        // Unlike Just (FB6169621), an empty range gives nil.
        #expect(Sut(12).output(in: 0..<0) == Sut(nil))
        #expect(Sut(12).output(in: 0...0) == Sut(12))
        #expect(Sut(12).output(in: 1..<10) == Sut(nil))
        #expect(Sut(12).output(in: ...0) == Sut(12))
        #expect(Sut(12).output(in: ..<0) == Sut(nil))
        #expect(Sut(12).output(in: ..<1) == Sut(12))
    }

    @Test func replaceEmptyReturnsAJust() {
        let some: Just<Int> = Sut(1).replaceEmpty(with: 100)
        #expect(some == Just(1))
        #expect(Sut(nil).replaceEmpty(with: 100) == Just(100))
        let ignored: Empty<Double, Never> = Optional(13.0).publisher.ignoreOutput()
        #expect(ignored.completeImmediately)
    }

    @Test func invalidArgumentsTrap() async {
        await #expect(processExitsWith: .failure) { _ = Optional(1).publisher.output(at: -1) }
        await #expect(processExitsWith: .failure) { _ = Optional(1).publisher.prefix(-1) }
        await #expect(processExitsWith: .failure) { _ = Optional(1).publisher.dropFirst(-1) }
        await #expect(processExitsWith: .failure) { _ = Optional(1).publisher.output(in: (-1)...4) }
        await #expect(processExitsWith: .failure) { _ = Optional(1).publisher.output(in: 0..<(Int.max - 1)) }
    }
}
