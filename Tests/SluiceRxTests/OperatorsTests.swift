import Foundation
import Testing
import Sluice
import SluiceRx

@Suite("Operators")
struct OperatorsTests {
    @Test("map: a thrown error becomes the sequence's error and the rest is never transformed")
    func mapThrows() {
        let transformed = History()
        let parsed = Observable.of("1", "2", "x", "4").map { text -> Int in
            transformed.append(text)
            guard let number = Int(text) else { throw RxTestError.boom }
            return number
        }
        #expect(rxRecord(parsed) == ["1", "2", "x(boom)"])
        #expect(transformed.all == ["1", "2", "x"])
    }

    @Test("filter, compactMap, scan, scan(into:), reduce, toArray, startWith")
    func transforming() {
        #expect(rxRecord(Observable.of(1, 2, 3, 4).filter { $0.isMultiple(of: 2) }) == ["2", "4", "|"])
        #expect(rxRecord(Observable.of("1", "x", "3").compactMap { Int($0) }) == ["1", "3", "|"])
        #expect(rxRecord(Observable.of(1, 2, 3).scan(0, accumulator: +)) == ["1", "3", "6", "|"])
        #expect(rxRecord(Observable.of(1, 2).scan(into: [Int]()) { $0.append($1) }) == ["[1]", "[1, 2]", "|"])
        #expect(rxRecord(Observable.of(1, 2, 3).reduce(10, accumulator: +)) == ["16", "|"])
        #expect(rxRecord(Observable.of(1, 2).toArray()) == ["[1, 2]", "|"])
        #expect(rxRecord(Observable.of(3).startWith(1, 2)) == ["1", "2", "3", "|"])
    }

    @Test("take(n) completes and disposes the source right after the n-th element, as RxSwift's does")
    func takeCompletesAtOnce() {
        for count in [1, 2] {
            let subject = PublishSubject<Int>()
            let log = History()
            let recorder = EventRecorder(subject.do(onDispose: { log.append("source disposed") }).take(count))
            for value in 1...count { subject.onNext(value) }
            #expect(recorder.events == (1...count).map(String.init) + ["|"])
            #expect(log.all == ["source disposed"])
            #expect(!subject.hasObservers)
        }
        #expect(rxRecord(Observable.of(1, 2).take(0)) == ["|"])
    }

    @Test("take(n) as a publisher sends no more than the demand asked for and finishes after the n-th")
    func takeHonoursDemand() {
        let subject = PublishSubject<Int>()
        let subscriber = DemandOneSubscriber()
        subject.take(2).asPublisher().subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        subject.onNext(1)
        subject.onNext(99)            // beyond demand: the source's publisher holds or drops it
        #expect(subscriber.events == ["1"])
        subscriber.subscription?.request(.max(1))
        subject.onNext(2)
        #expect(subscriber.events == ["1", "2", "|"])
        #expect(!subject.hasObservers)
    }

    @Test("share(.whileConnected): a member cancelled while its subscription is still held releases its subscriber")
    func shareMemberReleasesItsSubscriber() {
        let source = PublishSubject<Int>()
        let shared = source.share()
        weak var released: DemandOneSubscriber?
        var kept: (any Subscription)?
        do {
            let subscriber = DemandOneSubscriber()
            released = subscriber
            shared.asPublisher().subscribe(subscriber)
            kept = subscriber.subscription
            subscriber.subscription = nil
        }
        #expect(released != nil)
        kept?.cancel()
        #expect(released == nil)
        #expect(!source.hasObservers)
        withExtendedLifetime(kept) {}
    }

    @Test("take, take(while:), take(until:), skip, skip(while:), skip(until:), distinctUntilChanged")
    func filtering() {
        #expect(rxRecord(Observable.of(1, 2, 3).take(2)) == ["1", "2", "|"])
        #expect(rxRecord(Observable.of(1, 2, 3, 1).take(while: { $0 < 3 })) == ["1", "2", "|"])
        #expect(rxRecord(Observable.of(1, 2, 3).skip(2)) == ["3", "|"])
        #expect(rxRecord(Observable.of(1, 2, 3, 1).skip(while: { $0 < 2 })) == ["2", "3", "1", "|"])
        #expect(rxRecord(Observable.of(1, 1, 2, 2, 1).distinctUntilChanged()) == ["1", "2", "1", "|"])
        #expect(rxRecord(Observable.of("a", "A", "b").distinctUntilChanged { $0.lowercased() }) == ["a", "b", "|"])
        #expect(rxRecord(Observable.of(1, 2, 4).distinctUntilChanged { abs($0 - $1) < 2 }) == ["1", "4", "|"])

        let source = PublishSubject<Int>()
        let stop = PublishSubject<Void>()
        let start = PublishSubject<Void>()
        let until = EventRecorder(source.take(until: stop))
        let after = EventRecorder(source.skip(until: start))
        source.onNext(1)
        start.onNext(())
        source.onNext(2)
        stop.onNext(())
        source.onNext(3)
        #expect(until.events == ["1", "2", "|"])
        #expect(after.events == ["2", "3"])
    }

    @Test("catchAndReturn, catch, retry(n) counting attempts as RxSwift does, retry() until it succeeds")
    func errors() {
        #expect(rxRecord(Observable.concat(.just(1), .error(RxTestError.boom)).catchAndReturn(9)) == ["1", "9", "|"])
        #expect(rxRecord(Observable<Int>.error(RxTestError.boom).catch { _ in .of(7, 8) }) == ["7", "8", "|"])
        #expect(rxRecord(Observable<Int>.error(RxTestError.boom).catch { _ in throw RxTestError.other(1) })
            == ["x(other(1))"])

        let attempts = Counter()
        let failing = Observable<Int>.deferred {
            attempts.increment()
            return .error(RxTestError.other(attempts.value))
        }
        #expect(rxRecord(failing.retry(3)) == ["x(other(3))"])
        #expect(attempts.value == 3)

        let tries = Counter()
        let flaky = Observable<Int>.deferred {
            tries.increment()
            return tries.value < 4 ? .error(RxTestError.boom) : .just(tries.value)
        }
        #expect(rxRecord(flaky.retry()) == ["4", "|"])
    }

    @Test("flatMap keeps every inner subscription; flatMapLatest disposes the previous one")
    func flatMapFamily() {
        let running = Counter()
        let disposed = Counter()
        func live(_ id: Int) -> Observable<String> {
            Observable.create { observer in
                running.increment()
                observer.onNext("details \(id)")
                return Disposables.create { disposed.increment() }
            }
        }
        let ids = PublishSubject<Int>()
        let merged = EventRecorder(ids.flatMap { live($0) })
        ids.onNext(1)
        ids.onNext(2)
        #expect(merged.events == ["details 1", "details 2"])
        #expect(running.value == 2 && disposed.value == 0)
        merged.subscription?.dispose()
        #expect(disposed.value == 2)

        let selections = PublishSubject<Int>()
        let latest = EventRecorder(selections.flatMapLatest { live($0) })
        selections.onNext(1)
        selections.onNext(2)
        selections.onNext(3)
        #expect(latest.events == ["details 1", "details 2", "details 3"])
        #expect(running.value - disposed.value == 1)
        latest.subscription?.dispose()
        #expect(running.value == disposed.value)
    }

    @Test("concatMap runs the inner sequences one after the other, queueing what arrives meanwhile")
    func concatMap() {
        let inners = [1: PublishSubject<String>(), 2: PublishSubject<String>()]
        let outer = PublishSubject<Int>()
        let recorder = EventRecorder(outer.concatMap { inners[$0]! })
        outer.onNext(1)
        outer.onNext(2)                              // waits: 1 is still running
        inners[2]!.onNext("2a")                      // not subscribed yet: lost, as in RxSwift
        inners[1]!.onNext("1a")
        inners[1]!.onCompleted()
        inners[2]!.onNext("2b")
        outer.onCompleted()
        inners[2]!.onCompleted()
        #expect(recorder.events == ["1a", "2b", "|"])
    }

    @Test("merge, switchLatest, concat of an observable of observables; Observable.merge")
    func higherOrder() {
        let a = Observable.of(1, 2)
        let b = Observable.of(3)
        #expect(rxRecord(Observable.of(a, b).merge()) == ["1", "2", "3", "|"])
        #expect(rxRecord(Observable.of(a, b).concat()) == ["1", "2", "3", "|"])
        // Each inner `of` starts from a trampoline step, so the second has replaced the first
        // before the first could emit; inner sequences that emit at once all get through.
        #expect(rxRecord(Observable.of(a, b).switchLatest()) == ["3", "|"])
        #expect(rxRecord(Observable.of(Observable.just(1), .just(2)).switchLatest()) == ["1", "2", "|"])
        let left = PublishSubject<Int>()
        let right = PublishSubject<Int>()
        let merged = EventRecorder(Observable.merge(left.asObservable(), right.asObservable()))
        left.onNext(1)
        right.onNext(2)
        left.onCompleted()
        right.onNext(3)
        right.onCompleted()
        #expect(merged.events == ["1", "2", "3", "|"])
    }

    @Test("combineLatest and zip: with a selector, as tuples, and over collections")
    func combining() {
        let left = PublishSubject<Int>()
        let right = PublishSubject<String>()
        let combined = EventRecorder(Observable.combineLatest(left, right) { "\($0)\($1)" })
        let zipped = EventRecorder(Observable.zip(left, right) { "\($0)\($1)" })
        let pairs = EventRecorder(Observable.combineLatest(left, right).map { "\($0.0)-\($0.1)" })
        left.onNext(1)
        left.onNext(2)
        right.onNext("a")
        right.onNext("b")
        left.onNext(3)
        #expect(combined.events == ["2a", "2b", "3b"])
        #expect(zipped.events == ["1a", "2b"])
        #expect(pairs.events == ["2-a", "2-b", "3-b"])
        #expect(rxRecord(Observable.zip([Observable.of(1, 2), .of(3, 4), .of(5, 6)])) == ["[1, 3, 5]", "[2, 4, 6]", "|"])
        #expect(rxRecord(Observable.combineLatest([Observable.just(1), .just(2)])) == ["[1, 2]", "|"])
    }

    @Test("materialize turns events into elements; dematerialize turns them back")
    func materialize() {
        let failing = Observable.concat(.just(1), .error(RxTestError.boom))
        #expect(rxRecord(failing.materialize()) == ["next(1)", "error(boom)", "|"])
        #expect(rxRecord(Observable.of(1).materialize()) == ["next(1)", "completed", "|"])
        #expect(rxRecord(failing.materialize().dematerialize()) == ["1", "x(boom)"])
        #expect(rxRecord(Observable.of(1, 2).materialize().dematerialize()) == ["1", "2", "|"])
    }

    @Test("share(replay:scope: .whileConnected) subscribes once while connected and afresh after")
    func shareWhileConnected() {
        let subscriptions = Counter()
        let source = PublishSubject<Int>()
        let shared = source.do(onSubscribe: { subscriptions.increment() }).share(replay: 1)
        let first = EventRecorder(shared)
        source.onNext(1)
        let second = EventRecorder(shared)
        source.onNext(2)
        #expect(subscriptions.value == 1)
        #expect(first.events == ["1", "2"])
        #expect(second.events == ["1", "2"])
        first.subscription?.dispose()
        second.subscription?.dispose()
        let third = EventRecorder(shared)             // a new connection: no replay of 2
        source.onNext(3)
        #expect(subscriptions.value == 2)
        #expect(third.events == ["3"])
        // After the source ends, the next subscriber subscribes again.
        let finite = Observable.of(1, 2).do(onSubscribe: { subscriptions.increment() }).share()
        #expect(rxRecord(finite) == ["1", "2", "|"])
        #expect(rxRecord(finite) == ["1", "2", "|"])
        #expect(subscriptions.value == 4)
    }

    @Test("share(replay:scope: .forever) keeps one subject: a later subscriber gets the replay and the end")
    func shareForever() {
        let subscriptions = Counter()
        let shared = Observable.of(1, 2, 3).do(onSubscribe: { subscriptions.increment() })
            .share(replay: 2, scope: .forever)
        #expect(rxRecord(shared) == ["1", "2", "3", "|"])
        #expect(rxRecord(shared) == ["2", "3", "|"])
        #expect(subscriptions.value == 1)
    }
}

/// A subscriber that asks for nothing itself and records what it gets.
private final class DemandOneSubscriber: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Swift.Error
    var subscription: (any Subscription)?
    var events: [String] = []

    func receive(subscription: any Subscription) { self.subscription = subscription }
    func receive(_ input: Int) -> Subscribers.Demand {
        events.append(String(input))
        return .none
    }
    func receive(completion: Subscribers.Completion<Swift.Error>) { events.append("|") }
}
