import Sluice

/// RxSwift's `Disposable`: a handle that ends a subscription or releases a resource.
///
/// It refines Sluice's `Cancellable`: `dispose()` is `cancel()`, so a disposable goes into
/// `Set<AnyCancellable>` with `store(in:)`, and Sluice's `AnyCancellable` is a `Disposable`
/// that goes into a ``DisposeBag``. Disposing is idempotent for every disposable SluiceRx makes.
public protocol Disposable: Cancellable {
    /// Ends the subscription or releases the resource.
    func dispose()
}

extension Disposable {
    /// `dispose()`, under Sluice's name.
    public func cancel() {
        dispose()
    }

    /// RxSwift's `disposed(by:)`: adds this disposable to `bag`, which disposes it when the
    /// bag is deallocated (or at once, if the bag has been disposed already).
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}

/// RxSwift's `Cancelable`: a disposable that knows whether it has been disposed.
public protocol Cancelable: Disposable {
    /// Whether `dispose()` has been called (or the work has ended on its own).
    var isDisposed: Bool { get }
}

extension AnyCancellable: Disposable {
    /// Cancels, as `cancel()` does.
    public func dispose() {
        cancel()
    }
}

/// RxSwift's `Disposables`: the ways of making a disposable.
public enum Disposables {
    /// A disposable that does nothing (RxSwift's `Disposables.create()`).
    public static func create() -> Disposable {
        NopDisposable.shared
    }

    /// A disposable that runs `dispose` once, the first time it is disposed.
    public static func create(with dispose: @escaping () -> Void) -> Cancelable {
        AnonymousDisposable(dispose)
    }

    /// A disposable that disposes both, in order.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2])
    }

    /// A disposable that disposes all three, in order.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable,
                              _ disposable3: Disposable) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3])
    }

    /// A disposable that disposes all of them, in order.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable,
                              _ disposables: Disposable...) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3] + disposables)
    }

    /// A disposable that disposes all of them, in order.
    public static func create(_ disposables: [Disposable]) -> Cancelable {
        CompositeDisposable(disposables: disposables)
    }
}

/// Does nothing when disposed.
private struct NopDisposable: Disposable, Sendable {
    static let shared = NopDisposable()
    func dispose() {}
}

/// Runs a closure on the first `dispose()`, and releases it.
private final class AnonymousDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    private var action: (() -> Void)?
    private var disposed = false

    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    var isDisposed: Bool { lock.locked { disposed } }

    func dispose() {
        let taken = lock.locked { () -> (() -> Void)? in
            disposed = true
            defer { action = nil }
            return action
        }
        taken?()
    }
}

/// RxSwift's `BooleanDisposable`: only records that it was disposed.
public final class BooleanDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    private var disposed: Bool

    /// A disposable that is not disposed yet (or already is, if `isDisposed` is `true`).
    public init(isDisposed: Bool = false) {
        disposed = isDisposed
    }

    /// Whether it has been disposed.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// Marks it disposed.
    public func dispose() {
        lock.locked { disposed = true }
    }
}

/// RxSwift's `DisposeBag`: disposes everything put into it when it is deallocated.
///
/// Give each owner (a view model, a screen) a bag and put its subscriptions in it with
/// `disposed(by:)`: they end together with the owner. A disposable inserted into a bag that has
/// already been disposed is disposed at once.
public final class DisposeBag: @unchecked Sendable {
    private let lock = Lock()
    private var disposables: [Disposable] = []
    private var disposed = false

    /// An empty bag.
    public init() {}

    /// A bag holding `disposables` (RxSwift 6's `DisposeBag(disposing:)`).
    public convenience init(disposing disposables: Disposable...) {
        self.init()
        disposables.forEach(insert)
    }

    /// A bag holding `disposables`.
    public convenience init(disposing disposables: [Disposable]) {
        self.init()
        disposables.forEach(insert)
    }

    /// Adds a disposable, to be disposed with the bag; disposes it at once if the bag is
    /// already disposed.
    public func insert(_ disposable: Disposable) {
        let disposeNow = lock.locked { () -> Bool in
            if disposed { return true }
            disposables.append(disposable)
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// Adds several disposables.
    public func insert(_ disposables: Disposable...) {
        disposables.forEach(insert)
    }

    /// Disposes everything in the bag, in insertion order, and marks it disposed. Called by
    /// `deinit`; internal, as in RxSwift, where replacing the bag is how one empties it.
    internal func dispose() {
        let taken = lock.locked { () -> [Disposable] in
            disposed = true
            defer { disposables = [] }
            return disposables
        }
        for disposable in taken { disposable.dispose() }
    }

    deinit {
        dispose()
    }
}

/// RxSwift's `CompositeDisposable`: a group of disposables disposed together, from which one
/// can be taken out again by its key.
public final class CompositeDisposable: Cancelable, @unchecked Sendable {
    /// Identifies a disposable inside the composite, for ``remove(for:)``.
    public struct DisposeKey: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private let lock = Lock()
    private var entries: [(key: UInt64, disposable: Disposable)] = []
    private var nextKey: UInt64 = 0
    private var disposed = false

    /// An empty composite.
    public init() {}

    /// A composite holding `disposables`.
    public convenience init(disposables: [Disposable]) {
        self.init()
        for disposable in disposables { _ = insert(disposable) }
    }

    /// A composite holding the two.
    public convenience init(_ disposable1: Disposable, _ disposable2: Disposable) {
        self.init(disposables: [disposable1, disposable2])
    }

    /// Whether it has been disposed.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// How many disposables it holds.
    public var count: Int { lock.locked { entries.count } }

    /// Adds a disposable and returns its key; if the composite is disposed already, disposes it
    /// at once and returns `nil`.
    public func insert(_ disposable: Disposable) -> DisposeKey? {
        let key = lock.locked { () -> UInt64? in
            if disposed { return nil }
            nextKey += 1
            entries.append((nextKey, disposable))
            return nextKey
        }
        guard let key else {
            disposable.dispose()
            return nil
        }
        return DisposeKey(value: key)
    }

    /// Takes the disposable with `key` out and disposes it.
    public func remove(for key: DisposeKey) {
        let removed = lock.locked { () -> Disposable? in
            guard let index = entries.firstIndex(where: { $0.key == key.value }) else { return nil }
            return entries.remove(at: index).disposable
        }
        removed?.dispose()
    }

    /// Disposes everything it holds, in insertion order; later inserts are disposed at once.
    public func dispose() {
        let taken = lock.locked { () -> [Disposable] in
            disposed = true
            defer { entries = [] }
            return entries.map(\.disposable)
        }
        for disposable in taken { disposable.dispose() }
    }
}

/// RxSwift's `SerialDisposable`: holds one disposable at a time; setting a new one disposes the
/// old one, and once the serial disposable is disposed, anything set is disposed at once.
public final class SerialDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    private var current: Disposable?
    private var disposed = false

    /// An empty serial disposable.
    public init() {}

    /// Whether it has been disposed.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// The disposable it holds; setting it disposes the previous one.
    public var disposable: Disposable {
        get { lock.locked { current } ?? Disposables.create() }
        set {
            let (previous, disposeNew) = lock.locked { () -> (Disposable?, Bool) in
                if disposed { return (nil, true) }
                defer { current = newValue }
                return (current, false)
            }
            previous?.dispose()
            if disposeNew { newValue.dispose() }
        }
    }

    /// Disposes the disposable it holds, and every one set later.
    public func dispose() {
        let taken = lock.locked { () -> Disposable? in
            disposed = true
            defer { current = nil }
            return current
        }
        taken?.dispose()
    }
}

/// RxSwift's `SingleAssignmentDisposable`: a disposable set once, later than it is created;
/// disposing it before it is set disposes the value as soon as it is set.
public final class SingleAssignmentDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    private var current: Disposable?
    private var assigned = false
    private var disposed = false

    /// An unset disposable.
    public init() {}

    /// Whether it has been disposed.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// Sets the disposable; a second call is a programmer error and stops the process.
    public func setDisposable(_ disposable: Disposable) {
        let disposeNow = lock.locked { () -> Bool in
            precondition(!assigned, "SingleAssignmentDisposable: setDisposable called twice")
            assigned = true
            if disposed { return true }
            current = disposable
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// Disposes the disposable, now or as soon as it is set.
    public func dispose() {
        let taken = lock.locked { () -> Disposable? in
            disposed = true
            defer { current = nil }
            return current
        }
        taken?.dispose()
    }
}
