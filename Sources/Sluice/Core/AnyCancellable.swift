import Synchronization

/// A type-erasing cancellable object that executes a provided closure when cancelled.
///
/// An `AnyCancellable` automatically calls `cancel()` when deinitialized. Cancelling is
/// thread-safe and happens at most once: the closure is released before it runs, so a second
/// `cancel()` (or the deinit after an explicit cancel) does nothing.
public final class AnyCancellable: Cancellable, Hashable {
    /// Set by the first `cancel()`, which then owns what to cancel alone: one atomic operation
    /// instead of a lock.
    @usableFromInline
    internal let cancelled = Atomic<Bool>(false)

    // What to cancel is one of two, written by the initializer and then only by the first
    // `cancel()`: a closure, or an object with its own specialised cancel (a sink's, captured
    // where its types were concrete: no closure context, and no call through the library's
    // unspecialised `Cancellable` witness). Separate fields rather than one enum: an enum with a
    // tuple payload is destroyed through the runtime's generic value witnesses, measured at a
    // tenth of subscribing `Just.map.sink`; so is a `Cancellable` existential, which is why a
    // cancellable is kept as a closure calling it.
    @usableFromInline @exclusivity(unchecked)
    internal var cancelClosure: (() -> Void)?
    @usableFromInline @exclusivity(unchecked)
    internal var cancelObject: AnyObject?
    /// How to cancel `cancelObject` (a function with no context: nothing to release), given
    /// `cancelPlace`.
    @usableFromInline
    internal let cancelObjectWith: ((AnyObject, CancelPlace) -> Void)?
    /// Which of `cancelObject`'s activities to cancel, for an object that keeps many (a test
    /// scheduler's queued action): two plain words, so that such a cancellable needs no object
    /// of its own to carry them.
    @usableFromInline
    internal let cancelPlace: CancelPlace

    /// Initializes the cancellable object with the given cancel-time closure.
    @inlinable
    public init(_ cancel: @escaping () -> Void) {
        cancelClosure = cancel
        cancelObjectWith = nil
        cancelPlace = CancelPlace()
    }

    /// Initializes the cancellable object with the given cancellable, cancelling it when this one
    /// is cancelled or deinitialized.
    @inlinable
    public init<C: Cancellable>(_ canceller: C) {
        // A closure capturing one object uses it as its context: nothing is allocated for a
        // class, as nothing was for the existential this replaces.
        cancelClosure = { canceller.cancel() }
        cancelObjectWith = nil
        cancelPlace = CancelPlace()
    }

    /// Cancels `object` with `cancel`, which must be its own specialised cancel, handing it
    /// `place` (what in `object` to cancel, if it keeps more than one activity).
    @inlinable
    package init(object: AnyObject, place: CancelPlace = CancelPlace(),
                 cancel: @escaping (AnyObject, CancelPlace) -> Void) {
        cancelObject = object
        cancelObjectWith = cancel
        cancelPlace = place
    }

    deinit {
        // The last reference is gone, so no `cancel()` can run beside this one: a load decides
        // where `cancel()` needs an exchange (a discarded `sink`'s cancellable ends here).
        guard !cancelled.load(ordering: .acquiring) else { return }
        cancelOnce()
    }

    /// Cancels the activity. Calls after the first do nothing. What it cancels is released
    /// before it runs, so a re-entrant `cancel()` finds nothing to do.
    @inlinable
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancelOnce()
    }

    /// Runs what to cancel; the caller has made sure that no other call does.
    @inlinable
    internal func cancelOnce() {
        if let object = cancelObject.take() {
            cancelObjectWith?(object, cancelPlace)
        } else if let cancel = cancelClosure.take() {
            cancel()
        }
    }

    /// Stores this type-erasing cancellable instance in the specified collection.
    @inlinable
    public func store<C: RangeReplaceableCollection>(in collection: inout C)
        where C.Element == AnyCancellable
    {
        collection.append(self)
    }

    /// Stores this type-erasing cancellable instance in the specified set.
    @inlinable
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }

    @inlinable
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
        lhs === rhs
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// Which of an object's activities an ``AnyCancellable`` cancels (``AnyCancellable/init(object:place:cancel:)``):
/// an index and an identifier that tells the activity from a later one at the same index.
@usableFromInline
package struct CancelPlace: Sendable {
    @usableFromInline
    package let index: Int
    @usableFromInline
    package let identifier: UInt64

    @inlinable
    package init(index: Int = 0, identifier: UInt64 = 0) {
        self.index = index
        self.identifier = identifier
    }
}
