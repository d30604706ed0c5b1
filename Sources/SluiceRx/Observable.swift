import Sluice

/// RxSwift's `ObservableConvertibleType`: anything that can be seen as an ``Observable``.
public protocol ObservableConvertibleType {
    /// The type of the elements.
    associatedtype Element

    /// The sequence as an ``Observable``.
    func asObservable() -> Observable<Element>
}

/// RxSwift's `ObservableType`: a sequence that can be subscribed to. Every SluiceRx operator
/// is an extension of this protocol, so subjects and relays have them too.
public protocol ObservableType: ObservableConvertibleType {
    /// Subscribes `observer`, forwarding every event to it, the terminal one included.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element
}

extension ObservableType {
    /// The sequence as an ``Observable``: an `Observable.create` that subscribes to it.
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
public class Observable<Element>: ObservableType, @unchecked Sendable {
    /// The Sluice publisher this observable is.
    internal let publisher: AnyPublisher<Element, Swift.Error>

    /// An observable that is `publisher` (RxSwift has no counterpart; `asObservable()` on a
    /// Sluice publisher does the same).
    public init<P: Publisher>(_ publisher: P) where P.Output == Element, P.Failure == Swift.Error {
        self.publisher = publisher.eraseToAnyPublisher()
    }

    /// Subscribes `observer`, forwarding every event to it, the terminal one included: a subject
    /// subscribed to a finite observable completes with it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        run(RxSink(onEvent: observer.on))
    }

    /// Itself.
    public func asObservable() -> Observable<Element> {
        self
    }

    /// This observable as a Sluice publisher, for Sluice's and Combine's operators and
    /// subscribers; subscribing to it runs inside the current thread's trampoline, as a
    /// SluiceRx subscription does.
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
    /// The Sluice publisher behind this sequence (see ``Observable/asPublisher()``).
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
    /// becomes an untyped `Error`.
    public func asObservable() -> Observable<Output> {
        Observable(mapError { $0 as Swift.Error })
    }
}

extension Publisher where Failure == Swift.Error {
    /// This publisher as an ``Observable`` (RxCombine's `asObservable()`).
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
        let upstream = UncheckedBox(self.upstream)
        let subscriber = UncheckedBox(subscriber)
        Trampoline.schedule { upstream.value.receive(subscriber: subscriber.value) }
    }
}
