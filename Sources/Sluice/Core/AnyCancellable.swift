import Synchronization

/// A type-erasing cancellable object that executes a provided closure when cancelled.
///
/// An `AnyCancellable` automatically calls `cancel()` when deinitialized. Cancelling is
/// thread-safe and happens at most once: the closure is released before it runs, so a second
/// `cancel()` (or the deinit after an explicit cancel) does nothing.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    @usableFromInline
    internal let lock = Lock()

    /// What to cancel: a closure, or a cancellable held directly (which costs no closure
    /// context, the common case of a sink's cancellable).
    @usableFromInline
    internal enum Action {
        case closure(() -> Void)
        case cancellable(Cancellable)

        @inlinable
        internal func run() {
            switch self {
            case .closure(let cancel): cancel()
            case .cancellable(let cancellable): cancellable.cancel()
            }
        }
    }

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

    deinit {
        cancel()
    }

    /// Cancels the activity. Calls after the first do nothing.
    @inlinable
    public func cancel() {
        let action = lock.locked { () -> Action? in
            defer { cancelAction = nil }
            return cancelAction
        }
        action?.run()
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
