import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("expectMarbles")
struct ExpectMarblesTests {
    let tick = Duration.milliseconds(100)

    @Test func passesWhenTheTimelineMatches() {
        let scheduler = DispatchQueue.test
        let source = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], tick: tick)
        let (matched, failures) = TestFailure.capturingFailures {
            expectMarbles(source.map { $0 * 10 }, "-x-y|", values: ["x": 10, "y": 20], scheduler: scheduler, tick: tick)
        }
        #expect(matched)
        #expect(failures.isEmpty)
    }

    @Test func aMismatchDrawsExpectedAboveActualAtTheCallersLine() throws {
        let scheduler = DispatchQueue.test
        let source = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], tick: tick)
        let line = #line + 2
        let (matched, failures) = TestFailure.capturingFailures {
            expectMarbles(source.map { $0 * 10 }.delay(for: .milliseconds(200), scheduler: scheduler),
                          "-x-y|", values: ["x": 10, "y": 20], scheduler: scheduler, tick: tick)
        }
        #expect(!matched)
        let failure = try #require(failures.first)
        #expect(failures.count == 1)
        #expect(failure.line == line)
        #expect(failure.fileID == #fileID)
        #expect(failure.message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 100 ms; times since the scheduler's origin, now 600 ms)
            expected: -x-y|
            actual:   ---x-y|
            first difference: expected value x (10) at 100 ms, got value x (10) at 300 ms
            """)
    }

    @Test func wrongValuesUnknownValuesAndMissingCompletion() throws {
        let scheduler = DispatchQueue.test
        let subject = scheduler.hot("-a-b-", values: ["a": 1, "b": 3], tick: tick)
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(subject, "-a-b|", values: ["a": 1, "b": 2], scheduler: scheduler, tick: tick)
        }
        #expect(try #require(failures.first).message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 100 ms; times since the scheduler's origin, now 400 ms)
            expected: -a-b|
            actual:   -a-'3'
            first difference: expected value b (2) at 300 ms, got value 3 at 300 ms
            """)
    }

    @Test func failuresAndTheirErrors() throws {
        let scheduler = DispatchQueue.test
        let errors = ["#": Boom(code: 1), "t": Boom(code: 2)]
        let source = scheduler.cold("-a#t", values: ["a": 1], errors: errors, tick: tick)
        #expect(TestFailure.capturingFailures {
            expectMarbles(source, "-a#t", values: ["a": 1], errors: errors, scheduler: scheduler, tick: tick)
        }.failures.isEmpty)
        // The second expectMarbles subscribes at 300 ms, where the first left the clock: the
        // diagram is read from there, and the report gives the scheduler's times.
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(source, "-a#", values: ["a": 1], errors: errors, scheduler: scheduler, tick: tick)
        }
        #expect(try #require(failures.first).message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 100 ms; the diagram starts at 300 ms; times since the scheduler's origin, now 500 ms)
            expected: -a#
            actual:   -a#t
            first difference: expected failure Boom(1) at 500 ms, got failure Boom(2) at 500 ms
            """)
    }

    @Test func bangCancelsAtItsTick() {
        let scheduler = DispatchQueue.test
        let source = scheduler.cold("-a-b-c|", tick: tick)
        #expect(TestFailure.capturingFailures {
            expectMarbles(source, "-a-b!", scheduler: scheduler, tick: tick)
        }.failures.isEmpty)
        #expect(source.subscriptions.last == SubscriptionInterval(subscribedAt: .zero, cancelledAt: .milliseconds(400)))
    }

    @Test func caretAlignsTheExpectationWithAHotSource() {
        let scheduler = DispatchQueue.test
        let source = scheduler.hot("-a-^-b-c|", tick: tick)
        let (matched, failures) = TestFailure.capturingFailures {
            expectMarbles(source.map { $0.uppercased() }, "---^-B-C|", scheduler: scheduler, tick: tick)
        }
        #expect(matched && failures.isEmpty)
    }

    @Test func extraEventsAfterTheDiagramAreCaught() throws {
        let scheduler = DispatchQueue.test
        let source = scheduler.cold("-a---b", tick: tick)
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(source, "-a", scheduler: scheduler, tick: tick)
        }
        #expect(try #require(failures.first).message.hasSuffix("first difference: expected nothing more, got value b at 500 ms"))
    }

    @Test func eventsBetweenTicksDoNotMatchAndAreMarkedInTheDrawing() throws {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<String, Never>()
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(150))) { subject.send("a") }
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(subject, "-a", scheduler: scheduler, tick: tick)
        }
        // Drawn at the tick before, as "-a" would be, but pointed at, so the rows differ.
        #expect(try #require(failures.first).message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 100 ms; times since the scheduler's origin, now 150 ms)
            expected: -a
            actual:   -a
                       ↑ between ticks, drawn at the tick before: a at 150 ms
            first difference: expected value a at 100 ms, got value a at 150 ms
            """)
    }

    @Test func aBadExpectedDiagramIsReported() throws {
        let scheduler = DispatchQueue.test
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(Empty<Int, Never>(), "-a|", scheduler: scheduler)
        }
        #expect(try #require(failures.first).message.hasPrefix("expectMarbles: marble diagram: no value for \"a\""))
        let (_, early) = TestFailure.capturingFailures {
            expectMarbles(Empty<String, Never>(), "a^|", scheduler: scheduler)
        }
        #expect(try #require(early.first).message.contains("has events before its subscription point"))
    }

    @Test func nonEquatableErrorsCompareByDescription() {
        let scheduler = DispatchQueue.test
        let source = scheduler.cold("-1-2", values: ["1": 1, "2": 2], tick: tick)
            .tryMap { value -> Int in
                if value == 2 { throw Boom(code: 9) }
                return value
            }
        let errors: [String: any Error] = ["#": Boom(code: 9)]
        #expect(TestFailure.capturingFailures {
            expectMarbles(source, "-1-#", values: ["1": 1], errors: errors, scheduler: scheduler, tick: tick)
        }.failures.isEmpty)
    }

    @Test func theDocumentedDebounceExample() {
        let scheduler = DispatchQueue.test
        let query = scheduler.hot("(ab)--c", values: ["a": "sw", "b": "swift", "c": "swiftui"], tick: .milliseconds(100))
        let (matched, failures) = TestFailure.capturingFailures {
            expectMarbles(query.debounce(for: .milliseconds(300), scheduler: scheduler),
                          "---b-----c", values: ["b": "swift", "c": "swiftui"], scheduler: scheduler, tick: .milliseconds(100))
        }
        #expect(matched && failures.isEmpty)
    }

    @Test func aRealFailureIsReportedToSwiftTestingAtTheCallersLine() {
        // Outside capturingFailures the report becomes an Issue of the running test, at the
        // line of the expectMarbles call, with both timelines in its comment.
        let scheduler = DispatchQueue.test
        let line = #line + 2
        withKnownIssue {
            expectMarbles(Just("a"), "-a|", scheduler: scheduler, tick: tick)
        } matching: { issue in
            issue.sourceLocation?.fileID == #fileID && issue.sourceLocation?.line == line
                && issue.comments.contains { $0.rawValue.contains("\nexpected: -a|\nactual:   (a|)\n") }
        }
    }
}

import XCTest

/// Under XCTest the same failure goes to `XCTFail`, at the caller's file and line: captured here
/// by overriding `recordFailure` (Linux XCTest has no `XCTExpectFailure`).
final class ExpectMarblesXCTests: XCTestCase {
    private var recorded: [(description: String, file: String, line: Int)] = []
    private var capturing = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                expected: Bool) {
        if capturing {
            recorded.append((description, filePath, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testAMismatchIsAnXCTestFailureAtTheCallersLine() {
        let scheduler = DispatchQueue.test
        capturing = true
        let line = #line + 1
        let matched = expectMarbles(Just("a"), "-a|", scheduler: scheduler, tick: .milliseconds(100))
        capturing = false
        XCTAssertFalse(matched)
        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first?.line, line)
        XCTAssertEqual(recorded.first?.file.hasSuffix("ExpectMarblesTests.swift"), true)
        XCTAssertEqual(recorded.first?.description.contains("""
            expected: -a|
            actual:   (a|)
            """), true, recorded.first?.description ?? "")
    }
}
