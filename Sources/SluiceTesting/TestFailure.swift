import Foundation
import Testing
import XCTest
import SluiceSchedulers

/// Reports a test failure at the caller's source location, in whichever framework is running:
/// an `Issue` under Swift Testing, `XCTFail` under XCTest.
///
/// Under Swift Testing, report from the test's own task (the test function, or a task it
/// awaits) where you can: there the issue belongs to the test, and `withKnownIssue` sees it. A
/// failure reported from elsewhere (a dispatch queue's callback, a detached task) is not lost:
/// Swift Testing records it for the whole run, which fails, naming the caller's file and line,
/// but it belongs to no test and `withKnownIssue` cannot catch it. (Falling back to `XCTFail`
/// there, as a process that runs Swift Testing has no XCTest case, would drop it silently.)
///
/// Tests of SluiceTesting itself (and anyone who wants to check a failure message) can capture
/// failures instead, with `capturingFailures(_:)`; Linux XCTest has no `XCTExpectFailure`.
public enum TestFailure {
    /// A failure that was reported, with where it was reported from.
    public struct Report: Sendable, CustomStringConvertible {
        public var message: String
        public var fileID: String
        public var filePath: String
        public var line: Int
        public var column: Int

        public var description: String { "\(fileID):\(line): \(message)" }
    }

    @TaskLocal private static var capture: CaptureBox?

    private final class CaptureBox: @unchecked Sendable {
        let lock = NSLock()
        var reports: [Report] = []
        func append(_ report: Report) {
            lock.lock()
            reports.append(report)
            lock.unlock()
        }
    }

    /// Reports `message` as a test failure at the given location.
    public static func report(_ message: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                              line: UInt = #line, column: UInt = #column) {
        let report = Report(message: message, fileID: "\(fileID)", filePath: "\(filePath)",
                            line: Int(line), column: Int(column))
        if let capture {
            capture.append(report)
            return
        }
        if Test.current != nil || runsSwiftTesting {
            Issue.record(Comment(rawValue: message),
                         sourceLocation: SourceLocation(fileID: report.fileID, filePath: report.filePath,
                                                        line: report.line, column: report.column))
        } else {
            XCTFail(message, file: filePath, line: line)
        }
    }

    /// Whether this process runs Swift Testing's tests rather than XCTest's, decided as SwiftPM's
    /// generated test runner decides it: by the value after `--testing-library` (XCTest when
    /// there is none). A test process runs one library or the other, never both at once.
    static let runsSwiftTesting: Bool = {
        var arguments = CommandLine.arguments.makeIterator()
        while let argument = arguments.next() {
            if argument == "--testing-library", let library = arguments.next() {
                return library.lowercased() == "swift-testing"
            }
        }
        return false
    }()

    /// Runs `body`, collecting the failures it reports instead of failing the current test.
    public static func capturingFailures<T>(_ body: () throws -> T) rethrows -> (result: T, failures: [Report]) {
        let box = CaptureBox()
        let result = try $capture.withValue(box) { try body() }
        return (result, box.reports)
    }

    /// Runs `body`, collecting the failures it reports instead of failing the current test.
    public static func capturingFailures<T>(_ body: () async throws -> T) async rethrows -> (result: T, failures: [Report]) {
        let box = CaptureBox()
        let result = try await $capture.withValue(box) { try await body() }
        return (result, box.reports)
    }
}

/// SluiceSchedulers' test schedulers report their failures here (found by name at run time, see
/// SluiceSchedulers' `SchedulerIssue`): the name must stay `SluiceTesting.TestFailureReporter`.
enum TestFailureReporter: SchedulerIssueSink {
    static func report(_ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        TestFailure.report(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
