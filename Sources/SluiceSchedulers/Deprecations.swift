import Foundation
import Sluice

// combine-schedulers' older names, which it still ships deprecated: `FailingScheduler` and
// `.failing` (renamed `UnimplementedScheduler` and `.unimplemented`), `.testScheduler` and
// `.immediateScheduler` (renamed `.test` and `.immediate`). Code and tests written against
// those releases build unchanged, with the same deprecation warning pointing at the new name.

@available(*, deprecated, renamed: "UnimplementedScheduler")
public typealias FailingScheduler = UnimplementedScheduler

@available(*, deprecated, renamed: "UnimplementedSchedulerOf")
public typealias FailingSchedulerOf<S: Scheduler> = UnimplementedSchedulerOf<S>

extension DispatchQueue {
    @available(*, deprecated, renamed: "unimplemented")
    public static var failing: UnimplementedSchedulerOf<DispatchQueue> { unimplemented("DispatchQueue") }

    @available(*, deprecated, renamed: "unimplemented")
    public static func failing(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                               line: UInt = #line, column: UInt = #column) -> UnimplementedSchedulerOf<DispatchQueue> {
        unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension RunLoop {
    @available(*, deprecated, renamed: "unimplemented")
    public static var failing: UnimplementedSchedulerOf<RunLoop> { unimplemented("RunLoop") }

    @available(*, deprecated, renamed: "unimplemented")
    public static func failing(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                               line: UInt = #line, column: UInt = #column) -> UnimplementedSchedulerOf<RunLoop> {
        unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension OperationQueue {
    @available(*, deprecated, renamed: "unimplemented")
    public static var failing: UnimplementedSchedulerOf<OperationQueue> { unimplemented("OperationQueue") }

    @available(*, deprecated, renamed: "unimplemented")
    public static func failing(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                               line: UInt = #line, column: UInt = #column) -> UnimplementedSchedulerOf<OperationQueue> {
        unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension AnyScheduler where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == DispatchQueue.SchedulerOptions {
    @available(*, deprecated, renamed: "unimplemented")
    public static var failing: Self { AnyScheduler(DispatchQueue.unimplemented("DispatchQueue")) }

    @available(*, deprecated, renamed: "unimplemented")
    public static func failing(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                               line: UInt = #line, column: UInt = #column) -> Self {
        unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension AnyScheduler where SchedulerTimeType == RunLoop.SchedulerTimeType, SchedulerOptions == RunLoop.SchedulerOptions {
    @available(*, deprecated, renamed: "unimplemented")
    public static var failing: Self { AnyScheduler(RunLoop.unimplemented("RunLoop")) }

    @available(*, deprecated, renamed: "unimplemented")
    public static func failing(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                               line: UInt = #line, column: UInt = #column) -> Self {
        unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension AnyScheduler where SchedulerTimeType == OperationQueue.SchedulerTimeType, SchedulerOptions == OperationQueue.SchedulerOptions {
    @available(*, deprecated, renamed: "unimplemented")
    public static var failing: Self { AnyScheduler(OperationQueue.unimplemented("OperationQueue")) }

    @available(*, deprecated, renamed: "unimplemented")
    public static func failing(_ prefix: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                               line: UInt = #line, column: UInt = #column) -> Self {
        unimplemented(prefix, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

// combine-schedulers declared these on `Scheduler` constrained to a time and options type, so
// `DispatchQueue.testScheduler` and `DispatchQueue.immediateScheduler` resolve as they did there.

extension Scheduler where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == DispatchQueue.SchedulerOptions {
    /// A new test scheduler with dispatch queue time, starting at uptime 1 ns.
    @available(*, deprecated, renamed: "test")
    public static var testScheduler: TestSchedulerOf<Self> { DispatchQueue.test }

    /// A scheduler with dispatch time that runs everything at once.
    @available(*, deprecated, renamed: "immediate")
    public static var immediateScheduler: ImmediateSchedulerOf<Self> { DispatchQueue.immediate }
}

extension Scheduler where SchedulerTimeType == RunLoop.SchedulerTimeType, SchedulerOptions == RunLoop.SchedulerOptions {
    /// A new test scheduler with run loop time, starting at 1970.
    @available(*, deprecated, renamed: "test")
    public static var testScheduler: TestSchedulerOf<Self> { RunLoop.test }

    /// A scheduler with run loop time that runs everything at once.
    @available(*, deprecated, renamed: "immediate")
    public static var immediateScheduler: ImmediateSchedulerOf<Self> { RunLoop.immediate }
}

extension Scheduler where SchedulerTimeType == OperationQueue.SchedulerTimeType, SchedulerOptions == OperationQueue.SchedulerOptions {
    /// A new test scheduler with operation queue time, starting at 1970.
    @available(*, deprecated, renamed: "test")
    public static var testScheduler: TestSchedulerOf<Self> { OperationQueue.test }

    /// A scheduler with operation queue time that runs everything at once.
    @available(*, deprecated, renamed: "immediate")
    public static var immediateScheduler: ImmediateSchedulerOf<Self> { OperationQueue.immediate }
}
