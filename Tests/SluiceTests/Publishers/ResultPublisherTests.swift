import Testing
import Dispatch
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Result.Publisher")
struct ResultPublisherTests {
    private typealias Sut = Result<Int, TestError>.Publisher

    // MARK: Subscription behaviour

    @Test func successWaitsForDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Result<Int, TestError>.success(42).publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Once")])
        subscriber.request(.max(100))
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Once"), .value(42), .completion(.finished)])
    }

    @Test func failureIsSentAtOnceWithoutDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Sut(TestError(code: 3)).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .completion(.failure(TestError(code: 3)))])
    }

    @Test func failureIsSentEvenIfTheSubscriberCancelsOnSubscription() {
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .none, onSubscription: { $0.cancel() })
        Sut(TestError()).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .completion(.failure(TestError()))])
    }

    @Test func initialisers() {
        #expect(Sut(1).result == .success(1))
        #expect(Sut(TestError()).result == .failure(TestError()))
        #expect(Sut(.success(2)) == Result<Int, TestError>.success(2).publisher)
    }

    @Test func cancelBeforeDemandDeliversNothing() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Sut(42).subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Once")])
    }

    @Test func requestFromInsideReceiveDoesNotDeliverTwice() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, TestError>(
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.request(.unlimited)
                return .none
            })
        Sut(42).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Once"), .value(42), .completion(.finished)])
    }

    @Test func reflection() throws {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Sut(42).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        var dumped = ""
        dump(subscription, to: &dumped)
        #expect(dumped == "▿ Once #0\n  - 42\n")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Once")
    }

    @Test func zeroDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
            Result<Int, TestError>.success(1).publisher.subscribe(subscriber)
            subscriber.request(.none)
        }
    }

    @Test func releasesTheSubscriberAfterFinish() {
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        var kept: Subscription?
        do {
            let subscriber = TestSubscriber<Int, TestError>()
            weakSubscriber = subscriber
            Sut(1).subscribe(subscriber)
            kept = subscriber.subscription
            subscriber.releaseSubscriptions()
        }
        #expect(kept != nil)
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentRequestsDeliverExactlyOnce() {
        for _ in 0..<200 {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
            Sut(5).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in subscriber.request(.max(1)) }
            #expect(subscriber.events == [.subscription("Once"), .value(5), .completion(.finished)])
        }
    }

    // MARK: Specialisations

    @Test func singleValueOperatorsReturnThePublisherWithoutCallingTheClosure() {
        var calls = 0
        let comparator: (Int, Int) -> Bool = { calls += 1; return $0 < $1 }
        let failure = Sut(TestError())
        let results: [Sut] = [
            Sut(112).min(), failure.min(), Sut(341).max(), failure.max(),
            Sut(1).min(by: comparator), failure.min(by: comparator),
            Sut(2).max(by: comparator), failure.max(by: comparator),
            Sut(1000).removeDuplicates(), Sut(44).removeDuplicates(by: comparator),
            Sut(3).first(), failure.first(), Sut(4).last(), failure.last(),
            Sut(1).replaceEmpty(with: 100), failure.replaceEmpty(with: 100),
            Sut(1).retry(100), failure.retry(100),
        ]
        #expect(results.map(\.result) == [
            .success(112), .failure(TestError()), .success(341), .failure(TestError()),
            .success(1), .failure(TestError()), .success(2), .failure(TestError()),
            .success(1000), .success(44), .success(3), .failure(TestError()), .success(4),
            .failure(TestError()), .success(1), .failure(TestError()), .success(1), .failure(TestError()),
        ])
        #expect(calls == 0)
    }

    @Test func valueOperatorsKeepTheFailure() {
        let failure = Sut(TestError(code: 9))
        let contains: Result<Bool, TestError>.Publisher = Sut(10).contains(10)
        #expect(contains.result == .success(true))
        #expect(Sut(10).contains(12).result == .success(false))
        #expect(failure.contains(12).result == .failure(TestError(code: 9)))
        #expect(Sut(64).contains(where: { $0 < 100 }).result == .success(true))
        #expect(Sut(0).allSatisfy { $0 > 0 }.result == .success(false))
        #expect(failure.allSatisfy { $0 > 0 }.result == .failure(TestError(code: 9)))
        let collected: Result<[Int], TestError>.Publisher = Sut(13).collect()
        #expect(collected.result == .success([13]))
        #expect(failure.collect().result == .failure(TestError(code: 9)))
        let count: Result<Int, TestError>.Publisher = Sut(10_000).count()
        #expect(count.result == .success(1))
        #expect(failure.count().result == .failure(TestError(code: 9)))
        let mapped: Result<String, TestError>.Publisher = Sut(42).map(String.init)
        #expect(mapped.result == .success("42"))
        #expect(failure.map(String.init).result == .failure(TestError(code: 9)))
        let reduced: Result<Int, TestError>.Publisher = Sut(4).reduce(2, +)
        #expect(reduced.result == .success(6))
        #expect(failure.scan(2, +).result == .failure(TestError(code: 9)))
        #expect(Sut(4).scan(2, +).result == .success(6))
    }

    @Test func mapErrorReplaceErrorAndSetFailureType() {
        let mappedError: Result<Int, TestError>.Publisher =
            Sut(TestError(code: 1)).mapError { TestError(code: $0.code + 1) }
        #expect(mappedError.result == .failure(TestError(code: 2)))
        #expect(Sut(42).mapError { _ in TestError(code: 5) }.result == .success(42))
        let replaced: Result<Int, Never>.Publisher = Sut(TestError()).replaceError(with: 100)
        #expect(replaced.result == .success(100))
        #expect(Sut(1).replaceError(with: 100).result == .success(1))
        let typed: Result<Int, TestError>.Publisher = Result<Int, Never>.Publisher(73).setFailureType(to: TestError.self)
        #expect(typed.result == .success(73))
    }

    @Test func ignoreOutputFinishesEvenForAFailure() {
        let ignored: Empty<Int, TestError> = Sut(TestError()).ignoreOutput()
        #expect(ignored.completeImmediately)
        let subscriber = TestSubscriber<Int, TestError>()
        ignored.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .completion(.finished)])
    }

    @Test func throwingOperatorsEraseTheFailureAndCallTheClosureOnce() throws {
        var calls = 0
        let throwing: (Int) throws -> Bool = { _ in calls += 1; throw TestError(code: 7) }
        let throwingComparator: (Int, Int) throws -> Bool = { lhs, rhs in
            #expect(lhs == rhs)
            calls += 1
            throw TestError(code: 7)
        }
        let tryMapped: Result<String, Error>.Publisher = Sut(42).tryMap { String($0) }
        #expect(try tryMapped.result.get() == "42")
        #expect(throws: TestError(code: 7)) { try Sut(42).tryMap(throwing).result.get() }
        #expect(throws: TestError(code: 9)) { try Sut(TestError(code: 9)).tryMap(throwing).result.get() }
        let tryAll: Result<Bool, Error>.Publisher = Sut(1).tryAllSatisfy { $0 > 0 }
        #expect(try tryAll.result.get())
        #expect(throws: TestError(code: 7)) { try Sut(1).tryAllSatisfy(throwing).result.get() }
        #expect(throws: TestError(code: 7)) { try Sut(1).tryContains(where: throwing).result.get() }
        let tryMin: Result<Int, Error>.Publisher = Sut(1).tryMin(by: throwingComparator)
        #expect(throws: TestError(code: 7)) { try tryMin.result.get() }
        #expect(throws: TestError(code: 7)) { try Sut(2).tryMax(by: throwingComparator).result.get() }
        #expect(throws: TestError(code: 7)) { try Sut(2).tryRemoveDuplicates(by: throwingComparator).result.get() }
        #expect(throws: TestError(code: 9)) { try Sut(TestError(code: 9)).tryMin(by: throwingComparator).result.get() }
        #expect(try Sut(4).tryReduce(2, *).result.get() == 8)
        #expect(try Sut(4).tryScan(2, *).result.get() == 8)
        #expect(throws: TestError(code: 9)) { try Sut(TestError(code: 9)).tryReduce(2, *).result.get() }
        // Called once for each success above: tryMap, tryAllSatisfy, tryContains, tryMin, tryMax,
        // tryRemoveDuplicates; never for a failure.
        #expect(calls == 6)
        #expect(try Sut(44).tryRemoveDuplicates(by: { $0 == $1 }).result.get() == 44)
    }
}
