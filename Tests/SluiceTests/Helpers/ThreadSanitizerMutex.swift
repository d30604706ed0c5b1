#if SLUICE_TSAN
@testable import Sluice

/// Under ThreadSanitizer (`-Xswiftc -DSLUICE_TSAN`), the tests' `Mutex` is a pthread mutex, as
/// Sluice's own `Lock` is then: ThreadSanitizer cannot see the futex inside the prebuilt
/// Synchronization library's `Mutex`, and would report every access it guards as a race.
final class Mutex<Value>: @unchecked Sendable {
    private let lock = PthreadLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.locked { try body(&value) }
    }
}
#endif
