import Testing
import Dispatch
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Future")
struct FutureTests {
    private typealias Sut = Future<Int, TestError>

    /// A future together with its promise.
    private func makeFuture() -> (Sut, Sut.Promise) {
        var promise: Sut.Promise?
        let future = Sut { promise = $0 }
        return (future, promise!)
    }

    @Test func runsTheClosureAtOnce() {
        var ran = false
        _ = Sut { _ in ran = true }
        #expect(ran)
    }

    @Test func deliversASuccessToASubscriberWithDemand() {
        let (future, promise) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Future")])
        promise(.success(42))
        #expect(subscriber.events == [.subscription("Future"), .value(42), .completion(.finished)])
    }

    @Test func aSuccessWaitsForTheFirstDemand() {
        let (future, promise) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        future.subscribe(subscriber)
        promise(.success(42))
        #expect(subscriber.events == [.subscription("Future")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Future"), .value(42), .completion(.finished)])
        subscriber.request(.max(1))
        #expect(subscriber.events.count == 3)
    }

    @Test func aFailureIsDeliveredWithoutDemand() {
        let (future, promise) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        future.subscribe(subscriber)
        promise(.failure(TestError(code: 5)))
        #expect(subscriber.events == [.subscription("Future"), .completion(.failure(TestError(code: 5)))])
    }

    @Test func onlyTheFirstResultCounts() {
        let (future, promise) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        promise(.success(42))
        promise(.success(41))
        promise(.failure(TestError()))
        #expect(subscriber.events == [.subscription("Future"), .value(42), .completion(.finished)])
    }

    @Test func lateSubscribersGetTheResultReplayed() {
        let (succeeded, succeed) = makeFuture()
        succeed(.success(42))
        let withDemand = TestSubscriber<Int, TestError>()
        succeeded.subscribe(withDemand)
        #expect(withDemand.events == [.subscription("Future"), .value(42), .completion(.finished)])
        let withoutDemand = TestSubscriber<Int, TestError>(initialDemand: .none)
        succeeded.subscribe(withoutDemand)
        #expect(withoutDemand.events == [.subscription("Future")])
        withoutDemand.request(.max(1))
        #expect(withoutDemand.events == [.subscription("Future"), .value(42), .completion(.finished)])

        let (failed, fail) = makeFuture()
        fail(.failure(TestError(code: 2)))
        let late = TestSubscriber<Int, TestError>(initialDemand: .none)
        failed.subscribe(late)
        #expect(late.events == [.subscription("Future"), .completion(.failure(TestError(code: 2)))])
    }

    @Test func cancelStopsDelivery() {
        let (future, promise) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>()
        future.subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(1))
        promise(.success(42))
        #expect(subscriber.events == [.subscription("Future")])
    }

    @Test func cancelInsideReceiveSubscriptionOfALateSubscriber() {
        let (future, promise) = makeFuture()
        promise(.failure(TestError()))
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none, onSubscription: { $0.cancel() })
        future.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Future")])
    }

    @Test func fulfillingFromInsideADeliveryDoesNothing() {
        var promise: Sut.Promise?
        let future = Sut { promise = $0 }
        let valueRecursion = TestSubscriber<Int, TestError>(onValue: { value in
            promise?(.success(value + 1))
            return .none
        })
        let completionRecursion = TestSubscriber<Int, TestError>(onCompletion: { _ in
            promise?(.failure(TestError()))
        })
        future.subscribe(valueRecursion)
        future.subscribe(completionRecursion)
        promise?(.success(0))
        #expect(valueRecursion.events == [.subscription("Future"), .value(0), .completion(.finished)])
        #expect(completionRecursion.events == [.subscription("Future"), .value(0), .completion(.finished)])
    }

    @Test func subscribersAreServedInTheOrderTheySubscribed() {
        let (future, promise) = makeFuture()
        let order = Mutex<[Int]>([])
        let subscribers = (0..<5).map { index in
            TestSubscriber<Int, TestError>(onValue: { _ in
                order.withLock { $0.append(index) }
                return .none
            })
        }
        subscribers.forEach(future.subscribe)
        promise(.success(1))
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    @Test func reflection() throws {
        let (future, _) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        future.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Future")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Future")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["parent", "downstream", "hasAnyDemand", "subject"])
        let children = Dictionary(uniqueKeysWithValues: mirror.children.map { ($0.label!, $0.value) })
        #expect(String(describing: children["parent"]!).contains("Future"))
        #expect(String(describing: children["subject"]!).contains("Future"))
        #expect(String(describing: children["downstream"]!).contains("TestSubscriber"))
        #expect(children["hasAnyDemand"] as? Bool == false)
        subscriber.request(.max(1))
        #expect(Mirror(reflecting: subscription).children.first { $0.label == "hasAnyDemand" }?.value as? Bool == true)
        subscriber.cancel()
        #expect(String(describing: Mirror(reflecting: subscription).children.first!.value) == "nil")
    }

    @Test func zeroDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            Future<Int, Never> { _ in }.subscribe(subscriber)
            subscriber.request(.none)
        }
    }

    @Test(arguments: ["cancelled", "finished", "failed"])
    func releasesEverythingOnTermination(reason: String) {
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        weak var weakSubscription: AnyObject?
        weak var weakFuture: Sut?
        do {
            let (future, promise) = makeFuture()
            weakFuture = future
            do {
                let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
                weakSubscriber = subscriber
                future.subscribe(subscriber)
                weakSubscription = subscriber.subscription.map { $0 as AnyObject }
                switch reason {
                case "cancelled": subscriber.cancel()
                case "finished": promise(.success(1))
                default: promise(.failure(TestError()))
                }
                #expect(subscriber.events.count == (reason == "cancelled" ? 1 : reason == "finished" ? 3 : 2))
                subscriber.releaseSubscriptions()
            }
            #expect(weakSubscriber == nil)
            #expect(weakSubscription == nil)
            #expect(weakFuture != nil)
        }
        #expect(weakFuture == nil)
    }

    // MARK: Concurrency

    @Test func aPromiseCalledFromEightThreadsDeliversExactlyOneResultToEachSubscriber() async throws {
        for _ in 0..<50 {
            let (future, madePromise) = makeFuture()
            nonisolated(unsafe) let promise = madePromise  // not Sendable, as in Combine
            let eager = (0..<4).map { _ in TestSubscriber<Int, TestError>() }
            let lazy = (0..<4).map { _ in TestSubscriber<Int, TestError>(initialDemand: .none) }
            (eager + lazy).forEach(future.subscribe)
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                promise(.success(index))
            }
            let winner = try #require(eager[0].values.first)
            for subscriber in eager {
                #expect(subscriber.events == [.subscription("Future"), .value(winner), .completion(.finished)])
            }
            for subscriber in lazy {
                #expect(subscriber.events == [.subscription("Future")])
            }
            DispatchQueue.concurrentPerform(iterations: lazy.count) { index in
                lazy[index].request(.max(1))
                lazy[index].request(.max(1))
            }
            for subscriber in lazy {
                #expect(subscriber.events == [.subscription("Future"), .value(winner), .completion(.finished)])
                #expect(!subscriber.sawConcurrentSignals)
            }
            let late = TestSubscriber<Int, TestError>()
            future.subscribe(late)
            #expect(late.values == [winner])
            #expect(try await future.value == winner)
        }
    }

    @Test func subscribingWhileThePromiseIsFulfilledNeverDeliversBeforeTheSubscription() {
        for _ in 0..<500 {
            let (future, madePromise) = makeFuture()
            nonisolated(unsafe) let promise = madePromise  // not Sendable, as in Combine
            let subscriber = TestSubscriber<Int, TestError>()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    future.subscribe(subscriber)
                } else {
                    promise(.failure(TestError(code: 3)))
                }
            }
            #expect(subscriber.events == [.subscription("Future"), .completion(.failure(TestError(code: 3)))])
        }
    }

    // MARK: async value

    @Test func valueOfAFutureThatCannotFail() async {
        var promise: Future<String, Never>.Promise?
        let future = Future<String, Never> { promise = $0 }
        nonisolated(unsafe) let fulfil = promise!  // not Sendable, as in Combine
        DispatchQueue.global().async { fulfil(.success("done")) }
        let value: String = await future.value
        #expect(value == "done")
        // Awaiting again replays the result.
        #expect(await future.value == "done")
    }

    @Test func valueReturnsOrThrows() async throws {
        let (succeeded, madeSucceed) = makeFuture()
        nonisolated(unsafe) let succeed = madeSucceed  // not Sendable, as in Combine
        DispatchQueue.global().async { succeed(.success(7)) }
        #expect(try await succeeded.value == 7)

        let (failed, madeFail) = makeFuture()
        nonisolated(unsafe) let fail = madeFail  // not Sendable, as in Combine
        DispatchQueue.global().async { fail(.failure(TestError(code: 8))) }
        await #expect(throws: TestError(code: 8)) { try await failed.value }
    }

    @Test func promiseFulfilledFromATask() async throws {
        let (future, promise) = makeFuture()
        let task = Task.detached { promise(.success(99)) }
        #expect(try await future.value == 99)
        await task.value
    }
}
