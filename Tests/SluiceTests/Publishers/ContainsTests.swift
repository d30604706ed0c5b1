import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Contains, ContainsWhere and TryContainsWhere")
struct ContainsTests {
    @Test func containsSharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "Contains", values: [1, 2, 3], result: "value(false)", empty: "value(false)") {
            $0.contains(9)
        }
        ReduceFamily.decidesEarly(name: "Contains", values: [1, 9], result: "value(true)") { $0.contains(9) }
        ReduceFamily.requestRacingFinishDeliversResultOnce(
            name: "Contains", values: [1, 2], result: "value(false)") { $0.contains(9) }
    }

    @Test func containsWhereSharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(
            name: "ContainsWhere", values: [1, 2, 3], result: "value(false)", empty: "value(false)"
        ) { $0.contains { $0 > 5 } }
        ReduceFamily.decidesEarly(name: "ContainsWhere", values: [1, 2, 6], result: "value(true)") {
            $0.contains { $0 > 5 }
        }
    }

    @Test func tryContainsWhereSharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(
            name: "TryContainsWhere", values: [1, 2, 3], result: "value(false)", empty: "value(false)"
        ) { $0.tryContains { $0 > 5 } }
        ReduceFamily.decidesEarly(name: "TryContainsWhere", values: [1, 2, 6], result: "value(true)") {
            $0.tryContains { $0 > 5 }
        }
        ReduceFamily.throwFailsAtOnce(name: "TryContainsWhere", values: [1, 2, 3, 4]) {
            $0.tryContains { value in
                if value == 3 { throw TestError(code: 42) }
                return value > 5
            }
        }
    }

    @Test func predicateIsNotCalledAfterTheMatch() {
        var seen: [Int] = []
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        upstream.contains { value in
            seen.append(value)
            return value == 2
        }.subscribe(subscriber)
        for value in [1, 2, 3, 4] { upstream.send(value) }
        #expect(seen == [1, 2])
        #expect(subscriber.events == [.subscription("ContainsWhere"), .value(true), .completion(.finished)])
    }

    @Test func stopsASynchronousUpstreamEarly() {
        let subscriber = TestSubscriber<Bool, Never>(initialDemand: .max(1))
        (1...1_000_000).publisher.eraseToAnyPublisher().contains(3).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Contains"), .value(true), .completion(.finished)])
    }

    @Test func concurrentSendsFindTheMatchOnce() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        subject.contains(4_321).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Contains"), .value(true), .completion(.finished)])
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func containsIsEquatableWhenTheUpstreamIs() {
        let a = Publishers.Contains(upstream: Empty<Int, Never>(), output: 1)
        #expect(a == Publishers.Contains(upstream: Empty<Int, Never>(), output: 1))
        #expect(a != Publishers.Contains(upstream: Empty<Int, Never>(), output: 2))
        #expect(a.output == 1)
    }
}
