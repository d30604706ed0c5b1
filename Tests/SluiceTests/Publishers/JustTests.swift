import Testing
import Dispatch
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Just")
struct JustTests {
    // MARK: Subscription behaviour

    @Test func waitsForDemandThenSendsTheValueAndFinishes() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Just(42).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Just")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Just"), .value(42), .completion(.finished)])
        // Demand after the end does nothing.
        subscriber.request(.max(5))
        #expect(subscriber.events == [.subscription("Just"), .value(42), .completion(.finished)])
    }

    @Test func deliversAtOnceWithInitialDemand() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        Just(42).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Just"), .value(42), .completion(.finished)])
    }

    @Test func cancelBeforeDemandDeliversNothing() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Just(42).subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(subscriber.events == [.subscription("Just")])
    }

    @Test func requestFromInsideReceiveDoesNotDeliverTwice() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .unlimited,
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.request(.unlimited)
                return .unlimited
            })
        Just(1).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Just"), .value(1), .completion(.finished)])
    }

    @Test func cancelFromInsideReceiveStillFinishes() {
        // The value and its completion are one delivery, as in Combine.
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.cancel()
                return .none
            })
        Just(1).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Just"), .value(1), .completion(.finished)])
    }

    @Test func reflection() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Just(42).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Just")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.count == 1)
        #expect(mirror.children.first?.label == nil)
        #expect(mirror.children.first?.value as? Int == 42)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Just")
        #expect(!(subscription is CustomDebugStringConvertible))
    }

    @Test func zeroDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            Just(1).subscribe(subscriber)
            subscriber.request(.none)
        }
    }

    @Test func releasesTheSubscriberAfterFinishAndAfterCancel() {
        weak var finished: TestSubscriber<Int, Never>?
        weak var cancelled: TestSubscriber<Int, Never>?
        var kept: [Subscription] = []
        do {
            let subscriber = TestSubscriber<Int, Never>()
            finished = subscriber
            Just(1).subscribe(subscriber)
            kept += subscriber.subscription.map { [$0] } ?? []
            subscriber.releaseSubscriptions()
        }
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            cancelled = subscriber
            Just(1).subscribe(subscriber)
            kept += subscriber.subscription.map { [$0] } ?? []
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(kept.count == 2)
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test func concurrentRequestsDeliverExactlyOnce() {
        for _ in 0..<200 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            Just(7).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                subscriber.request(.max(1))
            }
            #expect(subscriber.events == [.subscription("Just"), .value(7), .completion(.finished)])
            #expect(!subscriber.sawConcurrentSignals)
        }
    }

    // MARK: Specialisations

    @Test func comparisonsAndDuplicatesReturnTheSameJustWithoutCallingTheClosure() {
        var calls = 0
        let comparator: (Int, Int) -> Bool = { calls += 1; return $0 < $1 }
        let min: Just<Int> = Just(112).min()
        let max: Just<Int> = Just(341).max()
        let minBy: Just<Int> = Just(1).min(by: comparator)
        let maxBy: Just<Int> = Just(2).max(by: comparator)
        let unique: Just<Int> = Just(1000).removeDuplicates()
        let uniqueBy: Just<Int> = Just(44).removeDuplicates(by: { calls += 1; return $0 == $1 })
        #expect([min, max, minBy, maxBy, unique, uniqueBy] == [Just(112), Just(341), Just(1), Just(2), Just(1000), Just(44)])
        #expect(calls == 0)
    }

    @Test func containsAllSatisfyCountCollectFirstLast() {
        let contains: Just<Bool> = Just(10).contains(10)
        #expect(contains == Just(true))
        #expect(Just(10).contains(12) == Just(false))
        let containsWhere: Just<Bool> = Just(64).contains { $0 < 100 }
        #expect(containsWhere == Just(true))
        #expect(Just(14).contains { $0 > 100 } == Just(false))
        let all: Just<Bool> = Just(1).allSatisfy { $0 > 0 }
        #expect(all == Just(true))
        #expect(Just(0).allSatisfy { $0 > 0 } == Just(false))
        let count: Just<Int> = Just("x").count()
        #expect(count == Just(1))
        let collected: Just<[Int]> = Just(13).collect()
        #expect(collected == Just([13]))
        let first: Just<String> = Just("f").first()
        let last: Just<String> = Just("g").last()
        #expect(first == Just("f"))
        #expect(last == Just("g"))
    }

    @Test func mapStaysAJust() {
        let mapped: Just<Int> = Just(1).map { $0 + 1 }
        #expect(mapped == Just(2))
        #expect(Just(42).map(String.init) == Just("42"))
    }

    @Test func filteringOperatorsReturnAnOptionalPublisher() {
        let filtered: Optional<Int>.Publisher = Just(42).filter { $0 != 42 }
        #expect(filtered == Optional.Publisher(nil))
        #expect(Just(-13).filter { $0 != 42 } == Optional.Publisher(-13))
        let compact: Optional<String>.Publisher = Just(42).compactMap { $0 == 42 ? "42" : nil }
        #expect(compact == Optional.Publisher("42"))
        #expect(Just(100).compactMap { $0 == 42 ? "42" : nil } == Optional.Publisher(nil))
        #expect(Just(42).drop { $0 != 42 } == Optional.Publisher(42))
        #expect(Just(-13).drop { $0 != 42 } == Optional.Publisher(nil))
        #expect(Just(42).first { $0 != 42 } == Optional.Publisher(nil))
        #expect(Just(-13).first { $0 != 42 } == Optional.Publisher(-13))
        #expect(Just(42).last { $0 != 42 } == Optional.Publisher(nil))
        #expect(Just(-13).last { $0 != 42 } == Optional.Publisher(-13))
        #expect(Just(42).prefix { $0 != 42 } == Optional.Publisher(nil))
        #expect(Just(-13).prefix { $0 != 42 } == Optional.Publisher(-13))
    }

    @Test func dropFirstPrefixAndOutputAt() {
        let dropped: Optional<Int>.Publisher = Just(10_000).dropFirst()
        #expect(dropped == Optional.Publisher(nil))
        #expect(Just(10_000).dropFirst(100) == Optional.Publisher(nil))
        #expect(Just(10_000).dropFirst(0) == Optional.Publisher(10_000))
        #expect(Just(98).prefix(0) == Optional.Publisher(nil))
        #expect(Just(98).prefix(1) == Optional.Publisher(98))
        #expect(Just(98).prefix(1000) == Optional.Publisher(98))
        #expect(Just(12).output(at: 0) == Optional.Publisher(12))
        #expect(Just(12).output(at: 1) == Optional.Publisher(nil))
        #expect(Just(12).output(at: 42) == Optional.Publisher(nil))
    }

    @Test func outputInRangeKeepsCombinesEmptyRangeQuirk() {
        // FB6169621: only the lower bound is checked, so `0..<0` still publishes the value.
        #expect(Just(12).output(in: 0..<0) == Optional.Publisher(12))
        #expect(Just(12).output(in: 0..<10) == Optional.Publisher(12))
        #expect(Just(12).output(in: 0...0) == Optional.Publisher(12))
        #expect(Just(12).output(in: 0..<Int.max) == Optional.Publisher(12))
        #expect(Just(12).output(in: 1..<10) == Optional.Publisher(nil))
        #expect(Just(12).output(in: -10..<10) == Optional.Publisher(nil))
        #expect(Just(12).output(in: (-10)...) == Optional.Publisher(nil))
        #expect(Just(12).output(in: -10 ... 10) == Optional.Publisher(nil))
    }

    @Test func negativeCountsTrapWhenTheOperatorIsApplied() async {
        await #expect(processExitsWith: .failure) { _ = Just(1).dropFirst(-1) }
        await #expect(processExitsWith: .failure) { _ = Just(1).prefix(-1) }
        await #expect(processExitsWith: .failure) { _ = Just(1).output(at: -1) }
    }

    @Test func throwingOperatorsReturnAResultPublisher() throws {
        let tryMapped: Result<String, Error>.Publisher = Just(42).tryMap { String($0) }
        #expect(try tryMapped.result.get() == "42")
        #expect(throws: TestError.self) { try Just(42).tryMap { _ -> Int in throw TestError() }.result.get() }
        let tryAll: Result<Bool, Error>.Publisher = Just(1).tryAllSatisfy { $0 > 0 }
        #expect(try tryAll.result.get())
        #expect(throws: TestError.self) { try Just(1).tryAllSatisfy { _ in throw TestError() }.result.get() }
        let tryContains: Result<Bool, Error>.Publisher = Just(0).tryContains { $0 > 0 }
        #expect(try !tryContains.result.get())
        #expect(throws: TestError.self) { try Just(1).tryContains { _ in throw TestError() }.result.get() }
        let tryReduced: Result<Int, Error>.Publisher = Just(4).tryReduce(2, *)
        #expect(try tryReduced.result.get() == 8)
        let tryScanned: Result<Int, Error>.Publisher = Just(4).tryScan(2, *)
        #expect(try tryScanned.result.get() == 8)
        #expect(throws: TestError.self) { try Just(4).tryScan(2) { _, _ in throw TestError() }.result.get() }
    }

    @Test func tryRemoveDuplicatesCallsThePredicateOnce() throws {
        var calls = 0
        let kept: Result<Int, Error>.Publisher = Just(44).tryRemoveDuplicates { calls += 1; return $0 == $1 }
        #expect(try kept.result.get() == 44)
        #expect(throws: TestError.self) {
            try Just(44).tryRemoveDuplicates { _, _ in calls += 1; throw TestError() }.result.get()
        }
        #expect(calls == 2)
    }

    @Test func reduceScanSetFailureTypeAndMapErrorReturnResultPublishers() throws {
        let reduced: Result<Int, Never>.Publisher = Just(4).reduce(2, +)
        #expect(reduced.result == .success(6))
        let scanned: Result<Int, Never>.Publisher = Just(4).scan(2, +)
        #expect(scanned.result == .success(6))
        let typed: Result<Int, TestError>.Publisher = Just(73).setFailureType(to: TestError.self)
        #expect(typed.result == .success(73))
        let mapped: Result<Int, TestError>.Publisher = Just(42).mapError(neverToTestError)
        #expect(mapped.result == .success(42))
    }

    @Test func errorAndEmptyHandlingReturnTheSameJust() {
        let replacedError: Just<Int> = Just(1).replaceError(with: 100)
        let replacedEmpty: Just<Int> = Just(1).replaceEmpty(with: 100)
        let retried: Just<Int> = Just(1).retry(Int.max)
        #expect([replacedError, replacedEmpty, retried] == [Just(1), Just(1), Just(1)])
        let ignored: Empty<Double, Never> = Just(13.0).ignoreOutput()
        #expect(ignored.completeImmediately)
    }

    @Test func prependAndAppendReturnASequencePublisher() {
        let prepended: Publishers.Sequence<[Int], Never> = Just(5).prepend(1, 2, 3, 4)
        #expect(prepended == Publishers.Sequence(sequence: [1, 2, 3, 4, 5]))
        #expect(Just(5).prepend(1...4) == Publishers.Sequence(sequence: [1, 2, 3, 4, 5]))
        let appended: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3, 4, 5)
        #expect(appended == Publishers.Sequence(sequence: [1, 2, 3, 4, 5]))
        #expect(Just(1).append(2...5) == Publishers.Sequence(sequence: [1, 2, 3, 4, 5]))
    }

    @Test func aSpecialisedChainStillPublishes() {
        let subscriber = TestSubscriber<String, Never>()
        Just(20).map { $0 + 1 }.filter { $0.isMultiple(of: 3) }.map { "\($0)" }.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Optional"), .value("21"), .completion(.finished)])
    }
}

/// A `Never` transform for `mapError`, which `Just` never calls.
private func neverToTestError(_ never: Never) -> TestError {}
