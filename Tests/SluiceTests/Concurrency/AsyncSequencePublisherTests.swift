import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// An asynchronous sequence that journals every `next()` and, once its elements run out,
/// waits until its task is cancelled (recording that too).
private struct JournalingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let elements: [Int]
    let journal: Log<String>
    let cancelled: AsyncSignal

    struct AsyncIterator: AsyncIteratorProtocol {
        typealias Element = Int
        typealias Failure = Never
        var remaining: [Int]
        let journal: Log<String>
        let cancelled: AsyncSignal

        mutating func next() async -> Int? {
            guard !remaining.isEmpty else {
                journal.append("next: waiting")
                // Parks until the task is cancelled (the suite's time limit bounds the wait).
                try? await Task.sleep(for: .seconds(86_400))
                if Task.isCancelled {
                    journal.append("next: cancelled")
                    cancelled.fire()
                }
                return nil
            }
            let element = remaining.removeFirst()
            journal.append("next \(element)")
            return element
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(remaining: elements, journal: journal, cancelled: cancelled)
    }
}

@Suite("AsyncSequence.publisher", .timeLimit(.minutes(1)))
struct AsyncSequencePublisherTests {
    @Test func publishesTheElementsThenFinishes() async throws {
        let stream = AsyncStream<Int> { continuation in
            for i in 1...5 { continuation.yield(i) }
            continuation.finish()
        }
        let done = AsyncSignal()
        let subscriber = TestSubscriber<Int, Never>(onCompletion: { _ in done.fire() })
        stream.publisher.subscribe(subscriber)
        try await done.wait()
        #expect(subscriber.events == [.subscription("AsyncSequence"), .value(1), .value(2), .value(3), .value(4),
                                      .value(5), .completion(.finished)])
    }

    @Test func aStreamThatCannotFailGivesAPublisherThatCannotFail() {
        let publisher: AnyPublisher<Int, Never> = AsyncStream<Int> { $0.finish() }.publisher.eraseToAnyPublisher()
        _ = publisher
        let throwing: AnyPublisher<Int, Error> = AsyncThrowingStream<Int, Error> { $0.finish() }.publisher
            .eraseToAnyPublisher()
        _ = throwing
    }

    @Test func anErrorThrownByTheSequenceFailsThePublisher() async throws {
        let stream = AsyncThrowingStream<Int, Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: TestError(code: 4))
        }
        let done = AsyncSignal()
        let subscriber = TestSubscriber<Int, Error>(onCompletion: { _ in done.fire() })
        stream.publisher.subscribe(subscriber)
        try await done.wait()
        #expect(subscriber.values == [1])
        guard case .failure(let error) = subscriber.completion else {
            Issue.record("expected a failure: \(subscriber.events)")
            return
        }
        #expect(error as? TestError == TestError(code: 4))
    }

    @Test func pullsAnElementOnlyWhileThereIsDemand() async throws {
        let journal = Log<String>()
        let sequence = JournalingSequence(elements: [1, 2, 3, 4], journal: journal, cancelled: AsyncSignal())
        let gotTwo = AsyncSignal()
        let gotThree = AsyncSignal()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, onValue: { value in
            journal.append("value \(value)")
            if value == 2 { gotTwo.fire() }
            if value == 3 { gotThree.fire() }
            return .none
        })
        sequence.publisher.subscribe(subscriber)
        journal.append("request 2")
        subscriber.request(.max(2))
        try await gotTwo.wait()
        journal.append("request 1")
        subscriber.request(.max(1))
        try await gotThree.wait()
        subscriber.cancel()
        #expect(journal.all == ["request 2", "next 1", "value 1", "next 2", "value 2",
                                "request 1", "next 3", "value 3"])
    }

    @Test func demandReturnedFromReceiveKeepsTheIterationGoing() async throws {
        let stream = AsyncStream<Int> { continuation in
            for i in 1...4 { continuation.yield(i) }
            continuation.finish()
        }
        let done = AsyncSignal()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) },
                                                   onCompletion: { _ in done.fire() })
        stream.publisher.subscribe(subscriber)
        try await done.wait()
        #expect(subscriber.values == [1, 2, 3, 4])
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancellingCancelsTheIteratingTaskAndReleasesTheSubscriber() async throws {
        let journal = Log<String>()
        let iterationCancelled = AsyncSignal()
        let sequence = JournalingSequence(elements: [1], journal: journal, cancelled: iterationCancelled)
        let gotOne = AsyncSignal()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        weak var weakSubscription: AnyObject?
        do {
            let subscriber = TestSubscriber<Int, Never>(onValue: { _ in
                gotOne.fire()
                return .none
            })
            weakSubscriber = subscriber
            sequence.publisher.subscribe(subscriber)
            weakSubscription = subscriber.subscription as AnyObject?
            try await gotOne.wait()
            #expect(await eventually { journal.all.contains("next: waiting") })
            subscriber.cancel()
            try await iterationCancelled.wait()
            #expect(subscriber.events == [.subscription("AsyncSequence"), .value(1)], "no completion after cancel")
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil, "cancel released the subscriber")
        // The iterating task holds the subscription until it has ended.
        #expect(await eventually { weakSubscription == nil }, "the task ended and released the subscription")
        #expect(journal.all == ["next 1", "next: waiting", "next: cancelled"])
    }

    @Test func cancellingEndsTheIterationOfAnAsyncStream() async throws {
        let terminated = AsyncSignal()
        let termination = Log<String>()
        let stream = AsyncStream<Int> { continuation in
            continuation.yield(1)
            continuation.onTermination = { reason in
                termination.append("\(reason)")
                terminated.fire()
            }
        }
        let gotOne = AsyncSignal()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _ in
            gotOne.fire()
            return .none
        })
        stream.publisher.subscribe(subscriber)
        try await gotOne.wait()
        subscriber.cancel()
        try await terminated.wait()
        #expect(termination.all == ["cancelled"])
    }

    @Test func cancelFromInsideReceiveStopsTheIteration() async throws {
        let journal = Log<String>()
        let iterationCancelled = AsyncSignal()
        let sequence = JournalingSequence(elements: [1, 2, 3], journal: journal, cancelled: iterationCancelled)
        var subscription: Subscription?
        let stopped = AsyncSignal()
        let subscriber = TestSubscriber<Int, Never>(onSubscription: { subscription = $0 }, onValue: { value in
            if value == 2 {
                subscription?.cancel()
                stopped.fire()
            }
            return .none
        })
        sequence.publisher.subscribe(subscriber)
        try await stopped.wait()
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions.isEmpty)
        #expect(!journal.all.contains("next 3"), "no element is pulled after the cancel")
    }

    @Test func aCancelBeforeAnyRequestStartsNothing() async {
        let journal = Log<String>()
        let sequence = JournalingSequence(elements: [1], journal: journal, cancelled: AsyncSignal())
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        sequence.publisher.subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.max(1))
        // The subscription ended before any request, so no task was made; a request after
        // the cancel does not start one either. Another full round trip proves the point:
        let probe = AsyncStream<Int> { $0.yield(0); $0.finish() }
        #expect(await probe.publisher.values.first(where: { _ in true }) == 0)
        #expect(journal.all == [])
    }

    @Test func manyElementsArriveInOrderOneSignalAtATime() async throws {
        let stream = AsyncStream<Int> { continuation in
            for i in 0..<2000 { continuation.yield(i) }
            continuation.finish()
        }
        let done = AsyncSignal()
        let subscriber = TestSubscriber<Int, Never>(onCompletion: { _ in done.fire() })
        stream.publisher.subscribe(subscriber)
        try await done.wait()
        #expect(subscriber.values == Array(0..<2000))
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func theBridgeRoundTripsThroughValues() async {
        let stream = AsyncStream<Int> { continuation in
            for i in 1...3 { continuation.yield(i) }
            continuation.finish()
        }
        var collected: [Int] = []
        for await value in stream.publisher.map({ $0 * 10 }).values {
            collected.append(value)
        }
        #expect(collected == [10, 20, 30])
    }
}
