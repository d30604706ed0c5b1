import Foundation
import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
@testable import SluiceRx

@Suite("Disposables and DisposeBag")
struct DisposablesTests {
    @Test("a DisposeBag disposes its contents, in order, when it is deallocated")
    func bagDisposesOnDeinit() {
        let log = History()
        var bag: DisposeBag? = DisposeBag()
        Disposables.create { log.append("first") }.disposed(by: bag!)
        bag!.insert(Disposables.create { log.append("second") }, Disposables.create { log.append("third") })
        #expect(log.all.isEmpty)
        bag = nil
        #expect(log.all == ["first", "second", "third"])
    }

    @Test("inserting into a disposed bag disposes at once")
    func insertIntoDisposedBag() {
        let log = History()
        let bag = DisposeBag()
        bag.dispose()
        Disposables.create { log.append("late") }.disposed(by: bag)
        #expect(log.all == ["late"])
    }

    @Test("a bag ends the subscriptions it holds")
    func bagEndsSubscriptions() {
        let subject = PublishSubject<Int>()
        var bag = DisposeBag()
        var received: [Int] = []
        subject.subscribe(onNext: { received.append($0) }).disposed(by: bag)
        subject.onNext(1)
        bag = DisposeBag()
        subject.onNext(2)
        #expect(received == [1])
        #expect(!subject.hasObservers)
    }

    @Test("Disposables.create(with:) runs once; create(a, b) disposes both in order")
    func anonymousAndBinary() {
        let log = History()
        let once = Disposables.create { log.append("once") }
        once.dispose()
        once.dispose()
        #expect(once.isDisposed)
        let pair = Disposables.create(Disposables.create { log.append("a") }, Disposables.create { log.append("b") })
        pair.dispose()
        pair.dispose()
        #expect(log.all == ["once", "a", "b"])
        #expect(pair.isDisposed)
    }

    @Test("CompositeDisposable: remove(for:) disposes one; dispose disposes the rest; later inserts are disposed at once")
    func composite() throws {
        let log = History()
        let composite = CompositeDisposable()
        let first = try #require(composite.insert(Disposables.create { log.append("first") }))
        _ = composite.insert(Disposables.create { log.append("second") })
        #expect(composite.count == 2)
        composite.remove(for: first)
        #expect(log.all == ["first"])
        composite.dispose()
        #expect(log.all == ["first", "second"])
        #expect(composite.insert(Disposables.create { log.append("late") }) == nil)
        #expect(log.all == ["first", "second", "late"])
    }

    @Test("SerialDisposable disposes the previous one on set, and everything after its own dispose")
    func serial() {
        let log = History()
        let serial = SerialDisposable()
        serial.disposable = Disposables.create { log.append("one") }
        serial.disposable = Disposables.create { log.append("two") }
        #expect(log.all == ["one"])
        serial.dispose()
        serial.disposable = Disposables.create { log.append("three") }
        #expect(log.all == ["one", "two", "three"])
    }

    @Test("SingleAssignmentDisposable disposed before it is set disposes the value when set")
    func singleAssignment() {
        let log = History()
        let single = SingleAssignmentDisposable()
        single.dispose()
        single.setDisposable(Disposables.create { log.append("set late") })
        #expect(log.all == ["set late"])
    }

    @Test("Disposable is Sluice's Cancellable: cancel() disposes, store(in:) works, AnyCancellable goes in a bag")
    func cancellableBridge() {
        let log = History()
        let disposable = Disposables.create { log.append("disposed") }
        var cancellables = Set<AnyCancellable>()
        disposable.store(in: &cancellables)
        cancellables.removeAll()
        #expect(log.all == ["disposed"])

        var bag: DisposeBag? = DisposeBag()
        AnyCancellable { log.append("cancelled") }.disposed(by: bag!)
        bag = nil
        #expect(log.all == ["disposed", "cancelled"])
    }

    @Test("the disposables are safe to dispose from many threads at once: each action runs once")
    func concurrentDispose() async {
        let count = Counter()
        let disposables = (0..<200).map { _ in Disposables.create { count.increment() } }
        let bag = CompositeDisposable(disposables: disposables)
        let shared = Shared(value: disposables)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for disposable in shared.value { disposable.dispose() }
                    bag.dispose()
                }
            }
        }
        #expect(count.value == 200)
    }
}
