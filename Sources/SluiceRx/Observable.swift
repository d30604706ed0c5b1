import Sluice
import SluiceExtras
import SluiceSchedulers

/// RxSwift's `ObservableConvertibleType`: anything that can be seen as an ``Observable``.
/// Sluice: none of its own; the ``Observable`` it gives wraps an `AnyPublisher<Element, Error>`.
public protocol ObservableConvertibleType {
    /// RxSwift's `ObservableConvertibleType.Element`: the type of the elements (Sluice: the
    /// publisher's `Output`).
    associatedtype Element

    /// RxSwift's `asObservable()`: the sequence as an ``Observable``.
    /// Sluice: an `AnyPublisher<Element, Error>` inside.
    func asObservable() -> Observable<Element>
}

/// RxSwift's `ObservableType`: a sequence that can be subscribed to. Every SluiceRx operator
/// is an extension of this protocol, so subjects and relays have them too.
/// Sluice: `Publisher`'s role, without refining it: each operator is a Sluice operator on the
/// `AnyPublisher` behind `asObservable()`.
public protocol ObservableType: ObservableConvertibleType {
    /// RxSwift's `ObservableType.subscribe(_:)`: subscribes `observer`, forwarding every event
    /// to it, the terminal one included. Sluice: `Publisher.subscribe(_:)`.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element
}

extension ObservableType {
    /// RxSwift's `asObservable()`: the sequence as an ``Observable``, an `Observable.create`
    /// that subscribes to it. SluiceRx's own (`create` has no Sluice counterpart).
    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.subscribe(observer) }
    }
}

/// RxSwift's `Observable`: a sequence of elements that ends with an error or a completion, and
/// the type every SluiceRx operator returns.
///
/// An observable is a Sluice publisher whose `Failure` is `Error` (errors are untyped, as in
/// RxSwift), type-erased: ``asPublisher()`` gives it back, and ``init(_:)`` or
/// `Publisher.asObservable()` turn any Sluice publisher into one. Each operator is the Sluice
/// operator its documentation names, so the semantics (thread safety, what cancel does, the
/// order of events) are Sluice's. SluiceRx subscribers ask for unlimited demand, which is how
/// RxSwift's push model looks in Combine's terms.
///
/// A subscription made with `subscribe`, `bind` or `toBlocking` runs inside the current
/// thread's trampoline (``CurrentThreadScheduler``).
///
/// An `Observable` is an immutable description of work, safe to pass between threads and to
/// subscribe to from any of them; the closures inside keep their isolation, which Swift checks
/// when they run (a main-actor closure run off the main thread stops the process).
///
/// Sluice: an `AnyPublisher<Element, Error>`.
public class Observable<Element>: ObservableType, @unchecked Sendable {
    /// The Sluice publisher this observable is.
    internal let publisher: AnyPublisher<Element, Swift.Error>

    /// An observable that is `publisher` (RxSwift has no counterpart; `asObservable()` on a
    /// Sluice publisher does the same). Sluice: `eraseToAnyPublisher()`.
    public init<P: Publisher>(_ publisher: P) where P.Output == Element, P.Failure == Swift.Error {
        self.publisher = publisher.eraseToAnyPublisher()
    }

    /// RxSwift's `subscribe(_:)` with an observer: forwards every event to it, the terminal one
    /// included, so a subject subscribed to a finite observable completes with it.
    /// Sluice: `subscribe(_:)` of a `Subscriber` that asks for unlimited demand, in the trampoline.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        run(RxSink(onEvent: observer.on))
    }

    /// RxSwift's `asObservable()`: itself. Sluice: its `AnyPublisher`, unchanged.
    public func asObservable() -> Observable<Element> {
        self
    }

    /// RxCombine's `asPublisher()` (RxSwift has none): this observable as a Sluice publisher,
    /// for Sluice's and Combine's operators and subscribers; subscribing to it runs inside the
    /// current thread's trampoline, as a SluiceRx subscription does. Sluice: `AnyPublisher`.
    public func asPublisher() -> AnyPublisher<Element, Swift.Error> {
        TrampolinedSubscribe(upstream: publisher).eraseToAnyPublisher()
    }

    /// Subscribes `sink` inside the trampoline and returns it as the subscription's disposable.
    internal func run(_ sink: RxSink<Element>) -> Disposable {
        let publisher = self.publisher
        Trampoline.runInside { publisher.subscribe(sink) }
        return sink
    }
}

extension ObservableConvertibleType {
    /// RxCombine's `asPublisher()` (RxSwift has none): the Sluice publisher behind this sequence
    /// (see ``Observable/asPublisher()``). Sluice: `AnyPublisher`.
    public func asPublisher() -> AnyPublisher<Element, Swift.Error> {
        asObservable().asPublisher()
    }

    /// The Sluice publisher behind the observable, for building operators.
    internal var source: AnyPublisher<Element, Swift.Error> {
        asObservable().publisher
    }
}

extension Publisher {
    /// This publisher as an ``Observable`` (RxCombine's `asObservable()`); its typed failure
    /// becomes an untyped `Error`. Sluice: `mapError` + `eraseToAnyPublisher()`.
    public func asObservable() -> Observable<Output> {
        Observable(mapError { $0 as Swift.Error })
    }
}

extension Publisher where Failure == Swift.Error {
    /// This publisher as an ``Observable`` (RxCombine's `asObservable()`).
    /// Sluice: `eraseToAnyPublisher()`.
    public func asObservable() -> Observable<Output> {
        Observable(self)
    }
}

/// Subscribes the upstream inside the current thread's trampoline, so that work the
/// subscription schedules on ``CurrentThreadScheduler`` runs before the subscribe call returns.
internal struct TrampolinedSubscribe<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let upstream = self.upstream
        Trampoline.runInside { upstream.receive(subscriber: subscriber) }
    }
}

/// Defers subscribing to the upstream to a step on the current thread's trampoline: RxSwift's
/// `of`, `from` and `range`, which emit from a scheduled step after the subscription is set up.
/// Only the subscription moves; requests and cancels go straight to the upstream, so a
/// `take(1)` stops a long sequence at once.
internal struct TrampolineScheduledSubscribe<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let upstream = UncheckedSendable(self.upstream)
        let subscriber = UncheckedSendable(subscriber)
        Trampoline.schedule { upstream.value.receive(subscriber: subscriber.value) }
    }
}
