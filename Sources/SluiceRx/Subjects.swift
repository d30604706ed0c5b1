import Sluice
import SluiceExtras
import SluiceSchedulers

/// RxSwift's `RxError`: the errors SluiceRx itself raises.
/// SluiceRx's own (Sluice has no counterpart; SluiceTesting's timeout becomes `.timeout`).
public enum RxError: Swift.Error, CustomDebugStringConvertible, @unchecked Sendable {
    /// Unknown error.
    case unknown
    /// A disposed object (a subject) was used.
    case disposed(object: AnyObject)
    /// An arithmetic overflow.
    case overflow
    /// An argument out of range.
    case argumentOutOfRange
    /// A sequence had no elements where one was required (`toBlocking().single()`).
    case noElements
    /// A sequence had more than one element where one was required.
    case moreThanOneElement
    /// A wait ran out of time (`toBlocking(timeout:)`).
    case timeout

    /// RxSwift's `RxError.debugDescription`, with RxSwift's texts. SluiceRx's own.
    public var debugDescription: String {
        switch self {
        case .unknown: return "Unknown error occurred."
        case .disposed(let object): return "Object `\(object)` was already disposed."
        case .overflow: return "Arithmetic overflow occurred."
        case .argumentOutOfRange: return "Argument out of range."
        case .noElements: return "Sequence doesn't contain any elements."
        case .moreThanOneElement: return "Sequence contains more than one element."
        case .timeout: return "Sequence timeout."
        }
    }
}

/// RxSwift's `SubjectType`: an observable that is also an observer.
/// Sluice: `Subject`'s role; SluiceRx's three subjects each wrap a Sluice subject.
public protocol SubjectType: ObservableType {
    /// RxSwift's `SubjectType.Observer`: the observer side's type. SluiceRx's own.
    associatedtype Observer: ObserverType

    /// RxSwift's `SubjectType.asObserver()`: the observer side.
    /// Sluice: the subject's `send(_:)` and `send(completion:)`, as `on(_:)`.
    func asObserver() -> Observer
}

/// What the three subjects share: the Sluice subject behind them, a count of observers, and
/// RxSwift's `dispose()` (after which events are ignored and new subscribers get
/// `RxError.disposed`).
internal final class SubjectCore<Element>: @unchecked Sendable {
    private let lock = Lock()
    private var observers = 0
    private var disposed = false
    private var terminalError: Swift.Error?
    private let send: (Event<Element>) -> Void
    /// The subject, named by `RxError.disposed`.
    weak var owner: AnyObject?

    init(send: @escaping (Event<Element>) -> Void) {
        self.send = send
    }

    var hasObservers: Bool { lock.locked { observers > 0 } }
    var isDisposed: Bool { lock.locked { disposed } }
    var error: Swift.Error? { lock.locked { terminalError } }

    func on(_ event: Event<Element>) {
        let forward = lock.locked { () -> Bool in
            if disposed { return false }
            if case .error(let error) = event, terminalError == nil { terminalError = error }
            return true
        }
        if forward { send(event) }
    }

    func dispose() {
        lock.locked { disposed = true }
    }

    /// The subject as seen by a new subscriber: counted while subscribed, refused once disposed.
    func publisher<P: Publisher>(_ subject: P) -> AnyPublisher<Element, Swift.Error>
        where P.Output == Element, P.Failure == Swift.Error
    {
        Deferred { () -> AnyPublisher<Element, Swift.Error> in
            guard !self.isDisposed else {
                return Fail(error: RxError.disposed(object: self.owner ?? self)).eraseToAnyPublisher()
            }
            return subject.handleEvents(receiveSubscription: { _ in self.changeObservers(by: 1) },
                                        receiveCompletion: { _ in self.changeObservers(by: -1) },
                                        receiveCancel: { self.changeObservers(by: -1) })
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    private func changeObservers(by change: Int) {
        lock.locked { observers += change }
    }
}

/// RxSwift's `PublishSubject`: passes each event to the observers subscribed at the time; after
/// a terminal event, later subscribers get just that event.
///
/// Subscribing it as an observer to a finite sequence (`source.subscribe(subject)`) forwards the
/// completion too, which ends the subject for everyone: bind finite sources to a
/// ``PublishRelay`` instead.
///
/// Sluice: `PassthroughSubject`.
public final class PublishSubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    @unchecked Sendable
{
    private let subject: PassthroughSubject<Element, Swift.Error>
    private let core: SubjectCore<Element>

    /// RxSwift's `PublishSubject()`: a subject with no observers.
    /// Sluice: a new `PassthroughSubject`.
    public init() {
        let subject = PassthroughSubject<Element, Swift.Error>()
        let core = SubjectCore<Element> { event in
            switch event {
            case .next(let element): subject.send(element)
            case .error(let error): subject.send(completion: .failure(error))
            case .completed: subject.send(completion: .finished)
            }
        }
        self.subject = subject
        self.core = core
        super.init(core.publisher(subject))
        core.owner = self
    }

    /// RxSwift's `PublishSubject.hasObservers`: whether anyone is subscribed.
    /// Sluice: counted with `handleEvents` on the `PassthroughSubject`.
    public var hasObservers: Bool { core.hasObservers }

    /// RxSwift's `PublishSubject.isDisposed`: whether ``dispose()`` has been called.
    /// SluiceRx's own (Sluice's subjects cannot be disposed).
    public var isDisposed: Bool { core.isDisposed }

    /// RxSwift's `PublishSubject.on(_:)`: sends the event to the current observers (ignored
    /// after a terminal event or `dispose()`). Sluice: `send(_:)` or `send(completion:)`.
    public func on(_ event: Event<Element>) {
        core.on(event)
    }

    /// RxSwift's `PublishSubject.asObserver()`: itself, as an observer. SluiceRx's own.
    public func asObserver() -> PublishSubject<Element> {
        self
    }

    /// RxSwift's `PublishSubject.dispose()`: stops the subject: later events are ignored and
    /// later subscribers get `RxError.disposed`. SluiceRx's own (Sluice's subjects have none).
    public func dispose() {
        core.dispose()
    }
}

/// RxSwift's `BehaviorSubject`: holds a current value, sent to each new subscriber first, then
/// the later events. Sluice: `CurrentValueSubject`.
public final class BehaviorSubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    @unchecked Sendable
{
    private let subject: CurrentValueSubject<Element, Swift.Error>
    private let core: SubjectCore<Element>

    /// RxSwift's `BehaviorSubject(value:)`: a subject whose current value is `value`.
    /// Sluice: `CurrentValueSubject(_:)`.
    public init(value: Element) {
        let subject = CurrentValueSubject<Element, Swift.Error>(value)
        let core = SubjectCore<Element> { event in
            switch event {
            case .next(let element): subject.send(element)
            case .error(let error): subject.send(completion: .failure(error))
            case .completed: subject.send(completion: .finished)
            }
        }
        self.subject = subject
        self.core = core
        super.init(core.publisher(subject))
        core.owner = self
    }

    /// RxSwift's `BehaviorSubject.value()`: the current value; throws the subject's error if it
    /// failed, or `RxError.disposed` after `dispose()`. Sluice: `CurrentValueSubject.value`.
    public func value() throws -> Element {
        if core.isDisposed { throw RxError.disposed(object: self) }
        if let error = core.error { throw error }
        return subject.value
    }

    /// RxSwift's `BehaviorSubject.hasObservers`: whether anyone is subscribed.
    /// Sluice: counted with `handleEvents` on the `CurrentValueSubject`.
    public var hasObservers: Bool { core.hasObservers }

    /// RxSwift's `BehaviorSubject.isDisposed`: whether ``dispose()`` has been called.
    /// SluiceRx's own (Sluice's subjects cannot be disposed).
    public var isDisposed: Bool { core.isDisposed }

    /// RxSwift's `BehaviorSubject.on(_:)`: sends the event: a `.next` becomes the current value
    /// (ignored after a terminal event or `dispose()`). Sluice: `send(_:)` or `send(completion:)`.
    public func on(_ event: Event<Element>) {
        core.on(event)
    }

    /// RxSwift's `BehaviorSubject.asObserver()`: itself, as an observer. SluiceRx's own.
    public func asObserver() -> BehaviorSubject<Element> {
        self
    }

    /// RxSwift's `BehaviorSubject.dispose()`: stops the subject: later events are ignored and
    /// later subscribers get `RxError.disposed`. SluiceRx's own (Sluice's subjects have none).
    public func dispose() {
        core.dispose()
    }
}

/// RxSwift's `ReplaySubject`: replays the last elements (all of them, for `createUnbounded()`)
/// to each new subscriber, then passes on the later events. Sluice: `ReplaySubject`.
public final class ReplaySubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    @unchecked Sendable
{
    private let subject: SluiceExtras.ReplaySubject<Element, Swift.Error>
    private let core: SubjectCore<Element>

    private init(bufferSize: Int) {
        let subject = SluiceExtras.ReplaySubject<Element, Swift.Error>(bufferSize: bufferSize)
        let core = SubjectCore<Element> { event in
            switch event {
            case .next(let element): subject.send(element)
            case .error(let error): subject.send(completion: .failure(error))
            case .completed: subject.send(completion: .finished)
            }
        }
        self.subject = subject
        self.core = core
        super.init(core.publisher(subject))
        core.owner = self
    }

    /// RxSwift's `ReplaySubject.create(bufferSize:)`: a subject that replays the last
    /// `bufferSize` elements. Sluice: `ReplaySubject(bufferSize:)`.
    public static func create(bufferSize: Int) -> ReplaySubject<Element> {
        ReplaySubject(bufferSize: bufferSize)
    }

    /// RxSwift's `ReplaySubject.createUnbounded()`: a subject that replays every element.
    /// Sluice: `ReplaySubject(bufferSize: .max)`.
    public static func createUnbounded() -> ReplaySubject<Element> {
        ReplaySubject(bufferSize: .max)
    }

    /// RxSwift's `ReplaySubject.hasObservers`: whether anyone is subscribed.
    /// Sluice: counted with `handleEvents` on Sluice's `ReplaySubject`.
    public var hasObservers: Bool { core.hasObservers }

    /// RxSwift's `ReplaySubject.isDisposed`: whether ``dispose()`` has been called.
    /// SluiceRx's own (Sluice's subjects cannot be disposed).
    public var isDisposed: Bool { core.isDisposed }

    /// RxSwift's `ReplaySubject.on(_:)`: sends and records the event (ignored after a terminal
    /// event or `dispose()`). Sluice: `send(_:)` or `send(completion:)`.
    public func on(_ event: Event<Element>) {
        core.on(event)
    }

    /// RxSwift's `ReplaySubject.asObserver()`: itself, as an observer. SluiceRx's own.
    public func asObserver() -> ReplaySubject<Element> {
        self
    }

    /// RxSwift's `ReplaySubject.dispose()`: stops the subject: later events are ignored and
    /// later subscribers get `RxError.disposed`. SluiceRx's own (Sluice's subjects have none).
    public func dispose() {
        core.dispose()
    }
}

// MARK: - Relays

/// RxRelay's `PublishRelay`: a ``PublishSubject`` that only accepts elements, so nothing can
/// complete or fail it; binding a finite source to it (`bind(to: relay)`) forwards only the
/// elements. Sluice: `PassthroughSubject`, through a ``PublishSubject``.
public final class PublishRelay<Element>: ObservableType, @unchecked Sendable {
    private let subject = PublishSubject<Element>()

    /// RxRelay's `PublishRelay()`: a relay with no observers.
    /// Sluice: a new `PassthroughSubject`, inside a ``PublishSubject``.
    public init() {}

    /// RxRelay's `PublishRelay.accept(_:)`: sends an element to the current observers.
    /// Sluice: `PassthroughSubject.send(_:)`.
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// RxRelay's `PublishRelay.subscribe(_:)`: subscribes `observer` to the relay's elements (it
    /// never completes). Sluice: a subscription to the `PassthroughSubject`.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// RxRelay's `PublishRelay.asObservable()`: the relay as an observable (that never
    /// completes). Sluice: the `PassthroughSubject`, through its ``PublishSubject``.
    public func asObservable() -> Observable<Element> {
        subject
    }
}

/// RxRelay's `BehaviorRelay`: a ``BehaviorSubject`` that only accepts elements; its `value` is
/// always readable. Sluice: `CurrentValueSubject`, through a ``BehaviorSubject``.
public final class BehaviorRelay<Element>: ObservableType, @unchecked Sendable {
    private let subject: BehaviorSubject<Element>

    /// RxRelay's `BehaviorRelay(value:)`: a relay whose current value is `value`.
    /// Sluice: `CurrentValueSubject(_:)`, inside a ``BehaviorSubject``.
    public init(value: Element) {
        subject = BehaviorSubject(value: value)
    }

    /// RxRelay's `BehaviorRelay.value`: the current value. Sluice: `CurrentValueSubject.value`.
    public var value: Element {
        // A relay's subject never fails and is never disposed, so this cannot throw.
        (try? subject.value())!
    }

    /// RxRelay's `BehaviorRelay.accept(_:)`: makes `event` the current value and sends it to the
    /// observers. Sluice: `CurrentValueSubject.send(_:)`.
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// RxRelay's `BehaviorRelay.subscribe(_:)`: subscribes `observer`: the current value first,
    /// then each new one. Sluice: a subscription to the `CurrentValueSubject`.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// RxRelay's `BehaviorRelay.asObservable()`: the relay as an observable (that never
    /// completes). Sluice: the `CurrentValueSubject`, through its ``BehaviorSubject``.
    public func asObservable() -> Observable<Element> {
        subject
    }
}

extension ObservableType {
    /// RxRelay's `bind(to:)` for publish relays: each element is accepted by every relay; a
    /// completion is dropped (relays cannot complete); an error is a programmer error that stops
    /// a debug build ("Binding error to publish relay:").
    /// Sluice: one unlimited-demand `Subscriber` (the event-closure `subscribe(_:)`); each
    /// element goes to `PassthroughSubject.send(_:)`.
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        subscribe { event in
            switch event {
            case .next(let element): relays.forEach { $0.accept(element) }
            case .error(let error): bindingError(error, prefix: "Binding error to publish relay")
            case .completed: break
            }
        }
    }

    /// RxRelay's `bind(to:)` for behavior relays: as for publish relays.
    /// Sluice: one unlimited-demand `Subscriber` (the event-closure `subscribe(_:)`); each
    /// element goes to `CurrentValueSubject.send(_:)`.
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        subscribe { event in
            switch event {
            case .next(let element): relays.forEach { $0.accept(element) }
            case .error(let error): bindingError(error, prefix: "Binding error to behavior relay")
            case .completed: break
            }
        }
    }
}
