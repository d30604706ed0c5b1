import Foundation

extension OperationQueue: Scheduler {
    /// The scheduler time type used by the operation queue.
    public struct SchedulerTimeType: _DateSchedulerTime {
        /// The date represented by this type.
        public var date: Date

        /// Initializes an operation queue scheduler time with the given date.
        public init(_ date: Date) {
            self.date = date
        }

        /// The interval by which operation queue times advance, in seconds.
        public struct Stride: _SecondsStride {
            public typealias FloatLiteralType = TimeInterval
            public typealias IntegerLiteralType = TimeInterval
            public typealias Magnitude = TimeInterval

            /// The value of this time interval in seconds.
            public var magnitude: TimeInterval

            /// The value of this time interval in seconds.
            public var timeInterval: TimeInterval { magnitude }

            /// Creates a stride of the given number of seconds.
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
        }
    }

    /// Options that affect the operation of the operation queue scheduler (none).
    public struct SchedulerOptions: Sendable {}

    /// The minimum tolerance allowed by the scheduler.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// This scheduler's definition of the current moment in time.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Adds the action to the queue as a `BlockOperation`, so `maxConcurrentOperationCount`
    /// applies.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        // The scheduler contract runs the action once, on the queue: the hand-over is safe.
        let work = UncheckedSendable(action)
        addOperation(BlockOperation { work.value() })
    }

    /// Adds an operation that runs the action once the date is reached. As in Combine, the
    /// operation is in the queue from the start and becomes ready when due, so
    /// `operationCount` counts it while it waits, `waitUntilAllOperationsAreFinished()` waits
    /// for it, and `cancelAllOperations()` stops it.
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let operation = DelayedOperation(action, next: nil)
        addOperation(operation)
        operation.becomeReady(at: date.date)
    }

    /// Adds an operation that runs the action at the date; each run then adds the next one,
    /// due `interval` after that run ends (as Combine's does), until the returned cancellable
    /// is cancelled. Each waiting operation is in the queue, as with the one-shot form.
    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        let chain = DelayedOperation.Chain(queue: self, interval: interval.timeInterval)
        let operation = DelayedOperation(action, next: chain)
        chain.start(operation, at: date.date)
        return AnyCancellable(chain)
    }
}

/// An operation that is added to its queue at once and becomes ready when it is due: how
/// Combine's `OperationQueue` scheduler keeps delayed work visible to the queue.
private final class DelayedOperation: Operation, @unchecked Sendable {
    /// The repeating schedule this operation belongs to: it adds the next operation after each
    /// run, and cancelling it ends the chain.
    final class Chain: Cancellable, @unchecked Sendable {
        private let lock = NSLock()
        private weak var queue: OperationQueue?
        private let interval: TimeInterval
        /// The operation waiting for its turn; `nil` once cancelled.
        private var current: DelayedOperation?
        private var cancelled = false

        init(queue: OperationQueue, interval: TimeInterval) {
            self.queue = queue
            self.interval = interval
        }

        func start(_ operation: DelayedOperation, at date: Date) {
            let queue = lock.withLock { () -> OperationQueue? in
                guard !cancelled else { return nil }
                current = operation
                return self.queue
            }
            guard let queue else { return }
            queue.addOperation(operation)
            operation.becomeReady(at: date)
        }

        /// After a run: the next operation, due `interval` from now.
        func scheduleNext(action: @escaping () -> Void) {
            start(DelayedOperation(action, next: self), at: Date(timeIntervalSinceNow: interval))
        }

        func cancel() {
            let operation = lock.withLock { () -> DelayedOperation? in
                cancelled = true
                defer { current = nil }
                return current
            }
            operation?.cancel()
        }
    }

    private let lock = NSLock()
    private var due = false
    private var action: (() -> Void)?
    private let next: Chain?

    init(_ action: @escaping () -> Void, next: Chain?) {
        self.action = action
        self.next = next
    }

    /// Ready when due, or at once when cancelled (so that `cancelAllOperations()` empties the
    /// queue without waiting for the due date).
    override var isReady: Bool {
        (lock.withLock { due } || isCancelled) && super.isReady
    }

    override func cancel() {
        willChangeValue(forKey: "isReady")
        super.cancel()
        didChangeValue(forKey: "isReady")
    }

    /// Tells the queue the operation is ready once `date` has come.
    func becomeReady(at date: Date) {
        let ready = UncheckedSendable(self)
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, date.timeIntervalSinceNow)) {
            ready.value.markDue()
        }
    }

    private func markDue() {
        willChangeValue(forKey: "isReady")
        lock.withLock { due = true }
        didChangeValue(forKey: "isReady")
    }

    /// Runs the action once (a second `main()` does nothing), then, in a repeating schedule,
    /// adds the next operation.
    override func main() {
        guard let action = lock.withLock({ () -> (() -> Void)? in
            defer { self.action = nil }
            return self.action
        }), !isCancelled else { return }
        action()
        next?.scheduleNext(action: action)
    }
}
