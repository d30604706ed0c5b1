import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Output (output(at:), output(in:), prefix(_:))")
struct OutputTests {
    @Test func operatorsTranslateToCountableRanges() {
        let publisher = Empty<Void, Never>()
        #expect(publisher.prefix(89).range == 0 ..< 89)
        #expect(publisher.prefix(.max).range == 0 ..< .max)
        #expect(publisher.prefix(0).range == 0 ..< 0)
        #expect(publisher.output(at: 89).range == 89 ..< 90)
        #expect(publisher.output(in: ..<8).range == 0 ..< 8)
        #expect(publisher.output(in: ...8).range == 0 ..< 9)
        #expect(publisher.output(in: 8...).range == 8 ..< .max)
        #expect(publisher.output(in: Int.max...).range == .max ..< .max)
        #expect(publisher.output(in: 4 ..< 5).range == 4 ..< 5)
        #expect(publisher.output(in: 4 ... 5).range == 4 ..< 6)
    }

    /// The stream ends as soon as the last element of the range has been delivered, without
    /// waiting for another (a suite written for Apple's Combine waits for exactly the range's
    /// elements and then for the completion); the element's demand is still returned.
    @Test func publishesTheRangeAndFinishesRightAfterItsLastElement() {
        let upstream = TestPublisher<Int, TestError>()
        var logAtFinish: [TestPublisher<Int, TestError>.DemandEvent] = []
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .none,
            onValue: { _ in .max(42) },
            onCompletion: { _ in logAtFinish = upstream.demandLog })
        upstream.output(in: 3 ..< 7).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(1))
        #expect(upstream.send(3) == .max(1))
        #expect(subscriber.events == [.subscription("Output")])
        subscriber.request(.max(31))
        subscriber.request(.max(32))
        #expect(upstream.demandLog == [.requested(.max(31)), .requested(.max(32))])
        let inRange = [4, 5, 6].map { upstream.send($0) }
        #expect(inRange == [.max(42), .max(42), .max(42)])
        #expect(subscriber.completions.isEmpty)
        #expect(upstream.send(7) == .max(42))
        #expect(subscriber.completions == [.finished])
        #expect(upstream.send(8) == .none)
        #expect(upstream.send(9) == .none)
        #expect(subscriber.events == [
            .subscription("Output"), .value(4), .value(5), .value(6), .value(7), .completion(.finished),
        ])
        // The upstream is cancelled before the downstream hears of the end.
        #expect(logAtFinish == [.requested(.max(31)), .requested(.max(32)), .cancelled])
        subscriber.request(.max(33))
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.max(31)), .requested(.max(32)), .cancelled])
    }

    /// `prefix(1)` of a subject ends with its first value: an `async` loop over it returns.
    @Test func prefixOfASubjectEndsWithItsLastValueSoALoopOverItReturns() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.prefix(2).subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.events == [.subscription("Output"), .value(1), .value(2), .completion(.finished)])

        let values = CurrentValueSubject<Int, Never>(7)
        var seen: [Int] = []
        for await value in values.prefix(1).values { seen.append(value) }
        #expect(seen == [7])
    }

    /// A downstream that cancels while taking the range's last element hears of no completion.
    @Test func aCancelDuringTheLastElementLeavesNoCompletion() {
        let upstream = TestPublisher<Int, Never>()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { _ in subscription?.cancel(); return .none })
        upstream.prefix(1).subscribe(subscriber)
        upstream.send(1)
        #expect(subscriber.events == [.subscription("Output"), .value(1)])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func outputAtPublishesOneElement() {
        let upstream = TestPublisher<String, Never>()
        let subscriber = TestSubscriber<String, Never>()
        upstream.output(at: 1).subscribe(subscriber)
        for text in ["a", "b", "c", "d"] { upstream.send(text) }
        #expect(subscriber.events == [.subscription("Output"), .value("b"), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func anUpstreamCompletionIsForwardedOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _ in .max(2) })
        upstream.output(in: 1 ..< 3).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 3)))
        upstream.send(completion: .finished)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.events == [.subscription("Output"), .completion(.failure(TestError(code: 3)))])
    }

    @Test func valuesBeforeTheSubscriptionAreCountedAndPassedOnAsInCombine() {
        let upstream = InnerProbe<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none, onValue: { _ in .max(42) })
        upstream.output(in: 1 ..< 3).subscribe(subscriber)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(42))
        #expect(upstream.send(3) == .max(42))
        #expect(upstream.send(4) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.value(2), .value(3)])
        let subscription = ProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.history.isEmpty)
        // Past the range and now subscribed: this element ends the stream.
        #expect(upstream.send(6) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.value(2), .value(3), .subscription("Output"), .completion(.finished)])
        #expect(subscription.history == [.cancelled])
    }

    @Test func cancelIsForwardedOnceAndNothingIsDeliveredAfterIt() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _ in .max(3) })
        upstream.output(in: 1 ..< 3).subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.unlimited)
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(subscriber.events == [.subscription("Output")])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().prefix(3).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(5))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions == [.finished])
    }

    @Test func prefixOfAFiniteStreamFinishesWithTheUpstream() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...2).publisher.eraseToAnyPublisher().prefix(5).subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completions == [.finished])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 { subscription?.cancel() }
                return .none
            })
        (1...10).publisher.eraseToAnyPublisher().output(in: 1 ..< 5).subscribe(subscriber)
        #expect(subscriber.values == [2])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func aSecondSubscriptionIsCancelledAndAnEarlyCancelDoesNothing() {
        let upstream = InnerProbe<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.output(in: 0 ..< 3).subscribe(subscriber)
        (upstream.inner as? Subscription)?.cancel()
        let first = ProbeSubscription()
        let second = ProbeSubscription()
        upstream.send(subscription: first)
        #expect(first.history.isEmpty)
        #expect(subscriber.subscriptionNames == ["Output"])
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        subscriber.cancel()
        #expect(second.history == [.cancelled])
        #expect(first.history == [.cancelled, .cancelled])
    }

    @Test func descriptionMirrorAndEquality() {
        let upstream = InnerProbe<String, Never>()
        upstream.output(in: 10 ..< 42).subscribe(TestSubscriber<String, Never>())
        #expect(upstream.innerDescription == "Output")
        #expect(upstream.innerPlaygroundDescription == "Output")
        #expect(upstream.innerMirrorLabels.isEmpty)
        let a = Publishers.Output(upstream: Just(1), range: 0 ..< 2)
        #expect(a == Publishers.Output(upstream: Just(1), range: 0 ..< 2))
        #expect(a != Publishers.Output(upstream: Just(1), range: 0 ..< 3))
    }

    @Test func releasesTheDownstreamWhenTheRangeIsDone() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.prefix(1).subscribe(subscriber)
            upstream.send(1)
            upstream.send(2)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsPublishExactlyTheRange() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.prefix(1_000).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
                }
            }
        }
        #expect(subscriber.values.count == 1_000)
        #expect(subscriber.completions == [.finished])
        #expect(!subscriber.sawConcurrentSignals)
    }
}

@Suite("Output traps")
struct OutputTrapTests {
    @Test func negativeOrOverflowingBoundsStopTheProgram() async {
        await #expect(processExitsWith: .failure) { _ = Empty<Void, Never>().prefix(-1) }
        await #expect(processExitsWith: .failure) { _ = Empty<Void, Never>().output(at: -1) }
        await #expect(processExitsWith: .failure) { _ = Empty<Void, Never>().output(at: .max) }
        await #expect(processExitsWith: .failure) { _ = Empty<Void, Never>().output(in: (-1)...) }
        await #expect(processExitsWith: .failure) {
            _ = Publishers.Output(upstream: Empty<Void, Never>(), range: Range(uncheckedBounds: (lower: 1, upper: -1)))
        }
    }
}
