import Testing
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Counts how often an operation ran and whether it saw its task cancelled.
private final class OperationProbe: Sendable {
    private let runs = Mutex(0)
    let started = AsyncSignal()
    let sawCancellation = AsyncSignal()
    let release = AsyncSignal()

    var runCount: Int { runs.withLock { $0 } }

    /// Runs once per call: waits for `release` (or cancellation), then returns 42.
    func operation() async throws -> Int {
        runs.withLock { $0 += 1 }
        started.fire()
        try await withTaskCancellationHandler {
            try await release.wait()
        } onCancel: {
            self.sawCancellation.fire()
            self.release.fire()
        }
        try Task.checkCancellation()
        return 42
    }
}

@Suite("Future from async closures", .timeLimit(.minutes(1)))
struct FutureAsyncTests {
    @Test func publishesTheClosuresResultToEverySubscriber() async throws {
        let probe = OperationProbe()
        let future = Future<Int, Error> { try await probe.operation() }
        let done = AsyncSignal()
        let first = TestSubscriber<Int, Error>()
        let second = TestSubscriber<Int, Error>(onCompletion: { _ in done.fire() })
        future.subscribe(first)
        future.subscribe(second)
        probe.release.fire()
        try await done.wait()
        #expect(second.values == [42])
        #expect(second.completions.count == 1)
        #expect(first.values == [42])
        #expect(try await future.value == 42)
        #expect(probe.runCount == 1, "one run, shared by every subscriber")
    }

    @Test func startsAtOnceWithoutASubscriber() async throws {
        let probe = OperationProbe()
        let future = Future<Int, Error> { try await probe.operation() }
        try await probe.started.wait()
        probe.release.fire()
        #expect(try await future.value == 42)
    }

    @Test func aNonThrowingClosureMakesAFutureThatCannotFail() async {
        let future: Future<String, Never> = Future { () async -> String in
            await Task.yield()
            return "done"
        }
        let value: String = await future.value
        #expect(value == "done")
    }

    @Test func anErrorThrownByTheClosureFailsTheFuture() async throws {
        let future = Future<Int, Error> { () async throws -> Int in throw TestError(code: 9) }
        let done = AsyncSignal()
        let subscriber = TestSubscriber<Int, Error>(onCompletion: { _ in done.fire() })
        future.subscribe(subscriber)
        try await done.wait()
        guard case .failure(let error) = subscriber.completion else {
            Issue.record("expected a failure: \(subscriber.events)")
            return
        }
        #expect(error as? TestError == TestError(code: 9))
    }

    @Test func theWorkIsCancelledWhenTheFutureGoesAwayUnobserved() async throws {
        let probe = OperationProbe()
        weak var weakFuture: Future<Int, Error>?
        do {
            let future = Future<Int, Error> { try await probe.operation() }
            weakFuture = future
            let subscriber = TestSubscriber<Int, Error>()
            future.subscribe(subscriber)
            try await probe.started.wait()
            #expect(!probe.sawCancellation.isFired, "while observed, the work goes on")
            subscriber.cancel()
            #expect(subscriber.events.count == 1, "nothing after cancel")
        }
        try await probe.sawCancellation.wait()
        #expect(weakFuture == nil)
    }

    @Test func oneSubscriberCancellingDoesNotStopTheWorkForAnother() async throws {
        let probe = OperationProbe()
        let future = Future<Int, Error> { try await probe.operation() }
        let leaving = TestSubscriber<Int, Error>()
        let done = AsyncSignal()
        let staying = TestSubscriber<Int, Error>(onCompletion: { _ in done.fire() })
        future.subscribe(leaving)
        future.subscribe(staying)
        try await probe.started.wait()
        leaving.cancel()
        probe.release.fire()
        try await done.wait()
        #expect(staying.values == [42])
        #expect(leaving.values.isEmpty)
        #expect(!probe.sawCancellation.isFired)
    }
}

@Suite("Publisher.firstValue and lastValue", .timeLimit(.minutes(1)))
struct PublisherAsyncValueTests {
    @Test func firstValueRequestsOneAndCancelsOnceItArrives() async throws {
        let upstream = TestPublisher<Int, TestError>()
        let steps = DispatchQueue.test
        let waiting = Task(executorPreference: steps) { try await upstream.firstValue }
        await steps.advance()
        #expect(upstream.demandLog == [.requested(.max(1))])
        upstream.send(7)
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
        await steps.advance()
        #expect(try await waiting.value == 7)
    }

    @Test func firstValueOfASequence() async throws {
        #expect(try await (1...3).publisher.firstValue == 1)
        #expect(try await Just("only").firstValue == "only")
    }

    @Test func firstValueThrowsTheFailure() async {
        await #expect(throws: TestError(code: 2)) {
            try await Fail<Int, TestError>(error: TestError(code: 2)).firstValue
        }
    }

    @Test func firstValueOfAnEmptyPublisherThrowsFinishedWithoutValue() async {
        await #expect(throws: FinishedWithoutValueError()) {
            try await Empty<Int, Never>().firstValue
        }
    }

    @Test func cancellingTheWaitingTaskCancelsTheSubscription() async {
        let upstream = TestPublisher<Int, Never>()
        let steps = DispatchQueue.test
        let waiting = Task(executorPreference: steps) { try await upstream.lastValue }
        await steps.advance()
        #expect(upstream.demandLog == [.requested(.unlimited)])
        waiting.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        await steps.advance()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test func aTaskCancelledBeforeItAsksNeverSubscribes() async {
        let upstream = TestPublisher<Int, Never>()
        let steps = DispatchQueue.test
        let waiting = Task(executorPreference: steps) { try await upstream.firstValue }
        waiting.cancel()
        await steps.advance()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(upstream.subscriptionCount == 0)
    }

    @Test func lastValueWaitsForTheEndAndDoesNotCancel() async throws {
        let upstream = TestPublisher<Int, TestError>()
        let steps = DispatchQueue.test
        let waiting = Task(executorPreference: steps) { try await upstream.lastValue }
        await steps.advance()
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        await steps.advance()
        #expect(try await waiting.value == 3)
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func lastValueThrowsTheFailureEvenAfterValues() async {
        let subject = PassthroughSubject<Int, TestError>()
        let steps = DispatchQueue.test
        let waiting = Task(executorPreference: steps) { try await subject.lastValue }
        await steps.advance()
        subject.send(1)
        subject.send(completion: .failure(TestError(code: 5)))
        await steps.advance()
        await #expect(throws: TestError(code: 5)) { try await waiting.value }
    }

    @Test func lastValueOfAnEmptyPublisherThrowsFinishedWithoutValue() async throws {
        await #expect(throws: FinishedWithoutValueError()) {
            try await Empty<String, Never>().lastValue
        }
        #expect(try await (1...4).publisher.lastValue == 4)
    }

    @Test func firstValueReleasesItsSubscriberOnceTheValueArrives() async throws {
        let upstream = WeakSubscriberProbe(PassthroughSubject<Int, Never>())
        let steps = DispatchQueue.test
        let waiting = Task(executorPreference: steps) { try await upstream.firstValue }
        await steps.advance()
        #expect(upstream.subscriber != nil)
        upstream.base.send(7)
        await steps.advance()
        #expect(try await waiting.value == 7)
        #expect(upstream.subscriber == nil, "the subscriber, and the continuation it held, are gone")
    }

    @Test func lastValueReleasesItsSubscriberOnceThePublisherFinishes() async throws {
        let upstream = WeakSubscriberProbe(PassthroughSubject<Int, Never>())
        let steps = DispatchQueue.test
        let waiting = Task(executorPreference: steps) { try await upstream.lastValue }
        await steps.advance()
        upstream.base.send(1)
        upstream.base.send(completion: .finished)
        await steps.advance()
        #expect(try await waiting.value == 1)
        #expect(upstream.subscriber == nil)
    }

    @Test func cancellingTheWaitingTaskReleasesTheSubscriber() async {
        for mode in ["first", "last"] {
            let upstream = WeakSubscriberProbe(PassthroughSubject<Int, Never>())
            let steps = DispatchQueue.test
            let waiting = Task(executorPreference: steps) {
                if mode == "first" { try await upstream.firstValue } else { try await upstream.lastValue }
            }
            await steps.advance()
            #expect(upstream.subscriber != nil)
            waiting.cancel()
            await steps.advance()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(upstream.subscriber == nil, "\(mode)Value released its subscriber on cancellation")
        }
    }

    @Test func valuesFromAnotherThreadReachTheWaitingTask() async throws {
        let queue = DispatchQueue(label: "PublisherAsyncValueTests")
        let value = try await (1...100).publisher.receive(on: queue).lastValue
        #expect(value == 100)
    }
}

/// Forwards to `base`, keeping a weak reference to the subscriber it is handed (for the
/// bridges', whose subscriber is internal), to check when that subscriber is released.
private final class WeakSubscriberProbe<Base: Publisher & Sendable>: Publisher, @unchecked Sendable {
    typealias Output = Base.Output
    typealias Failure = Base.Failure

    let base: Base
    private let lock = NSLock()
    private weak var weakSubscriber: AnyObject?

    init(_ base: Base) {
        self.base = base
    }

    var subscriber: AnyObject? {
        lock.lock()
        defer { lock.unlock() }
        return weakSubscriber
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.lock()
        weakSubscriber = subscriber as AnyObject
        lock.unlock()
        base.receive(subscriber: subscriber)
    }
}
