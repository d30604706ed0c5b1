import Testing
import XCTest
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Issue 24, "waiting on real schedulers": `next(n)`, `availableElements`, and an inverted
/// "no value within" expectation, as CombineExpectations offers them.
@Suite("Blocking recorder")
struct BlockingRecorderTests {
    @Test func nextTakesExactlyTheValuesItWaitsFor() throws {
        let queue = DispatchQueue(label: "producer")
        let recorder = [1, 2, 3, 4].publisher.receive(on: queue).blocking(timeout: 10).record()
        #expect(try recorder.next(2) == [1, 2])
        #expect(try recorder.next() == 3)
        #expect(try recorder.next(1) == [4])
        #expect(try recorder.completion() == .finished)
        #expect(recorder.values == [1, 2, 3, 4])
        #expect(try recorder.next(0) == [])
    }

    @Test func valuesSentLaterFromAnotherQueueAreWaitedFor() throws {
        nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()  // not Sendable, as in Combine
        let recorder = subject.blocking(timeout: 10).record()
        let queue = DispatchQueue(label: "sender")
        queue.async {
            subject.send(1)
            subject.send(2)
        }
        #expect(try recorder.next(2) == [1, 2])
        queue.async { subject.send(3) }
        #expect(try recorder.next() == 3)
    }

    @Test func nextThrowsTheFailureOrThatThePublisherFinishedOrTimedOut() throws {
        let failing = Just(1).setFailureType(to: Boom.self).append(Fail(error: Boom(code: 7)))
            .receive(on: DispatchQueue(label: "f")).blocking().record()
        #expect(try failing.next() == 1)
        #expect(throws: Boom(code: 7)) { try failing.next() }

        let finishing = [1].publisher.receive(on: DispatchQueue(label: "g")).blocking().record()
        #expect(throws: BlockingFinishedError(waitingFor: "the next 2 values", valuesReceived: 1)) { try finishing.next(2) }
        #expect(BlockingFinishedError(waitingFor: "the next 2 values", valuesReceived: 1).description
            == "the publisher finished while waiting for the next 2 values (1 value received)")

        let silent = PassthroughSubject<Int, Never>().blocking(timeout: 0.2).record()
        #expect(throws: BlockingTimeoutError(timeout: 0.2, waitingFor: "the next value", valuesReceived: 0)) { try silent.next() }
    }

    @Test func availableElementsWaitsThenReturnsEverythingSoFar() throws {
        let subject = CurrentValueSubject<Int, Never>(1)
        let recorder = subject.blocking().record()
        #expect(try recorder.next() == 1)
        subject.send(2)
        // Everything since the subscription, whatever next has taken.
        #expect(try recorder.availableElements(after: 0.05) == [1, 2])
        let failed = Fail<Int, Boom>(error: Boom(code: 3)).blocking().record()
        #expect(throws: Boom(code: 3)) { try failed.availableElements(after: 0) }
    }

    @Test func expectNoValuePassesWhenNothingArrives() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.blocking().record()
        let (passed, failures) = TestFailure.capturingFailures { recorder.expectNoValue(within: 0.1) }
        #expect(passed && failures.isEmpty)
        subject.send(completion: .finished)
        #expect(TestFailure.capturingFailures { recorder.expectNoValue(within: 0.05) }.result, "a completion is no value")
    }

    @Test func expectNoValueFailsAtTheCallerWhenAValueArrives() throws {
        // The value comes from another queue; expectNoValue returns as soon as it is there, so a
        // generous window costs nothing.
        let recorder = Just(42).receive(on: DispatchQueue(label: "late")).blocking().record()
        let line = #line + 1
        let (passed, failures) = TestFailure.capturingFailures { recorder.expectNoValue(within: 10) }
        #expect(!passed)
        let failure = try #require(failures.first)
        #expect(failure.message == "expectNoValue: expected no value within 10 s, got 42")
        #expect(failure.line == line)
    }

    @Test func aValueAlreadyThereButNotTakenCounts() throws {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.blocking().record()
        subject.send(1)
        #expect(!TestFailure.capturingFailures { recorder.expectNoValue(within: 0) }.result)
        #expect(try recorder.next() == 1)
        #expect(TestFailure.capturingFailures { recorder.expectNoValue(within: 0) }.result)
    }

    @Test func cancelStopsRecording() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.blocking().record()
        recorder.cancel()
        subject.send(1)
        #expect(recorder.values == [])
    }
}

/// On the main thread the recorder runs the main run loop while it waits, so values delivered
/// through the main queue and the main run loop arrive (XCTest runs tests on the main thread).
final class BlockingRecorderMainThreadTests: XCTestCase {
    func testNextWaitsWhileTheMainRunLoopTurns() throws {
        XCTAssertTrue(Thread.isMainThread)
        let recorder = [1, 2, 3].publisher.receive(on: DispatchQueue(label: "work")).receive(on: DispatchQueue.main)
            .blocking().record()
        XCTAssertEqual(try recorder.next(2), [1, 2])
        XCTAssertEqual(try recorder.next(), 3)
        let timer = Timer.publish(every: 0.01, on: .main, in: .default).autoconnect().blocking().record()
        XCTAssertEqual(try timer.next(3).count, 3)
        timer.cancel()
        let mainLoop = Just(5).receive(on: RunLoop.main).blocking().record()
        XCTAssertFalse(TestFailure.capturingFailures { mainLoop.expectNoValue(within: 5) }.result,
                       "the main run loop turned and delivered the value during the wait")
    }
}

#if os(Linux)
/// The DocC article's fact about Swift Testing on Linux: a `@MainActor` test runs on the main
/// queue but not on the main thread, so it cannot turn the main run loop, and work queued on the
/// main queue waits while it blocks.
@Suite("A Swift Testing main-actor test on Linux")
struct MainActorTestOnLinuxTests {
    @MainActor @Test func itIsOnTheMainQueueButCannotTurnTheMainRunLoop() async throws {
        let facts = Self.whereThisRuns()
        #expect(facts.onTheMainActor && !facts.onTheMainThread && !facts.onTheMainRunLoop)
        let recorder = Just(1).receive(on: DispatchQueue.main).blocking().record()
        #expect(TestFailure.capturingFailures { recorder.expectNoValue(within: 0.2) }.result,
                "the main queue is busy with this test while it blocks")
        // Once the test awaits, the main queue runs the delivery.
        let deadline = Date(timeIntervalSinceNow: 10)
        while recorder.values.isEmpty, Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(recorder.values == [1])
    }

    /// Read synchronously: `RunLoop.current` is not available in async code.
    private nonisolated static func whereThisRuns() -> (onTheMainActor: Bool, onTheMainThread: Bool, onTheMainRunLoop: Bool) {
        MainActor.assumeIsolated {}
        return (true, Thread.isMainThread, RunLoop.current === RunLoop.main)
    }
}
#endif
