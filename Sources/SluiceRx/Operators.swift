import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers

// Each operator is the Sluice operator its documentation names, applied to the observable's
// publisher. Closures may throw, as RxSwift's do: a thrown error ends the sequence with that
// error, which is why the `try` forms of Sluice's operators appear below.

extension ObservableType {
    // MARK: Transforming

    /// RxSwift's `map`: each element transformed; a thrown error ends the sequence.
    /// Sluice: `tryMap`.
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        Observable(source.tryMap(transform))
    }

    /// RxSwift's `compactMap`: the non-`nil` results. Sluice: `tryCompactMap`.
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Observable<Result> {
        Observable(source.tryCompactMap(transform))
    }

    /// RxSwift's `filter`: the elements that satisfy `predicate`. Sluice: `tryFilter`.
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        Observable(source.tryFilter(predicate))
    }

    /// RxSwift's `flatMap`: subscribes to the sequence made from each element and merges all of
    /// them, each inner subscription kept until it ends. Sluice: `tryMap` + `flatMap`.
    public func flatMap<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        Observable(source.tryMap(selector).flatMap { $0.asObservable().publisher })
    }

    /// RxSwift's `flatMapLatest`: subscribes to the sequence made from each element and
    /// disposes the previous inner subscription when the next element arrives; disposing the
    /// chain disposes the current one. Sluice: `tryMap` + `switchToLatest` (what Sluice's own
    /// `flatMapLatest` is, with a throwing transform).
    public func flatMapLatest<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        Observable(source.tryMap { try selector($0).asObservable().publisher }.switchToLatest())
    }

    /// RxSwift's `concatMap`: the sequences made from each element, one after the other; the
    /// elements that arrive meanwhile wait in an unbounded queue, as in RxSwift.
    /// Sluice: `buffer(size: .max, …)` + `tryMap` + `flatMap(maxPublishers: .max(1))`.
    public func concatMap<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source)
        -> Observable<Source.Element>
    {
        Observable(source.buffer(size: .max, prefetch: .keepFull, whenFull: .dropNewest)
            .tryMap(selector)
            .flatMap(maxPublishers: .max(1)) { $0.asObservable().publisher })
    }

    /// RxSwift's `scan`: each accumulated value, starting from `seed`. Sluice: `tryScan`.
    public func scan<A>(_ seed: A, accumulator: @escaping (A, Element) throws -> A) -> Observable<A> {
        Observable(source.tryScan(seed, accumulator))
    }

    /// RxSwift 6's `scan(into:accumulator:)`: `scan` with an `inout` accumulator.
    /// Sluice: `tryScan`.
    public func scan<A>(into seed: A, accumulator: @escaping (inout A, Element) throws -> Void) -> Observable<A> {
        Observable(source.tryScan(seed) { current, element in
            var next = current
            try accumulator(&next, element)
            return next
        })
    }

    /// RxSwift's `reduce`: the final accumulated value, when the sequence completes.
    /// Sluice: `tryReduce`.
    public func reduce<A>(_ seed: A, accumulator: @escaping (A, Element) throws -> A) -> Observable<A> {
        Observable(source.tryReduce(seed, accumulator))
    }

    /// RxSwift's `toArray`, as an observable: all elements in one array, on completion.
    /// Sluice: `collect()`.
    public func toArray() -> Observable<[Element]> {
        Observable(source.collect())
    }

    /// RxSwift's `startWith`: the given elements first, then the sequence. Sluice: `prepend`.
    public func startWith(_ elements: Element...) -> Observable<Element> {
        Observable(source.prepend(elements))
    }

    /// RxSwift's `materialize`: every event as an element, then completion; the sequence
    /// itself never fails. Sluice: `map` + `append` + `catch`.
    public func materialize() -> Observable<Event<Element>> {
        Observable(source.map { Event.next($0) }
            .append(Just(Event<Element>.completed).setFailureType(to: Swift.Error.self))
            .catch { Just(Event<Element>.error($0)) }
            .setFailureType(to: Swift.Error.self))
    }

    // MARK: Filtering

    /// RxSwift's `take(_:)`: the first `count` elements, completing (and disposing the source)
    /// right after the last of them, as RxSwift does.
    ///
    /// Sluice: `first()` for one element. Sluice's `prefix(_:)`, like Combine's, finishes only
    /// when the element after the last arrives, which for a subject may be never; this operator
    /// finishes as soon as the `count`-th element has been delivered.
    public func take(_ count: Int) -> Observable<Element> {
        precondition(count >= 0, "take count must be non-negative")
        if count == 0 { return Observable.empty() }
        return Observable(TakeCount(upstream: source, count: count))
    }

    /// RxSwift's `take(while:)`: elements while `predicate` holds. Sluice: `tryPrefix(while:)`.
    public func take(while predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        Observable(source.tryPrefix(while: predicate))
    }

    /// RxSwift's `take(until:)`: elements until `other` emits.
    /// Sluice: `prefix(untilOutputFrom:)`.
    public func take<Other: ObservableConvertibleType>(until other: Other) -> Observable<Element> {
        Observable(source.prefix(untilOutputFrom: other.source))
    }

    /// RxSwift's `skip(_:)`: all but the first `count` elements. Sluice: `dropFirst`.
    public func skip(_ count: Int) -> Observable<Element> {
        Observable(source.dropFirst(count))
    }

    /// RxSwift's `skip(while:)`: elements from the first that fails `predicate`.
    /// Sluice: `tryDrop(while:)`.
    public func skip(while predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        Observable(source.tryDrop(while: predicate))
    }

    /// RxSwift's `skip(until:)`: elements after `other` first emits.
    /// Sluice: `drop(untilOutputFrom:)`.
    public func skip<Other: ObservableConvertibleType>(until other: Other) -> Observable<Element> {
        Observable(source.drop(untilOutputFrom: other.source))
    }

    /// RxSwift's `distinctUntilChanged(_:)` with a comparer: drops an element the comparer
    /// finds equal to the one before. Sluice: `tryRemoveDuplicates(by:)`.
    public func distinctUntilChanged(_ comparer: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        Observable(source.tryRemoveDuplicates(by: comparer))
    }

    /// RxSwift's `distinctUntilChanged(_:)` with a key: drops an element whose key equals the
    /// previous element's. Sluice: `tryRemoveDuplicates(by:)`.
    public func distinctUntilChanged<Key: Equatable>(_ keySelector: @escaping (Element) throws -> Key) -> Observable<Element> {
        Observable(source.tryRemoveDuplicates { try keySelector($0) == keySelector($1) })
    }

    // MARK: Errors

    /// RxSwift's `catchAndReturn`: on error, the given element and completion.
    /// Sluice: `replaceError(with:)`.
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        Observable(source.replaceError(with: element).setFailureType(to: Swift.Error.self))
    }

    /// RxSwift's `catch`: on error, continues with the sequence `handler` makes from it.
    /// Sluice: `tryCatch`.
    public func `catch`(_ handler: @escaping (Swift.Error) throws -> Observable<Element>) -> Observable<Element> {
        Observable(source.tryCatch { try handler($0).publisher })
    }

    /// RxSwift's `retry()`: resubscribes after every error, for ever. Sluice: `retry(.max)`.
    public func retry() -> Observable<Element> {
        Observable(source.retry(.max))
    }

    /// RxSwift's `retry(_:)`: at most `maxAttemptCount` subscriptions in all, the first
    /// included, then the last error. Sluice: `retry(maxAttemptCount - 1)` (Combine counts
    /// retries, RxSwift counts attempts).
    public func retry(_ maxAttemptCount: Int) -> Observable<Element> {
        Observable(source.retry(Swift.max(0, maxAttemptCount - 1)))
    }

    // MARK: Threads and time

    /// RxSwift's `observe(on:)`: every event below this point is delivered on `scheduler`.
    /// Sluice: `receive(on:)`. On a scheduler that is not serial, events are still delivered
    /// one at a time and in order, as in RxSwift, because Sluice's `receive(on:)` keeps its own
    /// queue of pending events.
    public func observe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        Observable(source.receive(on: scheduler.sluiceScheduler))
    }

    /// RxSwift 5's `observeOn(_:)`: `observe(on:)` under its old name. Sluice: `receive(on:)`.
    @available(*, deprecated, renamed: "observe(on:)")
    public func observeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        observe(on: scheduler)
    }

    /// RxSwift's `subscribe(on:)`: the subscription to everything above this point, and so the
    /// work of a source that does it when subscribed (a `create` closure, `of`), happens on
    /// `scheduler`, as do disposals. Sluice: `subscribe(on:)`. Its position in the chain does
    /// not matter, and with several, the one closest to the source decides where the source
    /// runs: it is the last to move the subscription before the source sees it. It does not
    /// move elements a source sends later from its own thread.
    public func subscribe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        Observable(source.subscribe(on: scheduler.sluiceScheduler))
    }

    /// RxSwift 5's `subscribeOn(_:)`: `subscribe(on:)` under its old name.
    /// Sluice: `subscribe(on:)`.
    @available(*, deprecated, renamed: "subscribe(on:)")
    public func subscribeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        subscribe(on: scheduler)
    }

    /// RxSwift's `debounce`: an element once `dueTime` has passed without another.
    /// Sluice: `debounce(for:scheduler:)`.
    public func debounce(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Observable(source.debounce(for: .init(dueTime), scheduler: scheduler.sluiceScheduler))
    }

    /// RxSwift's `throttle`: at most one element per `dueTime`, the latest (or with
    /// `latest: false`, the first) of each window. Sluice: `throttle(for:scheduler:latest:)`.
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true, scheduler: SchedulerType) -> Observable<Element> {
        Observable(source.throttle(for: .init(dueTime), scheduler: scheduler.sluiceScheduler, latest: latest))
    }

    /// RxSwift's `delay`: every event `dueTime` later, on `scheduler`.
    /// Sluice: `delay(for:scheduler:)`.
    public func delay(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Observable(source.delay(for: .init(dueTime), scheduler: scheduler.sluiceScheduler))
    }

    // MARK: Sharing

    /// RxSwift's `share(replay:scope:)`: one subscription to the source for all subscribers,
    /// replaying the last `replay` elements to each new one.
    ///
    /// `.whileConnected` (the default): when the last subscriber leaves, or the source ends, the
    /// connection and what it would replay are dropped, and the next subscriber subscribes to
    /// the source afresh (a fresh Sluice `share()`/`share(replay:)` per connection).
    /// `.forever`: one subject for the observable's lifetime, so a later subscriber gets the
    /// replay and the terminal event without resubscribing (Sluice's `share()`/`share(replay:)`
    /// themselves).
    ///
    /// Sluice: `share()`, or `share(replay:)` when `replay` is above 0.
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        precondition(replay >= 0, "share(replay:) requires a non-negative count")
        switch scope {
        case .forever:
            return replay == 0 ? Observable(source.share()) : Observable(source.share(replay: replay))
        case .whileConnected:
            return Observable(WhileConnectedShare(upstream: source, replay: replay))
        }
    }
}

extension ObservableType where Element: Equatable {
    /// RxSwift's `distinctUntilChanged()`: drops an element equal to the one before.
    /// Sluice: `removeDuplicates()`.
    public func distinctUntilChanged() -> Observable<Element> {
        Observable(source.removeDuplicates())
    }
}

extension ObservableType where Element: ObservableConvertibleType {
    /// RxSwift's `merge()`: the elements of every inner sequence, as they arrive.
    /// Sluice: `flatMap`.
    public func merge() -> Observable<Element.Element> {
        Observable(source.flatMap { $0.asObservable().publisher })
    }

    /// RxSwift's `switchLatest()`: the elements of the latest inner sequence.
    /// Sluice: `map` + `switchToLatest`.
    public func switchLatest() -> Observable<Element.Element> {
        Observable(source.map { $0.asObservable().publisher }.switchToLatest())
    }

    /// RxSwift's `concat()`: the inner sequences one after the other.
    /// Sluice: `buffer` + `flatMap(maxPublishers: .max(1))`, through `concatMap`.
    public func concat() -> Observable<Element.Element> {
        concatMap { $0 }
    }
}

extension ObservableType {
    /// RxSwift's `dematerialize()` for an observable of events: the events themselves.
    /// Sluice: `prefix(while:)` + `tryMap`.
    public func dematerialize<Inner>() -> Observable<Inner> where Element == Event<Inner> {
        Observable(source.prefix { !$0.isCompleted }.tryMap { event -> Inner in
            switch event {
            case .next(let element): return element
            case .error(let error): throw error
            case .completed: preconditionFailure("unreachable: prefix(while:) stops at .completed")
            }
        })
    }

    // MARK: Combining

    /// RxSwift's `Observable.merge`: the elements of all the sequences, as they arrive; an
    /// error from any ends it. Sluice: `Publishers.MergeMany`.
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        merge(sources)
    }

    /// RxSwift's `Observable.merge` for a collection. Sluice: `Publishers.MergeMany`.
    public static func merge<C: Collection>(_ sources: C) -> Observable<Element> where C.Element == Observable<Element> {
        Observable(Publishers.MergeMany(sources.map(\.publisher)))
    }

    /// RxSwift's `Observable.combineLatest` of two: the selector's result for the latest
    /// element of each, once both have one. Sluice: `combineLatest` + `tryMap`.
    public static func combineLatest<O1: ObservableType, O2: ObservableType>(
        _ source1: O1, _ source2: O2, resultSelector: @escaping (O1.Element, O2.Element) throws -> Element
    ) -> Observable<Element> {
        Observable(source1.source.combineLatest(source2.source).tryMap { try resultSelector($0, $1) })
    }

    /// RxSwift's `Observable.combineLatest` of three. Sluice: `combineLatest` + `tryMap`.
    public static func combineLatest<O1: ObservableType, O2: ObservableType, O3: ObservableType>(
        _ source1: O1, _ source2: O2, _ source3: O3,
        resultSelector: @escaping (O1.Element, O2.Element, O3.Element) throws -> Element
    ) -> Observable<Element> {
        Observable(source1.source.combineLatest(source2.source, source3.source).tryMap { try resultSelector($0, $1, $2) })
    }

    /// RxSwift's `Observable.zip` of two: the selector's result for each pair of elements taken
    /// in order. Sluice: `zip` + `tryMap`.
    public static func zip<O1: ObservableType, O2: ObservableType>(
        _ source1: O1, _ source2: O2, resultSelector: @escaping (O1.Element, O2.Element) throws -> Element
    ) -> Observable<Element> {
        Observable(source1.source.zip(source2.source).tryMap { try resultSelector($0, $1) })
    }

    /// RxSwift's `Observable.zip` of three. Sluice: `zip` + `tryMap`.
    public static func zip<O1: ObservableType, O2: ObservableType, O3: ObservableType>(
        _ source1: O1, _ source2: O2, _ source3: O3,
        resultSelector: @escaping (O1.Element, O2.Element, O3.Element) throws -> Element
    ) -> Observable<Element> {
        Observable(source1.source.zip(source2.source, source3.source).tryMap { try resultSelector($0, $1, $2) })
    }

    /// RxSwift's `Observable.combineLatest` of a collection: the latest element of each, as an
    /// array, once all have one. Sluice: SluiceExtras' `combineLatest()` of a collection (one
    /// array per event); completes at once for none.
    public static func combineLatest<C: Collection>(_ collection: C) -> Observable<[Element]>
        where C.Element: ObservableType, C.Element.Element == Element
    {
        Observable<[Element]>(collection.map(\.source).combineLatest())
    }

    /// RxSwift's `Observable.zip` of a collection: one element of each, as an array, in order.
    /// Sluice: SluiceExtras' `zip()` of a collection; completes at once for none.
    public static func zip<C: Collection>(_ collection: C) -> Observable<[Element]>
        where C.Element: ObservableType, C.Element.Element == Element
    {
        Observable<[Element]>(collection.map(\.source).zip())
    }
}

extension ObservableType {
    /// RxSwift's `Observable.combineLatest` of two without a selector: the pairs.
    /// Sluice: `combineLatest` + `map`.
    public static func combineLatest<O1: ObservableType, O2: ObservableType>(_ source1: O1, _ source2: O2)
        -> Observable<(O1.Element, O2.Element)> where Element == (O1.Element, O2.Element)
    {
        Observable(source1.source.combineLatest(source2.source).map { ($0, $1) })
    }

    /// RxSwift's `Observable.zip` of two without a selector: the pairs. Sluice: `zip` + `map`.
    public static func zip<O1: ObservableType, O2: ObservableType>(_ source1: O1, _ source2: O2)
        -> Observable<(O1.Element, O2.Element)> where Element == (O1.Element, O2.Element)
    {
        Observable(source1.source.zip(source2.source).map { ($0, $1) })
    }
}

/// RxSwift's `SubjectLifetimeScope`: how long `share(replay:scope:)` keeps its connection.
/// Sluice: none; it picks one `share()`/`share(replay:)` for ever, or a fresh one per connection.
public enum SubjectLifetimeScope: Sendable {
    /// A connection per run of subscribers: dropped when the last one leaves or the source ends.
    case whileConnected
    /// One subject for ever: later subscribers get its replay and terminal event.
    case forever
}

/// `share(replay:scope: .whileConnected)`: a fresh Sluice share per connection, dropped when the
/// last subscriber leaves or the source ends.
internal final class WhileConnectedShare<Element>: Publisher, @unchecked Sendable {
    typealias Output = Element
    typealias Failure = Swift.Error

    private let upstream: AnyPublisher<Element, Swift.Error>
    private let replay: Int
    private let lock = Lock()
    private var connection: AnyPublisher<Element, Swift.Error>?
    private var generation: UInt64 = 0
    private var members = 0

    init(upstream: AnyPublisher<Element, Swift.Error>, replay: Int) {
        self.upstream = upstream
        self.replay = replay
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Element, S.Failure == Swift.Error {
        let (shared, generation) = lock.locked { () -> (AnyPublisher<Element, Swift.Error>, UInt64) in
            let shared: AnyPublisher<Element, Swift.Error>
            if let connection {
                shared = connection
            } else {
                shared = replay == 0 ? upstream.share().eraseToAnyPublisher()
                    : upstream.share(replay: replay).eraseToAnyPublisher()
                connection = shared
            }
            members += 1
            return (shared, self.generation)
        }
        shared.receive(subscriber: ShareMember(downstream: subscriber) { [weak self] ended in
            self?.leave(generation, sourceEnded: ended)
        })
    }

    /// A subscriber of `generation` left (or saw the source end): drop that connection when it
    /// was the last one, or at once when the source ended.
    private func leave(_ generation: UInt64, sourceEnded: Bool) {
        let dropped = lock.locked { () -> AnyPublisher<Element, Swift.Error>? in
            guard generation == self.generation else { return nil }
            members -= 1
            guard members == 0 || sourceEnded else { return nil }
            self.generation += 1
            members = 0
            defer { connection = nil }
            return connection
        }
        withExtendedLifetime(dropped) {}
    }
}

/// What SluiceRx's own subscriptions share: the upstream's first subscription is taken (a
/// second one cancelled, as every Sluice operator does) and the relay hands itself to the
/// downstream; requests go upstream; at the upstream's completion or a cancel the link ends
/// once, and the upstream and the downstream are let go of, so a subscriber that keeps its
/// subscription does not keep the chain alive.
private class Relay<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let lock = Lock()
    var downstream: Downstream?
    var status = SubscriptionStatus.awaitingSubscription

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// Runs under the lock when the link ends (`cancelled`: by the downstream); what it returns
    /// runs after unlocking, before a completion is handed on.
    func endingLocked(cancelled: Bool) -> (() -> Void)? { nil }

    final func receive(subscription: Subscription) {
        let target = lock.locked { () -> Downstream? in
            guard status.accept(subscription) else { return nil }
            return downstream
        }
        guard let target else {
            subscription.cancel()
            return
        }
        target.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let target = lock.locked({ status.isSubscribed ? downstream : nil }) else { return .none }
        return target.receive(input)
    }

    final func receive(completion: Subscribers.Completion<Failure>) {
        let (target, ended, after) = lock.locked { () -> (Downstream?, Subscription?, (() -> Void)?) in
            guard status.isSubscribed else { return (nil, nil, nil) }
            return (downstream.take(), status.end(), endingLocked(cancelled: false))
        }
        withExtendedLifetime(ended) {}
        after?()
        target?.receive(completion: completion)
    }

    final func request(_ demand: Subscribers.Demand) {
        lock.locked { status.subscription }?.request(demand)
    }

    final func cancel() {
        let (upstream, released, after) = lock.locked { () -> (Subscription?, Downstream?, (() -> Void)?) in
            (status.end(), downstream.take(), endingLocked(cancelled: true))
        }
        upstream?.cancel()
        withExtendedLifetime(released) {}
        after?()
    }
}

/// One subscriber of a `WhileConnectedShare`: reports, once, that it left (cancelled) or saw
/// the source end.
private final class ShareMember<Downstream: Subscriber>: Relay<Downstream>, @unchecked Sendable {
    private var onLeave: ((Bool) -> Void)?

    init(downstream: Downstream, onLeave: @escaping (Bool) -> Void) {
        self.onLeave = onLeave
        super.init(downstream: downstream)
    }

    override func endingLocked(cancelled: Bool) -> (() -> Void)? {
        onLeave.take().map { leave in { leave(!cancelled) } }
    }
}

/// `take(_:)`: forwards the first `count` elements, then cancels the source and finishes.
internal struct TakeCount<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream
    let count: Int

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.receive(subscriber: TakeCountSubscription(downstream: subscriber, count: count))
    }
}

private final class TakeCountSubscription<Downstream: Subscriber>: Relay<Downstream>, @unchecked Sendable {
    private var remaining: Int

    init(downstream: Downstream, count: Int) {
        remaining = count
        super.init(downstream: downstream)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        let taken = lock.locked { () -> (Downstream, last: Bool, Subscription?)? in
            guard status.isSubscribed, let downstream, remaining > 0 else { return nil }
            remaining -= 1
            guard remaining == 0 else { return (downstream, false, nil) }
            self.downstream = nil
            return (downstream, true, status.end())
        }
        guard let (target, last, upstream) = taken else { return .none }
        let demand = target.receive(input)
        guard last else { return demand }
        upstream?.cancel()
        target.receive(completion: .finished)
        return .none
    }
}
