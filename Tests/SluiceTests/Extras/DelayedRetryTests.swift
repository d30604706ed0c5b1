import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// The static type an expression resolved to.
private func staticType<T>(_ value: T) -> T.Type { T.self }

/// A marker for the project-defined overloads below, which apply to its publishers only.
struct OwnRetryMarker {}

/// What a project that already has its own retry-with-delay helper (and its own
/// `withLatestFrom`) declares: with `import SluiceExtras` in the same file, calls must still reach
/// these, never be ambiguous (SluiceExtras' overloads are disfavoured). Constrained to
/// `OwnRetryMarker` so that the rest of the suite calls SluiceExtras'.
extension Publisher where Output == OwnRetryMarker {
    func retry<S: Scheduler>(_ retries: Int, delay: S.SchedulerTimeType.Stride, scheduler: S) -> AnyPublisher<String, Failure> {
        map { _ in "the project's own retry" }.eraseToAnyPublisher()
    }

    func withLatestFrom<Other: Publisher>(_ other: Other) -> AnyPublisher<String, Failure> where Other.Failure == Failure {
        map { _ in "the project's own withLatestFrom" }.eraseToAnyPublisher()
    }
}

@Suite("retry(_:delay:scheduler:)")
struct DelayedRetryTests {
    /// Subscribes through `Deferred` to note the virtual time of each subscription.
    final class Attempts: @unchecked Sendable {
        var times: [Int] = []
    }

    func milliseconds(_ scheduler: TestSchedulerOf<DispatchQueue>) -> Int {
        Int(scheduler.now.dispatchTime.uptimeNanoseconds / 1_000_000)
    }

    @Test func eachResubscriptionHappensAtItsExactVirtualTimeWithAFixedDelay() {
        let scheduler = DispatchQueue.test
        let start = milliseconds(scheduler)
        let attempts = Attempts()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        Deferred { () -> TestPublisher<Int, TestError> in
            attempts.times.append(self.milliseconds(scheduler) - start)
            return upstream
        }
        .retry(2, delay: .seconds(2), scheduler: scheduler)
        .subscribe(subscriber)

        scheduler.advance(by: .milliseconds(500))
        upstream.send(completion: .failure(TestError(code: 1)))   // at 0.5 s: next at 2.5 s
        scheduler.advance(by: .milliseconds(1_999))
        #expect(attempts.times == [0], "not before the delay is over")
        scheduler.advance(by: .milliseconds(1))
        #expect(attempts.times == [0, 2_500])
        upstream.send(completion: .failure(TestError(code: 2)))   // at 2.5 s: next at 4.5 s
        scheduler.advance(by: .seconds(2))
        #expect(attempts.times == [0, 2_500, 4_500])
        upstream.send(completion: .failure(TestError(code: 3)))   // retries used up
        scheduler.advance(by: .seconds(10))
        #expect(attempts.times == [0, 2_500, 4_500])
        #expect(subscriber.events == [.subscription("Retry"), .completion(.failure(TestError(code: 3)))])
    }

    @Test func exponentialBackoffWaitsWhatTheFunctionOfTheAttemptSays() {
        let scheduler = DispatchQueue.test
        let start = milliseconds(scheduler)
        let attempts = Attempts()
        var asked: [Int] = []
        let subscriber = TestSubscriber<Int, TestError>()
        Deferred { () -> Fail<Int, TestError> in
            attempts.times.append(self.milliseconds(scheduler) - start)
            return Fail(error: TestError(code: attempts.times.count))
        }
        .retry(3, delay: { attempt in
            asked.append(attempt)
            return .seconds(1 << (attempt - 1))
        }, scheduler: scheduler)
        .subscribe(subscriber)

        #expect(attempts.times == [0])
        scheduler.advance(by: .milliseconds(999))
        #expect(attempts.times == [0])
        scheduler.advance(by: .milliseconds(1))
        #expect(attempts.times == [0, 1_000])
        scheduler.advance(by: .seconds(2))
        #expect(attempts.times == [0, 1_000, 3_000])
        scheduler.advance(by: .seconds(4))
        #expect(attempts.times == [0, 1_000, 3_000, 7_000])
        #expect(asked == [1, 2, 3])
        #expect(subscriber.completions == [.failure(TestError(code: 4))])
        scheduler.run()
        #expect(attempts.times.count == 4)
    }

    /// A `TestPublisher` retried `retries` times after a second, on a test scheduler, into a
    /// subscriber asking for `demand`.
    func retried(_ retries: Int, demand: Subscribers.Demand = .unlimited)
        -> (TestSchedulerOf<DispatchQueue>, TestPublisher<Int, TestError>, TestSubscriber<Int, TestError>)
    {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: demand)
        upstream.retry(retries, delay: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        return (scheduler, upstream, subscriber)
    }

    @Test func aCancelDuringTheWaitResubscribesNothing() {
        let (scheduler, upstream, subscriber) = retried(5)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        scheduler.advance(by: .milliseconds(500))
        subscriber.cancel()
        scheduler.advance(by: .seconds(10))
        #expect(upstream.subscriptionCount == 1)
        #expect(subscriber.events == [.subscription("Retry"), .value(1)])
    }

    @Test func demandOwedIsAskedOfTheNewSubscriptionIncludingDemandMadeDuringTheWait() {
        let (scheduler, upstream, subscriber) = retried(1, demand: .max(2))
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        subscriber.request(.max(3))
        scheduler.advance(by: .seconds(1))
        #expect(upstream.demandLog == [.requested(.max(2)), .requested(.max(4))])
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Retry"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func valuesPassAndDoNotResetTheCount() {
        let (scheduler, upstream, subscriber) = retried(1)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(code: 1)))
        scheduler.advance(by: .seconds(1))
        upstream.send(2)
        upstream.send(completion: .failure(TestError(code: 2)))
        scheduler.advance(by: .seconds(1))
        #expect(upstream.subscriptionCount == 2)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions == [.failure(TestError(code: 2))])
    }

    @Test func aNegativeCountRetriesWithoutEnd() {
        let (scheduler, upstream, subscriber) = retried(-1)
        for _ in 0..<20 {
            upstream.send(completion: .failure(TestError()))
            scheduler.advance(by: .seconds(1))
        }
        #expect(upstream.subscriptionCount == 21)
        #expect(subscriber.completions.isEmpty)
    }

    @Test func onAnImmediateSchedulerManySynchronousRetriesUseConstantStack() {
        var subscriptions = 0
        let subscriber = TestSubscriber<Int, TestError>()
        Deferred { () -> Fail<Int, TestError> in
            subscriptions += 1
            return Fail(error: TestError())
        }
        .retry(50_000, delay: .zero, scheduler: ImmediateScheduler.shared)
        .subscribe(subscriber)
        #expect(subscriptions == 50_001)
        #expect(subscriber.completions == [.failure(TestError())])
    }

    @Test func resubscriptionsFromARealQueueAreNotConcurrentWithTheSubscriber() {
        let queue = DispatchQueue(label: "retry.delay", attributes: .concurrent)
        let counter = Log<Int>()
        let subscriber = TestSubscriber<Int, TestError>()
        Deferred { () -> AnyPublisher<Int, TestError> in
            counter.append(1)
            if counter.all.count < 4 { return Fail(error: TestError()).eraseToAnyPublisher() }
            return Just(9).setFailureType(to: TestError.self).eraseToAnyPublisher()
        }
        .retry(5, delay: .milliseconds(1), scheduler: queue)
        .subscribe(subscriber)
        #expect(Stress.waitUntil { subscriber.completion != nil })
        #expect(subscriber.values == [9])
        #expect(subscriber.completions == [.finished])
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: Resolution

    @Test func combinesRetryStillResolvesToCombinesRetry() {
        let publisher = PassthroughSubject<Int, TestError>()
        #expect(staticType(publisher.retry(3)) == Publishers.Retry<PassthroughSubject<Int, TestError>>.self)
        let reference = publisher.retry(_:)
        #expect(staticType(reference(2)) == Publishers.Retry<PassthroughSubject<Int, TestError>>.self)
        let scheduler = DispatchQueue.test
        #expect(staticType(publisher.retry(3, delay: .seconds(1), scheduler: scheduler))
                    == Publishers.DelayedRetry<PassthroughSubject<Int, TestError>, TestSchedulerOf<DispatchQueue>>.self)
    }

    @Test func aProjectsOwnRetryWithDelayAndWithLatestFromWinOverSluiceExtras() {
        let scheduler = DispatchQueue.test
        var received: [String] = []
        let a = Just(OwnRetryMarker()).retry(3, delay: .seconds(1), scheduler: scheduler).sink { received.append($0) }
        let b = Just(OwnRetryMarker()).withLatestFrom(Just(1)).sink { received.append($0) }
        #expect(received == ["the project's own retry", "the project's own withLatestFrom"])
        withExtendedLifetime((a, b)) {}
    }
}
