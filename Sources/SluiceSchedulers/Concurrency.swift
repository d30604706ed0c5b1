import Sluice

/// combine-schedulers' name for Combine's `Scheduler` protocol, for code that spells it so.
public typealias _CombineScheduler = Scheduler

extension Scheduler {
    /// Suspends the current task for at least `duration` of the scheduler's time.
    ///
    /// The wake-up is scheduled on the scheduler before the task suspends. If the task is
    /// cancelled, the scheduled work is cancelled and this throws `CancellationError` at once.
    public func sleep(for duration: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride? = nil,
                      options: SchedulerOptions? = nil) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: tolerance, options: options)
    }

    /// Suspends the current task until the scheduler's time reaches `deadline`.
    ///
    /// The wake-up is scheduled on the scheduler before the task suspends. If the task is
    /// cancelled, the scheduled work is cancelled and this throws `CancellationError` at once.
    public func sleep(until deadline: SchedulerTimeType, tolerance: SchedulerTimeType.Stride? = nil,
                      options: SchedulerOptions? = nil) async throws {
        let sleeper = SchedulerSleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                guard sleeper.begin(continuation) else { return }
                // The repeating form is the one that can be cancelled; the sleeper cancels it
                // when it first fires, so it fires once.
                let cancellable = schedule(after: deadline, interval: Self.sleepRepeatInterval,
                                           tolerance: tolerance ?? minimumTolerance, options: options) {
                    sleeper.wake()
                }
                sleeper.attach(cancellable)
            }
        } onCancel: {
            sleeper.cancel()
        }
    }

    /// How much of the scheduler's time `work` takes: `now` before and after it. On a test
    /// scheduler, the time the actions it ran in between moved the clock.
    public func measure(_ work: () throws -> Void) rethrows -> SchedulerTimeType.Stride {
        let start = now
        try work()
        return start.distance(to: now)
    }

    /// An interval long enough that a sleep's timer never fires twice before it is cancelled.
    private static var sleepRepeatInterval: SchedulerTimeType.Stride { .seconds(86_400) }

    /// An asynchronous sequence of the scheduler's time, one element every `interval`, the
    /// first `interval` from now.
    ///
    /// The repeating work is scheduled when the stream is made and cancelled when the stream
    /// terminates: when the iterating task is cancelled, the loop ends, or the stream goes
    /// away. Ticks the consumer has not taken yet are buffered according to `bufferingPolicy`
    /// (all of them by default).
    public func timer(
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride? = nil,
        options: SchedulerOptions? = nil,
        bufferingPolicy: AsyncStream<SchedulerTimeType>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<SchedulerTimeType> where SchedulerTimeType: Sendable {
        AsyncStream(bufferingPolicy: bufferingPolicy) { continuation in
            let cancellable = schedule(after: now.advanced(by: interval), interval: interval,
                                       tolerance: tolerance ?? minimumTolerance, options: options) {
                continuation.yield(self.now)
            }
            let handle = UncheckedSendable(cancellable)
            continuation.onTermination = { _ in handle.value.cancel() }
        }
    }
}

/// One `Scheduler.sleep`: the waiting task and the scheduled wake-up, whichever of wake-up and
/// cancellation comes first deciding how it ends.
internal final class SchedulerSleeper: @unchecked Sendable {
    private enum State {
        case idle
        case sleeping(CheckedContinuation<Void, Error>)
        case ended
    }

    private let lock = Lock()
    private var state = State.idle
    private var cancellable: Cancellable?
    /// The wake-up fired, or the task was cancelled, before `attach` was called.
    private var endedBeforeAttach = false

    /// Starts sleeping; `false` (with the continuation already resumed) if the task was
    /// cancelled first.
    func begin(_ continuation: CheckedContinuation<Void, Error>) -> Bool {
        let cancelled = lock.locked { () -> Bool in
            guard case .idle = state else { return true }
            state = .sleeping(continuation)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    func attach(_ scheduled: Cancellable) {
        let cancelNow = lock.locked { () -> Bool in
            if endedBeforeAttach { return true }
            cancellable = scheduled
            return false
        }
        if cancelNow { scheduled.cancel() }
    }

    func wake() {
        end(with: nil)
    }

    func cancel() {
        end(with: CancellationError())
    }

    private func end(with error: Error?) {
        let (continuation, scheduled) = lock.locked { () -> (CheckedContinuation<Void, Error>?, Cancellable?) in
            let continuation: CheckedContinuation<Void, Error>?
            switch state {
            case .ended:
                return (nil, nil)
            case .idle:
                continuation = nil
            case .sleeping(let waiting):
                continuation = waiting
            }
            state = .ended
            if cancellable == nil { endedBeforeAttach = true }
            defer { cancellable = nil }
            return (continuation, cancellable)
        }
        scheduled?.cancel()
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume()
        }
    }
}
