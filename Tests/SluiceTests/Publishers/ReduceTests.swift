import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// MARK: - Shared checks for the reduce-like family

/// The behaviour every operator built on Sluice's reduce machinery shares with Combine's
/// reduce-like family: `.unlimited` is asked of the upstream right after the subscription goes
/// downstream; the result and `.finished` go out when the upstream finishes, but only once the
/// downstream has asked (an empty upstream gets its result at once); an early decision cancels
/// the upstream at once; failures go out at once; nothing goes out after the end.
///
/// Each check takes `make`, which builds the operator over an erased upstream, and compares whole
/// histories as strings (`"subscription(Reduce)"`, `"value(120)"`, `"finished"`).
enum ReduceFamily {
    typealias Upstream = AnyPublisher<Int, TestError>

    static func history<Output, Failure>(_ subscriber: TestSubscriber<Output, Failure>) -> [String] {
        subscriber.events.map(\.description)
    }

    static func expected(_ name: String, _ result: String?, _ end: String = "finished") -> [String] {
        ["subscription(\(name))"] + (result.map { [$0] } ?? []) + [end]
    }

    /// The subscription reaches the downstream before anything is asked of the upstream, then
    /// the upstream is asked for `.unlimited`, whatever the downstream wants.
    static func subscribesDownstreamThenRequestsUnlimited<P: Publisher>(
        name: String, _ make: (Upstream) -> P, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        var logInsideReceiveSubscription: [TestPublisher<Int, TestError>.DemandEvent]?
        let subscriber = TestSubscriber<P.Output, P.Failure>(
            initialDemand: .max(3), onSubscription: { _ in logInsideReceiveSubscription = upstream.demandLog })
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        #expect(logInsideReceiveSubscription == [], sourceLocation: sourceLocation)
        #expect(upstream.demandLog == [.requested(.unlimited)], sourceLocation: sourceLocation)
        #expect(history(subscriber) == ["subscription(\(name))"], sourceLocation: sourceLocation)
        // Downstream demand is never forwarded.
        subscriber.request(.max(5))
        subscriber.request(.unlimited)
        #expect(upstream.demandLog == [.requested(.unlimited)], sourceLocation: sourceLocation)
    }

    /// Values and finish with no demand: nothing is sent until the first request, then the
    /// result and `.finished`; later requests do nothing.
    static func holdsResultUntilDemand<P: Publisher>(
        name: String, values: [Int], result: String?, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        for value in values {
            #expect(upstream.send(value) == .none, sourceLocation: sourceLocation)
        }
        upstream.send(completion: .finished)
        #expect(history(subscriber) == ["subscription(\(name))"], sourceLocation: sourceLocation)
        subscriber.request(.max(1))
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        subscriber.request(.max(1))
        upstream.send(completion: .finished)
        #expect(upstream.send(99) == .none, sourceLocation: sourceLocation)
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        #expect(upstream.demandLog == [.requested(.unlimited)], sourceLocation: sourceLocation)
    }

    /// With demand already there, the result goes out as soon as the upstream finishes; later
    /// completions and values are ignored.
    static func deliversOnFinishWhenDemanded<P: Publisher>(
        name: String, values: [Int], result: String?, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .max(1))
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        for value in values {
            #expect(upstream.send(value) == .none, sourceLocation: sourceLocation)
        }
        #expect(history(subscriber) == ["subscription(\(name))"], sourceLocation: sourceLocation)
        upstream.send(completion: .finished)
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        upstream.send(completion: .failure(TestError()))
        upstream.send(completion: .finished)
        #expect(upstream.send(99) == .none, sourceLocation: sourceLocation)
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        #expect(upstream.demandLog == [.requested(.unlimited)], sourceLocation: sourceLocation)
    }

    /// An upstream that finishes without values: the result (or, for the operators that have
    /// none then, the bare `.finished`) waits for demand, as Combine's does; nothing after it.
    static func emptyUpstreamHoldsResultUntilDemand<P: Publisher>(
        name: String, result: String?, _ make: (Upstream) -> P, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(history(subscriber) == ["subscription(\(name))"], "nothing before demand", sourceLocation: sourceLocation)
        subscriber.request(.max(1))
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        subscriber.request(.max(1))
        upstream.send(completion: .failure(TestError()))
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
    }

    /// An upstream failure goes out at once, without demand; nothing after it.
    static func forwardsFailureAtOnce<P: Publisher>(
        name: String, values: [Int], _ make: (Upstream) -> P, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        for value in values { upstream.send(value) }
        upstream.send(completion: .failure(TestError(code: 7)))
        let failed = expected(name, nil, "failure(TestError(7))")
        #expect(history(subscriber) == failed, sourceLocation: sourceLocation)
        upstream.send(completion: .failure(TestError(code: 8)))
        upstream.send(completion: .finished)
        #expect(upstream.send(99) == .none, sourceLocation: sourceLocation)
        subscriber.request(.max(1))
        #expect(history(subscriber) == failed, sourceLocation: sourceLocation)
        #expect(upstream.demandLog == [.requested(.unlimited)], sourceLocation: sourceLocation)
    }

    /// Cancel mid-stream cancels the upstream once; nothing is delivered afterwards, even on
    /// demand; a second cancel and later requests are ignored.
    static func cancelStopsEverything<P: Publisher>(
        name: String, values: [Int], _ make: (Upstream) -> P, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        for value in values { upstream.send(value) }
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
        subscriber.request(.unlimited)
        subscriber.cancel()
        #expect(upstream.send(1) == .none, sourceLocation: sourceLocation)
        upstream.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(history(subscriber) == ["subscription(\(name))"], sourceLocation: sourceLocation)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)

        // Cancelling while the finished result waits for demand drops it.
        let upstream2 = TestPublisher<Int, TestError>()
        let subscriber2 = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(upstream2.eraseToAnyPublisher()).subscribe(subscriber2)
        upstream2.send(1)
        upstream2.send(completion: .finished)
        subscriber2.cancel()
        subscriber2.request(.max(1))
        #expect(history(subscriber2) == ["subscription(\(name))"], sourceLocation: sourceLocation)
    }

    /// A second subscription is cancelled (so is the first one handed over again), and the
    /// first keeps working.
    static func cancelsSecondSubscription<P: Publisher>(
        name: String, values: [Int], result: String?, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .max(1))
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        let first = ReduceFamily.RecordingSubscription()
        let second = ReduceFamily.RecordingSubscription()
        upstream.subscriber?.receive(subscription: first)
        upstream.subscriber?.receive(subscription: second)
        upstream.subscriber?.receive(subscription: first)
        #expect(first.log == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
        #expect(second.log == [.cancelled], sourceLocation: sourceLocation)
        for value in values { _ = upstream.subscriber?.receive(value) }
        upstream.subscriber?.receive(completion: .finished)
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        let third = ReduceFamily.RecordingSubscription()
        upstream.subscriber?.receive(subscription: third)
        #expect(third.log == [.cancelled], sourceLocation: sourceLocation)
    }

    /// A misbehaving upstream: a value or a completion before the subscription is ignored; a
    /// request before it is remembered; a cancel before it still lets the late subscription be
    /// asked for `.unlimited` (as Combine does) but nothing reaches the downstream.
    static func signalsBeforeSubscription<P: Publisher>(
        name: String, values: [Int], result: String?, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        // Value and completion before the subscription.
        do {
            let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
            let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
            make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
            #expect(upstream.subscriber?.receive(1) == Subscribers.Demand.none, sourceLocation: sourceLocation)
            upstream.subscriber?.receive(completion: .finished)
            #expect(history(subscriber) == [], sourceLocation: sourceLocation)
        }
        // Request before the subscription counts as demand.
        do {
            let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
            let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
            make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
            upstream.inner?.request(.max(1))
            let subscription = ReduceFamily.RecordingSubscription()
            upstream.subscriber?.receive(subscription: subscription)
            #expect(subscription.log == [.requested(.unlimited)], sourceLocation: sourceLocation)
            for value in values { _ = upstream.subscriber?.receive(value) }
            upstream.subscriber?.receive(completion: .finished)
            #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        }
        // Cancel before the subscription.
        do {
            let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
            let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
            make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
            #expect(upstream.inner != nil, sourceLocation: sourceLocation)
            upstream.inner?.cancel()
            let late = ReduceFamily.RecordingSubscription()
            upstream.subscriber?.receive(subscription: late)
            #expect(late.log == [.requested(.unlimited)], sourceLocation: sourceLocation)
            for value in values { _ = upstream.subscriber?.receive(value) }
            upstream.subscriber?.receive(completion: .finished)
            upstream.inner?.request(.max(1))
            #expect(history(subscriber) == [], sourceLocation: sourceLocation)
            let another = ReduceFamily.RecordingSubscription()
            upstream.subscriber?.receive(subscription: another)
            #expect(another.log == [.cancelled], sourceLocation: sourceLocation)
        }
    }

    /// The operator lets go of its downstream once it is cancelled, has finished or has failed,
    /// even though the upstream still holds the operator.
    static func releasesDownstream<P: Publisher>(
        values: [Int], _ make: (Upstream) -> P, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let endings: [(TestPublisher<Int, TestError>, TestSubscriber<P.Output, P.Failure>) -> Void] = [
            { _, subscriber in subscriber.cancel() },
            { upstream, subscriber in
                subscriber.request(.max(1))
                upstream.send(completion: .finished)
            },
            { upstream, subscriber in
                upstream.send(completion: .finished)
                subscriber.request(.max(1))
            },
            { upstream, _ in upstream.send(completion: .failure(TestError())) },
        ]
        for end in endings {
            let upstream = TestPublisher<Int, TestError>()
            weak var weakSubscriber: TestSubscriber<P.Output, P.Failure>?
            do {
                let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
                weakSubscriber = subscriber
                make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
                for value in values { upstream.send(value) }
                end(upstream, subscriber)
                subscriber.releaseSubscriptions()
            }
            #expect(weakSubscriber == nil, sourceLocation: sourceLocation)
            #expect(upstream.hasSubscriber, sourceLocation: sourceLocation)
        }
    }

    /// A request racing with the upstream's finish gets the result exactly once, never a bare
    /// `.finished`.
    static func requestRacingFinishDeliversResultOnce<P: Publisher>(
        name: String, values: [Int], result: String?, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for _ in 0..<300 {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
            make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
            for value in values { upstream.send(value) }
            ReduceFamily.ConcurrentRace.run({ upstream.send(completion: .finished) }, { subscriber.request(.max(1)) })
            #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
            #expect(!subscriber.sawConcurrentSignals, sourceLocation: sourceLocation)
        }
    }

    /// A downstream that cancels from inside the result's `receive(_:)` gets no `.finished`
    /// after it; one that requests from inside it changes nothing.
    static func reentrantCancelAndRequestInsideResult<P: Publisher>(
        name: String, values: [Int], result: String, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        var subscription: Subscription?
        let cancelling = TestSubscriber<P.Output, P.Failure>(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.cancel()
                return .none
            })
        make(upstream.eraseToAnyPublisher()).subscribe(cancelling)
        for value in values { upstream.send(value) }
        upstream.send(completion: .finished)
        #expect(history(cancelling) == ["subscription(\(name))", result], sourceLocation: sourceLocation)

        let upstream2 = TestPublisher<Int, TestError>()
        var subscription2: Subscription?
        let requesting = TestSubscriber<P.Output, P.Failure>(
            initialDemand: .none,
            onSubscription: { subscription2 = $0 },
            onValue: { _ in
                subscription2?.request(.max(1))
                return .max(1)
            })
        make(upstream2.eraseToAnyPublisher()).subscribe(requesting)
        for value in values { upstream2.send(value) }
        upstream2.send(completion: .finished)
        requesting.request(.max(1))
        #expect(history(requesting) == expected(name, result), sourceLocation: sourceLocation)
        // No demand reaches the upstream (an early decision may have cancelled it).
        #expect(upstream2.demandLog.filter { $0 != .cancelled } == [.requested(.unlimited)], sourceLocation: sourceLocation)
    }

    /// A downstream that cancels from inside `receive(subscription:)` cancels the upstream, and
    /// the upstream is then not asked for anything.
    static func cancelInsideReceiveSubscription<P: Publisher>(
        _ make: (Upstream) -> P, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none, onSubscription: { $0.cancel() })
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        #expect(upstream.demandLog == [.cancelled], sourceLocation: sourceLocation)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.events.count == 1, sourceLocation: sourceLocation)
    }

    /// The value that decides the result cancels the upstream at once, with or without demand;
    /// the result goes out immediately if demanded, otherwise on the first request.
    static func decidesEarly<P: Publisher>(
        name: String, values: [Int], result: String, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        // Without demand: held until the request.
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        for value in values {
            #expect(upstream.send(value) == .none, sourceLocation: sourceLocation)
        }
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
        #expect(history(subscriber) == ["subscription(\(name))"], sourceLocation: sourceLocation)
        #expect(upstream.send(99) == .none, sourceLocation: sourceLocation)
        upstream.send(completion: .finished)
        #expect(history(subscriber) == ["subscription(\(name))"], sourceLocation: sourceLocation)
        subscriber.request(.max(1))
        #expect(history(subscriber) == expected(name, result), sourceLocation: sourceLocation)
        subscriber.cancel()
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)

        // With demand: delivered by the deciding value, after the upstream is cancelled.
        let upstream2 = TestPublisher<Int, TestError>()
        var logAtDelivery: [TestPublisher<Int, TestError>.DemandEvent]?
        let subscriber2 = TestSubscriber<P.Output, P.Failure>(
            initialDemand: .max(1),
            onValue: { _ in
                logAtDelivery = upstream2.demandLog
                return .none
            })
        make(upstream2.eraseToAnyPublisher()).subscribe(subscriber2)
        for value in values { upstream2.send(value) }
        #expect(history(subscriber2) == expected(name, result), sourceLocation: sourceLocation)
        #expect(logAtDelivery == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
        upstream2.send(99)
        upstream2.send(completion: .failure(TestError()))
        #expect(history(subscriber2) == expected(name, result), sourceLocation: sourceLocation)

        requestInsideUpstreamCancel(
            name: name, values: values, end: "finished", result: result, make, sourceLocation: sourceLocation)
    }

    /// A downstream request made while the operator is cancelling its upstream (here from inside
    /// the upstream's `cancel()`) sees the decided result: early decisions deliver it, throws
    /// still fail.
    static func requestInsideUpstreamCancel<P: Publisher>(
        name: String, values: [Int], end: String, result: String?, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = ReduceFamily.CapturingPublisher<Int, TestError>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        let subscription = ReduceFamily.RecordingSubscription()
        subscription.onCancel = { subscriber.request(.max(1)) }
        upstream.subscriber?.receive(subscription: subscription)
        for value in values { _ = upstream.subscriber?.receive(value) }
        #expect(subscription.log == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
        #expect(history(subscriber) == expected(name, result, end), sourceLocation: sourceLocation)
    }

    /// A throwing closure: the upstream is cancelled before the failure is delivered, which goes
    /// out at once without demand; later requests and values change nothing.
    static func throwFailsAtOnce<P: Publisher>(
        name: String, values: [Int], _ make: (Upstream) -> P, sourceLocation: SourceLocation = #_sourceLocation
    ) where P.Failure == Error {
        let upstream = TestPublisher<Int, TestError>()
        var logAtFailure: [TestPublisher<Int, TestError>.DemandEvent]?
        let subscriber = TestSubscriber<P.Output, Error>(
            initialDemand: .none, onCompletion: { _ in logAtFailure = upstream.demandLog })
        make(upstream.eraseToAnyPublisher()).subscribe(subscriber)
        for value in values {
            #expect(upstream.send(value) == .none, sourceLocation: sourceLocation)
        }
        #expect(logAtFailure == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
        #expect(history(subscriber) == expected(name, nil, "failure(TestError(42))"), sourceLocation: sourceLocation)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 42), sourceLocation: sourceLocation)
        }
        subscriber.request(.max(1))
        upstream.send(99)
        upstream.send(completion: .finished)
        #expect(subscriber.events.count == 2, sourceLocation: sourceLocation)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)

        requestInsideUpstreamCancel(
            name: name, values: values, end: "failure(TestError(42))", result: nil, make, sourceLocation: sourceLocation)
    }

    /// The checks every operator of the family must pass, for a stream of `values` that does
    /// not end it early.
    static func commonChecks<P: Publisher>(
        name: String, values: [Int], result: String?, empty: String?, _ make: (Upstream) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        subscribesDownstreamThenRequestsUnlimited(name: name, make, sourceLocation: sourceLocation)
        holdsResultUntilDemand(name: name, values: values, result: result, make, sourceLocation: sourceLocation)
        deliversOnFinishWhenDemanded(name: name, values: values, result: result, make, sourceLocation: sourceLocation)
        emptyUpstreamHoldsResultUntilDemand(name: name, result: empty, make, sourceLocation: sourceLocation)
        forwardsFailureAtOnce(name: name, values: values, make, sourceLocation: sourceLocation)
        cancelStopsEverything(name: name, values: values, make, sourceLocation: sourceLocation)
        cancelsSecondSubscription(name: name, values: values, result: result, make, sourceLocation: sourceLocation)
        signalsBeforeSubscription(name: name, values: values, result: result, make, sourceLocation: sourceLocation)
        releasesDownstream(values: values, make, sourceLocation: sourceLocation)
        cancelInsideReceiveSubscription(make, sourceLocation: sourceLocation)
        if let result {
            reentrantCancelAndRequestInsideResult(
                name: name, values: values, result: result, make, sourceLocation: sourceLocation)
        }
    }
}

/// Test doubles used by the reduce-family tests (nested to keep the test target's namespace clear).
extension ReduceFamily {
    /// A publisher that only keeps the subscriber it is given, so that a test can reach an operator's
    /// own subscription object before any upstream subscription exists, and hand it one later.
    final class CapturingPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
        private(set) var subscriber: AnySubscriber<Output, Failure>?
        /// The operator's subscriber, when it is also the downstream's subscription.
        private(set) var inner: Subscription?

        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            self.subscriber = AnySubscriber(subscriber)
            inner = subscriber as? Subscription
        }
    }

    /// A subscription that records what is asked of it.
    final class RecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
        enum Event: Equatable { case requested(Subscribers.Demand), cancelled }

        private let lock = NSLock()
        private var events: [Event] = []
        /// Runs inside `cancel()`, after it is recorded: an upstream that calls back into its
        /// subscriber while being cancelled.
        var onCancel: () -> Void = {}
        var log: [Event] { lock.withLock { events } }

        func request(_ demand: Subscribers.Demand) { lock.withLock { events.append(.requested(demand)) } }
        func cancel() {
            lock.withLock { events.append(.cancelled) }
            onCancel()
        }
        var description: String { "ReduceFamily.RecordingSubscription" }
    }

    /// Runs two closures at the same time on two threads and waits for both.
    enum ConcurrentRace {
        static func run(_ first: @Sendable () -> Void, _ second: @Sendable () -> Void) {
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { first() } else { second() }
            }
        }
    }
}

// MARK: - Reduce and TryReduce

@Suite("Reduce and TryReduce")
struct ReduceTests {
    @Test func reduceSharesTheFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "Reduce", values: [1, 2, 3, 4, 5], result: "value(120)", empty: "value(1)") {
            $0.reduce(1, *)
        }
    }

    @Test func tryReduceSharesTheFamilyBehaviour() {
        ReduceFamily.commonChecks(name: "TryReduce", values: [1, 2, 3, 4, 5], result: "value(120)", empty: "value(1)") {
            $0.tryReduce(1, *)
        }
    }

    @Test func tryReduceFailsWithTheThrownErrorAndCancelsUpstreamFirst() {
        ReduceFamily.throwFailsAtOnce(name: "TryReduce", values: [1, 2, 3, 4, 5, 6]) {
            $0.tryReduce(1) { accumulator, value in
                if value == 5 { throw TestError(code: 42) }
                return accumulator * value
            }
        }
    }

    @Test func closureSeesTheAccumulatorAndEachValueInOrder() {
        var calls: [String] = []
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<String, Never>()
        upstream.reduce("") { accumulator, value in
            calls.append("\(accumulator)+\(value)")
            return accumulator + "\(value)"
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(calls == ["+1", "1+2", "12+3"])
        #expect(subscriber.events == [.subscription("Reduce"), .value("123"), .completion(.finished)])
    }

    @Test func limitedDemandThenMoreOverASynchronousUpstream() {
        // The request made inside receive(subscription:) comes before the upstream is asked for
        // anything; the whole sequence then runs inside the operator's request(.unlimited).
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().reduce(0, +).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Reduce"), .value(15), .completion(.finished)])

        let late = TestSubscriber<Int, Never>(initialDemand: .none)
        (1...5).publisher.eraseToAnyPublisher().reduce(0, +).subscribe(late)
        #expect(late.events == [.subscription("Reduce")])
        late.request(.max(1))
        late.request(.max(1))
        #expect(late.events == [.subscription("Reduce"), .value(15), .completion(.finished)])
    }

    @Test func requestRacingFinishDeliversTheResultOnce() {
        ReduceFamily.requestRacingFinishDeliversResultOnce(
            name: "Reduce", values: [1, 2, 3], result: "value(6)") { $0.reduce(0, +) }
        ReduceFamily.requestRacingFinishDeliversResultOnce(
            name: "TryReduce", values: [1, 2, 3], result: "value(6)") { $0.tryReduce(0, +) }
    }

    @Test func concurrentSendsAreAllFolded() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.reduce(0, +).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for i in 1...1_000 { subject.send(i) }
                }
            }
        }
        subject.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Reduce"), .value(8 * 500_500), .completion(.finished)])
        #expect(!subscriber.sawConcurrentSignals)
    }

    @Test func mirrorShowsTheReduceState() throws {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.reduce(10, +).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Reduce")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Reduce")
        #expect(!(subscription is CustomDebugStringConvertible))
        upstream.send(5)
        let children = Mirror(reflecting: subscription).children.map { ($0.label ?? "", String(describing: $0.value)) }
        #expect(children.map(\.0) == ["downstream", "result", "initial", "status"])
        #expect(children[1].1 == "Optional(15)")
        #expect(children[2].1 == "Optional(10)")
        #expect(children[3].1.contains("subscribed"))
    }

    @Test func mirrorStatusBeforeSubscription() throws {
        let upstream = ReduceFamily.CapturingPublisher<Int, Never>()
        upstream.reduce(0, +).subscribe(TestSubscriber<Int, Never>())
        let inner = try #require(upstream.inner)
        let status = Mirror(reflecting: inner).children.first { $0.label == "status" }?.value
        #expect(String(describing: status ?? "") == "awaitingSubscription")
    }
}
