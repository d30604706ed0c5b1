import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers

extension ObservableType {
    /// RxSwift's `Observable.create`: a sequence whose subscription runs `subscribe`, which
    /// sends events to the observer it is given and returns what to dispose at the end.
    ///
    /// The closure runs when the subscriber's demand arrives, which for SluiceRx's subscribers
    /// is during the subscription (or, after a `subscribe(on:)`, on that scheduler). The
    /// returned disposable is disposed once, after a terminal event has been passed on or when
    /// the subscription is disposed. Events after the end are ignored. There is no
    /// backpressure, as in RxSwift: a Sluice subscriber with limited demand misses the elements
    /// sent while it has none, as with a `PassthroughSubject`.
    ///
    /// Sluice has no `create`; this is SluiceRx's own source publisher.
    public static func create(_ subscribe: @escaping (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        Observable(CreatePublisher(subscribeHandler: subscribe))
    }

    /// RxSwift's `Observable.of`: the elements, then completion, from a step scheduled on
    /// `scheduler` after the subscription is set up (on the default ``CurrentThreadScheduler``,
    /// still before `subscribe` returns). Sluice: `Publishers.Sequence`, its subscription
    /// scheduled on the trampoline (or `subscribe(on:)` another scheduler).
    public static func of(_ elements: Element...,
                          scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        sequence(elements, scheduler: scheduler)
    }

    /// RxSwift's `Observable.from` for an array, delivered as ``of(_:scheduler:)`` delivers.
    /// Sluice: `Publishers.Sequence`, as for `of`.
    public static func from(_ array: [Element],
                            scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        sequence(array, scheduler: scheduler)
    }

    /// RxSwift's `Observable.from` for a sequence, delivered as ``of(_:scheduler:)`` delivers.
    /// Sluice: `Publishers.Sequence`, as for `of`.
    public static func from<S: Sequence>(_ sequence: S,
                                         scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance)
        -> Observable<Element> where S.Element == Element
    {
        self.sequence(sequence, scheduler: scheduler)
    }

    /// RxSwift's `Observable.from(optional:)`: the element if there is one, then completion.
    /// Sluice: `Optional.Publisher`.
    public static func from(optional: Element?) -> Observable<Element> {
        Observable(Optional.Publisher(optional).setFailureType(to: Swift.Error.self))
    }

    /// RxSwift's `Observable.just`: one element and completion, during the subscription.
    /// Sluice: `Just`.
    public static func just(_ element: Element) -> Observable<Element> {
        Observable(Just(element).setFailureType(to: Swift.Error.self))
    }

    /// RxSwift's `Observable.just(_:scheduler:)`: the element and completion, on `scheduler`.
    /// Sluice: `Just` + `subscribe(on:)`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Observable<Element> {
        Observable(Just(element).setFailureType(to: Swift.Error.self).subscribe(on: scheduler.sluiceScheduler))
    }

    /// RxSwift's `Observable.empty`: completion, at once. Sluice: `Empty`.
    public static func empty() -> Observable<Element> {
        Observable(Empty<Element, Swift.Error>())
    }

    /// RxSwift's `Observable.never`: nothing, ever. Sluice: `Empty(completeImmediately: false)`.
    public static func never() -> Observable<Element> {
        Observable(Empty<Element, Swift.Error>(completeImmediately: false))
    }

    /// RxSwift's `Observable.error`: the error, at once. Sluice: `Fail`.
    public static func error(_ error: Swift.Error) -> Observable<Element> {
        Observable(Fail<Element, Swift.Error>(error: error))
    }

    /// RxSwift's `Observable.deferred`: a fresh observable from `factory` for each subscription;
    /// an error the factory throws is the sequence's error. Sluice: `Deferred` (and `Fail`).
    public static func deferred(_ factory: @escaping () throws -> Observable<Element>) -> Observable<Element> {
        Observable(Deferred { () -> AnyPublisher<Element, Swift.Error> in
            do {
                return try factory().publisher
            } catch {
                return Fail(error: error).eraseToAnyPublisher()
            }
        })
    }

    /// RxSwift's `Observable.concat`: each sequence in turn, the next subscribed when the one
    /// before completes; an error ends it all. Sluice: `append` (`Publishers.Concatenate`).
    public static func concat(_ sources: Observable<Element>...) -> Observable<Element> {
        concat(sources)
    }

    /// RxSwift's `Observable.concat` for a collection of sequences.
    /// Sluice: `append` (`Publishers.Concatenate`), folded; `Empty` for no sequences.
    public static func concat<C: Collection>(_ sources: C) -> Observable<Element> where C.Element == Observable<Element> {
        guard let first = sources.first else { return empty() }
        return Observable(sources.dropFirst().reduce(first.publisher) { $0.append($1.publisher).eraseToAnyPublisher() })
    }

    /// RxSwift's `Observable.repeatElement`: the element for ever, delivered as
    /// ``of(_:scheduler:)`` delivers; dispose it (or `take`) to stop.
    /// Sluice: `Publishers.Sequence` of `repeatElement(_:count:)`.
    public static func repeatElement(_ element: Element,
                                     scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance)
        -> Observable<Element>
    {
        sequence(Swift.repeatElement(element, count: Int.max), scheduler: scheduler)
    }

    /// A sequence publisher started as RxSwift starts `of`: on the trampoline, or subscribed on
    /// another scheduler.
    private static func sequence<S: Sequence>(_ elements: S, scheduler: ImmediateSchedulerType) -> Observable<Element>
        where S.Element == Element
    {
        let publisher = Publishers.Sequence<S, Swift.Error>(sequence: elements)
        if scheduler is CurrentThreadScheduler {
            return Observable(TrampolineScheduledSubscribe(upstream: publisher))
        }
        return Observable(publisher.subscribe(on: scheduler.sluiceScheduler))
    }
}

extension ObservableType where Element: FixedWidthInteger {
    /// RxSwift's `Observable.range`: `count` integers from `start`, then completion, delivered
    /// as ``of(_:scheduler:)`` delivers. Sluice: `Publishers.Sequence` of the range.
    public static func range(start: Element, count: Element,
                             scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance) -> Observable<Element> {
        precondition(count >= 0, "count can't be negative")
        let publisher = Publishers.Sequence<Range<Element>, Swift.Error>(sequence: start..<(start + count))
        if scheduler is CurrentThreadScheduler {
            return Observable(TrampolineScheduledSubscribe(upstream: publisher))
        }
        return Observable(publisher.subscribe(on: scheduler.sluiceScheduler))
    }

    /// RxSwift's `Observable.timer(_:scheduler:)`: `0` after `dueTime`, then completion.
    /// Sluice: `Just` + `delay(for:scheduler:)`.
    public static func timer(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Observable(Just(Element.zero).setFailureType(to: Swift.Error.self)
            .delay(for: .init(dueTime), scheduler: scheduler.sluiceScheduler))
    }

    /// RxSwift's `Observable.interval`: `0, 1, 2, …`, one every `period` on the scheduler.
    /// Sluice: the scheduler's repeating `schedule(after:interval:tolerance:options:_:)`, inside
    /// an `Observable.create`.
    public static func interval(_ period: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        let engine = scheduler.sluiceScheduler
        return create { observer in
            let counter = LockedBox<Element>(0)
            let cancellable = engine.schedule(after: engine.now.advanced(by: .init(period)), interval: .init(period),
                                              tolerance: engine.minimumTolerance, options: nil) {
                let value = counter.mutate { current -> Element in
                    defer { current += 1 }
                    return current
                }
                observer.onNext(value)
            }
            return Disposables.create { cancellable.cancel() }
        }
    }
}

/// The publisher behind `Observable.create`.
internal struct CreatePublisher<Element>: Publisher {
    typealias Output = Element
    typealias Failure = Swift.Error

    let subscribeHandler: (AnyObserver<Element>) -> Disposable

    func receive<S: Subscriber>(subscriber: S) where S.Input == Element, S.Failure == Swift.Error {
        subscriber.receive(subscription: CreateSubscription(downstream: subscriber, handler: subscribeHandler))
    }
}

/// One subscription of an `Observable.create`: runs the closure on the first request, passes
/// the observer's events on while there is demand, and disposes the closure's disposable once
/// at the end.
internal final class CreateSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    @unchecked Sendable where Downstream.Failure == Swift.Error
{
    private enum State {
        case idle(Downstream)
        case running(Downstream)
        case terminal
    }

    private let lock = Lock()
    private var state: State
    private var demand = Subscribers.Demand.none
    private var handler: ((AnyObserver<Downstream.Input>) -> Disposable)?
    private var disposable: Disposable?

    init(downstream: Downstream, handler: @escaping (AnyObserver<Downstream.Input>) -> Disposable) {
        state = .idle(downstream)
        self.handler = handler
    }

    var description: String { "Create" }

    func request(_ more: Subscribers.Demand) {
        let start = lock.locked { () -> ((AnyObserver<Downstream.Input>) -> Disposable)? in
            demand += more
            guard case .idle(let downstream) = state, let handler else { return nil }
            state = .running(downstream)
            self.handler = nil
            return handler
        }
        guard let start else { return }
        let produced = start(AnyObserver { event in self.on(event) })
        let disposeNow = lock.locked { () -> Bool in
            if case .terminal = state { return true }
            disposable = produced
            return false
        }
        if disposeNow { produced.dispose() }
    }

    func cancel() {
        let (previous, taken, handler) = lock.locked {
            () -> (State, Disposable?, ((AnyObserver<Downstream.Input>) -> Disposable)?) in
            defer {
                state = .terminal
                disposable = nil
                self.handler = nil
            }
            return (state, disposable, self.handler)
        }
        taken?.dispose()
        withExtendedLifetime((previous, handler)) {}
    }

    private func on(_ event: Event<Downstream.Input>) {
        switch event {
        case .next(let element):
            let downstream = lock.locked { () -> Downstream? in
                guard case .running(let downstream) = state, demand > 0 else { return nil }
                demand -= 1
                return downstream
            }
            guard let downstream else { return }
            let more = downstream.receive(element)
            if more > 0 { lock.locked { demand += more } }
        case .error, .completed:
            let (previous, taken) = lock.locked { () -> (State, Disposable?) in
                guard case .running = state else { return (.terminal, nil) }
                defer {
                    state = .terminal
                    disposable = nil
                }
                return (state, disposable)
            }
            guard case .running(let downstream) = previous, let completion = event.completion else { return }
            downstream.receive(completion: completion)
            taken?.dispose()
        }
    }
}
