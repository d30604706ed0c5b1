import Sluice
import SluiceExtras
import SluiceSchedulers

/// RxSwift's `ObserverType`: something that receives a sequence's events.
///
/// The Rx counterpart of a Sluice `Subscriber` without demand: subjects are observers, and
/// `subscribe(_:)` accepts any observer, forwarding every event to it, the terminal one included.
///
/// Sluice: subscribing one wraps it in a `Subscriber` that asks for unlimited demand.
public protocol ObserverType {
    /// RxSwift's `ObserverType.Element`: the type of the elements it receives (Sluice: a
    /// subscriber's `Input`).
    associatedtype Element

    /// RxSwift's `ObserverType.on(_:)`: receives one event.
    /// Sluice: a subscriber's `receive(_:)` and `receive(completion:)` in one.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// RxSwift's `onNext(_:)`: sends `.next(element)` to `on(_:)`. SluiceRx's own (in Sluice, a
    /// subscriber's `receive(_:)`).
    public func onNext(_ element: Element) {
        on(.next(element))
    }

    /// RxSwift's `onCompleted()`: sends `.completed` to `on(_:)`. SluiceRx's own (in Sluice,
    /// `receive(completion: .finished)`).
    public func onCompleted() {
        on(.completed)
    }

    /// RxSwift's `onError(_:)`: sends `.error(error)` to `on(_:)`. SluiceRx's own (in Sluice,
    /// `receive(completion: .failure(error))`).
    public func onError(_ error: Swift.Error) {
        on(.error(error))
    }

    /// RxSwift's `asObserver()`: this observer, type-erased.
    /// SluiceRx's own (an ``AnyObserver``; Sluice's `AnySubscriber` has demand).
    public func asObserver() -> AnyObserver<Element> {
        AnyObserver(eventHandler: on)
    }

    /// An observer of another element type that transforms each element into this one before
    /// passing it on (RxSwift's `mapObserver`); a thrown error is passed on as `.error`.
    /// SluiceRx's own (Sluice has no counterpart).
    public func mapObserver<Result>(_ transform: @escaping (Result) throws -> Element) -> AnyObserver<Result> {
        AnyObserver { event in self.on(event.map(transform)) }
    }
}

/// RxSwift's `AnyObserver`: a type-erased observer, the observer `Observable.create` hands its
/// closure. SluiceRx's own: Sluice's nearest is `AnySubscriber`, which has demand.
public struct AnyObserver<Element>: ObserverType {
    /// RxSwift's `AnyObserver.EventHandler`. SluiceRx's own.
    public typealias EventHandler = (Event<Element>) -> Void

    private let observer: EventHandler

    /// RxSwift's `AnyObserver(eventHandler:)`: an observer that passes every event to
    /// `eventHandler`. SluiceRx's own.
    public init(eventHandler: @escaping EventHandler) {
        observer = eventHandler
    }

    /// RxSwift's `AnyObserver(_:)`: `observer`, type-erased. SluiceRx's own.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        self.observer = observer.on
    }

    /// RxSwift's `AnyObserver.on(_:)`: passes the event on. SluiceRx's own.
    public func on(_ event: Event<Element>) {
        observer(event)
    }

    /// RxSwift's `AnyObserver.asObserver()`: itself. SluiceRx's own.
    public func asObserver() -> AnyObserver<Element> {
        self
    }
}

/// RxCocoa's `Binder`: an observer that applies elements to a target, on a scheduler
/// (the main scheduler by default), holding the target weakly. An error sent to a binder is a
/// programmer error: a debug build stops with `Binding error:`, a release build prints it.
///
/// Sluice: each element is run with `schedule(options:_:)` on the scheduler's Sluice scheduler
/// (`UIScheduler.shared` for `MainScheduler.instance`).
public struct Binder<Value>: ObserverType {
    /// RxCocoa's `Binder.Element`: the elements it binds. SluiceRx's own.
    public typealias Element = Value

    private let binding: (Event<Value>) -> Void

    /// RxCocoa's `Binder(_:scheduler:binding:)`: a binder that calls `binding` with the target
    /// and each element, on `scheduler`, while the target is alive.
    /// Sluice: `schedule(options:_:)` on `scheduler.sluiceScheduler`.
    public init<Target: AnyObject>(_ target: Target, scheduler: ImmediateSchedulerType = MainScheduler.instance,
                                   binding: @escaping (Target, Value) -> Void) {
        weak let weakTarget = target
        let engine = scheduler.sluiceScheduler
        self.binding = { event in
            switch event {
            case .next(let element):
                engine.schedule(options: nil) {
                    if let target = weakTarget { binding(target, element) }
                }
            case .error(let error):
                bindingError(error)
            case .completed:
                break
            }
        }
    }

    /// RxCocoa's `Binder.on(_:)`: applies a `.next`; stops (debug) or logs (release) on
    /// `.error`; ignores `.completed`. Sluice: `schedule(options:_:)`, for a `.next`.
    public func on(_ event: Event<Value>) {
        binding(event)
    }
}

/// What `bind` does with an error: stops a debug build, prints in a release build (RxCocoa's
/// `rxFatalErrorInDebug`).
internal func bindingError(_ error: Swift.Error, prefix: String = "Binding error",
                           file: StaticString = #file, line: UInt = #line) {
    #if DEBUG
    fatalError("\(prefix): \(error)", file: file, line: line)
    #else
    print("\(file):\(line): \(prefix): \(error)")
    #endif
}
