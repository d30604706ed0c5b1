import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// An upstream that breaks the rules by sending a value or a completion before its
/// subscription: each operator copes as Combine's does. Some pass the signal on, some drop it,
/// and a few stop the program; none hangs or loses the downstream's demand.
@Suite("Signals before the subscription")
struct EarlySignalTests {
    /// What an operator does with a value sent before its upstream's subscription: what reaches
    /// the downstream, and the demand the upstream gets back (the downstream returns `.max(42)`).
    struct ValueCase: Sendable, CustomStringConvertible {
        let description: String
        let forwarded: Bool
        /// Subscribes to the operator over an upstream that has not sent its subscription,
        /// sends 7, and says how many values arrived, how many completions, and the demand.
        let run: @Sendable () -> (values: Int, completions: Int, demand: Subscribers.Demand)

        init<P: Publisher & SendableMetatype>(_ name: String, forwarded: Bool,
                                              _ make: @escaping @Sendable (TestPublisher<Int, TestError>) -> P) {
            description = name
            self.forwarded = forwarded
            run = {
                let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
                let subscriber = TestSubscriber<P.Output, P.Failure>(onValue: { _ in .max(42) })
                make(upstream).subscribe(subscriber)
                let demand = upstream.send(7)
                return (subscriber.values.count, subscriber.completions.count, demand)
            }
        }
    }

    static let valueCases: [ValueCase] = [
        ValueCase("map", forwarded: true) { $0.map { $0 } },
        ValueCase("tryMap", forwarded: true) { $0.tryMap { $0 } },
        ValueCase("map(keyPath)", forwarded: true) { $0.map(\.self) },
        ValueCase("tryScan", forwarded: true) { $0.tryScan(0) { $1 } },
        ValueCase("handleEvents", forwarded: true) { $0.handleEvents() },
        ValueCase("ignoreOutput", forwarded: false) { $0.ignoreOutput() },
        ValueCase("receive(on:)", forwarded: false) { $0.receive(on: ImmediateScheduler.shared) },
        ValueCase("replaceEmpty", forwarded: false) { $0.replaceEmpty(with: 1) },
        ValueCase("allSatisfy", forwarded: false) { $0.allSatisfy { _ in true } },
        ValueCase("drop(while:)", forwarded: false) { $0.drop { _ in false } },
        ValueCase("tryDrop(while:)", forwarded: false) { $0.tryDrop { _ in false } },
    ]

    @Test(arguments: valueCases)
    func aValueBeforeTheSubscription(_ operatorCase: ValueCase) {
        let (values, completions, demand) = operatorCase.run()
        if operatorCase.forwarded {
            #expect(values == 1)
            #expect(demand == .max(42))
        } else {
            #expect(values == 0)
            #expect(demand == .none)
        }
        #expect(completions == 0)
    }

    /// What an operator does with a completion sent before its upstream's subscription, and
    /// whether a subscription that arrives afterwards still works (`nil`: it was cancelled or
    /// ignored, the operator is done).
    struct CompletionCase: Sendable, CustomStringConvertible {
        let description: String
        let forwarded: Bool
        /// Sends `.finished` before the subscription; says how many completions arrived.
        let run: @Sendable () -> Int

        init<P: Publisher & SendableMetatype>(_ name: String, forwarded: Bool,
                                              _ make: @escaping @Sendable (TestPublisher<Int, TestError>) -> P) {
            description = name
            self.forwarded = forwarded
            run = {
                let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
                let subscriber = TestSubscriber<P.Output, P.Failure>()
                make(upstream).subscribe(subscriber)
                upstream.send(completion: .finished)
                return subscriber.completions.count
            }
        }
    }

    static let completionCases: [CompletionCase] = [
        CompletionCase("map", forwarded: true) { $0.map { $0 } },
        CompletionCase("tryMap", forwarded: false) { $0.tryMap { $0 } },
        CompletionCase("tryScan", forwarded: false) { $0.tryScan(0) { $1 } },
        CompletionCase("retry", forwarded: true) { $0.retry(3) },
        CompletionCase("catch", forwarded: false) { $0.catch { _ in Just(13) } },
        CompletionCase("receive(on:)", forwarded: false) { $0.receive(on: ImmediateScheduler.shared) },
        CompletionCase("replaceEmpty", forwarded: false) { $0.replaceEmpty(with: 1) },
        CompletionCase("allSatisfy", forwarded: false) { $0.allSatisfy { _ in true } },
    ]

    @Test(arguments: completionCases)
    func aCompletionBeforeTheSubscription(_ operatorCase: CompletionCase) {
        #expect(operatorCase.run() == (operatorCase.forwarded ? 1 : 0))
    }

    /// `tryMap` before its subscription, as Combine's: a cancel does nothing, so the
    /// subscription that arrives later is passed on and serves the downstream.
    @Test func tryMapIgnoresACancelBeforeItsSubscription() {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        var handed: Subscription?
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(2))
        let tryMap = upstream.tryMap { $0 * 2 }
        tryMap.subscribe(AnySubscriber(receiveSubscription: { handed = $0; subscriber.receive(subscription: $0) },
                                       receiveValue: { subscriber.receive($0) },
                                       receiveCompletion: { subscriber.receive(completion: $0) }))
        #expect(handed == nil)
        upstream.sendSubscription()
        #expect(subscriber.subscriptionNames == ["TryMap"])
        #expect(upstream.demandLog == [.requested(.max(2))])
        #expect(upstream.send(3) == .none)
        #expect(subscriber.values == [6])
    }

    /// A `tryMap` whose closure throws on an early value fails the downstream at once; the
    /// subscription that arrives later is cancelled.
    @Test func tryMapFailsOnAnEarlyValueItsClosureRejects() {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryMap { _ -> Int in throw TestError() }.subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(subscriber.completions.count == 1)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
        #expect(subscriber.subscriptionNames.isEmpty)
    }

    /// Where Combine stops the program on an early value (`tryFilter`, `removeDuplicates`,
    /// `catch`, `retry`), so does Sluice.
    @Test func theOperatorsCombineStopsOnAnEarlyValueStopToo() async {
        await #expect(processExitsWith: .failure) {
            EarlySignalTests.sendEarlyValue { $0.tryFilter { _ in true } }
        }
        await #expect(processExitsWith: .failure) {
            EarlySignalTests.sendEarlyValue { $0.removeDuplicates() }
        }
        await #expect(processExitsWith: .failure) {
            EarlySignalTests.sendEarlyValue { $0.catch { _ in Just(13) } }
        }
        await #expect(processExitsWith: .failure) {
            EarlySignalTests.sendEarlyValue { $0.retry(1) }
        }
    }

    /// Asking an operator's subscription for values before its upstream's subscription has
    /// arrived (only possible by using the subscriber the upstream was handed as a
    /// subscription): Combine's "FilterProducer" operators stop the program, and so do Sluice's
    /// (OpenCombine's suite, run against Combine, pins it for `tryFilter` and `tryCompactMap`).
    /// Sluice's other transform operators (`tryMap`, `tryScan`, `drop(while:)`) ignore such a
    /// request, and the subscription that arrives later serves the demand asked after it.
    @Test func aRequestBeforeTheSubscriptionStopsTheFilterProducerOperators() async {
        await #expect(processExitsWith: .failure) { EarlySignalTests.requestEarly { $0.tryFilter { _ in true } } }
        await #expect(processExitsWith: .failure) { EarlySignalTests.requestEarly { $0.tryCompactMap { $0 } } }
        await #expect(processExitsWith: .failure) { EarlySignalTests.requestEarly { $0.removeDuplicates() } }
        await #expect(processExitsWith: .failure) { EarlySignalTests.requestEarly { $0.tryRemoveDuplicates { $0 == $1 } } }
        await #expect(processExitsWith: .failure) { EarlySignalTests.requestEarly { $0.prefix { _ in true } } }
        await #expect(processExitsWith: .failure) { EarlySignalTests.requestEarly { $0.tryPrefix { _ in true } } }
        #expect(EarlySignalTests.requestEarly { $0.tryMap { $0 } } == [.requested(.max(1))])
        #expect(EarlySignalTests.requestEarly { $0.tryScan(0) { $1 } } == [.requested(.max(1))])
        #expect(EarlySignalTests.requestEarly { $0.drop { _ in false } } == [.requested(.max(1))])
    }

    /// Requests one value from what the operator handed its upstream, before the upstream's
    /// subscription arrives, then sends that subscription and asks once more; returns what the
    /// upstream's subscription was asked.
    @discardableResult
    static func requestEarly<P: Publisher>(_ make: (InnerProbe<Int, Never>) -> P) -> [ProbeSubscription.Event] {
        let probe = InnerProbe<Int, Never>()
        make(probe).subscribe(TestSubscriber<P.Output, P.Failure>(initialDemand: .none))
        (probe.inner as? Subscription)?.request(.max(5))
        let upstream = ProbeSubscription()
        probe.send(subscription: upstream)
        (probe.inner as? Subscription)?.request(.max(1))
        return upstream.history
    }

    static func sendEarlyValue<P: Publisher>(_ make: (TestPublisher<Int, TestError>) -> P) where P.Output == Int {
        let upstream = TestPublisher<Int, TestError>(sendsSubscriptionOnSubscribe: false)
        make(upstream).subscribe(TestSubscriber<Int, P.Failure>())
        _ = upstream.send(1)
    }
}
