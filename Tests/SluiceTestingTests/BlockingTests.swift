import Testing
import XCTest
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Blocking helpers")
struct BlockingTests {
    @Test func valuesFirstLastAndCompletionFromABackgroundQueue() throws {
        let queue = DispatchQueue(label: "producer")
        let source = [1, 2, 3].publisher.receive(on: queue)
        #expect(try source.blocking().values() == [1, 2, 3])
        #expect(try source.blocking().first() == 1)
        #expect(try source.blocking().last() == 3)
        let (values, completion) = try source.blocking().completion()
        #expect(values == [1, 2, 3] && completion == .finished)
        #expect(try Empty<Int, Never>().blocking().first() == nil)
    }

    @Test func aFailureIsThrownOrReturned() throws {
        let failing = Fail<Int, Boom>(error: Boom(code: 4)).receive(on: DispatchQueue(label: "f"))
        #expect(throws: Boom(code: 4)) { try failing.blocking().values() }
        #expect(throws: Boom(code: 4)) { try failing.blocking().first() }
        #expect(try failing.blocking().completion().completion == .failure(Boom(code: 4)))
    }

    @Test func firstCancelsAfterTheFirstValue() throws {
        // 5 arrives from another queue and nothing follows, so only first() ends the wait.
        let cancelled = Log<String>()
        let fiveThenNothing = Just(5).append(Empty(completeImmediately: false))
            .handleEvents(receiveCancel: { cancelled.append("cancel") })
            .receive(on: DispatchQueue(label: "sender"))
        let first = try fiveThenNothing.blocking().first()
        #expect(first == 5)
        #expect(cancelled.all == ["cancel"])
    }

    @Test func timesOutWithAClearError() {
        // One value at once, then nothing: the count in the error does not depend on how soon
        // another thread gets to run (an asynchronous send missed the 0.2 s on a loaded machine).
        let cancels = Log<String>()
        let sentOne = Just(1).append(Empty(completeImmediately: false))
            .handleEvents(receiveCancel: { cancels.append("cancel") })
        #expect(throws: BlockingTimeoutError(timeout: 0.2, waitingFor: "completion", valuesReceived: 1)) {
            try sentOne.blocking(timeout: 0.2).values()
        }
        #expect(cancels.all == ["cancel"], "giving up cancels the subscription")
        #expect(BlockingTimeoutError(timeout: 0.2, waitingFor: "completion", valuesReceived: 1).description
            == "timed out after 0.2 s waiting for completion (1 value received, no completion)")
        #expect(BlockingTimeoutError(timeout: 2, waitingFor: "the first value", valuesReceived: 0).description
            == "timed out after 2 s waiting for the first value (0 values received, no completion)")
    }
}

/// On the main thread the helpers run the main run loop while they wait, so work scheduled on
/// the main queue and the main run loop gets done (XCTest runs tests on the main thread).
final class BlockingMainThreadTests: XCTestCase {
    func testWaitingOnTheMainThreadRunsTheMainRunLoop() throws {
        XCTAssertTrue(Thread.isMainThread)
        let viaMainQueue = [1, 2].publisher.receive(on: DispatchQueue(label: "work")).receive(on: DispatchQueue.main)
        XCTAssertEqual(try viaMainQueue.blocking().values(), [1, 2])
        XCTAssertEqual(try Just(3).receive(on: RunLoop.main).blocking().first(), 3)
        let timer = Timer.publish(every: 0.01, on: .main, in: .default).autoconnect()
        XCTAssertNotNil(try timer.blocking().first())
    }
}
