import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("First, FirstWhere and TryFirstWhere")
struct FirstTests {
    @Test func firstSharesTheReduceFamilyBehaviour() {
        // Every value decides `first()`, so the shared checks run over an empty stream.
        ReduceFamily.commonChecks(name: "First", values: [], result: nil, empty: nil) { $0.first() }
        ReduceFamily.decidesEarly(name: "First", values: [25], result: "value(25)") { $0.first() }
        ReduceFamily.reentrantCancelAndRequestInsideResult(name: "First", values: [25], result: "value(25)") {
            $0.first()
        }
    }

    @Test func firstWhereIsDescribedAsTryFirstAsInCombine() {
        ReduceFamily.commonChecks(name: "TryFirst", values: [1, 2, 3], result: nil, empty: nil) {
            $0.first { $0 > 10 }
        }
        ReduceFamily.decidesEarly(name: "TryFirst", values: [1, 2, 3], result: "value(3)") { $0.first { $0 > 2 } }
        ReduceFamily.reentrantCancelAndRequestInsideResult(name: "TryFirst", values: [1, 3], result: "value(3)") {
            $0.first { $0 > 2 }
        }
    }

    @Test func tryFirstWhereSharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "TryFirstWhere", values: [1, 2, 3], result: nil, empty: nil) {
            $0.tryFirst { $0 > 10 }
        }
        ReduceFamily.decidesEarly(name: "TryFirstWhere", values: [1, 7], result: "value(7)") {
            $0.tryFirst { $0 > 6 }
        }
        ReduceFamily.throwFailsAtOnce(name: "TryFirstWhere", values: [1, 2, 3, 4, 5]) {
            $0.tryFirst { value in
                if value == 3 { throw TestError(code: 42) }
                return value > 3
            }
        }
    }

    @Test func demandAfterTheFirstValue() {
        var calls = 0
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.first { value in
            calls += 1
            return value > 1
        }.subscribe(subscriber)
        for value in [0, 1, 2, 3] { #expect(upstream.send(value) == .none) }
        #expect(calls == 3)
        #expect(subscriber.events == [.subscription("TryFirst")])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        subscriber.request(.unlimited)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(subscriber.events == [.subscription("TryFirst"), .value(2), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func stopsASynchronousUpstreamAfterOneValue() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...1_000_000).publisher.eraseToAnyPublisher().first().subscribe(subscriber)
        #expect(subscriber.events == [.subscription("First"), .value(1), .completion(.finished)])
    }

    @Test func requestRacingTheDecidingValueDeliversOnce() {
        for _ in 0..<300 {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
            upstream.first().subscribe(subscriber)
            ReduceFamily.ConcurrentRace.run({ upstream.send(5) }, { subscriber.request(.max(1)) })
            #expect(subscriber.events == [.subscription("First"), .value(5), .completion(.finished)])
        }
    }

    @Test func concurrentSendsDeliverExactlyOneValue() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.first().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<100 { subject.send(thread * 100 + i) }
                }
            }
        }
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completions.count == 1)
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func firstIsEquatableWhenTheUpstreamIs() {
        #expect(Publishers.First(upstream: Empty<Int, Never>()) == Publishers.First(upstream: Empty<Int, Never>()))
        #expect(Publishers.First(upstream: Empty<Int, Never>())
            != Publishers.First(upstream: Empty<Int, Never>(completeImmediately: false)))
    }
}
