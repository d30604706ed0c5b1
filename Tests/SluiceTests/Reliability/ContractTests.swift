import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Combine's protocols descend from the Reactive Streams specification; these are its rules that
/// apply to Combine, written once and run against every publisher and operator in
/// ``OperatorCatalogue``:
///
/// - signals to a subscriber are serial, completion comes at most once and last;
/// - values never exceed the demand granted, and demand is additive and saturates at `.unlimited`;
/// - `cancel()` is idempotent and safe from several threads at once, and stops delivery;
///   `request` after `cancel` does nothing;
/// - no value arrives while the subscriber's outstanding demand is zero, results of the
///   reducing operators included;
/// - a publisher with no values still completes once demand is granted;
/// - nothing (subscriber, subscription, the operator's closures) is held after termination;
/// - a subscriber sending into the upstream from inside `receive(_:)` neither deadlocks nor
///   breaks the order;
/// - no lock is held while the subscriber runs: another thread can call the subscription then.
@Suite("The contract, for every operator")
struct ContractTests {
    @Test(arguments: OperatorCatalogue.all)
    func valuesNeverExceedTheDemandGranted(_ operatorCase: OperatorCase) {
        guard !operatorCase.traits.contains(.requestsUnlimitedAsCombineDoes) else { return }
        operatorCase.apply(DemandIsHonoured())
    }

    @Test(arguments: OperatorCatalogue.all)
    func demandIsAdditiveAndSaturatesAtUnlimited(_ operatorCase: OperatorCase) {
        operatorCase.apply(DemandSaturates())
    }

    @Test(arguments: OperatorCatalogue.all)
    func signalsStaySerialWhileEightThreadsSend(_ operatorCase: OperatorCase) {
        operatorCase.apply(SerialUnderConcurrentSends())
    }

    @Test(arguments: OperatorCatalogue.all)
    func cancelIsIdempotentFromAnyThreadAndLaterRequestsDoNothing(_ operatorCase: OperatorCase) {
        operatorCase.apply(CancelStopsEverything())
    }

    @Test(arguments: OperatorCatalogue.all)
    func noValueArrivesWithoutOutstandingDemand(_ operatorCase: OperatorCase) {
        guard !operatorCase.traits.contains(.requestsUnlimitedAsCombineDoes) else { return }
        operatorCase.apply(NoValueWithoutDemand())
    }

    @Test(arguments: OperatorCatalogue.all)
    func anEmptyUpstreamStillCompletesOnceDemandIsGranted(_ operatorCase: OperatorCase) {
        operatorCase.apply(EmptyCompletes())
    }

    @Test(arguments: OperatorCatalogue.all, [Termination.finish, .failure, .cancel])
    func nothingIsHeldAfterTermination(_ operatorCase: OperatorCase, _ termination: Termination) {
        guard !(termination == .failure && operatorCase.traits.contains(.trapsOnFailure)) else { return }
        operatorCase.apply(ReleasedAfterTermination(termination: termination))
    }

    @Test(arguments: OperatorCatalogue.all)
    func aSendFromInsideTheSubscriberNeitherDeadlocksNorReorders(_ operatorCase: OperatorCase) {
        operatorCase.apply(ReentrantSend())
    }

    @Test(arguments: OperatorCatalogue.all)
    func noLockIsHeldWhileTheSubscriberRuns(_ operatorCase: OperatorCase) {
        operatorCase.apply(NoCallOutUnderALock())
    }

    /// The lock check itself, against a publisher that delivers while holding its lock.
    @Test func theLockCheckCatchesAPublisherThatCallsItsSubscriberUnderItsLock() {
        withKnownIssue("LocksAroundDelivery holds its lock while the subscriber runs") {
            OperatorCase("LocksAroundDelivery", .source) { _, _, _ in LocksAroundDelivery() }
                .apply(NoCallOutUnderALock(patience: 0.5))
        }
    }
}

enum Termination: String, Sendable, CustomStringConvertible {
    case finish, failure, cancel
    var description: String { rawValue }
}

/// What every check looks at once it has run: the signals were serial, and a completion, if
/// any, came once and last.
func expectWellFormed<Input, Failure>(_ subscriber: TestSubscriber<Input, Failure>, _ name: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!subscriber.sawConcurrentSignals, "\(name): two signals overlapped", sourceLocation: sourceLocation)
    let events = subscriber.events
    let completions = events.indices.filter { if case .completion = events[$0] { true } else { false } }
    #expect(completions.count <= 1, "\(name): \(completions.count) completions: \(events)", sourceLocation: sourceLocation)
    if let last = completions.last {
        #expect(last == events.count - 1, "\(name): signals after the completion: \(events)", sourceLocation: sourceLocation)
    }
    let subscriptions = events.filter { if case .subscription = $0 { true } else { false } }
    #expect(subscriptions.count <= 1, "\(name): \(subscriptions.count) subscriptions", sourceLocation: sourceLocation)
}

/// Runs the scheduler far enough for every time-based operator to have done all it will.
func settle(_ scheduler: TestSchedulerOf<DispatchQueue>) {
    scheduler.advance(by: .seconds(60))
}

/// A cold upstream that honours demand exactly.
func coldUpstream(_ count: Int) -> AnyPublisher<Int, TestError> {
    (0..<count).publisher.setFailureType(to: TestError.self).eraseToAnyPublisher()
}

struct DemandIsHonoured: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let (subscriber, scheduler) = operatorCase.subscribed(to: coldUpstream(50), demand: .max(3))
        #expect(subscriber.values.count <= 3, "\(operatorCase.name): \(subscriber.values.count) values for a demand of 3")
        subscriber.request(.max(2))
        settle(scheduler)
        #expect(subscriber.values.count <= 5, "\(operatorCase.name): \(subscriber.values.count) values for a demand of 5")
        subscriber.request(.max(4))
        settle(scheduler)
        #expect(subscriber.values.count <= 9, "\(operatorCase.name): \(subscriber.values.count) values for a demand of 9")
        expectWellFormed(subscriber, operatorCase.name)
        subscriber.cancel()
    }
}

struct DemandSaturates: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let scheduler = DispatchQueue.test
        let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .max(Int.max))
        operatorCase.make(coldUpstream(100), scheduler, Canary()).subscribe(subscriber)
        subscriber.request(.max(Int.max))
        subscriber.request(.unlimited)
        subscriber.request(.max(1))
        settle(scheduler)
        #expect(subscriber.completions.count == 1, "\(operatorCase.name): a finite upstream under unlimited demand finishes: \(subscriber.events.suffix(3))")
        expectWellFormed(subscriber, operatorCase.name)
    }
}

struct SerialUnderConcurrentSends: ContractCheck {
    static let oneToOne: Set<String> = ["map", "map(keyPath)", "compactMap", "mapError", "replaceNil",
                                        "eraseToAnyPublisher", "scan", "breakpoint", "assertNoFailure",
                                        "assertQueue(enabled: false)"]
    static let threads = 8
    static let valuesPerThread = 250

    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let subject = PassthroughSubject<Int, TestError>()
        let (subscriber, scheduler) = operatorCase.subscribed(to: subject)
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for value in 0..<Self.valuesPerThread {
                subject.send(thread * 1_000 + value)
            }
        }
        settle(scheduler)
        subject.send(completion: .finished)
        settle(scheduler)
        expectWellFormed(subscriber, operatorCase.name)
        if operatorCase.traits.contains(.statelessForwarder), Self.oneToOne.contains(operatorCase.name) {
            // A one-to-one operator delivers every value sent, each once.
            #expect(subscriber.values.count == Self.threads * Self.valuesPerThread,
                    "\(operatorCase.name): \(subscriber.values.count) values")
        }
    }
}

struct CancelStopsEverything: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let subject = PassthroughSubject<Int, TestError>()
        let (subscriber, scheduler) = operatorCase.subscribed(to: subject)
        subject.send(1)
        settle(scheduler)
        guard let subscription = subscriber.subscription else {
            Issue.record("\(operatorCase.name): no subscription")
            return
        }
        let before = subscriber.events.count
        let shared = CombiningTestBox(subscription)  // cancel and request are thread-safe by contract
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            shared.value.cancel()
            shared.value.cancel()
        }
        subscription.request(.max(5))
        subscription.request(.unlimited)
        subject.send(2)
        subject.send(completion: .finished)
        settle(scheduler)
        #expect(subscriber.events.count == before,
                "\(operatorCase.name): signals after cancel: \(subscriber.events.dropFirst(before))")
        expectWellFormed(subscriber, operatorCase.name)
    }
}

/// A subscriber that asks for nothing receives no value, whatever the upstream does (sends
/// values at once, later, or finishes with none): a reducing operator holds its result, a
/// buffer its values. Then each grant of demand lets out at most that many.
struct NoValueWithoutDemand: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let (cold, coldScheduler) = operatorCase.subscribed(to: coldUpstream(50), demand: .none)
        let (empty, emptyScheduler) = operatorCase.subscribed(to: Empty<Int, TestError>(), demand: .none)
        let subject = PassthroughSubject<Int, TestError>()
        let (hot, hotScheduler) = operatorCase.subscribed(to: subject, demand: .none)
        for value in 0..<10 { subject.send(value) }
        settle(hotScheduler)
        subject.send(completion: .finished)
        for (name, subscriber, scheduler) in [("cold", cold, coldScheduler), ("empty", empty, emptyScheduler),
                                              ("subject", hot, hotScheduler)] {
            settle(scheduler)
            #expect(subscriber.values.isEmpty,
                    "\(operatorCase.name), \(name) upstream: \(subscriber.values.count) values with no demand")
            subscriber.request(.max(1))
            settle(scheduler)
            #expect(subscriber.values.count <= 1, "\(operatorCase.name), \(name) upstream: \(subscriber.values.count) values for a demand of 1")
            subscriber.request(.max(2))
            settle(scheduler)
            #expect(subscriber.values.count <= 3, "\(operatorCase.name), \(name) upstream: \(subscriber.values.count) values for a demand of 3")
            expectWellFormed(subscriber, operatorCase.name)
            subscriber.cancel()
        }
    }
}

/// An upstream that finishes at once without values: with no demand granted the operator may
/// hold even a bare completion (Combine's reducing operators do); once the subscriber asks, it
/// completes (after whatever values the operator or source adds of its own).
struct EmptyCompletes: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let (subscriber, scheduler) = operatorCase.subscribed(to: Empty<Int, TestError>(), demand: .none)
        #expect(subscriber.values.isEmpty, "\(operatorCase.name): \(subscriber.events)")
        subscriber.request(.unlimited)
        settle(scheduler)
        #expect(subscriber.completions.count == 1, "\(operatorCase.name): \(subscriber.events)")
        expectWellFormed(subscriber, operatorCase.name)
    }
}

/// Terminates the stream (the upstream finishes or fails, or the subscriber cancels) while the
/// upstream subject lives on, then lets go of the subscriber: the subscriber, the subscription
/// it was handed and the closures the operator was given must all be freed, so nothing in the
/// chain still holds them (no cycle through the subscription the subscriber keeps).
struct ReleasedAfterTermination: ContractCheck {
    let termination: Termination

    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        weak var weakSubscriber: TestSubscriber<P.Output, P.Failure>?
        weak var weakSubscription: AnyObject?
        weak var weakCanary: Canary?
        do {
            let canary = Canary()
            weakCanary = canary
            let subscriber = TestSubscriber<P.Output, P.Failure>()
            weakSubscriber = subscriber
            operatorCase.make(subject.eraseToAnyPublisher(), scheduler, canary).subscribe(subscriber)
            settle(scheduler)
            subject.send(1)
            subject.send(2)
            settle(scheduler)
            // `Subscriptions.empty` is one shared object, as in Combine: not ours to free.
            weakSubscription = subscriber.subscription.map { $0 as AnyObject }
                .flatMap { $0 === (Subscriptions.empty as AnyObject) ? nil : $0 }
            switch termination {
            case .finish: subject.send(completion: .finished)
            case .failure: subject.send(completion: .failure(TestError(code: 9)))
            case .cancel: subscriber.cancel()
            }
            settle(scheduler)
        }
        settle(scheduler)
        withExtendedLifetime(subject) {
            #expect(weakSubscriber == nil, "\(operatorCase.name) after \(termination): the subscriber is still held")
            #expect(weakSubscription == nil, "\(operatorCase.name) after \(termination): the subscription is still held")
            #expect(weakCanary == nil, "\(operatorCase.name) after \(termination): the operator's closures are still held")
        }
    }
}

/// The subscriber sends the next value into the upstream subject from inside `receive(_:)`,
/// once: the nested value is delivered (at once, or after the current one where the operator
/// hops), and no lock is held across the call, so nothing deadlocks.
struct ReentrantSend: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        let sent = Log<Int>()
        let subscriber = TestSubscriber<P.Output, P.Failure>(onValue: { _ in
            if sent.all.count < 3 {
                let next = 100 + sent.all.count
                sent.append(next)
                subject.send(next)
            }
            return .none
        })
        operatorCase.make(subject.eraseToAnyPublisher(), scheduler, Canary()).subscribe(subscriber)
        settle(scheduler)
        for value in 0..<5 { subject.send(value) }
        settle(scheduler)
        subject.send(completion: .finished)
        settle(scheduler)
        expectWellFormed(subscriber, operatorCase.name)
        if SerialUnderConcurrentSends.oneToOne.contains(operatorCase.name) {
            #expect(subscriber.values.count == 8, "\(operatorCase.name): \(subscriber.values.count) values")
        }
    }
}

/// While the subscriber is inside `receive(subscription:)`, its first `receive(_:)` and
/// `receive(completion:)`, it has another thread call the subscription (`request`, and `cancel`
/// at the completion) and waits for that call to return. An operator that calls its downstream
/// while holding its own lock would make the other thread wait for that lock while the lock's
/// holder waits for the other thread: a deadlock, seen here as a call that does not return in
/// time. (A same-thread call, as `ReentrantSend` makes, cannot tell a recursive lock from none.)
struct NoCallOutUnderALock: ContractCheck {
    /// How long a call from another thread may take before it counts as stuck.
    var patience: TimeInterval = 5

    /// The subscription, handed from `receive(subscription:)` to the later call-outs.
    final class Handle: @unchecked Sendable {
        var subscription: Subscription?
    }

    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let stalls = Log<String>()
        let handle = Handle()
        func fromAnotherThread(_ what: String, _ call: @escaping @Sendable (Subscription) -> Void) {
            guard let subscription = handle.subscription else { return }
            let box = CombiningTestBox(subscription)
            let returned = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                call(box.value)
                returned.signal()
            }
            if returned.wait(timeout: .now() + patience) == .timedOut {
                stalls.append(what)
            }
        }
        var calledFromValue = false
        let subscriber = TestSubscriber<P.Output, P.Failure>(
            initialDemand: .max(1),
            onSubscription: { subscription in
                handle.subscription = subscription
                fromAnotherThread("request from inside receive(subscription:)") { $0.request(.max(1)) }
            },
            onValue: { _ in
                guard !calledFromValue else { return .none }
                calledFromValue = true
                fromAnotherThread("request from inside receive(_:)") { $0.request(.max(1)) }
                return .none
            },
            onCompletion: { _ in
                fromAnotherThread("cancel from inside receive(completion:)") { $0.cancel() }
            })
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        operatorCase.make(subject.eraseToAnyPublisher(), scheduler, Canary()).subscribe(subscriber)
        settle(scheduler)
        for value in 0..<4 { subject.send(value) }
        settle(scheduler)
        subscriber.request(.unlimited)
        subject.send(completion: .finished)
        settle(scheduler)
        #expect(stalls.all.isEmpty, "\(operatorCase.name): a call from another thread waited on a lock held while the subscriber ran: \(stalls.all)")
        subscriber.cancel()
    }
}

/// Breaks the no-call-out-under-a-lock rule on purpose: each request delivers a value to the
/// subscriber from inside the subscription's (non-recursive) lock.
struct LocksAroundDelivery: Publisher {
    typealias Output = Int
    typealias Failure = TestError

    final class Inner<Downstream: Subscriber>: Subscription, @unchecked Sendable
        where Downstream.Input == Int, Downstream.Failure == TestError
    {
        let lock = NSLock()
        var downstream: Downstream?
        init(_ downstream: Downstream) { self.downstream = downstream }
        func request(_ demand: Subscribers.Demand) {
            lock.lock()
            defer { lock.unlock() }
            _ = downstream?.receive(1)
        }
        func cancel() {
            lock.lock()
            defer { lock.unlock() }
            downstream = nil
        }
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        subscriber.receive(subscription: Inner(subscriber))
    }
}
