import Foundation
import Testing
import SluiceRx

@Suite("Subjects and relays")
struct SubjectsTests {
    @Test("PublishSubject: only what is sent after subscribing; after the end, late subscribers get the end")
    func publishSubject() {
        let subject = PublishSubject<Int>()
        #expect(!subject.hasObservers)
        subject.onNext(0)
        let early = EventRecorder(subject)
        #expect(subject.hasObservers)
        subject.onNext(1)
        let late = EventRecorder(subject)
        subject.onNext(2)
        subject.onError(RxTestError.boom)
        subject.onNext(3)
        #expect(early.events == ["1", "2", "x(boom)"])
        #expect(late.events == ["2", "x(boom)"])
        #expect(rxRecord(subject) == ["x(boom)"])
        #expect(!subject.hasObservers)
    }

    @Test("BehaviorSubject: the current value first, then later ones; value() throws after an error")
    func behaviorSubject() throws {
        let subject = BehaviorSubject(value: 1)
        let first = EventRecorder(subject)
        subject.onNext(2)
        let second = EventRecorder(subject)
        #expect(try subject.value() == 2)
        subject.onError(RxTestError.boom)
        #expect(first.events == ["1", "2", "x(boom)"])
        #expect(second.events == ["2", "x(boom)"])
        #expect(throws: RxTestError.self) { try subject.value() }
    }

    @Test("ReplaySubject: the last bufferSize elements to each new subscriber, then the end")
    func replaySubject() {
        let subject = ReplaySubject<Int>.create(bufferSize: 2)
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        #expect(EventRecorder(subject).events == ["2", "3"])
        subject.onCompleted()
        #expect(rxRecord(subject) == ["2", "3", "|"])
        let unbounded = ReplaySubject<Int>.createUnbounded()
        for value in 0..<5 { unbounded.onNext(value) }
        #expect(EventRecorder(unbounded).events == ["0", "1", "2", "3", "4"])
    }

    @Test("a disposed subject ignores events and refuses new subscribers with RxError.disposed")
    func disposedSubject() {
        let subject = PublishSubject<Int>()
        let recorder = EventRecorder(subject)
        subject.onNext(1)
        subject.dispose()
        subject.onNext(2)
        #expect(subject.isDisposed)
        #expect(recorder.events == ["1"])
        let refused = rxRecord(subject)
        #expect(refused.count == 1 && refused[0].hasPrefix("x(Object `") && refused[0].hasSuffix("was already disposed.)"))
    }

    @Test("relays cannot complete: a finite source bound to one leaves it open")
    func relays() {
        let relay = BehaviorRelay(value: "start")
        let recorder = EventRecorder(relay)
        let binding = Observable.of("a", "b").bind(to: relay)
        relay.accept("c")
        #expect(recorder.events == ["start", "a", "b", "c"])
        #expect(relay.value == "c")
        let publish = PublishRelay<Int>()
        let seen = EventRecorder(publish.asObservable())
        publish.accept(1)
        #expect(seen.events == ["1"])
        withExtendedLifetime(binding) {}
    }

    @Test("subjects can be sent to from several threads at once; each observer sees every element")
    func concurrentSends() async {
        let subject = PublishSubject<Int>()
        let count = Counter()
        let subscription = subject.subscribe(onNext: { @Sendable _ in count.increment() })
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for value in 0..<500 { subject.onNext(value) } }
            }
        }
        #expect(count.value == 2_000)
        subscription.dispose()
    }
}
