import Foundation
import Testing
import SluiceRx

@Suite("do: nine hooks in RxSwift's order")
struct DoTests {
    /// Every hook, writing to `log` with `prefix`.
    func hooked<O: ObservableType>(_ source: O, into log: History) -> Observable<O.Element> {
        source.do(onNext: { log.append("do onNext \($0)") },
                  afterNext: { log.append("do afterNext \($0)") },
                  onError: { log.append("do onError \($0)") },
                  afterError: { log.append("do afterError \($0)") },
                  onCompleted: { log.append("do onCompleted") },
                  afterCompleted: { log.append("do afterCompleted") },
                  onSubscribe: { log.append("do onSubscribe") },
                  onSubscribed: { log.append("do onSubscribed") },
                  onDispose: { log.append("do onDispose") })
    }

    func subscribe<O: ObservableType>(_ source: O, into log: History) -> Disposable {
        source.subscribe(onNext: { log.append("subscriber next \($0)") },
                         onError: { log.append("subscriber error \($0)") },
                         onCompleted: { log.append("subscriber completed") },
                         onDisposed: { log.append("subscriber disposed") })
    }

    @Test("of: onSubscribed before the elements (they come from a scheduled step), the subscriber's onDisposed before afterCompleted and onDispose")
    func orderWithOf() {
        let log = History()
        _ = subscribe(hooked(Observable.of(1, 2), into: log), into: log)
        #expect(log.all == [
            "do onSubscribe", "do onSubscribed",
            "do onNext 1", "subscriber next 1", "do afterNext 1",
            "do onNext 2", "subscriber next 2", "do afterNext 2",
            "do onCompleted", "subscriber completed", "subscriber disposed",
            "do afterCompleted", "do onDispose",
        ])
    }

    @Test("just emits during the subscription, as in RxSwift: before onSubscribed")
    func orderWithJust() {
        let log = History()
        _ = subscribe(hooked(Observable.just(1), into: log), into: log)
        #expect(log.all == [
            "do onSubscribe",
            "do onNext 1", "subscriber next 1", "do afterNext 1",
            "do onCompleted", "subscriber completed", "subscriber disposed",
            "do afterCompleted", "do onDispose",
            "do onSubscribed",
        ])
    }

    @Test("an error: onError, the subscriber's error and onDisposed, afterError, onDispose")
    func orderWithError() {
        let log = History()
        _ = subscribe(hooked(Observable<Int>.error(RxTestError.boom), into: log), into: log)
        #expect(log.all == [
            "do onSubscribe",
            "do onError boom", "subscriber error boom", "subscriber disposed",
            "do afterError boom", "do onDispose",
            "do onSubscribed",
        ])
    }

    @Test("dispose: onDispose runs once, after the upstream is cancelled, before the subscriber's onDisposed")
    func orderWithDispose() {
        let log = History()
        let source = PublishSubject<Int>()
        let upstream = source.do(onDispose: { log.append("upstream disposed") })
        let subscription = subscribe(hooked(upstream, into: log), into: log)
        source.onNext(1)
        subscription.dispose()
        subscription.dispose()
        source.onNext(2)
        #expect(log.all == [
            "do onSubscribe", "do onSubscribed",
            "do onNext 1", "subscriber next 1", "do afterNext 1",
            "upstream disposed", "do onDispose", "subscriber disposed",
        ])
    }

    @Test("a hook that throws ends the sequence with its error and disposes the upstream")
    func throwingHook() {
        let source = PublishSubject<Int>()
        let log = History()
        let recorder = EventRecorder(source
            .do(onDispose: { log.append("upstream disposed") })
            .do(onNext: { if $0 == 2 { throw RxTestError.other($0) } }, onDispose: { log.append("do disposed") }))
        source.onNext(1)
        source.onNext(2)
        source.onNext(3)
        #expect(recorder.events == ["1", "x(other(2))"])
        #expect(log.all == ["upstream disposed", "do disposed"])
        #expect(!source.hasObservers)
    }

    @Test("a throwing onCompleted turns the completion into its error")
    func throwingOnCompleted() {
        #expect(rxRecord(Observable.of(1).do(onCompleted: { throw RxTestError.boom })) == ["1", "x(boom)"])
    }

    @Test("afterNext that throws ends the sequence after the element was delivered")
    func throwingAfterNext() {
        #expect(rxRecord(Observable.of(1, 2).do(afterNext: { _ in throw RxTestError.boom })) == ["1", "x(boom)"])
    }
}

@Suite("Hooks", .serialized)
struct HooksTests {
    /// Runs `body` with `handler` installed, then restores the previous state.
    func withHandler(_ handler: @escaping Hooks.DefaultErrorHandler, _ body: () -> Void) {
        let previous = Hooks.defaultErrorHandler
        let recording = Hooks.recordCallStackOnError
        Hooks.defaultErrorHandler = handler
        body()
        Hooks.defaultErrorHandler = previous
        Hooks.recordCallStackOnError = recording
    }

    /// An error no other test sends, so that handler calls from tests running in parallel are
    /// told apart.
    struct Marker: Error, CustomStringConvertible {
        let id = UUID()
        var description: String { "marker \(id)" }
    }

    @Test("an error no onError handled goes to defaultErrorHandler; handled ones and the event form do not")
    func unhandledErrorsOnly() {
        let marker = Marker()
        let seen = History()
        withHandler({ stack, error in
            if "\(error)" == "\(marker)" { seen.append("stack \(stack.count)") }
        }) {
            Hooks.recordCallStackOnError = false
            _ = Observable<Int>.error(marker).subscribe(onNext: { _ in })
            _ = Observable<Int>.error(marker).subscribe(onError: { _ in })
            _ = Observable<Int>.error(marker).subscribe { _ in }
            _ = Observable<Int>.error(marker).subscribe(with: seen, onNext: { _, _ in })
        }
        #expect(seen.all == ["stack 0"])
    }

    @Test("recordCallStackOnError passes the subscribe call's stack to the handler")
    func callStack() {
        let marker = Marker()
        let stacks = History()
        withHandler({ stack, error in
            if "\(error)" == "\(marker)" { stacks.append(stack.isEmpty ? "empty" : "captured") }
        }) {
            Hooks.recordCallStackOnError = true
            _ = Observable<Int>.error(marker).subscribe(onNext: { _ in })
            Hooks.recordCallStackOnError = false
            _ = Observable<Int>.error(marker).subscribe(onNext: { _ in })
        }
        #expect(stacks.all == ["captured", "empty"])
    }

    @Test("subscribeLogged records its site and hands it to the handler for an unhandled error")
    func subscribeLogged() {
        let marker = Marker()
        let sites = History()
        let log = SubscribeSiteLog()
        var line: UInt = 0
        withHandler({ stack, error in
            if "\(error)" == "\(marker)" { sites.append(stack.joined()) }
        }) {
            line = #line + 1
            _ = Observable<Int>.error(marker).subscribeLogged(onNext: { _ in }, log: log)
            _ = Observable<Int>.error(marker).subscribeLogged(onNext: { _ in }, onError: { _ in }, log: log)
        }
        #expect(sites.all == ["SluiceRxTests/DoTests.swift:\(line)"])
        #expect(log.sites.map(\.description) == ["SluiceRxTests/DoTests.swift:\(line)", "SluiceRxTests/DoTests.swift:\(line + 1)"])
        #expect(log.unhandledErrors.map { "\($0.site) \($0.error)" } == ["SluiceRxTests/DoTests.swift:\(line) \(marker)"])
    }

    @Test("the hooks can be read and set from many threads at once")
    func threadSafe() async {
        let previous = Hooks.defaultErrorHandler
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        Hooks.recordCallStackOnError = index.isMultiple(of: 2)
                        Hooks.defaultErrorHandler = { _, _ in }
                        _ = Hooks.defaultErrorHandler
                        _ = Hooks.recordCallStackOnError
                    }
                }
            }
        }
        Hooks.defaultErrorHandler = previous
        Hooks.recordCallStackOnError = false
        #expect(Hooks.recordCallStackOnError == false)
    }
}
