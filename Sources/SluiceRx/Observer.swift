import Sluice

/// RxSwift's `ObserverType`: something that receives a sequence's events.
///
/// The Rx counterpart of a Sluice `Subscriber` without demand: subjects are observers, and
/// `subscribe(_:)` accepts any observer, forwarding every event to it, the terminal one included.
public protocol ObserverType {
    /// The type of the elements it receives.
    associatedtype Element

    /// Receives one event.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// Sends `.next(element)`.
    public func onNext(_ element: Element) {
        on(.next(element))
    }

    /// Sends `.completed`.
    public func onCompleted() {
        on(.completed)
    }

    /// Sends `.error(error)`.
    public func onError(_ error: Swift.Error) {
        on(.error(error))
    }

    /// This observer, type-erased.
    public func asObserver() -> AnyObserver<Element> {
        AnyObserver(eventHandler: on)
    }

    /// An observer of another element type that transforms each element into this one before
    /// passing it on (RxSwift's `mapObserver`); a thrown error is passed on as `.error`.
    public func mapObserver<Result>(_ transform: @escaping (Result) throws -> Element) -> AnyObserver<Result> {
        AnyObserver { event in self.on(event.map(transform)) }
    }
}

/// RxSwift's `AnyObserver`: a type-erased observer, the observer `Observable.create` hands its
/// closure.
public struct AnyObserver<Element>: ObserverType {
    /// RxSwift's `AnyObserver.EventHandler`.
    public typealias EventHandler = (Event<Element>) -> Void

    private let observer: EventHandler

    /// An observer that passes every event to `eventHandler`.
    public init(eventHandler: @escaping EventHandler) {
        observer = eventHandler
    }

    /// `observer`, type-erased.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        self.observer = observer.on
    }

    /// Passes the event on.
    public func on(_ event: Event<Element>) {
        observer(event)
    }

    /// Itself.
    public func asObserver() -> AnyObserver<Element> {
        self
    }
}

/// RxCocoa's `Binder`: an observer that applies elements to a target, on a scheduler
/// (the main scheduler by default), holding the target weakly. An error sent to a binder is a
/// programmer error: a debug build stops with `Binding error:`, a release build prints it.
public struct Binder<Value>: ObserverType {
    /// The elements it binds.
    public typealias Element = Value

    private let binding: (Event<Value>) -> Void

    /// A binder that calls `binding` with the target and each element, on `scheduler`, while
    /// the target is alive.
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

    /// Applies a `.next`; stops (debug) or logs (release) on `.error`; ignores `.completed`.
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
