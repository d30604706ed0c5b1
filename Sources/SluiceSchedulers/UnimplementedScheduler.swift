import Foundation
import Sluice

/// A scheduler that fails the current test if anything uses it (when the test links
/// SluiceTesting; otherwise it writes a warning to standard error).
///
/// Give it to code whose test should prove that it never schedules work (or never reads the
/// time): the failure names the scheduler and the place it was created. After reporting, it
/// runs the action at once so that the test can go on and report more.
public struct UnimplementedScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
    where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
{
    /// The name used in failure messages (combine-schedulers' `prefix`).
    public let name: String

    /// The name used in failure messages, under combine-schedulers' name for it.
    public var prefix: String { name }
    private let fixedNow: SchedulerTimeType
    private let fileID: StaticString
    private let filePath: StaticString
    private let line: UInt
    private let column: UInt

    /// Creates an unimplemented scheduler; failures are reported at this call site.
    public init(_ name: String = "UnimplementedScheduler", now: SchedulerTimeType, fileID: StaticString = #fileID,
                filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) {
        self.name = name
        fixedNow = now
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    private func fail(_ what: String) {
        SchedulerIssue.report("\(name) (created at \(fileID):\(line)) \(what), but it is unimplemented",
                           fileID: fileID, filePath: filePath, line: line, column: column)
    }

    public var now: SchedulerTimeType {
        fail("was asked the current time")
        return fixedNow
    }

    public var minimumTolerance: SchedulerTimeType.Stride {
        fail("was asked its minimum tolerance")
        return .zero
    }

    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        fail("scheduled an action to run immediately")
        action()
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        fail("scheduled an action to run later")
        action()
    }

    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        fail("scheduled an action to run on a timer")
        action()
        return AnyCancellable {}
    }
}

/// The unimplemented scheduler with a scheduler's time and options types.
public typealias UnimplementedSchedulerOf<S: Scheduler> = UnimplementedScheduler<S.SchedulerTimeType, S.SchedulerOptions>

// combine-schedulers' spellings: `DispatchQueue.unimplemented` (a value) and
// `DispatchQueue.unimplemented("Search")`, the same for RunLoop and OperationQueue, and erased
// forms on `AnyScheduler`. The `prefix` forms report failures at the call that made the
// scheduler; the property forms (a property cannot see its caller) at this file.

extension DispatchQueue {
    /// A dispatch-time scheduler that fails the test if used.
    public static var unimplemented: UnimplementedSchedulerOf<DispatchQueue> { unimplemented("DispatchQueue") }

    /// A dispatch-time scheduler named `prefix` in its failures, that fails the test if used.
    public static func unimplemented(_ prefix: String, fileID: StaticString = #fileID,
                                     filePath: StaticString = #filePath, line: UInt = #line,
                                     column: UInt = #column) -> UnimplementedSchedulerOf<DispatchQueue> {
        UnimplementedScheduler(prefix, now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)),
                               fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension RunLoop {
    /// A run-loop-time scheduler that fails the test if used.
    public static var unimplemented: UnimplementedSchedulerOf<RunLoop> { unimplemented("RunLoop") }

    /// A run-loop-time scheduler named `prefix` in its failures, that fails the test if used.
    public static func unimplemented(_ prefix: String, fileID: StaticString = #fileID,
                                     filePath: StaticString = #filePath, line: UInt = #line,
                                     column: UInt = #column) -> UnimplementedSchedulerOf<RunLoop> {
        UnimplementedScheduler(prefix, now: SchedulerTimeType(Date(timeIntervalSince1970: 0)),
                               fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension OperationQueue {
    /// An operation-queue-time scheduler that fails the test if used.
    public static var unimplemented: UnimplementedSchedulerOf<OperationQueue> { unimplemented("OperationQueue") }

    /// An operation-queue-time scheduler named `prefix` in its failures, that fails the test if used.
    public static func unimplemented(_ prefix: String, fileID: StaticString = #fileID,
                                     filePath: StaticString = #filePath, line: UInt = #line,
                                     column: UInt = #column) -> UnimplementedSchedulerOf<OperationQueue> {
        UnimplementedScheduler(prefix, now: SchedulerTimeType(Date(timeIntervalSince1970: 0)),
                               fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension AnyScheduler where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == DispatchQueue.SchedulerOptions {
    /// `DispatchQueue.unimplemented`, erased.
    public static var unimplemented: Self { AnyScheduler(DispatchQueue.unimplemented) }

    /// `DispatchQueue.unimplemented(prefix)`, erased.
    public static func unimplemented(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                                     line: UInt = #line, column: UInt = #column) -> Self {
        AnyScheduler(DispatchQueue.unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column))
    }
}

extension AnyScheduler where SchedulerTimeType == RunLoop.SchedulerTimeType, SchedulerOptions == RunLoop.SchedulerOptions {
    /// `RunLoop.unimplemented`, erased.
    public static var unimplemented: Self { AnyScheduler(RunLoop.unimplemented) }

    /// `RunLoop.unimplemented(prefix)`, erased.
    public static func unimplemented(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                                     line: UInt = #line, column: UInt = #column) -> Self {
        AnyScheduler(RunLoop.unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column))
    }
}

extension AnyScheduler where SchedulerTimeType == OperationQueue.SchedulerTimeType, SchedulerOptions == OperationQueue.SchedulerOptions {
    /// `OperationQueue.unimplemented`, erased.
    public static var unimplemented: Self { AnyScheduler(OperationQueue.unimplemented) }

    /// `OperationQueue.unimplemented(prefix)`, erased.
    public static func unimplemented(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                                     line: UInt = #line, column: UInt = #column) -> Self {
        AnyScheduler(OperationQueue.unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column))
    }
}
