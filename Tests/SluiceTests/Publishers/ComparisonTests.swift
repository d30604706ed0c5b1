import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Comparison and TryComparison (min, max)")
struct ComparisonTests {
    /// Orders by trailing zero bits, so that a comparison done with `<` on the values shows.
    static func byTrailingZeros(_ lhs: Int, _ rhs: Int) -> Bool {
        lhs.trailingZeroBitCount < rhs.trailingZeroBitCount
    }

    @Test func minAndMaxShareTheReduceFamilyBehaviour() {
        let values = [2, 1, 4, 6, 15, 8, 12]
        ReduceFamily.commonChecks(name: "Comparison", values: values, result: "value(15)", empty: nil) { $0.max() }
        ReduceFamily.commonChecks(name: "Comparison", values: values, result: "value(1)", empty: nil) { $0.min() }
        ReduceFamily.commonChecks(name: "Comparison", values: values, result: "value(8)", empty: nil) {
            $0.max(by: Self.byTrailingZeros)
        }
        ReduceFamily.commonChecks(name: "Comparison", values: values, result: "value(1)", empty: nil) {
            $0.min(by: Self.byTrailingZeros)
        }
        ReduceFamily.requestRacingFinishDeliversResultOnce(
            name: "Comparison", values: [3, 9, 4], result: "value(9)") { $0.max() }
    }

    @Test func tryMinAndTryMaxShareTheReduceFamilyBehaviour() {
        let values = [2, 1, 4, 6, 15, 8, 12]
        ReduceFamily.commonChecks(name: "TryComparison", values: values, result: "value(8)", empty: nil) {
            $0.tryMax(by: Self.byTrailingZeros)
        }
        ReduceFamily.commonChecks(name: "TryComparison", values: values, result: "value(1)", empty: nil) {
            $0.tryMin(by: Self.byTrailingZeros)
        }
    }

    @Test func tryComparisonFailsWithTheThrownError() {
        func comparator(_ lhs: Int, _ rhs: Int) throws -> Bool {
            if lhs == 3 { throw TestError(code: 42) }
            return lhs < rhs
        }
        // max calls (kept, new): (1, 2), (2, 3), (3, 4) throws at the fourth value.
        ReduceFamily.throwFailsAtOnce(name: "TryComparison", values: [1, 2, 3, 4, 5]) { $0.tryMax(by: comparator) }
        // min calls (new, kept): (2, 1), (3, 1) throws at the third value.
        ReduceFamily.throwFailsAtOnce(name: "TryComparison", values: [1, 2, 3]) { $0.tryMin(by: comparator) }
    }

    /// Combine calls `max(by:)`'s closure as `(kept, new)` and `min(by:)`'s as `(new, kept)`,
    /// and never for the first element.
    @Test func closureArgumentOrder() {
        let values = [2, 1, 4, 6, 15, 8, 12]
        for isMax in [true, false] {
            var calls: [String] = []
            func comparator(_ lhs: Int, _ rhs: Int) -> Bool {
                calls.append("(\(lhs), \(rhs))")
                return Self.byTrailingZeros(lhs, rhs)
            }
            let upstream = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            (isMax ? upstream.max(by: comparator) : upstream.min(by: comparator)).subscribe(subscriber)
            for value in values { upstream.send(value) }
            upstream.send(completion: .finished)
            if isMax {
                #expect(calls == ["(2, 1)", "(2, 4)", "(4, 6)", "(4, 15)", "(4, 8)", "(8, 12)"])
                #expect(subscriber.values == [8])
            } else {
                #expect(calls == ["(1, 2)", "(4, 1)", "(6, 1)", "(15, 1)", "(8, 1)", "(12, 1)"])
                #expect(subscriber.values == [1])
            }
            // Values after the end reach neither the closure nor the downstream.
            upstream.send(32)
            #expect(calls.count == 6)
        }
    }

    /// Of equal extreme elements, the first one received wins, for min and max alike.
    @Test func tiesKeepTheFirstElement() {
        struct Card: Comparable, CustomStringConvertible {
            let rank: Int
            let id: String
            static func < (lhs: Card, rhs: Card) -> Bool { lhs.rank < rhs.rank }
            static func == (lhs: Card, rhs: Card) -> Bool { lhs.rank == rhs.rank }
            var description: String { id }
        }
        let cards = [Card(rank: 5, id: "a"), Card(rank: 1, id: "b"), Card(rank: 5, id: "c"), Card(rank: 1, id: "d")]
        func extreme<P: Publisher>(_ publisher: P) -> [String] where P.Output == Card, P.Failure == Never {
            let subscriber = TestSubscriber<Card, Never>()
            publisher.subscribe(subscriber)
            return subscriber.values.map(\.id)
        }
        let upstream = cards.publisher.eraseToAnyPublisher()
        #expect(extreme(upstream.max()) == ["a"])
        #expect(extreme(upstream.min()) == ["b"])
        #expect(extreme(upstream.max(by: <)) == ["a"])
        #expect(extreme(upstream.min(by: <)) == ["b"])
    }

    /// Built directly, Comparison keeps a new element when `areInIncreasingOrder(new, kept)`,
    /// as Combine's does: a suite run against Apple's Combine builds it with `>` and gets the
    /// maximum, with `<` the minimum. (Through `min(by:)` and `max(by:)` both readings call
    /// the user's closure alike; see `closureArgumentOrder`.)
    @Test func constructedDirectlyItKeepsWhatTheClosureOrdersFirst() throws {
        func extreme(_ values: [String], _ order: @escaping (String, String) -> Bool) -> [String] {
            let subscriber = TestSubscriber<String, Never>()
            Publishers.Comparison(upstream: values.publisher, areInIncreasingOrder: order).subscribe(subscriber)
            return subscriber.values
        }
        #expect(extreme(["a", "c", "b"], >) == ["c"])
        #expect(extreme(["a", "c", "b"], <) == ["a"])
        var calls: [String] = []
        _ = extreme(["a", "c", "b"]) { new, kept in calls.append(new + kept); return new > kept }
        #expect(calls == ["ca", "bc"], "called as (new, kept)")

        let thrown = TestSubscriber<String, Error>()
        Publishers.TryComparison(upstream: ["a", "c", "b"].publisher, areInIncreasingOrder: >).subscribe(thrown)
        #expect(thrown.values == ["c"])
        let comparison = Publishers.Comparison(upstream: Empty<Int, Never>(), areInIncreasingOrder: <)
        #expect(comparison.areInIncreasingOrder(1, 2))
        #expect(try Publishers.TryComparison(upstream: Empty<Int, Never>(), areInIncreasingOrder: <).areInIncreasingOrder(1, 2))
    }

    @Test func concurrentSendsFindTheMaximum() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.max().subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Comparison"), .value(7_999), .completion(.finished)])
        #expect(!subscriber.sawConcurrentSignals)
    }
}
