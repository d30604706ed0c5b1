import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Collect")
struct CollectTests {
    @Test func sharesTheReduceFamilyBehaviour() {
        ReduceFamily.commonChecks(
            name: "Collect", values: [1, 2, 3, 4, 5], result: "value([1, 2, 3, 4, 5])", empty: "value([])"
        ) { $0.collect() }
        ReduceFamily.requestRacingFinishDeliversResultOnce(
            name: "Collect", values: [1, 2], result: "value([1, 2])") { $0.collect() }
    }

    @Test func collectsEverythingInOrder() {
        let upstream = TestPublisher<String, Never>()
        let subscriber = TestSubscriber<[String], Never>()
        upstream.collect().subscribe(subscriber)
        for word in ["a", "b", "c"] { #expect(upstream.send(word) == .none) }
        #expect(subscriber.events == [.subscription("Collect")])
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Collect"), .value(["a", "b", "c"]), .completion(.finished)])
    }

    @Test func synchronousUpstreamWithLateDemand() {
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
        (1...4).publisher.eraseToAnyPublisher().collect().subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Collect")])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Collect"), .value([1, 2, 3, 4]), .completion(.finished)])
    }

    @Test func concurrentSendsAreAllCollected() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        subject.collect().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<500 { subject.send(thread * 500 + i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.values.first.map { $0.sorted() } == Array(0..<2_000))
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func mirrorShowsOnlyTheCount() throws {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .none)
        upstream.collect().subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        var children = Mirror(reflecting: subscription).children.map { ($0.label, String(describing: $0.value)) }
        #expect(children.map(\.0) == ["count"])
        #expect(children.map(\.1) == ["0"])
        upstream.send(1)
        upstream.send(2)
        children = Mirror(reflecting: subscription).children.map { ($0.label, String(describing: $0.value)) }
        #expect(children.map(\.1) == ["2"])
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Collect")
    }

    @Test func isEquatableWhenTheUpstreamIs() {
        let a = Publishers.Collect(upstream: Empty<Int, Never>())
        #expect(a == Publishers.Collect(upstream: Empty<Int, Never>()))
        #expect(a != Publishers.Collect(upstream: Empty<Int, Never>(completeImmediately: false)))
    }
}
