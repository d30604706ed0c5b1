import Testing
import Foundation
import Sluice
import SluiceTesting

/// The combining operators (merge, zip, combineLatest, flatMap and the rest of `DownstreamGate`'s
/// faces) call their downstream without retaining it: only the thread that gives the gate back
/// releases it. What must hold: a cancel made while a delivery runs, from another thread or from
/// inside the downstream's own `receive`, leaves the downstream alive until that delivery has
/// returned, and releases it then.
@Suite("Combining operators: the downstream's lifetime across a delivery", .serialized)
struct DownstreamGateLifetimeTests {
    typealias FastPath = SubjectDeliveryFastPathTests

    /// Each combining operator over two subjects, and how to make it deliver one value.
    enum Operator: String, CaseIterable, CustomTestStringConvertible {
        case merge, zip, combineLatest, flatMap, switchToLatest

        var testDescription: String { rawValue }

        /// Subscribes `subscriber` and returns what makes the operator deliver one value.
        func attach<S: Subscriber>(_ subscriber: S) -> @Sendable () -> Void
            where S.Input == Int, S.Failure == Never
        {
            attachFinishable(subscriber).send
        }

        /// Subscribes `subscriber`; returns what makes the operator deliver one value, and what
        /// finishes every upstream (and so the operator).
        func attachFinishable<S: Subscriber>(_ subscriber: S)
            -> (send: @Sendable () -> Void, finish: @Sendable () -> Void)
            where S.Input == Int, S.Failure == Never
        {
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            let finish: @Sendable () -> Void = {
                left.send(completion: .finished)
                right.send(completion: .finished)
            }
            switch self {
            case .merge:
                left.merge(with: right).subscribe(subscriber)
                return ({ left.send(1) }, finish)
            case .zip:
                left.zip(right).map { $0 + $1 }.subscribe(subscriber)
                return ({ left.send(1); right.send(2) }, finish)
            case .combineLatest:
                left.combineLatest(right).map { $0 + $1 }.subscribe(subscriber)
                return ({ left.send(1); right.send(2) }, finish)
            case .flatMap:
                left.flatMap { Just($0) }.subscribe(subscriber)
                return ({ left.send(1) }, finish)
            case .switchToLatest:
                left.map { Just($0) }.switchToLatest().subscribe(subscriber)
                return ({ left.send(1) }, finish)
            }
        }
    }

    @Test(arguments: Operator.allCases)
    func aCancelFromAnotherThreadDuringADeliveryReleasesTheDownstreamWhenItReturns(_ op: Operator) async {
        let outcome = await withWatchdog("\(op) cancelled during a blocked receive") { () -> FastPath.Lifetime in
            let handshake = FastPath.Handshake()
            let deinitialized = Flag()
            let subscriptions = Log<AnyCancellable>()
            let send = op.attach(FastPath.BlockingSubscriber(handshake, deinitialized, subscriptions))
            return FastPath.lifetimeAcrossHeldDelivery(handshake, deinitialized, send: send,
                                                       cancel: { subscriptions.all.first?.cancel() })
        }
        guard let outcome else { return }
        FastPath.expectReleasedOnlyAfterTheDelivery(outcome, "\(op)'s subscriber")
    }

    /// Inside `receive`, cancels its own subscription (or runs `action`, if set), then records
    /// whether it has been deinitialised by then (it must not have been: it is still running).
    /// It holds its subscription, and nothing outside the operator holds it.
    final class SelfCancellingSubscriber: Subscriber, @unchecked Sendable {
        typealias Input = Int
        typealias Failure = Never
        let deinitialized: Flag
        let releasedDuringReceive: StressBox<Bool>
        let received: StressBox<Int>
        var subscription: Subscription?
        var action: (@Sendable () -> Void)?

        init(_ deinitialized: Flag, _ releasedDuringReceive: StressBox<Bool>, _ received: StressBox<Int>) {
            self.deinitialized = deinitialized
            self.releasedDuringReceive = releasedDuringReceive
            self.received = received
        }

        deinit { deinitialized.set() }

        func receive(subscription: Subscription) {
            self.subscription = subscription
            subscription.request(.unlimited)
        }

        func receive(_ input: Int) -> Subscribers.Demand {
            if let action { action() } else { subscription?.cancel() }
            releasedDuringReceive.withLock { $0 = deinitialized.isSet }
            received.withLock { $0 += 1 }
            return .none
        }

        func receive(completion: Subscribers.Completion<Never>) {}
    }

    @Test(arguments: Operator.allCases)
    func aCancelFromInsideTheDownstreamsReceiveReleasesItOnlyOnceTheDeliveryReturns(_ op: Operator) {
        let deinitialized = Flag()
        let releasedDuringReceive = StressBox(true)
        let received = StressBox(0)
        let send = op.attach(SelfCancellingSubscriber(deinitialized, releasedDuringReceive, received))
        #expect(!deinitialized.isSet, "the operator did not keep its subscriber")
        send()
        #expect(received.value == 1)
        #expect(!releasedDuringReceive.value, "the subscriber was freed while its receive was running")
        #expect(deinitialized.isSet, "the subscriber outlived the delivery that cancelled it")
        send()
        #expect(received.value == 1, "a cancelled operator delivered again")
    }

    @Test(arguments: Operator.allCases)
    func aCompletionSentFromInsideTheDownstreamsReceiveReleasesItOnlyOnceTheDeliveryReturns(_ op: Operator) {
        let deinitialized = Flag()
        let releasedDuringReceive = StressBox(true)
        let received = StressBox(0)
        let send: @Sendable () -> Void
        do {
            let subscriber = SelfCancellingSubscriber(deinitialized, releasedDuringReceive, received)
            let (sendOne, finish) = op.attachFinishable(subscriber)
            subscriber.action = finish
            send = sendOne
        }
        #expect(!deinitialized.isSet, "the operator did not keep its subscriber")
        send()
        #expect(received.value == 1)
        #expect(!releasedDuringReceive.value, "the subscriber was freed while its receive was running")
        #expect(deinitialized.isSet, "the subscriber outlived the delivery of its completion")
    }
}
