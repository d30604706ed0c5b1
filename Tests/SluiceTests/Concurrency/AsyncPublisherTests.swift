import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// A publisher whose subscription keeps its subscriber until cancelled or completed, and lets
/// the test see (weakly) whether anything else still holds that subscriber.
final class HoldingPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    private let lock = NSLock()
    private weak var lastSubscriber: AnyObject?
    private var subscriptions: [Probe] = []

    /// The latest subscriber, if anything still holds it.
    var subscriber: AnyObject? { lock.withLock { lastSubscriber } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        let probe = Probe(AnySubscriber(subscriber))
        lock.withLock {
            lastSubscriber = subscriber as AnyObject
            subscriptions.append(probe)
        }
        subscriber.receive(subscription: probe)
    }

    /// Sends `value` to every live subscription that has demand for it.
    func send(_ value: Int) {
        for probe in lock.withLock({ subscriptions }) { probe.offer(value) }
    }

    private final class Probe: Subscription, @unchecked Sendable {
        private let lock = NSLock()
        private var downstream: AnySubscriber<Int, Never>?
        private var demand = Subscribers.Demand.none

        init(_ downstream: AnySubscriber<Int, Never>) { self.downstream = downstream }

        func offer(_ value: Int) {
            let target = lock.withLock { () -> AnySubscriber<Int, Never>? in
                guard demand > 0 else { return nil }
                demand -= 1
                return downstream
            }
            guard let target else { return }
            let more = target.receive(value)
            lock.withLock { demand += more }
        }

        func request(_ demand: Subscribers.Demand) { lock.withLock { self.demand += demand } }

        func cancel() {
            let released = lock.withLock { () -> AnySubscriber<Int, Never>? in
                defer { downstream = nil }
                return downstream
            }
            withExtendedLifetime(released) {}
        }
    }
}

/// The consumers in these tests run on a `TestScheduler` used as their executor: each
/// `steps.advance()` runs them until they suspend, so every request they make is visible to
/// the test at a known point, without waiting or yielding.
@Suite("Publisher.values (AsyncPublisher, AsyncThrowingPublisher)", .timeLimit(.minutes(1)))
struct AsyncPublisherTests {
    @Test func subscribesWhenTheIteratorIsMadeAndRequestsOneValuePerNext() async {
        let upstream = TestPublisher<Int, Never>()
        let steps = DispatchQueue.test
        let received = Log<Int?>()
        let consumer = Task(executorPreference: steps) {
            for await value in upstream.values { received.append(value) }
            received.append(nil)
        }
        await steps.advance()
        #expect(upstream.subscriptionCount == 1)
        #expect(upstream.demandLog == [.requested(.max(1))])
        upstream.send(1)
        await steps.advance()
        #expect(received.all == [1])
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1))])
        upstream.send(2)
        await steps.advance()
        upstream.send(completion: .finished)
        await steps.advance()
        #expect(received.all == [1, 2, nil])
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1)), .requested(.max(1))],
                "finishing does not cancel")
        await consumer.value
    }

    @Test func makingTheIteratorSubscribesBeforeAnyNext() {
        let upstream = TestPublisher<Int, Never>()
        do {
            let iterator = upstream.values.makeAsyncIterator()
            #expect(upstream.subscriptionCount == 1)
            #expect(upstream.demandLog == [])
            withExtendedLifetime(iterator) {}
        }
        #expect(upstream.demandLog == [.cancelled], "the iterator going away cancels")
    }

    @Test func nextCallsBeforeTheSubscriptionArePooledIntoOneRequestAndAnsweredInOrder() async {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        let first = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        let second = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        let third = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        #expect(upstream.demandLog == [])
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(3))])
        upstream.send(10)
        upstream.send(20)
        await steps.advance()
        #expect(await first.value == 10)
        #expect(await second.value == 20)
        upstream.send(completion: .finished)
        await steps.advance()
        #expect(await third.value == nil)
        withExtendedLifetime(iterator) {}
    }

    @Test func cancellingTheIteratingTaskCancelsTheSubscriptionAndEndsTheLoop() async {
        let upstream = TestPublisher<Int, Never>()
        let steps = DispatchQueue.test
        let received = Log<Int?>()
        let consumer = Task(executorPreference: steps) {
            for await value in upstream.values { received.append(value) }
            received.append(nil)
        }
        await steps.advance()
        upstream.send(1)
        await steps.advance()
        consumer.cancel()
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1)), .cancelled],
                "the subscription is cancelled at once, from the cancelling thread")
        await steps.advance()
        await consumer.value
        #expect(received.all == [1, nil])
        upstream.send(2)
        #expect(received.all == [1, nil])
    }

    @Test func cancellingBeforeTheSubscriptionArrivesCancelsItWhenItDoes() async {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let steps = DispatchQueue.test
        let consumer = Task(executorPreference: steps) { () -> Int? in
            var iterator = upstream.values.makeAsyncIterator()
            return await iterator.next()
        }
        await steps.advance()
        consumer.cancel()
        await steps.advance()
        #expect(await consumer.value == nil)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
    }

    @Test func leavingTheLoopEarlyCancelsTheSubscriptionAndReleasesTheSubscriber() async {
        let upstream = HoldingPublisher()
        let steps = DispatchQueue.test
        let received = Log<Int>()
        let consumer = Task(executorPreference: steps) {
            for await value in upstream.values {
                received.append(value)
                if value == 2 { break }
            }
        }
        await steps.advance()
        #expect(upstream.subscriber != nil)
        upstream.send(1)
        await steps.advance()
        upstream.send(2)
        await steps.advance()
        await consumer.value
        #expect(received.all == [1, 2])
        #expect(upstream.subscriber == nil, "the break cancelled the subscription and nothing holds the subscriber")
    }

    @Test func aCancelledLoopReleasesTheSubscriber() async {
        let upstream = HoldingPublisher()
        let steps = DispatchQueue.test
        let consumer = Task(executorPreference: steps) {
            for await _ in upstream.values {}
        }
        await steps.advance()
        #expect(upstream.subscriber != nil)
        consumer.cancel()
        await steps.advance()
        await consumer.value
        #expect(upstream.subscriber == nil)
    }

    @Test func aFinishedLoopDoesNotCancelAndEveryLaterNextReturnsNil() async {
        let upstream = TestPublisher<Int, Never>()
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        let waiting = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        upstream.send(completion: .finished)
        await steps.advance()
        #expect(await waiting.value == nil)
        let later = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        #expect(await later.value == nil)
        #expect(upstream.demandLog == [.requested(.max(1))], "no request after the end, and no cancel")
        let afterwards = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        afterwards.cancel()
        await steps.advance()
        #expect(await afterwards.value == nil)
        #expect(upstream.demandLog == [.requested(.max(1))], "cancelling after completion does not cancel upstream")
        withExtendedLifetime(iterator) {}
    }

    @Test func noValueIsLostBetweenIterationsOfAPublisherThatAnswersRequestsAtOnce() async {
        var collected: [Int] = []
        for await value in (1...1000).publisher.values {
            collected.append(value)
        }
        #expect(collected == Array(1...1000))
    }

    @MainActor @Test func iteratesInTheCallersIsolation() async {
        var collected: [Int] = []
        for await value in (1...3).publisher.values {
            MainActor.assertIsolated()
            collected.append(value)
        }
        #expect(collected == [1, 2, 3])
    }

    @Test func valuesCrossingThreadsArriveInOrder() async {
        let queue = DispatchQueue(label: "AsyncPublisherTests.values")
        var collected: [Int] = []
        for await value in (1...2000).publisher.receive(on: queue).values {
            collected.append(value)
        }
        #expect(collected == Array(1...2000))
    }

    @Test func excessValuesAreDroppedNotBuffered() async {
        let upstream = TestPublisher<Int, Never>()
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        upstream.send(99)
        let next = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        upstream.send(1)
        upstream.send(98)
        await steps.advance()
        #expect(await next.value == 1)
        let following = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        upstream.send(2)
        await steps.advance()
        #expect(await following.value == 2)
        withExtendedLifetime(iterator) {}
    }

    @Test func aSecondSubscriptionIsCancelled() async {
        let upstream = TestPublisher<Int, Never>()
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
        let next = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        upstream.send(5)
        await steps.advance()
        #expect(await next.value == 5)
        withExtendedLifetime(iterator) {}
    }

    /// A broken upstream sends a value before its subscription: as Combine answers it, every
    /// waiting `next()` returns `nil` (none waits for ever), and the subscription that arrives
    /// later is asked for the demand of those calls.
    @Test func aValueBeforeTheSubscriptionAnswersTheWaitingCallsAndKeepsTheirDemand() async {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        let first = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        let second = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        #expect(upstream.send(5) == .none)
        await steps.advance()
        #expect(await first.value == nil)
        #expect(await second.value == nil)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(2))])
        withExtendedLifetime(iterator) {}
    }

    /// A completion before the subscription ends the sequence at once; the subscription that
    /// arrives later is cancelled.
    @Test func aCompletionBeforeTheSubscriptionEndsTheLoopAndCancelsTheLateSubscription() async {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        let waiting = Task(executorPreference: steps) { var copy = iterator; return await copy.next() }
        await steps.advance()
        upstream.send(completion: .finished)
        await steps.advance()
        #expect(await waiting.value == nil)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
        withExtendedLifetime(iterator) {}
    }

    /// `values` over a reducing operator: the one result arrives once, also for an empty
    /// upstream (the operator waits for the iterator's demand, which comes with `next()`).
    @Test func valuesOverAReducingOperatorYieldTheResultOnce() async {
        var collected: [[Int]] = []
        for await value in Empty<Int, Never>().collect().values { collected.append(value) }
        #expect(collected == [[]])
        var counts: [Int] = []
        for await value in (1...3).publisher.count().values { counts.append(value) }
        #expect(counts == [3])
        var firsts: [Int] = []
        for await value in Empty<Int, Never>().first().values { firsts.append(value) }
        #expect(firsts.isEmpty)
    }

    // MARK: AsyncThrowingPublisher

    @Test func aFailureIsThrownToTheFirstPendingNextAndTheOthersGetNil() async throws {
        let upstream = TestPublisher<Int, TestError>()
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        let first = Task(executorPreference: steps) { var copy = iterator; return try await copy.next() }
        let second = Task(executorPreference: steps) { var copy = iterator; return try await copy.next() }
        await steps.advance()
        upstream.send(completion: .failure(TestError(code: 7)))
        await steps.advance()
        await #expect(throws: TestError(code: 7)) { try await first.value }
        #expect(try await second.value == nil)
        let later = Task(executorPreference: steps) { var copy = iterator; return try await copy.next() }
        await steps.advance()
        #expect(try await later.value == nil, "a failure is thrown once")
        withExtendedLifetime(iterator) {}
    }

    @Test func aFailureBeforeTheSubscriptionIsThrownToTheFirstWaitingCall() async throws {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let steps = DispatchQueue.test
        let iterator = upstream.values.makeAsyncIterator()
        let first = Task(executorPreference: steps) { var copy = iterator; return try await copy.next() }
        let second = Task(executorPreference: steps) { var copy = iterator; return try await copy.next() }
        await steps.advance()
        upstream.send(completion: .failure(TestError(code: 4)))
        await steps.advance()
        await #expect(throws: TestError(code: 4)) { try await first.value }
        #expect(try await second.value == nil)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
        withExtendedLifetime(iterator) {}
    }

    @Test func aFailureWithNoNextWaitingIsThrownByTheNextCall() async throws {
        let upstream = TestPublisher<Int, TestError>()
        var iterator = upstream.values.makeAsyncIterator()
        upstream.send(completion: .failure(TestError(code: 3)))
        await #expect(throws: TestError(code: 3)) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func theThrowingLoopDeliversValuesThenRethrows() async {
        let upstream = PassthroughSubject<Int, TestError>()
        let steps = DispatchQueue.test
        let received = Log<Int>()
        let consumer = Task(executorPreference: steps) {
            for try await value in upstream.values { received.append(value) }
        }
        await steps.advance()
        upstream.send(1)
        await steps.advance()
        upstream.send(2)
        await steps.advance()
        upstream.send(completion: .failure(TestError()))
        await steps.advance()
        await #expect(throws: TestError()) { try await consumer.value }
        #expect(received.all == [1, 2])
    }

    @Test func cancellingAThrowingLoopReturnsNilRatherThanThrowing() async throws {
        let upstream = TestPublisher<Int, TestError>()
        let steps = DispatchQueue.test
        let consumer = Task(executorPreference: steps) { () -> Int? in
            var iterator = upstream.values.makeAsyncIterator()
            return try await iterator.next()
        }
        await steps.advance()
        consumer.cancel()
        await steps.advance()
        #expect(try await consumer.value == nil)
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
    }

    /// Several tasks calling `next()` on copies of one iterator share its subscription; a
    /// subscription may be called by one thread at a time only, so their requests (and a cancel)
    /// never overlap, however many tasks ask at once.
    @Test func nextCallsFromManyTasksNeverCallTheSubscriptionConcurrently() async {
        let publisher = OverlapDetectingPublisher()
        let iterator = publisher.values.makeAsyncIterator()
        let received = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var copy = iterator
                    return await copy.next()
                }
            }
            var values: [Int] = []
            for await value in group { if let value { values.append(value) } }
            return values
        }
        #expect(received.sorted() == Array(0..<8))
        #expect(publisher.overlaps == 0)
        #expect(publisher.requested == 8)
        withExtendedLifetime(iterator) {}
    }
}

/// A publisher whose subscription, like many written for one caller, must not be called by two
/// threads at once: it counts calls that overlap (each call lingers a little to widen the
/// window) and answers each request of one with the next integer.
final class OverlapDetectingPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    private let lock = NSLock()
    private var inCall = 0
    private var overlapCount = 0
    private var requestCount = 0
    private var nextValue = 0

    var overlaps: Int { lock.withLock { overlapCount } }
    var requested: Int { lock.withLock { requestCount } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Probe(publisher: self, subscriber: subscriber))
    }

    private func enter() {
        lock.withLock {
            inCall += 1
            if inCall > 1 { overlapCount += 1 }
        }
        usleep(2_000)
    }

    private func leave() { lock.withLock { inCall -= 1 } }

    private final class Probe<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int {
        let publisher: OverlapDetectingPublisher
        let subscriber: S

        init(publisher: OverlapDetectingPublisher, subscriber: S) {
            self.publisher = publisher
            self.subscriber = subscriber
        }

        func request(_ demand: Subscribers.Demand) {
            publisher.enter()
            let count = demand.max ?? 0
            let values = publisher.lock.withLock { () -> [Int] in
                publisher.requestCount += count
                defer { publisher.nextValue += count }
                return Array(publisher.nextValue..<(publisher.nextValue + count))
            }
            publisher.leave()
            for value in values { _ = subscriber.receive(value) }
        }

        func cancel() {
            publisher.enter()
            publisher.leave()
        }
    }
}
