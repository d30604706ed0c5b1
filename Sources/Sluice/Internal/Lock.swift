import Synchronization

/// Sluice's one lock: a `Synchronization.Mutex` that guards state kept in its owner's stored
/// properties.
///
/// The pattern everywhere: `lock.locked { read and change the state }`, then call out (to the
/// downstream, the upstream or a user closure) with the lock released. Nothing is *released*
/// under the lock either: a closure that drops a reference returns it instead, so the last
/// release (and any deinit, which can run arbitrary code that takes this same lock) happens
/// after unlocking. The state lives beside
/// the lock rather than inside `Mutex<State>` because subscription state holds non-`Sendable`
/// subscribers, which `Mutex.withLock`'s `sending` contract cannot express; the owner is what
/// makes the hand-over safe, and the owner is marked `@unchecked Sendable` for that reason.
///
/// `package` so that Sluice's other modules (SluiceTesting, SluiceRx) use the same pattern.
///
/// Built with `-Xswiftc -DSLUICE_TSAN` (CI's ThreadSanitizer run), the same lock is a pthread
/// mutex instead: ThreadSanitizer intercepts `pthread_mutex_lock`, but cannot see the futex that
/// `Mutex` waits on inside the prebuilt Synchronization library, and would report every access
/// this lock guards as a race.
#if SLUICE_TSAN
@usableFromInline
package typealias Lock = PthreadLock
#else
@usableFromInline
package typealias Lock = Mutex<Void>
#endif

extension Mutex where Value == Void {
    @inlinable
    package init() {
        self.init(())
    }

    /// Runs `body` with the lock held. `body` must not call out of the owning object.
    @inlinable
    @inline(__always)
    package borrowing func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        _unsafeLock()
        defer { _unsafeUnlock() }
        return try body()
    }
}

#if SLUICE_TSAN
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ``Lock`` for ThreadSanitizer builds: the same `locked` pattern on a pthread mutex.
@usableFromInline
package final class PthreadLock: @unchecked Sendable {
    @usableFromInline
    package let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @inlinable
    package init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held. `body` must not call out of the owning object.
    @inlinable
    package func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
#endif
