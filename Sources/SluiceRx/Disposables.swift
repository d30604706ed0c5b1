import Sluice
import SluiceExtras
import SluiceSchedulers

/// RxSwift's `Disposable`: a handle that ends a subscription or releases a resource.
///
/// Sluice: it refines `Cancellable`: `dispose()` is `cancel()`, so a disposable goes into
/// `Set<AnyCancellable>` with `store(in:)`, and Sluice's `AnyCancellable` is a `Disposable`
/// that goes into a ``DisposeBag``. Disposing is idempotent for every disposable SluiceRx makes.
public protocol Disposable: Cancellable {
    /// RxSwift's `Disposable.dispose()`: ends the subscription or releases the resource.
    /// Sluice: what `Cancellable.cancel()` calls.
    func dispose()
}

extension Disposable {
    /// `dispose()`, under Sluice's name (RxSwift has no `cancel()`).
    /// Sluice: `Cancellable.cancel()`.
    public func cancel() {
        dispose()
    }

    /// RxSwift's `disposed(by:)`: adds this disposable to `bag`, which disposes it when the
    /// bag is deallocated (or at once, if the bag has been disposed already).
    /// Sluice: none; its spelling is `store(in:)` into a `Set<AnyCancellable>`.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}

/// RxSwift's `Cancelable`: a disposable that knows whether it has been disposed.
/// Sluice: `Cancellable` (through ``Disposable``), plus `isDisposed`, which Sluice lacks.
public protocol Cancelable: Disposable {
    /// RxSwift's `Cancelable.isDisposed`: whether `dispose()` has been called (or the work has
    /// ended on its own). SluiceRx's own (Sluice's `Cancellable` has no such property).
    var isDisposed: Bool { get }
}

extension AnyCancellable: Disposable {
    /// RxSwift's `Disposable.dispose()` on Sluice's `AnyCancellable`: cancels, as `cancel()` does.
    /// Sluice: `AnyCancellable.cancel()`.
    public func dispose() {
        cancel()
    }
}

/// RxSwift's `Disposables`: the ways of making a disposable.
/// SluiceRx's own (Sluice's nearest, `AnyCancellable(_:)`, also cancels on deinit; these don't).
public enum Disposables {
    /// A disposable that does nothing (RxSwift's `Disposables.create()`).
    /// SluiceRx's own (Sluice has no counterpart): one shared no-op value.
    public static func create() -> Disposable {
        NopDisposable.shared
    }

    /// RxSwift's `Disposables.create(with:)`: a disposable that runs `dispose` once, the first
    /// time it is disposed. SluiceRx's own; unlike Sluice's `AnyCancellable(_:)`, it does not
    /// run `dispose` on deinit.
    public static func create(with dispose: @escaping () -> Void) -> Cancelable {
        AnonymousDisposable(dispose)
    }

    /// RxSwift's `Disposables.create(_:_:)`: a disposable that disposes both, in order.
    /// SluiceRx's own: a ``CompositeDisposable``.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2])
    }

    /// RxSwift's `Disposables.create(_:_:_:)`: a disposable that disposes all three, in order.
    /// SluiceRx's own: a ``CompositeDisposable``.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable,
                              _ disposable3: Disposable) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3])
    }

    /// RxSwift's `Disposables.create(_:_:_:_:)`: a disposable that disposes all of them, in
    /// order. SluiceRx's own: a ``CompositeDisposable``.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable,
                              _ disposables: Disposable...) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3] + disposables)
    }

    /// RxSwift's `Disposables.create(_:)` for an array: a disposable that disposes all of them,
    /// in order. SluiceRx's own: a ``CompositeDisposable``.
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
/// SluiceRx's own (Sluice has no counterpart).
public final class BooleanDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    private var disposed: Bool

    /// RxSwift's `BooleanDisposable(isDisposed:)`: a disposable that is not disposed yet (or
    /// already is, if `isDisposed` is `true`). SluiceRx's own.
    public init(isDisposed: Bool = false) {
        disposed = isDisposed
    }

    /// RxSwift's `BooleanDisposable.isDisposed`: whether it has been disposed. SluiceRx's own.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// RxSwift's `BooleanDisposable.dispose()`: marks it disposed. SluiceRx's own.
    public func dispose() {
        lock.locked { disposed = true }
    }
}

/// RxSwift's `DisposeBag`: disposes everything put into it when it is deallocated.
///
/// Give each owner (a view model, a screen) a bag and put its subscriptions in it with
/// `disposed(by:)`: they end together with the owner. A disposable inserted into a bag that has
/// already been disposed is disposed at once.
///
/// SluiceRx's own; in Sluice the same job is done by a `Set<AnyCancellable>` and `store(in:)`.
public final class DisposeBag: @unchecked Sendable {
    private let lock = Lock()
    private var disposables: [Disposable] = []
    private var disposed = false

    /// RxSwift's `DisposeBag()`: an empty bag. SluiceRx's own.
    public init() {}

    /// A bag holding `disposables` (RxSwift 6's `DisposeBag(disposing:)`). SluiceRx's own.
    public convenience init(disposing disposables: Disposable...) {
        self.init()
        disposables.forEach(insert)
    }

    /// RxSwift 6's `DisposeBag(disposing:)` for an array: a bag holding `disposables`.
    /// SluiceRx's own.
    public convenience init(disposing disposables: [Disposable]) {
        self.init()
        disposables.forEach(insert)
    }

    /// RxSwift's `DisposeBag.insert(_:)`: adds a disposable, to be disposed with the bag;
    /// disposes it at once if the bag is already disposed. SluiceRx's own.
    public func insert(_ disposable: Disposable) {
        let disposeNow = lock.locked { () -> Bool in
            if disposed { return true }
            disposables.append(disposable)
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// RxSwift 6's variadic `DisposeBag.insert(_:)`: adds several disposables. SluiceRx's own.
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
/// can be taken out again by its key. SluiceRx's own (Sluice has no counterpart).
public final class CompositeDisposable: Cancelable, @unchecked Sendable {
    /// RxSwift's `CompositeDisposable.DisposeKey`: identifies a disposable inside the
    /// composite, for ``remove(for:)``. SluiceRx's own.
    public struct DisposeKey: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private let lock = Lock()
    private var entries: [(key: UInt64, disposable: Disposable)] = []
    private var nextKey: UInt64 = 0
    private var disposed = false

    /// RxSwift's `CompositeDisposable()`: an empty composite. SluiceRx's own.
    public init() {}

    /// RxSwift's `CompositeDisposable(disposables:)`: a composite holding `disposables`.
    /// SluiceRx's own.
    public convenience init(disposables: [Disposable]) {
        self.init()
        for disposable in disposables { _ = insert(disposable) }
    }

    /// RxSwift's `CompositeDisposable(_:_:)`: a composite holding the two. SluiceRx's own.
    public convenience init(_ disposable1: Disposable, _ disposable2: Disposable) {
        self.init(disposables: [disposable1, disposable2])
    }

    /// RxSwift's `CompositeDisposable.isDisposed`: whether it has been disposed. SluiceRx's own.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// RxSwift's `CompositeDisposable.count`: how many disposables it holds. SluiceRx's own.
    public var count: Int { lock.locked { entries.count } }

    /// RxSwift's `CompositeDisposable.insert(_:)`: adds a disposable and returns its key; if the
    /// composite is disposed already, disposes it at once and returns `nil`. SluiceRx's own.
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

    /// RxSwift's `CompositeDisposable.remove(for:)`: takes the disposable with `key` out and
    /// disposes it. SluiceRx's own.
    public func remove(for key: DisposeKey) {
        let removed = lock.locked { () -> Disposable? in
            guard let index = entries.firstIndex(where: { $0.key == key.value }) else { return nil }
            return entries.remove(at: index).disposable
        }
        removed?.dispose()
    }

    /// RxSwift's `CompositeDisposable.dispose()`: disposes everything it holds, in insertion
    /// order; later inserts are disposed at once. SluiceRx's own.
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
/// SluiceRx's own (Sluice has no counterpart).
public final class SerialDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    private var current: Disposable?
    private var disposed = false

    /// RxSwift's `SerialDisposable()`: an empty serial disposable. SluiceRx's own.
    public init() {}

    /// RxSwift's `SerialDisposable.isDisposed`: whether it has been disposed. SluiceRx's own.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// RxSwift's `SerialDisposable.disposable`: the disposable it holds; setting it disposes the
    /// previous one. SluiceRx's own.
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

    /// RxSwift's `SerialDisposable.dispose()`: disposes the disposable it holds, and every one
    /// set later. SluiceRx's own.
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
/// SluiceRx's own (Sluice has no counterpart).
public final class SingleAssignmentDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    private var current: Disposable?
    private var assigned = false
    private var disposed = false

    /// RxSwift's `SingleAssignmentDisposable()`: an unset disposable. SluiceRx's own.
    public init() {}

    /// RxSwift's `SingleAssignmentDisposable.isDisposed`: whether it has been disposed.
    /// SluiceRx's own.
    public var isDisposed: Bool { lock.locked { disposed } }

    /// RxSwift's `SingleAssignmentDisposable.setDisposable(_:)`: sets the disposable; a second
    /// call is a programmer error and stops the process. SluiceRx's own.
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

    /// RxSwift's `SingleAssignmentDisposable.dispose()`: disposes the disposable, now or as soon
    /// as it is set. SluiceRx's own.
    public func dispose() {
        let taken = lock.locked { () -> Disposable? in
            disposed = true
            defer { current = nil }
            return current
        }
        taken?.dispose()
    }
}
