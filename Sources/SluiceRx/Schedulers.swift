import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers

/// RxSwift's `RxTimeInterval`: the time interval that time-based operators take.
/// Sluice: converted to the dispatch scheduler's `Stride` for each Sluice time operator.
public typealias RxTimeInterval = DispatchTimeInterval

/// RxSwift's `RxTime`: a scheduler's notion of now.
/// Sluice: a `Date` worked out from the Sluice scheduler's `now`.
public typealias RxTime = Date

/// The Sluice scheduler type every SluiceRx scheduler is: dispatch time, dispatch options.
/// RxSwift has no counterpart. Sluice: `AnySchedulerOf<DispatchQueue>`.
///
/// SluiceRx's schedulers are names for Sluice schedulers, not schedulers of their own: each one
/// hands its operators this type-erased Sluice scheduler, and `observe(on:)`, `subscribe(on:)`,
/// `debounce`, `throttle` and `delay` are Sluice's `receive(on:)`, `subscribe(on:)`,
/// `debounce`, `throttle` and `delay` on it.
public typealias RxEngineScheduler = AnySchedulerOf<DispatchQueue>

/// RxSwift's `ImmediateSchedulerType`: a scheduler that runs work as soon as it can.
///
/// In SluiceRx a scheduler is the Sluice scheduler it wraps (``sluiceScheduler``); `observe(on:)`
/// and `subscribe(on:)` take any of them. To make your own, return any Sluice scheduler with
/// dispatch time, erased (`AnyScheduler(myScheduler)`).
///
/// Sluice: a `Scheduler`, erased to `AnyScheduler` on dispatch time.
public protocol ImmediateSchedulerType {
    /// The Sluice scheduler that does the work. RxSwift has no counterpart.
    /// Sluice: an `AnyScheduler` on dispatch time (``RxEngineScheduler``).
    var sluiceScheduler: RxEngineScheduler { get }
}

/// RxSwift's `SchedulerType`: a scheduler that is also a clock, as time-based operators need.
/// Sluice: a `Scheduler`'s `now` and its delayed `schedule(after:…)`.
public protocol SchedulerType: ImmediateSchedulerType {
    /// The scheduler's notion of now (RxSwift's `now`). Sluice: `Scheduler.now`.
    var now: RxTime { get }
}

extension SchedulerType {
    /// RxSwift's `SchedulerType.now`: read from the wrapped Sluice scheduler's clock: the wall
    /// clock for the dispatch schedulers, virtual time for a test scheduler.
    /// Sluice: `Scheduler.now`, as a `Date`.
    public var now: RxTime {
        let engine = sluiceScheduler
        return Date(timeIntervalSinceNow: secondsFromNow(engine.now))
    }

    /// RxSwift's `scheduleRelative(_:dueTime:action:)`: runs `action` with `state` after
    /// `dueTime`. Disposing the result before then cancels it.
    /// Sluice: `schedule(after:tolerance:options:_:)`.
    public func scheduleRelative<StateType>(_ state: StateType, dueTime: RxTimeInterval,
                                            action: @escaping (StateType) -> Disposable) -> Disposable {
        let engine = sluiceScheduler
        let work = ScheduledWork()
        engine.schedule(after: engine.now.advanced(by: .init(dueTime)), tolerance: engine.minimumTolerance,
                        options: nil) { work.run { action(state) } }
        return work
    }

    /// RxSwift's `schedulePeriodic(_:startAfter:period:action:)`: runs `action` after
    /// `startAfter`, then every `period`, passing each run's result to the next. Disposing the
    /// result stops it. Sluice: the repeating `schedule(after:interval:tolerance:options:_:)`.
    public func schedulePeriodic<StateType>(_ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
                                            action: @escaping (StateType) -> StateType) -> Disposable {
        let engine = sluiceScheduler
        let box = PeriodicState(state)
        let cancellable = engine.schedule(after: engine.now.advanced(by: .init(startAfter)), interval: .init(period),
                                          tolerance: engine.minimumTolerance, options: nil) {
            box.value = action(box.value)
        }
        return Disposables.create { cancellable.cancel() }
    }
}

extension ImmediateSchedulerType {
    /// RxSwift's `schedule(_:action:)`: runs `action` with `state` on this scheduler as soon as
    /// it can. Disposing the result before the action starts cancels it; disposing it later
    /// disposes what the action returned. Sluice: `schedule(options:_:)`.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let work = ScheduledWork()
        sluiceScheduler.schedule(options: nil) { work.run { action(state) } }
        return work
    }
}

/// The state a periodic action threads from one run to the next.
private final class PeriodicState<State>: @unchecked Sendable {
    var value: State
    init(_ value: State) { self.value = value }
}

/// A scheduled action as a disposable: disposed before it runs, it never runs; disposed after,
/// it disposes what the action returned.
private final class ScheduledWork: Disposable, @unchecked Sendable {
    private let lock = Lock()
    private var disposed = false
    private var result: Disposable?

    func run(_ action: () -> Disposable) {
        guard !lock.locked({ disposed }) else { return }
        let produced = action()
        let disposeNow = lock.locked { () -> Bool in
            if disposed { return true }
            result = produced
            return false
        }
        if disposeNow { produced.dispose() }
    }

    func dispose() {
        let taken = lock.locked { () -> Disposable? in
            disposed = true
            defer { result = nil }
            return result
        }
        taken?.dispose()
    }
}

// MARK: - The dispatch schedulers

/// RxSwift's `SerialDispatchQueueScheduler`: work runs on one serial dispatch queue, in order.
/// Sluice: the `DispatchQueue` scheduler, erased with `AnyScheduler`.
public class SerialDispatchQueueScheduler: SchedulerType, @unchecked Sendable {
    /// The queue the work runs on (RxSwift keeps its queue internal). Sluice: a `DispatchQueue`,
    /// which is a Sluice `Scheduler`.
    public let queue: DispatchQueue
    /// `AnyScheduler(queue)` (RxSwift has no counterpart). Sluice: `AnyScheduler`.
    public let sluiceScheduler: RxEngineScheduler

    internal init(queue: DispatchQueue, engine: RxEngineScheduler) {
        self.queue = queue
        sluiceScheduler = engine
    }

    /// RxSwift's `init(serialQueue:leeway:)`: runs work on `serialQueue`, which must be serial
    /// for the order guarantees to hold; `leeway` is not used. Sluice: `AnyScheduler(serialQueue)`.
    public convenience init(serialQueue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(queue: serialQueue, engine: AnyScheduler(serialQueue))
    }

    /// RxSwift's `init(internalSerialQueueName:serialQueueConfiguration:leeway:)`: runs work on a
    /// new serial queue labelled `internalSerialQueueName`; `serialQueueConfiguration` can adjust
    /// the queue before use. Sluice: `AnyScheduler` of the new `DispatchQueue`.
    public convenience init(internalSerialQueueName: String,
                            serialQueueConfiguration: ((DispatchQueue) -> Void)? = nil,
                            leeway: DispatchTimeInterval = .nanoseconds(0)) {
        let queue = DispatchQueue(label: internalSerialQueueName, attributes: [])
        serialQueueConfiguration?(queue)
        self.init(serialQueue: queue, leeway: leeway)
    }

    /// RxSwift's `init(qos:internalSerialQueueName:leeway:)`: runs work on a new serial queue
    /// with quality of service `qos`. Sluice: `AnyScheduler` of the new `DispatchQueue`.
    public convenience init(qos: DispatchQoS, internalSerialQueueName: String = "rx.global_dispatch_queue.serial",
                            leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(serialQueue: DispatchQueue(label: internalSerialQueueName, qos: qos, attributes: []), leeway: leeway)
    }

    /// RxSwift's `init(queue:internalSerialQueueName:leeway:)`: runs work serially on a new queue
    /// that targets `queue` (typically a concurrent one). Sluice: `AnyScheduler` of the new queue.
    public convenience init(queue: DispatchQueue, internalSerialQueueName: String,
                            leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(serialQueue: DispatchQueue(label: internalSerialQueueName, attributes: [], target: queue), leeway: leeway)
    }
}

/// RxSwift's `MainScheduler`: the main queue. Sluice: `UIScheduler`.
///
/// ``instance`` (`UIScheduler.shared`) runs work at once when called on the main thread with
/// nothing of its own still queued, and otherwise queues it on the main queue behind what it
/// queued before; ``asyncInstance`` (`UIScheduler.asynchronous`) always queues. Both run
/// main-actor closures on the main thread, where Swift's isolation check is satisfied.
public final class MainScheduler: SerialDispatchQueueScheduler, @unchecked Sendable {
    private init() {
        super.init(queue: .main, engine: UIScheduler.shared.erasedToDispatchOptions)
    }

    /// RxSwift's `MainScheduler.instance`: inline on the main thread when nothing is queued, else
    /// the main queue. Sluice: `UIScheduler.shared`.
    public static let instance = MainScheduler()

    /// RxSwift's `MainScheduler.asyncInstance`: always the main queue, even from the main thread.
    /// Sluice: `UIScheduler.asynchronous`.
    public static let asyncInstance = SerialDispatchQueueScheduler(queue: .main, engine: UIScheduler.asynchronous.erasedToDispatchOptions)

    /// Stops the process unless called on the main thread (RxSwift's
    /// `MainScheduler.ensureRunningOnMainThread`). SluiceRx's own (Sluice has no counterpart).
    public static func ensureRunningOnMainThread(errorMessage: String? = nil) {
        if !MainActorContext.isCurrent {
            fatalError(errorMessage ?? "Running on background thread.")
        }
    }

    /// Stops the process unless called on the main thread (RxSwift's
    /// `MainScheduler.ensureExecutingOnScheduler`). SluiceRx's own (Sluice has no counterpart).
    public static func ensureExecutingOnScheduler(errorMessage: String? = nil) {
        if !MainActorContext.isCurrent {
            fatalError(errorMessage ?? "Executing on background thread. Please use `MainScheduler.instance.schedule` to schedule work on main thread.")
        }
    }
}

/// RxSwift's `ConcurrentDispatchQueueScheduler`: work runs on a concurrent dispatch queue.
/// Sluice: the `DispatchQueue` scheduler, erased with `AnyScheduler`.
///
/// `observe(on:)` onto it still delivers one event at a time, in order, as in RxSwift: Sluice's
/// `receive(on:)` keeps its own queue of pending events for every scheduler. Separate chains,
/// `subscribe(on:)` and time operators still run in parallel.
public final class ConcurrentDispatchQueueScheduler: SchedulerType, @unchecked Sendable {
    /// The queue the work runs on (RxSwift keeps its queue internal). Sluice: a `DispatchQueue`,
    /// which is a Sluice `Scheduler`.
    public let queue: DispatchQueue
    /// `AnyScheduler(queue)` (RxSwift has no counterpart). Sluice: `AnyScheduler`.
    public let sluiceScheduler: RxEngineScheduler

    /// RxSwift's `init(queue:leeway:)`: runs work on `queue`; `leeway` is not used.
    /// Sluice: `AnyScheduler(queue)`.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.queue = queue
        sluiceScheduler = AnyScheduler(queue)
    }

    /// RxSwift's `init(qos:leeway:)`: runs work on a new concurrent queue with quality of
    /// service `qos`. Sluice: `AnyScheduler` of the new `DispatchQueue`.
    public convenience init(qos: DispatchQoS, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(queue: DispatchQueue(label: "rxswift.queue.\(qos.qosClass)", qos: qos, attributes: [.concurrent]),
                  leeway: leeway)
    }
}

/// RxSwift's `ConcurrentMainScheduler`: for `subscribe(on:)` to the main thread. Sluice:
/// `UIScheduler.shared`: at once when already on the main thread, else on the main queue.
public final class ConcurrentMainScheduler: SchedulerType, @unchecked Sendable {
    /// RxSwift's `ConcurrentMainScheduler.instance`: the one instance.
    /// Sluice: `UIScheduler.shared`.
    public static let instance = ConcurrentMainScheduler()

    /// `UIScheduler.shared`, erased behind dispatch-queue options (RxSwift has no counterpart). Sluice: `AnyScheduler`.
    public let sluiceScheduler: RxEngineScheduler = UIScheduler.shared.erasedToDispatchOptions

    private init() {}
}

/// RxSwift's `OperationQueueScheduler`: work runs as operations on an `OperationQueue`, so its
/// `maxConcurrentOperationCount` applies. Sluice: the `OperationQueue` scheduler, with its
/// times expressed as dispatch times.
///
/// `queuePriority` is kept for source compatibility; Sluice's operation-queue scheduler adds
/// plain block operations, which run at normal priority.
public final class OperationQueueScheduler: SchedulerType, @unchecked Sendable {
    /// RxSwift's `OperationQueueScheduler.operationQueue`: the queue the work runs on.
    /// Sluice: an `OperationQueue`, which is a Sluice `Scheduler`.
    public let operationQueue: OperationQueue
    /// RxSwift's `OperationQueueScheduler.queuePriority`: the priority RxSwift gives its
    /// operations (not applied; see the type's documentation). Sluice has no counterpart.
    public let queuePriority: Operation.QueuePriority
    /// The queue's Sluice scheduler, erased to dispatch time (RxSwift has no counterpart).
    /// Sluice: an `AnyScheduler` over the `OperationQueue` scheduler's `schedule` methods.
    public let sluiceScheduler: RxEngineScheduler

    /// RxSwift's `init(operationQueue:queuePriority:)`: runs work on `operationQueue`.
    /// Sluice: the `OperationQueue` scheduler, wrapped in an `AnyScheduler` on dispatch time.
    public init(operationQueue: OperationQueue, queuePriority: Operation.QueuePriority = .normal) {
        self.operationQueue = operationQueue
        self.queuePriority = queuePriority
        let queue = UncheckedSendable(operationQueue)
        func date(_ time: DispatchQueue.SchedulerTimeType) -> OperationQueue.SchedulerTimeType {
            OperationQueue.SchedulerTimeType(Date(timeIntervalSinceNow: secondsFromNow(time)))
        }
        func seconds(_ stride: DispatchQueue.SchedulerTimeType.Stride) -> OperationQueue.SchedulerTimeType.Stride {
            .init(Double(stride.magnitude) / 1e9)
        }
        sluiceScheduler = AnyScheduler(
            minimumTolerance: { .zero },
            now: { DispatchQueue.SchedulerTimeType(.now()) },
            scheduleImmediately: { _, action in queue.value.schedule(options: nil, action) },
            delayed: { time, tolerance, _, action in
                queue.value.schedule(after: date(time), tolerance: seconds(tolerance), options: nil, action)
            },
            interval: { time, interval, tolerance, _, action in
                queue.value.schedule(after: date(time), interval: seconds(interval), tolerance: seconds(tolerance),
                                     options: nil, action)
            })
    }
}

/// How far `time` is from the present dispatch time, in seconds (negative in the past).
internal func secondsFromNow(_ time: DispatchQueue.SchedulerTimeType) -> Double {
    let now = DispatchTime.now().uptimeNanoseconds
    let then = time.dispatchTime.uptimeNanoseconds
    return then >= now ? Double(then - now) / 1e9 : -Double(now - then) / 1e9
}

extension DispatchTimeInterval {
    /// The interval in nanoseconds (`.never` as `Int.max`).
    internal var nanoseconds: Int {
        switch self {
        case .seconds(let value): return value.multipliedReportingOverflow(by: 1_000_000_000).partialValue
        case .milliseconds(let value): return value.multipliedReportingOverflow(by: 1_000_000).partialValue
        case .microseconds(let value): return value.multipliedReportingOverflow(by: 1_000).partialValue
        case .nanoseconds(let value): return value
        case .never: return .max
        @unknown default: return .max
        }
    }
}

extension UIScheduler {
    /// This scheduler erased to dispatch-queue options, which it ignores: the engine type that
    /// SluiceRx's main and dispatch schedulers share (`UIScheduler` itself takes no options).
    var erasedToDispatchOptions: AnySchedulerOf<DispatchQueue> {
        AnyScheduler(minimumTolerance: { self.minimumTolerance }, now: { self.now },
                     scheduleImmediately: { _, action in self.schedule(options: nil, action) },
                     delayed: { date, tolerance, _, action in
                         self.schedule(after: date, tolerance: tolerance, options: nil, action)
                     },
                     interval: { date, interval, tolerance, _, action in
                         self.schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
                     })
    }
}
