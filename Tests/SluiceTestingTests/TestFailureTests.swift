import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// The toolkit's assertions report to Swift Testing as issues at the caller's file and line.
/// (ExpectMarblesXCTests checks the same for XCTest.)
@Suite("Test failures reach Swift Testing")
struct TestFailureTests {
    /// Whether `issue` is attributed to `line` of this file and its comment contains `text`.
    private static func issue(_ issue: Issue, isAt line: Int, saying text: String) -> Bool {
        issue.sourceLocation?.fileID == #fileID && issue.sourceLocation?.line == line
            && issue.comments.contains { $0.rawValue.contains(text) }
    }

    @Test func aBadColdDiagramIsAnIssueAtTheCallersLine() {
        let scheduler = DispatchQueue.test
        let line = #line + 2
        withKnownIssue {
            _ = scheduler.cold("-a-(b", tick: .milliseconds(100))
        } matching: { issue in
            Self.issue(issue, isAt: line, saying: "marble diagram: unclosed group\n  -a-(b\n")
        }
    }

    @Test func aCaretInAColdDiagramIsAnIssueAtTheCallersLine() {
        let scheduler = DispatchQueue.test
        let line = #line + 2
        withKnownIssue {
            _ = scheduler.cold("-^a|", values: ["a": 1], tick: .milliseconds(100))
        } matching: { issue in
            Self.issue(issue, isAt: line, saying: "\"^\" belongs in hot diagrams")
        }
    }

    @Test func aRunThatNeverFinishesIsAnIssueAtTheCallersLine() {
        let scheduler = DispatchQueue.test
        let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
        let line = #line + 2
        withKnownIssue {
            scheduler.run(maxSteps: 5)
        } matching: { issue in
            Self.issue(issue, isAt: line, saying: "TestScheduler.run() stopped after 5 actions with 1 still pending")
        }
        timer.cancel()
    }

    @Test func aFailureOffTheTestsTaskIsStillAnIssue() async {
        // From a queue's callback there is no test task: the issue is recorded for the whole
        // run (here, that of the exit test's child process, which sends it back to this test)
        // instead of going to XCTFail, which has no XCTest case to fail in a Swift Testing
        // process and would drop it. The child's issue arrives with the exit test's location.
        await withKnownIssue {
            await #expect(processExitsWith: .success) {
                let reported = DispatchSemaphore(value: 0)
                DispatchQueue(label: "off the test's task").async {
                    expectMarbles(Just("a"), "-a|", scheduler: DispatchQueue.test, tick: .milliseconds(100))
                    reported.signal()
                }
                reported.wait()
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("expectMarbles: the publisher's timeline does not match") }
        }
    }
}
