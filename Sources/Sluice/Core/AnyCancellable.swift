import Synchronization

/// A type-erasing cancellable object that executes a provided closure when cancelled.
///
/// An `AnyCancellable` automatically calls `cancel()` when deinitialized. Cancelling is
/// thread-safe and happens at most once: the closure is released before it runs, so a second
/// `cancel()` (or the deinit after an explicit cancel) does nothing.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    /// Set by the first `cancel()`, which then owns `cancelAction` alone: one atomic operation
    /// instead of a lock.
    @usableFromInline
    internal let cancelled = Atomic<Bool>(false)

    /// What to cancel: a closure, a cancellable held directly (which costs no closure context),
    /// or an object with its own specialised cancel.
    @usableFromInline
    internal enum Action {
        case closure(() -> Void)
        case cancellable(Cancellable)
        /// A sink or assign subscriber and the cancel it captured where its types were concrete:
        /// no existential box to copy and destroy, and no call through the library's
        /// unspecialised `Cancellable` witness.
        case object(AnyObject, cancel: (AnyObject) -> Void)

        @inlinable
        internal func run() {
            switch self {
            case .closure(let cancel): cancel()
            case .cancellable(let cancellable): cancellable.cancel()
            case .object(let object, let cancel): cancel(object)
            }
        }
    }

    /// Written by the initializer and then only by the first `cancel()`.
    @usableFromInline
    @exclusivity(unchecked)
    internal var cancelAction: Action?

    /// Initializes the cancellable object with the given cancel-time closure.
    @inlinable
    public init(_ cancel: @escaping () -> Void) {
        cancelAction = .closure(cancel)
    }

    /// Initializes the cancellable object with the given cancellable, cancelling it when this one
    /// is cancelled or deinitialized.
    @inlinable
    public init<C: Cancellable>(_ canceller: C) {
        cancelAction = .cancellable(canceller)
    }

    /// Cancels `object` with `cancel`, which must be its own specialised cancel.
    @inlinable
    internal init(object: AnyObject, cancel: @escaping (AnyObject) -> Void) {
        cancelAction = .object(object, cancel: cancel)
    }

    deinit {
        cancel()
    }

    /// Cancels the activity. Calls after the first do nothing.
    @inlinable
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancelAction.take()?.run()
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
