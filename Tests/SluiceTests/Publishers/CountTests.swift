import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Count")
struct CountTests {
    @Test func sharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "Count", values: [7, 7, 7, 7, 7], result: "value(5)", empty: "value(0)") {
            $0.count()
        }
        ReduceFamily.requestRacingFinishDeliversResultOnce(name: "Count", values: [1, 2], result: "value(2)") {
            $0.count()
        }
    }

    @Test func countsOverASynchronousUpstream() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().count().subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Count"), .value(10), .completion(.finished)])
    }

    @Test func concurrentSendsAreAllCounted() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.count().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Count"), .value(8_000), .completion(.finished)])
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func mirrorIsReduceLike() throws {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.count().subscribe(subscriber)
        upstream.send(3)
        let subscription = try #require(subscriber.subscription)
        let children = Mirror(reflecting: subscription).children.map { ($0.label ?? "", String(describing: $0.value)) }
        #expect(children.map(\.0) == ["downstream", "result", "initial", "status"])
        #expect(children[1].1 == "Optional(1)")
        #expect(children[2].1 == "Optional(0)")
    }

    @Test func isEquatableWhenTheUpstreamIs() {
        let a = Publishers.Count(upstream: Empty<Int, Never>())
        #expect(a == Publishers.Count(upstream: Empty<Int, Never>()))
        #expect(a != Publishers.Count(upstream: Empty<Int, Never>(completeImmediately: false)))
    }
}
