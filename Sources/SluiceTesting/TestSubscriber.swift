import Sluice
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A subscriber whose demand is under the test's control, recording everything it receives.
///
/// It asks for `initialDemand` when its subscription arrives (`.none` asks for nothing), then for
/// whatever `onValue` returns after each value; the test asks for more with ``request(_:)`` and
/// ends with ``cancel()``. Every signal goes into ``events`` in order, so a test can assert the
/// whole history at once. It also notices if two signals ever overlap in time on different
/// threads (``sawConcurrentSignals``), which the Combine contract forbids.
public final class TestSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    /// One recorded signal.
    public enum Event: CustomStringConvertible {
        /// A subscription arrived; the associated value is its description (`"Map"`,
        /// `"PassthroughSubject"`, ...).
        case subscription(String)
        case value(Input)
        case completion(Subscribers.Completion<Failure>)

        public var description: String {
            switch self {
            case .subscription(let name): return "subscription(\(name))"
            case .value(let value): return "value(\(value))"
            case .completion(.finished): return "finished"
            case .completion(.failure(let error)): return "failure(\(error))"
            }
        }
    }

    /// One entry of ``history``: a signal received, or a request or cancel the subscriber made.
    public enum HistoryEvent: CustomStringConvertible {
        /// A subscription arrived; the associated value is its description.
        case subscription(String)
        /// The subscriber asked for more: its initial demand, or a call to ``request(_:)``
        /// (demand returned from `onValue` goes with the value and is not listed).
        case request(Subscribers.Demand)
        case value(Input)
        case completion(Subscribers.Completion<Failure>)
        /// The subscriber cancelled, through ``cancel()``.
        case cancel

        public var description: String {
            switch self {
            case .subscription(let name): return "subscription(\(name))"
            case .request(let demand): return "request(\(demand))"
            case .value(let value): return "value(\(value))"
            case .completion(.finished): return "finished"
            case .completion(.failure(let error)): return "failure(\(error))"
            case .cancel: return "cancel"
            }
        }
    }

    private struct State {
        var events: [Event] = []
        var history: [HistoryEvent] = []
        var subscriptions: [Subscription] = []
        /// The threads currently inside a signal (the same thread twice is re-entrancy, which
        /// Combine allows; two different threads is concurrency, which it does not).
        var activeThreads: [pthread_t] = []
        var sawConcurrentSignals = false
    }

    private let lock = Lock()
    private var state = State()
    private let initialDemand: Subscribers.Demand
    private let onValue: (Input) -> Subscribers.Demand
    private let onSubscription: (Subscription) -> Void
    private let onCompletion: (Subscribers.Completion<Failure>) -> Void

    /// - Parameters:
    ///   - initialDemand: what to request when the subscription arrives; `.none` requests nothing.
    ///   - onSubscription: runs after the subscription is recorded and before the initial request.
    ///   - onValue: runs for each value; its result is returned to the publisher as extra demand.
    ///   - onCompletion: runs after the completion is recorded.
    public init(
        initialDemand: Subscribers.Demand = .unlimited,
        onSubscription: @escaping (Subscription) -> Void = { _ in },
        onValue: @escaping (Input) -> Subscribers.Demand = { _ in .none },
        onCompletion: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in }
    ) {
        self.initialDemand = initialDemand
        self.onSubscription = onSubscription
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    /// Everything received, in order.
    public var events: [Event] { lock.locked { state.events } }

    /// Everything received and everything the subscriber asked of its subscription, in order:
    /// ``events`` plus the requests and the cancel, for tests of demand handling such as a
    /// replay that must wait for late demand.
    public var history: [HistoryEvent] { lock.locked { state.history } }

    /// The values received, in order.
    public var values: [Input] {
        events.compactMap { if case .value(let value) = $0 { return value } else { return nil } }
    }

    /// The completions received (more than one means the publisher broke the contract).
    public var completions: [Subscribers.Completion<Failure>] {
        events.compactMap { if case .completion(let completion) = $0 { return completion } else { return nil } }
    }

    /// The first completion received, if any.
    public var completion: Subscribers.Completion<Failure>? { completions.first }

    /// The descriptions of the subscriptions received.
    public var subscriptionNames: [String] {
        events.compactMap { if case .subscription(let name) = $0 { return name } else { return nil } }
    }

    /// The most recent subscription received.
    public var subscription: Subscription? { lock.locked { state.subscriptions.last } }

    /// Whether two signals were ever being handled at the same time.
    public var sawConcurrentSignals: Bool { lock.locked { state.sawConcurrentSignals } }

    /// Asks the current subscription for more values.
    public func request(_ demand: Subscribers.Demand) {
        guard let subscription = lock.locked({ () -> Subscription? in
            guard let last = state.subscriptions.last else { return nil }
            state.history.append(.request(demand))
            return last
        }) else { return }
        subscription.request(demand)
    }

    /// Cancels the current subscription.
    public func cancel() {
        guard let subscription = lock.locked({ () -> Subscription? in
            guard let last = state.subscriptions.last else { return nil }
            state.history.append(.cancel)
            return last
        }) else { return }
        subscription.cancel()
    }

    /// Forgets the subscriptions it holds, so a lifetime test can check that nothing else keeps
    /// the chain alive.
    public func releaseSubscriptions() {
        lock.locked { state.subscriptions.removeAll() }
    }

    public func receive(subscription: Subscription) {
        signal(.subscription(String(describing: subscription))) { $0.subscriptions.append(subscription) }
        onSubscription(subscription)
        if initialDemand > 0 {
            lock.locked { state.history.append(.request(initialDemand)) }
            subscription.request(initialDemand)
        }
    }

    public func receive(_ input: Input) -> Subscribers.Demand {
        signal(.value(input)) { _ in }
        defer { endSignal() }
        return onValue(input)
    }

    public func receive(completion: Subscribers.Completion<Failure>) {
        signal(.completion(completion)) { _ in }
        defer { endSignal() }
        onCompletion(completion)
    }

    private func signal(_ event: Event, _ update: (inout State) -> Void) {
        let me = pthread_self()
        lock.locked {
            if state.activeThreads.contains(where: { pthread_equal($0, me) == 0 }) {
                state.sawConcurrentSignals = true
            }
            state.activeThreads.append(me)
            state.events.append(event)
            switch event {
            case .subscription(let name): state.history.append(.subscription(name))
            case .value(let value): state.history.append(.value(value))
            case .completion(let completion): state.history.append(.completion(completion))
            }
            update(&state)
        }
        if case .subscription = event { endSignal() }
    }

    private func endSignal() {
        let me = pthread_self()
        lock.locked {
            if let index = state.activeThreads.lastIndex(where: { pthread_equal($0, me) != 0 }) {
                state.activeThreads.remove(at: index)
            }
        }
    }
}

extension TestSubscriber.Event: Equatable where Input: Equatable, Failure: Equatable {}
extension TestSubscriber.HistoryEvent: Equatable where Input: Equatable, Failure: Equatable {}

extension TestSubscriber where Failure == Never {
    /// The earlier spelling of `init(initialDemand:onValue:)` for a publisher that cannot fail;
    /// `init(initialDemand:onSubscription:onValue:onCompletion:)` serves every failure type.
    @available(*, deprecated, renamed: "init(initialDemand:onValue:)")
    public convenience init(
        demand initialDemand: Subscribers.Demand,
        onValue: @escaping (Input) -> Subscribers.Demand = { _ in .none }
    ) {
        self.init(initialDemand: initialDemand, onValue: onValue)
    }
}
