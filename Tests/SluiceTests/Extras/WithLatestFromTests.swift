import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceTesting

/// A value that records its release, to see what the operator still holds.
private final class Tracked: @unchecked Sendable {
    let value: Int
    let released: Flag
    init(_ value: Int, released: Flag) {
        self.value = value
        self.released = released
    }
    deinit { released.set() }
}

@Suite("withLatestFrom")
struct WithLatestFromTests {
    typealias Upstream = TestPublisher<Int, TestError>
    typealias Other = TestPublisher<String, TestError>

    // MARK: Values

    @Test func eachUpstreamValueGoesOutWithTheLatestOfTheOther() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other).subscribe(subscriber)
        other.send("a")
        other.send("b")
        #expect(subscriber.values.isEmpty, "the other's values alone send nothing")
        upstream.send(1)
        upstream.send(2)
        other.send("c")
        upstream.send(3)
        #expect(subscriber.values == ["b", "b", "c"])
        #expect(subscriber.subscriptionNames == ["WithLatestFrom"])
    }

    @Test func theResultSelectorGetsTheValueAndTheLatest() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(subscriber)
        other.send("x")
        upstream.send(1)
        other.send("y")
        upstream.send(2)
        #expect(subscriber.values == ["1x", "2y"])
    }

    @Test func upstreamValuesBeforeTheOthersFirstAreDropped() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        other.send("a")
        upstream.send(3)
        #expect(subscriber.values == ["3a"])
    }

    @Test func twoOthersAsATupleOnceBothHaveSent() {
        let upstream = Upstream(), a = Other(), b = TestPublisher<Double, TestError>()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(a, b).map { "\($0.0)\($0.1)" }.subscribe(subscriber)
        a.send("a")
        upstream.send(1)
        b.send(0.5)
        upstream.send(2)
        a.send("b")
        upstream.send(3)
        #expect(subscriber.values == ["a0.5", "b0.5"])
    }

    @Test func twoOthersWithAResultSelector() {
        let upstream = Upstream(), a = Other(), b = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(a, b) { value, latest in "\(value)\(latest.0)\(latest.1)" }.subscribe(subscriber)
        a.send("a")
        b.send("b")
        upstream.send(1)
        #expect(subscriber.values == ["1ab"])
    }

    @Test func threeOthersAsATupleAndWithAResultSelector() {
        // Subjects: both operators subscribe to the same three others.
        let upstream = Upstream()
        let a = PassthroughSubject<String, TestError>(), b = PassthroughSubject<String, TestError>()
        let c = PassthroughSubject<Int, TestError>()
        let tuples = TestSubscriber<String, TestError>()
        let selected = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(a, b, c).map { "\($0.0)\($0.1)\($0.2)" }.subscribe(tuples)
        let second = Upstream()
        second.withLatestFrom(a, b, c) { value, latest in "\(value):\(latest.0)\(latest.1)\(latest.2)" }.subscribe(selected)
        a.send("a")
        b.send("b")
        upstream.send(1)
        second.send(1)
        c.send(7)
        upstream.send(2)
        second.send(2)
        #expect(tuples.values == ["ab7"])
        #expect(selected.values == ["2:ab7"])
    }

    @Test func aCurrentValueIsAtHandForTheFirstUpstreamValue() {
        let text = CurrentValueSubject<String, Never>("start")
        var received: [String] = []
        let cancellable = Just(1).withLatestFrom(text) { "\($0) \($1)" }.sink { received.append($0) }
        #expect(received == ["1 start"])
        cancellable.cancel()
    }

    // MARK: Demand

    @Test func theOtherIsAskedForUnlimitedAtOnceAndTheUpstreamForWhatTheDownstreamAsks() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: .none)
        upstream.withLatestFrom(other).subscribe(subscriber)
        #expect(other.demandLog == [.requested(.unlimited)])
        #expect(upstream.demandLog == [])
        subscriber.request(.max(2))
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(other.demandLog == [.requested(.unlimited)], "the downstream's requests never reach the other")
    }

    @Test func neverSendsMoreThanTheDownstreamAskedFor() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: .max(1))
        upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(subscriber)
        other.send("a")
        upstream.send(1)
        // A broken upstream sending beyond the demand: dropped.
        upstream.send(2)
        #expect(subscriber.values == ["1a"])
        subscriber.request(.max(1))
        upstream.send(3)
        #expect(subscriber.values == ["1a", "3a"])
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(1))])
    }

    @Test func aDroppedUpstreamValueIsAskedForAgain() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: .max(1))
        upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(subscriber)
        #expect(upstream.send(1) == .max(1), "no latest value yet: dropped, and asked for again")
        other.send("a")
        #expect(upstream.send(2) == .none)
        #expect(subscriber.values == ["2a"])
        #expect(upstream.outstandingDemand == .none, "the upstream is owed exactly what the downstream is")
    }

    @Test func demandTheDownstreamReturnsGoesToTheUpstream() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: .max(1), onValue: { _ in .max(1) })
        upstream.withLatestFrom(other).subscribe(subscriber)
        other.send("a")
        for _ in 0..<4 {
            #expect(upstream.send(1) == .max(1), "the downstream's answer is the upstream's")
        }
        #expect(subscriber.values.count == 4, "each value's answer made room for the next")
        #expect(upstream.demandLog == [.requested(.max(1))])
    }

    @Test func demandMadeBeforeTheUpstreamSubscribesIsAskedOnceItDoes() {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let other = Other()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: .max(3))
        upstream.withLatestFrom(other).subscribe(subscriber)
        #expect(upstream.demandLog == [])
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.requested(.max(3))])
    }

    // MARK: Completion and failure

    @Test func finishesWhenTheUpstreamFinishesWhileTheOtherGoesOn() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other).subscribe(subscriber)
        other.send("a")
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("WithLatestFrom"), .value("a"), .completion(.finished)])
        #expect(other.isCancelled, "the other is cancelled once the upstream has finished")
        #expect(!upstream.isCancelled)
    }

    @Test func finishesWhenTheUpstreamFinishesEvenIfTheOtherNeverSent() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.completions == [.finished])
    }

    @Test func theOtherFinishingChangesNothing() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other).subscribe(subscriber)
        other.send("a")
        other.send(completion: .finished)
        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.values == ["a", "a"])
        #expect(subscriber.completions.isEmpty)
        #expect(!upstream.isCancelled)
    }

    @Test func failsWhenTheOtherFailsAndCancelsTheUpstream() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other).subscribe(subscriber)
        other.send(completion: .failure(TestError(code: 3)))
        upstream.send(1)
        #expect(subscriber.events == [.subscription("WithLatestFrom"), .completion(.failure(TestError(code: 3)))])
        #expect(upstream.isCancelled)
        #expect(!other.isCancelled)
    }

    @Test func failsWhenTheUpstreamFailsAndCancelsTheOther() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 4)))
        #expect(subscriber.completions == [.failure(TestError(code: 4))])
        #expect(other.isCancelled)
    }

    @Test func anOtherThatFailsAtOnceFailsBeforeAnyValueWithTheSubscriptionFirst() {
        let subscriber = TestSubscriber<Int, TestError>()
        Just(1).setFailureType(to: TestError.self)
            .withLatestFrom(Fail<Int, TestError>(error: TestError(code: 5)))
            .subscribe(subscriber)
        #expect(subscriber.events == [.subscription("WithLatestFrom"), .completion(.failure(TestError(code: 5)))])
    }

    @Test func signalsAfterTheEndGoNowhere() {
        let upstream = Upstream(), other = Other()
        let subscriber = TestSubscriber<String, TestError>()
        upstream.withLatestFrom(other).subscribe(subscriber)
        other.send("a")
        upstream.send(completion: .finished)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        other.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("WithLatestFrom"), .completion(.finished)])
    }

    // MARK: Cancel

    @Test func cancelCancelsBothStopsValuesAndReleasesTheLatestValue() {
        let upstream = Upstream()
        let other = TestPublisher<Tracked, TestError>()
        let released = Flag()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.withLatestFrom(other) { $0 + $1.value }.subscribe(subscriber)
        other.send(Tracked(10, released: released))
        upstream.send(1)
        #expect(!released.isSet)
        subscriber.cancel()
        #expect(released.isSet, "the latest value goes at the cancel")
        #expect(upstream.isCancelled && other.isCancelled)
        upstream.send(2)
        #expect(subscriber.values == [11])
        subscriber.cancel()
        #expect(upstream.demandLog.filter { $0 == .cancelled }.count == 1, "cancel is idempotent")
    }

    @Test func aCancelFromInsideTheSelectorsDeliveryStopsAtOnce() {
        let upstream = PassthroughSubject<Int, Never>()
        let other = CurrentValueSubject<Int, Never>(100)
        var received: [Int] = []
        var cancellable: AnyCancellable?
        cancellable = upstream.withLatestFrom(other) { $0 + $1 }.sink { value in
            received.append(value)
            cancellable?.cancel()
        }
        upstream.send(1)
        upstream.send(2)
        #expect(received == [101])
    }

    // MARK: Re-entrancy and threads

    @Test func aSendIntoTheUpstreamFromInsideTheSubscriberIsDeliveredNested() {
        let upstream = PassthroughSubject<Int, Never>()
        let other = CurrentValueSubject<String, Never>("x")
        var received: [String] = []
        let cancellable = upstream.withLatestFrom(other) { "\($0)\($1)" }.sink { value in
            received.append(value)
            if value == "1x" { upstream.send(2) }
        }
        upstream.send(1)
        #expect(received == ["1x", "2x"])
        cancellable.cancel()
    }

    @Test func theOtherSendingFromManyThreadsWhileTheUpstreamSendsKeepsSignalsSerial() {
        let upstream = PassthroughSubject<Int, TestError>()
        let other = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.withLatestFrom(other) { $1 }.subscribe(subscriber)
        other.send(-1)
        let perThread = 2_000
        Stress.runOnThreads(4) { thread in
            for index in 0..<perThread {
                if thread == 0 {
                    upstream.send(index)
                } else {
                    other.send(Stress.tag(thread, index))
                }
            }
        }
        upstream.send(completion: .finished)
        #expect(!subscriber.sawConcurrentSignals)
        #expect(subscriber.values.count == perThread, "every upstream value goes out, none is dropped")
        // Each value is one the other sent, and each sending thread's values appear in order.
        let values = subscriber.values.filter { $0 >= 0 }
        for thread in 1..<4 {
            let own = values.filter { $0 / Stress.threadStride == thread }
            #expect(own == own.sorted(), "thread \(thread)'s latest values went backwards")
        }
        #expect(subscriber.completions == [.finished])
    }

    @Test func aFailureOfTheOtherRacingUpstreamValuesComesLastAndAlone() {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, TestError>()
            let other = PassthroughSubject<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>()
            upstream.withLatestFrom(other) { $0 + $1 }.subscribe(subscriber)
            other.send(0)
            Stress.runOnThreads(2) { thread in
                if thread == 0 {
                    for index in 0..<200 { upstream.send(index) }
                } else {
                    other.send(completion: .failure(TestError(code: 8)))
                }
            }
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil)
            #expect(subscriber.completion == .failure(TestError(code: 8)))
            #expect(subscriber.values == Array(0..<subscriber.values.count), "values before the failure, in order")
        }
    }
}
