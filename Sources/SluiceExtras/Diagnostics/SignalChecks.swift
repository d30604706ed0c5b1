import Sluice
import Synchronization

extension DebugHooks {
    /// What ``DebugHooks/signalChecks`` checks of the signals reaching a tracked subscriber.
    public struct SignalChecks: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8

        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// A value or completion arriving on one thread while the subscriber is still handling
        /// one on another: an upstream breaking the rule that signals are serial.
        public static let concurrentCalls = SignalChecks(rawValue: 1 << 0)
        /// A value or completion arriving on the thread that is still handling the previous one
        /// (nested). Combine allows this when the subscriber's own code sends into its upstream
        /// (a subject delivers such a send at once, nested), so it is not in
        /// ``brokenUpstreams``; ask for it to find where nesting happens.
        public static let reentrantCalls = SignalChecks(rawValue: 1 << 1)
        /// A value arriving while the subscriber's outstanding demand is zero (for a sink or an
        /// assign, which ask for `.unlimited`: a value before they have asked).
        public static let valuesBeyondDemand = SignalChecks(rawValue: 1 << 2)
        /// A value or a completion arriving after the completion.
        public static let signalsAfterCompletion = SignalChecks(rawValue: 1 << 3)

        /// What only a broken upstream does: concurrent calls, values beyond demand and signals
        /// after the completion.
        public static let brokenUpstreams: SignalChecks = [.concurrentCalls, .valuesBeyondDemand, .signalsAfterCompletion]
        /// Every check, nesting included.
        public static let all: SignalChecks = [.brokenUpstreams, .reentrantCalls]
    }

    /// A signal that broke a rule ``DebugHooks/signalChecks`` checks, with the subscriber's call
    /// site.
    public struct SignalViolation: Sendable, CustomStringConvertible {
        /// Which rule.
        public enum Kind: Sendable, Hashable, CustomStringConvertible {
            case concurrentCall
            case reentrantCall
            case valueBeyondDemand
            case signalAfterCompletion

            /// What happened, as the report says it.
            public var description: String {
                switch self {
                case .concurrentCall: return "arrived while another thread was still delivering to the subscriber"
                case .reentrantCall: return "arrived while the same thread was still delivering to the subscriber (nested)"
                case .valueBeyondDemand: return "arrived beyond the subscriber's demand"
                case .signalAfterCompletion: return "arrived after the completion"
                }
            }

            @usableFromInline
            internal var check: SignalChecks {
                switch self {
                case .concurrentCall: return .concurrentCalls
                case .reentrantCall: return .reentrantCalls
                case .valueBeyondDemand: return .valuesBeyondDemand
                case .signalAfterCompletion: return .signalsAfterCompletion
                }
            }
        }

        /// Which rule the signal broke.
        public let kind: Kind
        /// The signal: `value 3`, `finished`, `failure(...)`.
        public let signal: String
        /// The subscriber's description (`"Sink"`).
        public let subscriber: String
        /// Where `trackedSink`, `trackedAssign`, `trackedSubscribe`, `sinkOnMainActor` or
        /// `assignOnMainActor` was called.
        public let site: CallSite

        /// `Sink at App/Feed.swift:42: value 3 arrived beyond the subscriber's demand`.
        public var description: String { "\(subscriber) at \(site): \(signal) \(kind)" }
    }

    /// The checks made on the signals reaching each tracked subscriber (`trackedSink`,
    /// `trackedAssign`, `trackedSubscribe`, `sinkOnMainActor`, `assignOnMainActor`) made while
    /// the set is not empty. Empty, the default: nothing is checked, and the subscribers are the
    /// plain ones (a subscription costs one atomic load more, a value nothing).
    ///
    /// A debugging aid for debug builds: with checks on, each signal to a checked subscriber
    /// takes a lock. Each broken rule is reported to ``signalViolationHandler`` with the
    /// subscriber's call site; the signal is still passed on, as it would be unchecked. Turning
    /// a check off silences it also for subscribers checked already.
    public static var signalChecks: SignalChecks {
        get { SignalChecks(rawValue: signalCheckBits.load(ordering: .acquiring)) }
        set { signalCheckBits.store(newValue.rawValue, ordering: .releasing) }
    }

    /// Hears each ``SignalViolation``, on the thread of the offending signal. `nil` (the
    /// default) stops the process with `fatalError` and the violation's description, as a failed
    /// queue assertion does.
    public static var signalViolationHandler: (@Sendable (SignalViolation) -> Void)? {
        get { signalHandlerStorage.withLock { $0 } }
        set { signalHandlerStorage.withLock { $0 = newValue } }
    }

    @usableFromInline
    internal static let signalCheckBits = Atomic<UInt8>(0)

    private static let signalHandlerStorage = Mutex<(@Sendable (SignalViolation) -> Void)?>(nil)

    /// Whether a subscriber made now is to be checked: one relaxed load.
    @inlinable
    internal static var checksSignals: Bool { signalCheckBits.load(ordering: .relaxed) != 0 }

    /// Reports a violation if its check is still on.
    internal static func report(_ violation: SignalViolation) {
        guard signalChecks.contains(violation.kind.check) else { return }
        if let handler = signalViolationHandler {
            handler(violation)
        } else {
            fatalError(violation.description)
        }
    }
}

extension Publisher {
    /// `subscribe(_:)` that remembers where it was called, so that ``DebugHooks/signalChecks``
    /// checks the signals reaching `subscriber` (with its own demand, so a value beyond it is
    /// found) and names this line in its reports. With the checks off it is `subscribe(_:)`.
    @inlinable
    public func trackedSubscribe<S: Subscriber>(_ subscriber: S, fileID: StaticString = #fileID, line: UInt = #line)
        where S.Input == Output, S.Failure == Failure
    {
        subscribeChecking(subscriber, site: SubscriberSite(fileID: fileID, line: line))
    }

    /// Subscribes `subscriber`, through a ``SignalChecker`` if ``DebugHooks/signalChecks`` is on.
    @inlinable
    @inline(__always)
    internal func subscribeChecking<S: Subscriber>(_ subscriber: S, site: SubscriberSite)
        where S.Input == Output, S.Failure == Failure
    {
        if DebugHooks.checksSignals {
            subscribeThroughChecker(subscriber, site: site)
        } else {
            subscribe(subscriber)
        }
    }

    /// The checked path, out of line: a debugging aid need not be inlined into every call site.
    @usableFromInline
    internal func subscribeThroughChecker<S: Subscriber>(_ subscriber: S, site: SubscriberSite)
        where S.Input == Output, S.Failure == Failure
    {
        subscribe(SignalChecker(downstream: subscriber, site: CallSite(site)))
    }
}

/// Stands between an upstream and a tracked subscriber while ``DebugHooks/signalChecks`` is on:
/// passes every signal on unchanged, and reports those that break the rules. It is the
/// subscriber's subscription too, so that it sees the demand the subscriber grants.
@usableFromInline
internal final class SignalChecker<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    @unchecked Sendable
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    private let downstream: Downstream
    private let site: CallSite
    private let lock = Lock()
    // Guarded by `lock`.
    private var upstream: Subscription?
    private var outstanding = Subscribers.Demand.none
    private var completed = false
    /// Values and completions being delivered right now, and the thread delivering the first.
    private var inProgress = 0
    private var deliveringThread = ThreadIdentity(rawValue: 0)

    @usableFromInline
    init(downstream: Downstream, site: CallSite) {
        self.downstream = downstream
        self.site = site
    }

    @usableFromInline
    func receive(subscription: Subscription) {
        lock.locked { upstream = subscription }
        downstream.receive(subscription: self)
    }

    @usableFromInline
    func receive(_ input: Input) -> Subscribers.Demand {
        let kinds = lock.locked { () -> [DebugHooks.SignalViolation.Kind] in
            var kinds = beginLocked()
            if completed { kinds.append(.signalAfterCompletion) }
            if outstanding == .none {
                kinds.append(.valueBeyondDemand)
            } else {
                outstanding -= 1
            }
            return kinds
        }
        report(kinds) { "value \(input)" }
        let more = downstream.receive(input)
        lock.locked {
            outstanding += more
            endLocked()
        }
        return more
    }

    @usableFromInline
    func receive(completion: Subscribers.Completion<Failure>) {
        let kinds = lock.locked { () -> [DebugHooks.SignalViolation.Kind] in
            var kinds = beginLocked()
            if completed { kinds.append(.signalAfterCompletion) }
            completed = true
            return kinds
        }
        report(kinds) {
            switch completion {
            case .finished: return "finished"
            case .failure(let error): return "failure(\(error))"
            }
        }
        downstream.receive(completion: completion)
        lock.locked { endLocked() }
    }

    /// Counts a delivery in, and says whether it overlaps another.
    private func beginLocked() -> [DebugHooks.SignalViolation.Kind] {
        let me = ThreadIdentity.current
        defer { inProgress += 1 }
        guard inProgress > 0 else {
            deliveringThread = me
            return []
        }
        return [deliveringThread == me ? .reentrantCall : .concurrentCall]
    }

    private func endLocked() {
        inProgress -= 1
        if inProgress == 0 { deliveringThread = ThreadIdentity(rawValue: 0) }
    }

    private func report(_ kinds: [DebugHooks.SignalViolation.Kind], signal: () -> String) {
        guard !kinds.isEmpty else { return }
        let text = signal()
        let subscriber = (downstream as? CustomStringConvertible)?.description ?? "\(Downstream.self)"
        for kind in kinds {
            DebugHooks.report(DebugHooks.SignalViolation(kind: kind, signal: text, subscriber: subscriber, site: site))
        }
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        let target = lock.locked { () -> Subscription? in
            outstanding += demand
            return upstream
        }
        target?.request(demand)
    }

    @usableFromInline
    func cancel() {
        let target = lock.locked { upstream.take() }
        target?.cancel()
    }

    @usableFromInline
    var description: String { (downstream as? CustomStringConvertible)?.description ?? "SignalChecker" }
}
