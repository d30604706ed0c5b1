import Foundation
import Testing
import SluiceRx

@Suite("subscribe: the four closures, the event form, observers")
struct SubscribeTests {
    @Test("onDisposed runs once, after onCompleted, when the sequence completes")
    func completionThenDisposed() {
        var history: [String] = []
        let subscription = Observable.of("a", "b").subscribe(
            onNext: { history.append("next \($0)") },
            onError: { history.append("error \($0)") },
            onCompleted: { history.append("completed") },
            onDisposed: { history.append("disposed") })
        #expect(history == ["next a", "next b", "completed", "disposed"])
        subscription.dispose()
        subscription.dispose()
        #expect(history == ["next a", "next b", "completed", "disposed"])
    }

    @Test("onDisposed runs once, after onError, when the sequence fails")
    func errorThenDisposed() {
        var history: [String] = []
        let subscription = Observable.concat(.just("a"), .error(RxTestError.boom)).subscribe(
            onNext: { history.append("next \($0)") },
            onError: { history.append("error \($0)") },
            onCompleted: { history.append("completed") },
            onDisposed: { history.append("disposed") })
        subscription.dispose()
        #expect(history == ["next a", "error boom", "disposed"])
    }

    @Test("dispose() runs onDisposed once, after the upstream is cancelled, and stops delivery")
    func disposeEndsIt() {
        let source = PublishSubject<String>()
        var history: [String] = []
        let subscription = source
            .do(onDispose: { history.append("upstream disposed") })
            .subscribe(onNext: { history.append("next \($0)") },
                       onCompleted: { history.append("completed") },
                       onDisposed: { history.append("disposed") })
        source.onNext("a")
        subscription.dispose()
        source.onNext("b")
        source.onCompleted()
        subscription.dispose()
        #expect(history == ["next a", "upstream disposed", "disposed"])
        #expect(source.hasObservers == false)
    }

    @Test("disposing from inside onNext stops at once, and onDisposed still runs once")
    func disposeFromInsideOnNext() {
        let source = PublishSubject<Int>()
        var history: [String] = []
        var subscription: Disposable?
        subscription = source.subscribe(onNext: { value in
            history.append("next \(value)")
            subscription?.dispose()
        }, onDisposed: { history.append("disposed") })
        source.onNext(1)
        source.onNext(2)
        #expect(history == ["next 1", "disposed"])
    }

    @Test("the event form sees every event, the terminal one included")
    func eventForm() {
        #expect(rxRecord(Observable.of(1, 2)) == ["1", "2", "|"])
        #expect(rxRecord(Observable.concat(.just(1), .error(RxTestError.boom))) == ["1", "x(boom)"])
    }

    @Test("a subject subscribed as an observer forwards the completion and ends for everyone")
    func subjectAsObserver() {
        let selection = PublishSubject<Int>()
        var selected: [String] = []
        let watcher = selection.subscribe(onNext: { selected.append("\($0)") }, onCompleted: { selected.append("|") })
        let binding = Observable.of(1, 2).subscribe(selection)
        selection.onNext(3)
        #expect(selected == ["1", "2", "|"])
        // A later subscriber of the completed subject gets only the completion.
        #expect(rxRecord(selection) == ["|"])
        withExtendedLifetime((watcher, binding)) {}
    }

    @Test("an AnyObserver and a mapped observer receive the events")
    func anyObserver() {
        var seen: [String] = []
        let observer = AnyObserver<String> { event in seen.append(event.debugDescription) }
        let mapped: AnyObserver<Int> = observer.mapObserver { "#\($0)" }
        _ = Observable.of(1, 2).subscribe(mapped)
        #expect(seen == ["next(#1)", "next(#2)", "completed"])
    }

    @Test("elements sent from several threads at once all arrive, and dispose races them safely")
    func concurrentSends() async {
        let source = PublishSubject<Int>()
        let count = Counter()
        let subscription = source.subscribe(onNext: { @Sendable _ in count.increment() })
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask { for value in 0..<1_000 { source.onNext(worker * 1_000 + value) } }
            }
        }
        #expect(count.value == 4_000)
        let shared = Shared(value: subscription)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for value in 0..<1_000 { source.onNext(value) } }
            group.addTask { shared.value.dispose() }
        }
        let afterDispose = count.value
        source.onNext(-1)
        #expect(count.value == afterDispose)
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

@Suite("subscribe(with:): a weak object, not a weak subscription")
struct SubscribeWithTests {
    final class Header {
        var title = ""
    }

    @Test("the chain keeps running after the object is gone, and onDisposed is skipped (RxSwift's behaviour)")
    func keepsRunning() {
        let names = PublishSubject<String>()
        var sent = 0
        var disposedCalls = 0
        var bag = DisposeBag()
        var header: Header? = Header()
        weak let weakHeader = header
        names.do(onNext: { _ in sent += 1 })
            .subscribe(with: header!, onNext: { header, name in header.title = name },
                       onDisposed: { _ in disposedCalls += 1 })
            .disposed(by: bag)
        names.onNext("Ada")
        #expect(header?.title == "Ada")
        header = nil
        #expect(weakHeader == nil)
        names.onNext("Grace")
        names.onNext("Hopper")
        #expect(sent == 3)
        #expect(names.hasObservers)
        bag = DisposeBag()
        #expect(disposedCalls == 0)
        #expect(!names.hasObservers)
    }

    @Test("onDisposed gets the object while it is alive; errors count as handled")
    func objectAlive() {
        let header = Header()
        var history: [String] = []
        let subscription = Observable<String>.error(RxTestError.boom)
            .subscribe(with: header, onError: { _, error in history.append("error \(error)") },
                       onDisposed: { object in history.append("disposed \(object === header)") })
        subscription.dispose()
        #expect(history == ["error boom", "disposed true"])
    }

    @Test("disposingWhenReleased: true ends the subscription at the first event after the object is gone")
    func disposingWhenReleased() {
        let names = PublishSubject<String>()
        var sent = 0
        var upstreamDisposed = 0
        var header: Header? = Header()
        let subscription = names
            .do(onNext: { _ in sent += 1 }, onDispose: { upstreamDisposed += 1 })
            .subscribe(with: header!, disposingWhenReleased: true, onNext: { header, name in header.title = name })
        names.onNext("Ada")
        #expect(header?.title == "Ada")
        header = nil
        #expect(names.hasObservers)
        names.onNext("Grace")
        #expect(sent == 2)
        #expect(upstreamDisposed == 1)
        #expect(!names.hasObservers)
        names.onNext("Hopper")
        #expect(sent == 2)
        withExtendedLifetime(subscription) {}
    }
}

@Suite("bind")
struct BindTests {
    @Test("bind(onNext:) delivers the elements of a chain that does not fail")
    func bindOnNext() {
        var label = ""
        let binding = Observable.of("Inbox", "Inbox (1)").bind(onNext: { label = $0 })
        #expect(label == "Inbox (1)")
        withExtendedLifetime(binding) {}
    }

    @Test("bind(to:) a subject forwards every event, the completion included")
    func bindToSubject() {
        let subject = ReplaySubject<Int>.createUnbounded()
        let binding = Observable.of(1, 2).bind(to: subject)
        #expect(rxRecord(subject) == ["1", "2", "|"])
        withExtendedLifetime(binding) {}
    }

    @Test("bind(to:) a relay forwards only the elements: a relay cannot complete")
    func bindToRelay() {
        let relay = PublishRelay<Int>()
        let recorder = EventRecorder(relay)
        let binding = Observable.of(1, 2).bind(to: relay)
        relay.accept(3)
        #expect(recorder.events == ["1", "2", "3"])
        let behavior = BehaviorRelay(value: 0)
        let second = Observable.of(5, 6).bind(to: behavior)
        behavior.accept(7)
        #expect(behavior.value == 7)
        withExtendedLifetime((binding, second)) {}
    }

    @Test("bind(to:) observers of optionals, and a Binder applying elements on its scheduler")
    func bindOptionalAndBinder() {
        let subject = ReplaySubject<Int?>.createUnbounded()
        let binding = Observable.of(1).bind(to: subject)
        #expect(rxRecord(subject) == ["Optional(1)", "|"])
        final class Label { var text = "" }
        let label = Label()
        let binder = Binder(label, scheduler: CurrentThreadScheduler.instance) { label, text in label.text = text }
        let bound = Observable.of("a", "b").bind(to: binder)
        #expect(label.text == "b")
        withExtendedLifetime((binding, bound)) {}
    }
}
