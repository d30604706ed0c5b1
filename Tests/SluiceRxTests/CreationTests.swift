import Foundation
import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceRx
import SluiceTesting

@Suite("Creating observables")
struct CreationTests {
    @Test("create: the closure's disposable is disposed once, after the terminal event is passed on")
    func createDisposesAfterTerminal() {
        let log = History()
        let source = Observable<Int>.create { observer in
            log.append("subscribed")
            observer.onNext(1)
            observer.onCompleted()
            observer.onNext(2)                       // after the end: ignored
            return Disposables.create { log.append("disposed") }
        }
        let subscription = source.subscribe(onNext: { log.append("next \($0)") },
                                            onCompleted: { log.append("completed") })
        subscription.dispose()
        #expect(log.all == ["subscribed", "next 1", "completed", "disposed"])
    }

    @Test("create: disposing the subscription disposes the closure's disposable; later events are ignored")
    func createDisposedBySubscriber() {
        let log = History()
        var captured: AnyObserver<Int>?
        let source = Observable<Int>.create { observer in
            captured = observer
            return Disposables.create { log.append("disposed") }
        }
        let subscription = source.subscribe(onNext: { log.append("next \($0)") })
        captured?.onNext(1)
        subscription.dispose()
        captured?.onNext(2)
        subscription.dispose()
        #expect(log.all == ["next 1", "disposed"])
    }

    @Test("create runs its closure once per subscription")
    func createIsCold() {
        let count = Counter()
        let source = Observable<Int>.create { observer in
            count.increment()
            observer.onNext(1)
            return Disposables.create()
        }
        _ = source.subscribe()
        _ = source.subscribe()
        #expect(count.value == 2)
    }

    @Test("of, from and range deliver from a scheduled step, still before subscribe returns")
    func sequencesAreTrampolined() {
        for source in [Observable.of(1, 2), Observable.from([1, 2]), Observable.range(start: 1, count: 2)] {
            let log = History()
            _ = source.do(onSubscribed: { log.append("subscribed") })
                .subscribe(onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") })
            #expect(log.all == ["subscribed", "next 1", "next 2", "completed"])
        }
    }

    /// RxSwift schedules each element of `of` as its own trampoline step, so there the inner
    /// sequence would run between "outer a done" and "outer b"; SluiceRx schedules the start of
    /// the sequence only, so the inner ones run after the outer sequence's step.
    @Test("a sequence started while the trampoline runs waits its turn, behind the running step")
    func nestedSubscriptionWaits() {
        let log = History()
        _ = Observable.of("a", "b").subscribe(onNext: { outer in
            log.append("outer \(outer)")
            _ = Observable.of(1).subscribe(onNext: { log.append("inner \(outer)\($0)") })
            log.append("outer \(outer) done")
        })
        #expect(log.all == ["outer a", "outer a done", "outer b", "outer b done", "inner a1", "inner b1"])
    }

    @Test("take on a long (or endless) sequence stops it at once: cancels go straight to the source")
    func takeStopsTheSequence() {
        let produced = Counter()
        let values = rxRecord(Observable.repeatElement(7).do(onNext: { _ in produced.increment() }).take(3))
        #expect(values == ["7", "7", "7", "|"])
        #expect(produced.value == 3)
    }

    @Test("just, empty, never, error, from(optional:)")
    func simpleSources() {
        #expect(rxRecord(Observable.just(1)) == ["1", "|"])
        #expect(rxRecord(Observable<Int>.empty()) == ["|"])
        #expect(rxRecord(Observable<Int>.never()) == [])
        #expect(rxRecord(Observable<Int>.error(RxTestError.boom)) == ["x(boom)"])
        #expect(rxRecord(Observable.from(optional: 3)) == ["3", "|"])
        #expect(rxRecord(Observable<Int>.from(optional: nil)) == ["|"])
    }

    @Test("concat subscribes to each in turn; an error ends it")
    func concat() {
        #expect(rxRecord(Observable.concat(.of(1, 2), .just(3), .of(4))) == ["1", "2", "3", "4", "|"])
        #expect(rxRecord(Observable.concat(.just(1), .error(RxTestError.boom), .just(3))) == ["1", "x(boom)"])
        #expect(rxRecord(Observable<Int>.concat([])) == ["|"])
    }

    @Test("deferred calls the factory for each subscription; a thrown error is the sequence's error")
    func deferred() {
        let count = Counter()
        let source = Observable.deferred { () -> Observable<Int> in
            count.increment()
            return .just(count.value)
        }
        #expect(rxRecord(source) == ["1", "|"])
        #expect(rxRecord(source) == ["2", "|"])
        #expect(rxRecord(Observable<Int>.deferred { throw RxTestError.boom }) == ["x(boom)"])
    }

    @Test("a Sluice publisher as an observable, and an observable as a Sluice publisher")
    func publisherBridge() throws {
        let fromPublisher = [1, 2].publisher.setFailureType(to: Error.self).asObservable()
        #expect(rxRecord(fromPublisher) == ["1", "2", "|"])
        let values = try Observable.of(3, 4).asPublisher().blocking(timeout: 5).values()
        #expect(values == [3, 4])
    }
}
