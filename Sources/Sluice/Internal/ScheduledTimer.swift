/// A time operator's scheduled timer, until it fires, is replaced or is cancelled.
///
/// Held as a plain existential, with ``NothingScheduled`` standing in when there is none, not
/// as `Cancellable?`: `Optional` of an existential is an enum with an existential payload, and
/// every destroy of one (a local going out of scope, an assignment over it) went through
/// `Optional`'s generic value witness, about 170 instructions each, two per value in
/// `debounce`. Swapped in and out (`swap(&local, &timer.held)`), never copied: a copy of an
/// existential goes through its type's witnesses too.
@usableFromInline
package struct ScheduledTimer {
    @usableFromInline
    package var held: Cancellable

    @inlinable
    package init() {
        held = NothingScheduled()
    }

    /// Swaps `other` in, handing the timer held until now out through it.
    @inlinable
    package mutating func exchange(_ other: inout Cancellable) {
        swap(&other, &held)
    }

    /// Hands the timer over (to cancel after unlocking), leaving none.
    @inlinable
    package mutating func take() -> Cancellable {
        var taken: Cancellable = NothingScheduled()
        swap(&taken, &held)
        return taken
    }
}

/// What ``ScheduledTimer`` holds when no timer is scheduled: cancelling it does nothing. A
/// structure with no fields, so holding one allocates nothing and destroying one releases
/// nothing.
@usableFromInline
package struct NothingScheduled: Cancellable {
    @inlinable
    package init() {}

    @inlinable
    package func cancel() {}
}
