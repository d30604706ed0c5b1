#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The identity of the calling thread, cheap enough to take on every delivery.
@usableFromInline
package struct ThreadIdentity: Equatable, Sendable {
    @usableFromInline
    package let rawValue: UInt

    @inlinable
    package static var current: ThreadIdentity {
        #if canImport(Darwin)
        ThreadIdentity(rawValue: UInt(bitPattern: pthread_self()))
        #else
        ThreadIdentity(rawValue: UInt(pthread_self()))
        #endif
    }

    @inlinable
    package init(rawValue: UInt) {
        self.rawValue = rawValue
    }
}
