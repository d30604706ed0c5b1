import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// RxSwift's `CurrentThreadScheduler`: work runs on the calling thread, through a trampoline.
///
/// The first piece of work scheduled on a thread runs at once; work scheduled while it runs
/// waits in the thread's queue and runs, in order, when it returns. Every SluiceRx
/// subscription (`subscribe`, `bind`, `toBlocking`, `asPublisher()`) runs inside the
/// trampoline, and `of`, `from` and `range` schedule their start on it, which is why
/// `do(onSubscribed:)` runs before the first element of `Observable.of(...)` (as in RxSwift), while
/// the whole subscription still finishes before `subscribe` returns.
///
/// Sluice has no trampoline scheduler, so this one is SluiceRx's own; as a Sluice scheduler
/// (``sluiceScheduler``) it runs timed work by waiting on the current thread, which only
/// `CurrentThreadScheduler`'s RxSwift role (an `ImmediateSchedulerType`) never asks for.
public final class CurrentThreadScheduler: ImmediateSchedulerType, Sendable {
    /// RxSwift's `CurrentThreadScheduler.instance`: the one instance. SluiceRx's own (Sluice
    /// has no trampoline scheduler).
    public static let instance = CurrentThreadScheduler()

    private init() {}

    /// Whether work scheduled now would run at once: `true` when no trampoline runs on this
    /// thread (RxSwift's `isScheduleRequired`). SluiceRx's own (Sluice has no counterpart).
    public static var isScheduleRequired: Bool {
        !Trampoline.current.isRunning
    }

    /// This scheduler as a Sluice scheduler: `schedule(options:_:)` runs at once or queues on the
    /// trampoline; timed work waits on the calling thread, then does the same. RxSwift has no
    /// counterpart. Sluice: an `AnyScheduler` built from closures over the trampoline.
    public var sluiceScheduler: RxEngineScheduler {
        AnyScheduler(
            minimumTolerance: { .zero },
            now: { DispatchQueue.SchedulerTimeType(.now()) },
            scheduleImmediately: { _, action in Trampoline.schedule(action) },
            delayed: { time, _, _, action in
                let wait = secondsFromNow(time)
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                Trampoline.schedule(action)
            },
            interval: { time, interval, _, _, action in
                // Runs once: repeating on a trampoline would never give the thread back.
                let wait = secondsFromNow(time)
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                Trampoline.schedule(action)
                return AnyCancellable {}
            })
    }
}

/// The per-thread queue behind ``CurrentThreadScheduler``.
package final class Trampoline {
    private var queue: [() -> Void] = []
    private var head = 0
    private(set) var isRunning = false

    /// Schedules `action`: runs it now, then everything it queued, if no trampoline runs on this
    /// thread; otherwise queues it behind the work already waiting.
    static func schedule(_ action: @escaping () -> Void) {
        let trampoline = current
        if trampoline.isRunning {
            trampoline.queue.append(action)
        } else {
            trampoline.run(action)
        }
    }

    /// Runs `body` at once, inside a trampoline: if none runs on this thread, one is started for
    /// the duration of `body` and drains what `body` queued before returning. Subscriptions go
    /// through here (RxSwift subscribes inline when a trampoline already runs).
    static func runInside(_ body: () -> Void) {
        let trampoline = current
        if trampoline.isRunning {
            body()
        } else {
            trampoline.isRunning = true
            body()
            trampoline.drain()
        }
    }

    /// Runs `body` as if no trampoline ran on this thread, then puts the running one back: a
    /// call that blocks until its own subscription has delivered (`toBlocking`) must not wait
    /// behind work that only runs after the blocked step returns.
    package static func detached<Result>(_ body: () throws -> Result) rethrows -> Result {
        let trampoline = current
        let saved = (trampoline.queue, trampoline.head, trampoline.isRunning)
        trampoline.queue = []
        trampoline.head = 0
        trampoline.isRunning = false
        defer { (trampoline.queue, trampoline.head, trampoline.isRunning) = saved }
        return try body()
    }

    private func run(_ action: () -> Void) {
        isRunning = true
        action()
        drain()
    }

    private func drain() {
        while head < queue.count {
            let next = queue[head]
            head += 1
            next()
        }
        queue.removeAll(keepingCapacity: true)
        head = 0
        isRunning = false
    }

    /// This thread's trampoline, created on first use and released when the thread exits.
    static var current: Trampoline {
        if let existing = pthread_getspecific(trampolineKey) {
            return Unmanaged<Trampoline>.fromOpaque(existing).takeUnretainedValue()
        }
        let created = Trampoline()
        pthread_setspecific(trampolineKey, Unmanaged.passRetained(created).toOpaque())
        return created
    }
}

private let trampolineKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    pthread_key_create(&key) { Unmanaged<Trampoline>.fromOpaque($0).release() }
    #else
    pthread_key_create(&key) { pointer in
        if let pointer { Unmanaged<Trampoline>.fromOpaque(pointer).release() }
    }
    #endif
    return key
}()
