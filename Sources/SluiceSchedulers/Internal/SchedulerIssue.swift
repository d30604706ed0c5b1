import Foundation
import Sluice

/// Where a test failure goes when SluiceTesting is in the process: SluiceTesting's
/// `TestFailureReporter` conforms, and SluiceSchedulers finds it by name at run time, so that
/// this module links neither XCTest nor Swift Testing into the programs that ship it.
package protocol SchedulerIssueSink: Sendable {
    static func report(_ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt)
}

/// Reports a misuse of a test scheduler: an `UnimplementedScheduler` that was used, a `run()`
/// that would never end. As a test failure at the given place when the process links
/// SluiceTesting (every test target that imports it), otherwise as a warning on standard error.
@usableFromInline
package enum SchedulerIssue {
    private static let sink: (any SchedulerIssueSink.Type)? =
        _typeByName("13SluiceTesting19TestFailureReporterO") as? any SchedulerIssueSink.Type

    @usableFromInline
    package static func report(_ message: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                               line: UInt = #line, column: UInt = #column) {
        if let sink {
            sink.report(message, fileID: fileID, filePath: filePath, line: line, column: column)
        } else {
            FileHandle.standardError.write(Data("\(fileID):\(line): warning: \(message)\n".utf8))
        }
    }
}
