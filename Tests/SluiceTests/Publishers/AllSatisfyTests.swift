import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("AllSatisfy and TryAllSatisfy")
struct AllSatisfyTests {
    @Test func allSatisfySharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "AllSatisfy", values: [1, 2, 3], result: "value(true)", empty: "value(true)") {
            $0.allSatisfy { $0 < 10 }
        }
        ReduceFamily.decidesEarly(name: "AllSatisfy", values: [1, 2, 30], result: "value(false)") {
            $0.allSatisfy { $0 < 10 }
        }
        ReduceFamily.requestRacingFinishDeliversResultOnce(
            name: "AllSatisfy", values: [1, 2], result: "value(true)") { $0.allSatisfy { $0 < 10 } }
    }

    @Test func tryAllSatisfySharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(
            name: "TryAllSatisfy", values: [1, 2, 3], result: "value(true)", empty: "value(true)"
        ) { $0.tryAllSatisfy { $0 < 10 } }
        ReduceFamily.decidesEarly(name: "TryAllSatisfy", values: [1, 2, 30], result: "value(false)") {
            $0.tryAllSatisfy { $0 < 10 }
        }
        ReduceFamily.throwFailsAtOnce(name: "TryAllSatisfy", values: [1, 2, 3, 4]) {
            $0.tryAllSatisfy { value in
                if value == 2 { throw TestError(code: 42) }
                return true
            }
        }
    }

    @Test func predicateIsNotCalledAfterTheFirstFailure() {
        var seen: [Int] = []
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        upstream.allSatisfy { value in
            seen.append(value)
            return value.isMultiple(of: 2)
        }.subscribe(subscriber)
        for value in [2, 4, 5, 6, 7] { upstream.send(value) }
        #expect(seen == [2, 4, 5])
        #expect(subscriber.events == [.subscription("AllSatisfy"), .value(false), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func overASynchronousUpstream() {
        let subscriber = TestSubscriber<Bool, Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().allSatisfy { $0 > 0 }.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("AllSatisfy"), .value(true), .completion(.finished)])
    }

    @Test func concurrentSendsAreAllChecked() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Bool, Never>()
        subject.allSatisfy { $0 >= 0 }.subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription("AllSatisfy"), .value(true), .completion(.finished)])
        #expect(!subscriber.sawConcurrentSignals)
    }
}
