import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
import Synchronization

/// A test scheduler that also counts how often its time is read and records the options of
/// every action scheduled on it, so that a test sees when an operator looks at the clock and
/// which of its actions carry the options it was given.
final class RecordingScheduler: Scheduler, @unchecked Sendable {
    typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
    typealias SchedulerOptions = DispatchQueue.SchedulerOptions

    /// One scheduled action: what kind, and whether it was given options.
    enum Scheduled: Equatable, CustomStringConvertible {
        case now(hasOptions: Bool)
        case after(hasOptions: Bool)
        case repeating(hasOptions: Bool)

        var description: String {
            switch self {
            case .now(let options): "now\(options ? " with options" : "")"
            case .after(let options): "after\(options ? " with options" : "")"
            case .repeating(let options): "repeating\(options ? " with options" : "")"
            }
        }
    }

    let base = DispatchQueue.test
    private let state = Mutex<(nowReads: Int, scheduled: [Scheduled])>((0, []))

    /// How many times `now` has been read.
    var nowReads: Int { state.withLock { $0.nowReads } }
    /// What has been scheduled, in order.
    var scheduled: [Scheduled] { state.withLock { $0.scheduled } }

    var now: SchedulerTimeType {
        state.withLock { $0.nowReads += 1 }
        return base.now
    }

    var minimumTolerance: SchedulerTimeType.Stride { base.minimumTolerance }

    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        state.withLock { $0.scheduled.append(.now(hasOptions: options != nil)) }
        base.schedule(options: options, action)
    }

    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                  options: SchedulerOptions?, _ action: @escaping () -> Void) {
        state.withLock { $0.scheduled.append(.after(hasOptions: options != nil)) }
        base.schedule(after: date, tolerance: tolerance, options: options, action)
    }

    func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                  tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                  _ action: @escaping () -> Void) -> Cancellable {
        state.withLock { $0.scheduled.append(.repeating(hasOptions: options != nil)) }
        return base.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
    }

    /// Moves the underlying test scheduler's clock on, running what falls due.
    func advance(by stride: SchedulerTimeType.Stride = .zero) {
        base.advance(by: stride)
    }
}
