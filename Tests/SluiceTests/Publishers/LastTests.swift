import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Last, LastWhere and TryLastWhere")
struct LastTests {
    @Test func lastSharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "Last", values: [1, 2, 3], result: "value(3)", empty: nil) { $0.last() }
        ReduceFamily.requestRacingFinishDeliversResultOnce(name: "Last", values: [1, 2], result: "value(2)") {
            $0.last()
        }
    }

    @Test func lastWhereSharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "LastWhere", values: [1, 2, 3, 4], result: "value(3)", empty: nil) {
            $0.last { $0 % 2 == 1 }
        }
        // No match: only `.finished`, once the downstream has asked.
        ReduceFamily.holdsResultUntilDemand(name: "LastWhere", values: [2, 4], result: nil) {
            $0.last { $0 % 2 == 1 }
        }
    }

    @Test func tryLastWhereSharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "TryLastWhere", values: [1, 2, 3, 4], result: "value(3)", empty: nil) {
            $0.tryLast { $0 % 2 == 1 }
        }
        ReduceFamily.throwFailsAtOnce(name: "TryLastWhere", values: [1, 2, 3, 4]) {
            $0.tryLast { value in
                if value == 4 { throw TestError(code: 42) }
                return true
            }
        }
    }

    @Test func demandBeforeTheEndCancelsNothing() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.last().subscribe(subscriber)
        upstream.send(1)
        subscriber.request(.max(1))
        upstream.send(2)
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription("Last")])
        #expect(upstream.demandLog == [.requested(.unlimited)])
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Last"), .value(3), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited)])
    }

    @Test func predicateSeesEveryValue() {
        var seen: [Int] = []
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.last { value in
            seen.append(value)
            return value < 3
        }.subscribe(subscriber)
        for value in [1, 2, 3, 4] { upstream.send(value) }
        upstream.send(completion: .finished)
        #expect(seen == [1, 2, 3, 4])
        #expect(subscriber.values == [2])
    }

    @Test func overASynchronousUpstream() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().last().subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Last"), .value(5), .completion(.finished)])
    }

    @Test func concurrentSendsThenFinish() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.last().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(i) }
                }
            }
        }
        subject.send(-1)
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Last"), .value(-1), .completion(.finished)])
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func lastIsEquatableWhenTheUpstreamIs() {
        #expect(Publishers.Last(upstream: Empty<Int, Never>()) == Publishers.Last(upstream: Empty<Int, Never>()))
        #expect(Publishers.Last(upstream: Empty<Int, Never>())
            != Publishers.Last(upstream: Empty<Int, Never>(completeImmediately: false)))
    }
}
