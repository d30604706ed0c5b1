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
@usableFromInline
package typealias Lock = Mutex<Void>

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
