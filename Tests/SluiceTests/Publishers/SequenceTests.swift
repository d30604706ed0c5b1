import Testing
import Dispatch
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// A sequence that is its own iterator and counts how often `next()` ran.
private final class Counter: Sequence, IteratorProtocol, CustomStringConvertible, @unchecked Sendable {
    let upperBound: Int
    private(set) var state = 0

    init(upperBound: Int) {
        self.upperBound = upperBound
    }

    func makeIterator() -> Counter { self }

    func next() -> Int? {
        defer { state += 1 }
        return state >= upperBound ? nil : state
    }

    var description: String { "Counter" }
}

@Suite("Publishers.Sequence")
struct SequenceTests {
    // MARK: Subscription behaviour

    /// Under unlimited demand the emission loop reads an atomic flag instead of taking the lock
    /// for each element: a cancel from another thread still stops it soon, and nothing after
    /// the element being delivered when `cancel()` returned arrives.
    @Test func aCancelFromAnotherThreadStopsAnUnlimitedEmission() {
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let cancelledAt = Atomic<Int>(-1)
        let lateValues = Atomic<Int>(0)
        let watcher = TestSubscriber<Int, Never>(onValue: { value in
            if value == 1_000 { started.signal() }
            if cancelledAt.load(ordering: .acquiring) >= 0 { lateValues.add(1, ordering: .relaxed) }
            return .none
        })
        DispatchQueue.global().async {
            (0..<50_000_000).publisher.subscribe(watcher)
            finished.signal()
        }
        started.wait()
        watcher.cancel()
        cancelledAt.store(watcher.values.count, ordering: .releasing)
        #expect(finished.wait(timeout: .now() + 30) == .success, "the emission stopped")
        #expect(watcher.values.count < 50_000_000)
        #expect(watcher.completion == nil)
        #expect(lateValues.load(ordering: .relaxed) <= 1, "at most the element in flight when cancel returned")
    }

    @Test func emptySequenceFinishesAtOnceWithTheEmptySubscription() {
        let counter = Counter(upperBound: 0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        counter.publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .completion(.finished)])
        #expect(counter.state == 1)
    }

    @Test func limitedDemandThenCompletionRightAfterTheLastElement() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        Counter(upperBound: 10).publisher.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Counter")])
        subscriber.request(.max(3))
        #expect(subscriber.values == [0, 1, 2])
        subscriber.request(.max(5))
        #expect(subscriber.values == [0, 1, 2, 3, 4, 5, 6, 7])
        // A request for nothing is ignored, not a trap.
        subscriber.request(.none)
        #expect(subscriber.values == [0, 1, 2, 3, 4, 5, 6, 7])
        subscriber.request(.max(2))
        #expect(subscriber.events == [.subscription("Counter")] + (0..<10).map { .value($0) } + [.completion(.finished)])
        subscriber.request(.max(2))
        #expect(subscriber.completions.count == 1)
    }

    @Test func demandReturnedFromReceiveIsAdded() {
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1), onValue: { $0 > 3 || $0 == 0 ? .none : .max(2) })
        Counter(upperBound: 10).publisher.subscribe(subscriber)
        #expect(subscriber.values == [0])
        subscriber.request(.max(1))
        #expect(subscriber.values == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func descriptionAndMirrorBeforeAndAfterTheEnd() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        (1...5).publisher.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "1...5")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["sequence"])
        #expect(mirror.children.first?.value as? ClosedRange<Int> == 1...5)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "1...5")
        subscriber.request(.unlimited)
        #expect(String(describing: subscription) == "Sequence")
        #expect((Mirror(reflecting: subscription).children.first?.value as? [Int]) == [])
    }

    @Test func cancelStopsDeliveryAndRenamesTheSubscription() throws {
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .none,
            onSubscription: { subscription in
                subscription.request(.max(1))
                subscription.cancel()
            })
        Counter(upperBound: 3).publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Counter"), .value(0)])
        #expect(String(describing: try #require(subscriber.subscription)) == "Sequence")
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.cancel()
                return .unlimited
            })
        (0..<3).publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("0..<3"), .value(0)])
    }

    @Test func requestsFromInsideReceiveAreServedInOrderWithoutRecursion() {
        var subscription: Subscription?
        var depth = 0
        var maxDepth = 0
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .none,
            onSubscription: { subscription = $0; $0.request(.none); $0.request(.max(1)) },
            onValue: { _ in
                depth += 1
                maxDepth = max(maxDepth, depth)
                subscription?.request(.max(1))
                depth -= 1
                return .none
            })
        (0..<10_000).publisher.subscribe(subscriber)
        #expect(subscriber.values == Array(0..<10_000))
        #expect(subscriber.completions == [.finished])
        #expect(maxDepth == 1)
    }

    @Test func releasesTheSubscriberAfterFinishAndAfterCancel() {
        weak var finished: TestSubscriber<Int, Never>?
        weak var cancelled: TestSubscriber<Int, Never>?
        var kept: [Subscription] = []
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            finished = subscriber
            Counter(upperBound: 3).publisher.subscribe(subscriber)
            subscriber.request(.max(3))
            #expect(subscriber.completions == [.finished])
            kept += subscriber.subscription.map { [$0] } ?? []
            subscriber.releaseSubscriptions()
        }
        do {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            cancelled = subscriber
            Counter(upperBound: 3).publisher.subscribe(subscriber)
            kept += subscriber.subscription.map { [$0] } ?? []
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(kept.count == 2)
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test func concurrentRequestsDeliverEveryElementOnceInOrder() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        (0..<8_000).publisher.subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values == Array(0..<8_000))
        #expect(subscriber.completions == [.finished])
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func concurrentRequestAndCancelNeverDeliverAfterTheCancelReturns() {
        for _ in 0..<100 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
            (0..<1_000).publisher.subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    subscriber.request(.unlimited)
                } else {
                    subscriber.cancel()
                }
            }
            let count = subscriber.values.count
            subscriber.request(.unlimited)
            #expect(subscriber.values == Array(0..<count))
            #expect(subscriber.completions.count <= 1)
            #expect(!subscriber.sawConcurrentSignals)
        }
    }

    // MARK: Specialisations

    @Test func reducingOperatorsReturnResultOrOptionalPublishers() throws {
        let all: Result<Bool, Never>.Publisher = [1, 1, -2, 3].publisher.allSatisfy { $0 > 0 }
        #expect(all.result == .success(false))
        #expect((1..<10).publisher.allSatisfy { $0 > 0 }.result == .success(true))
        let collected: Result<[Int], Never>.Publisher = (1..<5).publisher.collect()
        #expect(collected.result == .success([1, 2, 3, 4]))
        #expect(EmptyCollection<Int>().publisher.collect().result == .success([]))
        let contains: Result<Bool, Never>.Publisher = (0...12).publisher.contains(12)
        #expect(contains.result == .success(true))
        #expect((0..<12).publisher.contains(12).result == .success(false))
        #expect((99..<200).publisher.contains { $0 < 100 }.result == .success(true))
        let reduced: Result<Int, Never>.Publisher = (0..<5).publisher.reduce(10, +)
        #expect(reduced.result == .success(20))
        #expect(EmptyCollection<Int>().publisher.reduce(1, *).result == .success(1))
        let min: Optional<Int>.Publisher = [3, 4, 5, -1, 2].publisher.min()
        #expect(min == Optional.Publisher(-1))
        #expect([3, 4, 5, -1, 2].publisher.max() == Optional.Publisher(5))
        #expect([3, 4, 5, -1, 2].publisher.min(by: >) == Optional.Publisher(5))
        #expect([3, 4, 5, -1, 2].publisher.max(by: >) == Optional.Publisher(-1))
        #expect(EmptyCollection<Int>().publisher.min() == Optional.Publisher(nil))
        let first: Optional<Int>.Publisher = (1..<9).publisher.first { $0.isMultiple(of: 4) }
        #expect(first == Optional.Publisher(4))
        #expect((1..<9).publisher.first { $0.isMultiple(of: 13) } == Optional.Publisher(nil))
        #expect([1, 2, 3].publisher.first() == Optional.Publisher(1))
        #expect([1, 2, 3].publisher.last() == Optional.Publisher(3))
        #expect((1..<9).publisher.last { $0.isMultiple(of: 4) } == Optional.Publisher(8))
        #expect(EmptyCollection<Int>().publisher.last() == Optional.Publisher(nil))
    }

    @Test func throwingReducersEraseTheFailure() throws {
        let tryAll: Result<Bool, Error>.Publisher = (1..<10).publisher.tryAllSatisfy { $0 > 0 }
        #expect(try tryAll.result.get())
        #expect(try [Int]().publisher.tryAllSatisfy { _ in throw TestError() }.result.get())
        #expect(throws: TestError.self) { try (1..<10).publisher.tryAllSatisfy { _ in throw TestError() }.result.get() }
        #expect(try !(0..<100).publisher.tryContains { $0 > 100 }.result.get())
        #expect(throws: TestError.self) { try [2].publisher.tryContains { _ in throw TestError() }.result.get() }
        #expect(try (0..<5).publisher.tryReduce(10, +).result.get() == 20)
        #expect(try EmptyCollection<Int>().publisher.tryReduce(1) { _, _ in throw TestError() }.result.get() == 1)
        #expect(throws: TestError.self) { try [1].publisher.tryReduce(2) { _, _ in throw TestError() }.result.get() }
    }

    @Test func transformingOperatorsReturnSequencePublishers() {
        let mapped: Publishers.Sequence<[Int], Never> = (0..<5).publisher.map { $0 * 2 }
        #expect(mapped == Publishers.Sequence(sequence: [0, 2, 4, 6, 8]))
        let filtered: Publishers.Sequence<[Int], Never> = (0..<10).publisher.filter { $0.isMultiple(of: 3) }
        #expect(filtered == Publishers.Sequence(sequence: [0, 3, 6, 9]))
        let compact: Publishers.Sequence<[String], Never> = (40..<45).publisher.compactMap { $0 == 42 ? nil : String($0) }
        #expect(compact == Publishers.Sequence(sequence: ["40", "41", "43", "44"]))
        let scanned: Publishers.Sequence<[Int], Never> = (0..<5).publisher.scan(0, +)
        #expect(scanned == Publishers.Sequence(sequence: [0, 1, 3, 6, 10]))
        #expect((0..<5).publisher.scan(1, -) == Publishers.Sequence(sequence: [1, 0, -2, -5, -9]))
        let unique: Publishers.Sequence<[Int], Never> = [0, 0, 1, 0, 1, 1, 2, 2, 3, 3, 3, 3, 3, 1].publisher.removeDuplicates()
        #expect(unique == Publishers.Sequence(sequence: [0, 1, 0, 1, 2, 3, 1]))
        let prefixWhile: Publishers.Sequence<[Int], Never> = (0..<10).publisher.prefix { $0 < 4 }
        #expect(prefixWhile.sequence == [0, 1, 2, 3])
        let output: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4, 5, 6, 7].publisher.output(in: 1..<4)
        #expect(output.sequence == [2, 3, 4])
    }

    @Test func replaceNilKeepsTheOptionalElementType() {
        let replaced: Publishers.Sequence<[Int?], Never> = [1, 2, nil, 4, 5, nil].publisher.replaceNil(with: 42)
        #expect(replaced == Publishers.Sequence(sequence: [1, 2, 42, 4, 5, 42]))
        #expect(EmptyCollection<Int?>().publisher.replaceNil(with: 42) == Publishers.Sequence(sequence: []))
    }

    @Test func lazySliceOperatorsKeepTheStandardLibrarysSequenceTypes() {
        let dropWhile: Publishers.Sequence<DropWhileSequence<Range<Int>>, Never> = (0..<7).publisher.drop { $0 < 5 }
        #expect(Array(dropWhile.sequence) == [5, 6])
        let dropFirst: Publishers.Sequence<DropFirstSequence<Range<Int>>, Never> = (0..<4).publisher.dropFirst()
        #expect(Array(dropFirst.sequence) == [1, 2, 3])
        #expect(Array((0..<4).publisher.dropFirst(3).sequence) == [3])
        #expect(Array(EmptyCollection<Int>().publisher.dropFirst(.max).sequence) == [])
        let prefix: Publishers.Sequence<PrefixSequence<Range<Int>>, Never> = (0..<10).publisher.prefix(3)
        #expect(Array(prefix.sequence) == [0, 1, 2])
        #expect(Array((0..<3).publisher.prefix(10).sequence) == [0, 1, 2])
        #expect(Array((0..<10).publisher.prefix(0).sequence) == [])
    }

    @Test func countIsAJustForRandomAccessCollectionsThatCannotFail() {
        let count: Just<Int> = [1, 1, 1, 1, 1, 1].publisher.count()
        #expect(count == Just(6))
        #expect((0..<Int.max).publisher.count() == Just(Int.max))
        #expect(EmptyCollection<Int>().publisher.count() == Just(0))
        let typed: Result<Int, TestError>.Publisher = [1, 1, 1].publisher.setFailureType(to: TestError.self).count()
        #expect(typed.result == .success(3))
        let lazy: Result<Int, Never>.Publisher = [1, 2, 3, 4, 5, 6].lazy.filter { $0.isMultiple(of: 2) }.publisher.count()
        #expect(lazy.result == .success(3))
    }

    @Test func outputAtIndex() {
        let output: Optional<Int>.Publisher = [1, 2, 3, 4, 5, 6, 7].publisher.output(at: 3)
        #expect(output == Optional.Publisher(4))
        #expect([1, 2, 3].publisher.output(at: 100) == Optional.Publisher(nil))
        #expect([1, 2, 3].publisher.output(at: -1) == Optional.Publisher(nil))
    }

    @Test func ignoreOutputAndSetFailureType() {
        let ignored: Empty<Int, Never> = (0..<10).publisher.ignoreOutput()
        #expect(ignored.completeImmediately)
        let typed: Publishers.Sequence<CollectionOfOne<Int>, TestError> = CollectionOfOne(42).publisher.setFailureType(to: TestError.self)
        #expect(typed.sequence.first == 42)
    }

    @Test func prependAndAppendStayOneSequencePublisher() {
        let prepended: Publishers.Sequence<[Int], Never> = [4, 5].publisher.prepend(1, 2, 3)
        #expect(prepended.sequence == [1, 2, 3, 4, 5])
        #expect([4, 5].publisher.prepend(1...3).sequence == [1, 2, 3, 4, 5])
        #expect([4, 5].publisher.prepend([1, 2, 3].publisher).sequence == [1, 2, 3, 4, 5])
        let appended: Publishers.Sequence<[Int], Never> = [1, 2].publisher.append(3, 4, 5)
        #expect(appended.sequence == [1, 2, 3, 4, 5])
        #expect([1, 2].publisher.append(3...5).sequence == [1, 2, 3, 4, 5])
        #expect([1, 2].publisher.append([3, 4, 5].publisher).sequence == [1, 2, 3, 4, 5])
        let string: Publishers.Sequence<String, Never> = "bc".publisher.prepend("a").append("d")
        #expect(string.sequence == "abcd")
    }

    @Test func specialisedPublishersStillPlayBack() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        (1...6).publisher.filter { $0.isMultiple(of: 2) }.map { $0 * 10 }.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[20, 40, 60]"), .value(20), .value(40)])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("[20, 40, 60]"), .value(20), .value(40), .value(60), .completion(.finished)])
    }
}
