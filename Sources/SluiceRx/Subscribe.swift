import Sluice
import SluiceExtras
import SluiceSchedulers

/// The subscriber at the end of every SluiceRx subscription, and its disposable.
///
/// It asks for unlimited demand, passes each event to `onEvent` and, when the subscription ends
/// (a terminal event or `dispose()`), runs `onDisposed` once: after the terminal event's
/// handler, or after cancelling the upstream. Events after the end are ignored.
internal final class RxSink<Element>: Subscriber, Cancelable, @unchecked Sendable {
    typealias Input = Element
    typealias Failure = Swift.Error

    private enum State {
        case awaitingSubscription
        case subscribed(Subscription)
        case ended
    }

    let combineIdentifier = CombineIdentifier()
    private let lock = Lock()
    private var state = State.awaitingSubscription
    private var onEvent: ((Event<Element>) -> Void)?
    private var onDisposed: (() -> Void)?

    init(onEvent: @escaping (Event<Element>) -> Void, onDisposed: (() -> Void)? = nil) {
        self.onEvent = onEvent
        self.onDisposed = onDisposed
    }

    var isDisposed: Bool {
        lock.locked { if case .ended = state { return true } else { return false } }
    }

    func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard case .awaitingSubscription = state else { return false }
            state = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        subscription.request(.unlimited)
    }

    func receive(_ input: Element) -> Subscribers.Demand {
        // Read into a local, not returned from the lock: a closure returned through the generic
        // `locked` is re-abstracted, which allocated twice per event.
        var handler: ((Event<Element>) -> Void)?
        lock.locked {
            guard case .subscribed = state else { return }
            handler = onEvent
        }
        handler?(.next(input))
        return .none
    }

    func receive(completion: Subscribers.Completion<Swift.Error>) {
        guard let (handler, disposed, subscription) = end() else { return }
        handler?(Event(completion))
        disposed?()
        withExtendedLifetime(subscription) {}
    }

    func dispose() {
        guard let (handler, disposed, subscription) = end() else { return }
        subscription?.cancel()
        disposed?()
        withExtendedLifetime(handler) {}
    }

    /// Moves to `ended` (once); returns the handlers and the upstream's subscription, so that
    /// they are called, and released, after unlocking.
    private func end() -> (((Event<Element>) -> Void)?, (() -> Void)?, Subscription?)? {
        lock.locked {
            let subscription: Subscription?
            switch state {
            case .ended: return nil
            case .awaitingSubscription: subscription = nil
            case .subscribed(let upstream): subscription = upstream
            }
            state = .ended
            defer {
                onEvent = nil
                onDisposed = nil
            }
            return (onEvent, onDisposed, subscription)
        }
    }
}

extension ObservableType {
    /// RxSwift's `subscribe(_:)` with an event closure: every event, terminal ones included,
    /// goes to `on`. Receiving `.error` here counts as handling it: ``Hooks/defaultErrorHandler``
    /// is not called. There is no `onDisposed` in this form.
    ///
    /// Sluice: `subscribe(_:)` with a `Subscriber` that, like `sink`, asks for unlimited demand,
    /// the completion delivered as `.error` or `.completed`; `dispose()` is `cancel()` on its
    /// `Subscription`.
    public func subscribe(_ on: @escaping (Event<Element>) -> Void) -> Disposable {
        asObservable().run(RxSink(onEvent: on))
    }

    /// RxSwift's `subscribe(onNext:onError:onCompleted:onDisposed:)`.
    ///
    /// `onDisposed` runs once when the subscription ends, however it ends: after `onCompleted`,
    /// after `onError`, or after the upstream has been cancelled by `dispose()`. An error with
    /// no `onError` goes to ``Hooks/defaultErrorHandler``, with the call stack of this call if
    /// ``Hooks/recordCallStackOnError`` is on.
    ///
    /// Sluice: `subscribe(_:)` with a `Subscriber` that, like `sink`, asks for unlimited demand;
    /// `dispose()` is `cancel()` on its `Subscription`.
    public func subscribe(onNext: ((Element) -> Void)? = nil, onError: ((Swift.Error) -> Void)? = nil,
                          onCompleted: (() -> Void)? = nil, onDisposed: (() -> Void)? = nil) -> Disposable {
        let callStack = Hooks.subscriptionCallStack()
        return asObservable().run(RxSink(onEvent: { event in
            switch event {
            case .next(let element): onNext?(element)
            case .error(let error):
                if let onError {
                    onError(error)
                } else {
                    Hooks.unhandled(error, callStack: callStack)
                }
            case .completed: onCompleted?()
            }
        }, onDisposed: onDisposed))
    }

    /// `subscribe(onNext:onError:onCompleted:onDisposed:)` that remembers
    /// where it was called (`#fileID` and `#line`, two stores) instead of a call stack. RxSwift
    /// has no counterpart.
    ///
    /// The site is recorded in `log` when one is given, and an error with no `onError` is
    /// passed to ``Hooks/defaultErrorHandler`` with `["Module/File.swift:42"]` as its call stack:
    /// the line to fix, for a fraction of what ``Hooks/recordCallStackOnError`` costs
    /// (`sluice-bench` measures both). Sluice's own `sink` records the same `CallSite`.
    ///
    /// Sluice: `CallSite`, and the same unlimited-demand `Subscriber` as `subscribe(onNext:…)`.
    public func subscribeLogged(onNext: ((Element) -> Void)? = nil, onError: ((Swift.Error) -> Void)? = nil,
                                onCompleted: (() -> Void)? = nil, onDisposed: (() -> Void)? = nil,
                                log: SubscribeSiteLog? = nil,
                                fileID: StaticString = #fileID, line: UInt = #line) -> Disposable {
        let site = CallSite(fileID: fileID, line: line)
        log?.record(site)
        return asObservable().run(RxSink(onEvent: { event in
            switch event {
            case .next(let element): onNext?(element)
            case .error(let error):
                if let onError {
                    onError(error)
                } else {
                    log?.recordUnhandled(error, at: site)
                    Hooks.unhandled(error, callStack: [site.description])
                }
            case .completed: onCompleted?()
            }
        }, onDisposed: onDisposed))
    }

    /// RxSwift 6's `subscribe(with:onNext:onError:onCompleted:onDisposed:)`: the closures get
    /// `object`, held weakly, as their first argument, so they need no `[weak self]`.
    ///
    /// As in RxSwift, the object's going away does *not* end the subscription: each event
    /// finds the object gone and skips its closure, but the subscription, and everything
    /// upstream of it, keeps running until it is disposed or ends, and `onDisposed` is then
    /// skipped too (there is no object to pass). Put the disposable in a bag the object owns,
    /// or pass `disposingWhenReleased: true`. Errors count as handled (the default error
    /// handler is not called), as in RxSwift.
    ///
    /// - Parameters:
    ///   - object: passed to each closure while it lives; held weakly.
    ///   - disposingWhenReleased: SluiceRx's option: end the subscription (cancelling the
    ///     upstream) at the first event that finds the object gone. Swift on Linux cannot
    ///     watch an arbitrary object's deallocation, so it ends at that event rather than at
    ///     the deallocation itself; `onDisposed` is skipped, the object being gone.
    ///   - onNext: called with the object and each element.
    ///   - onError: called with the object and the error that ends the sequence.
    ///   - onCompleted: called with the object when the sequence completes.
    ///   - onDisposed: called with the object once the subscription ends, however it ends.
    ///
    /// Sluice: the same unlimited-demand `Subscriber` as `subscribe(onNext:…)`; the option
    /// disposes it through a ``SingleAssignmentDisposable``, which cancels the `Subscription`.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        disposingWhenReleased: Bool = false,
        onNext: ((Object, Element) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        weak let weakObject = object
        let release = SingleAssignmentDisposable()
        let subscription = asObservable().run(RxSink(onEvent: { event in
            guard let object = weakObject else {
                if disposingWhenReleased { release.dispose() }
                return
            }
            switch event {
            case .next(let element): onNext?(object, element)
            case .error(let error): onError?(object, error)
            case .completed: onCompleted?(object)
            }
        }, onDisposed: {
            guard let object = weakObject else { return }
            onDisposed?(object)
        }))
        release.setDisposable(subscription)
        return subscription
    }

    /// RxCocoa's `bind(onNext:)`: `subscribe(onNext:)` for a chain that must not fail. An error
    /// is a programmer error: a debug build stops with `fatalError("Binding error: …")`, a
    /// release build prints the message and carries on. Handle errors before binding
    /// (`catchAndReturn`).
    ///
    /// Sluice: the same unlimited-demand `Subscriber` as `subscribe(onNext:…)`, which it calls.
    public func bind(onNext: @escaping (Element) -> Void) -> Disposable {
        subscribe(onNext: onNext, onError: { error in bindingError(error) })
    }

    /// RxCocoa's `bind(to:)`: subscribes the observers, each receiving every event (an error
    /// reaches them; a ``Binder`` treats it as a programmer error).
    /// Sluice: one unlimited-demand `Subscriber` for all (the event-closure `subscribe(_:)`).
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable where Observer.Element == Element {
        subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// RxCocoa's `bind(to:)` for observers of optional elements, each element wrapped.
    /// Sluice: one unlimited-demand `Subscriber` for all, as for the other `bind(to:)`.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable where Observer.Element == Element? {
        subscribe { event in observers.forEach { $0.on(event.map { $0 as Element? }) } }
    }

    /// RxCocoa's `bind(to:)` with a binder function: returns `binder(self)`.
    /// SluiceRx's own (Sluice has no counterpart): it subscribes nothing itself.
    public func bind<Result>(to binder: (Self) -> Result) -> Result {
        binder(self)
    }

    /// RxCocoa's `bind(to:curriedArgument:)`: returns `binder(self)(curriedArgument)`.
    /// SluiceRx's own (Sluice has no counterpart): it subscribes nothing itself.
    public func bind<R1, R2>(to binder: (Self) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        binder(self)(curriedArgument)
    }
}

/// A thread-safe record of where `subscribeLogged` was called, and of the errors that reached
/// a `subscribeLogged` without an `onError`, with the site.
/// RxSwift has no counterpart. Sluice: its `CallSite`s, kept behind a lock.
public final class SubscribeSiteLog: Sendable {
    private let entries = LockedBox<[CallSite]>([])
    private let errors = LockedBox<[(site: CallSite, error: String)]>([])

    /// An empty log. RxSwift has no counterpart; SluiceRx's own.
    public init() {}

    /// Every subscribe site recorded so far, in order. RxSwift has no counterpart.
    /// Sluice: `CallSite`.
    public var sites: [CallSite] { entries.value }

    /// The unhandled errors so far: the site of the subscribe call and the error's description.
    /// RxSwift has no counterpart. Sluice: `CallSite`.
    public var unhandledErrors: [(site: CallSite, error: String)] { errors.value }

    /// Records a subscribe site. RxSwift has no counterpart. Sluice: `CallSite`.
    public func record(_ site: CallSite) {
        entries.mutate { $0.append(site) }
    }

    /// Records an unhandled error and the site of the subscription it reached. RxSwift has no
    /// counterpart. Sluice: `CallSite`.
    public func recordUnhandled(_ error: Swift.Error, at site: CallSite) {
        errors.mutate { $0.append((site, "\(error)")) }
    }
}

/// A value behind a lock.
internal final class LockedBox<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value { lock.locked { stored } }

    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.locked { body(&stored) }
    }
}
