import Foundation
import Sluice

/// Process-wide debugging hooks: what happens when a queue assertion fails, who hears about
/// failures that reach a `sink`, a registry of the `trackedSink`/`trackedAssign` subscriptions that are
/// still alive, each with the call site that made it, and checks of the signals reaching them
/// (``signalChecks``), which find upstreams that break Combine's rules.
///
/// Everything here is off until set, and costs one relaxed atomic load per `sink`/`assign`
/// while off. Set hooks once, early (at launch or at the start of a test), from any thread.
///
/// ```swift
/// DebugHooks.tracksLiveSubscriptions = true
/// // ... run the screen, close it ...
/// for leak in DebugHooks.liveSubscriptions { print("never cancelled:", leak) }   // "Sink at App/Feed.swift:42"
/// ```
public enum DebugHooks {
    // MARK: Queue assertions

    /// Whether `assertQueue(_:enabled:fileID:line:)` and
    /// `assertMainThread(enabled:fileID:line:)` check anything when called without
    /// `enabled:`: `true` when SluiceExtras is compiled with `DEBUG` (every debug build) or with the
    /// `SLUICE_DIAGNOSTICS` compilation condition (`swift build -c release -Xswiftc
    /// -DSLUICE_DIAGNOSTICS`), `false` otherwise, so release builds carry no check unless asked.
    ///
    /// The condition is decided when SluiceExtras is compiled, and the value is a constant inlined
    /// into the caller, so in a release build the optimizer removes the disabled check's
    /// branch and its subscriber type from the chain altogether.
    @inlinable
    public static var queueAssertionsEnabledByDefault: Bool {
        #if DEBUG || SLUICE_DIAGNOSTICS
        return true
        #else
        return false
        #endif
    }

    /// A signal that arrived on the wrong queue.
    public struct QueueAssertionFailure: Sendable, CustomStringConvertible {
        /// What the operator expected: `"main thread"` or `queue "label"`.
        public let expected: String
        /// Where the signal actually arrived.
        public let actual: ExecutionContext
        /// The signal: `value 1`, `finished`, `failure(...)`.
        public let signal: String
        /// Where the `assertQueue`/`assertMainThread` operator was written.
        public let site: CallSite

        /// One line naming the site, the signal, the expected and the actual queue.
        public var description: String {
            let actualText = actual.isMainThread
                ? "queue \"\(actual.queueLabel)\" on the main thread"
                : "queue \"\(actual.queueLabel)\" off the main thread"
            return "\(site): assertQueue failed: \(signal) arrived on \(actualText); expected \(expected)"
        }
    }

    /// Called when a queue assertion fails. `nil` (the default) stops the process with
    /// `fatalError` and the failure's description; install a handler to log instead, or to turn
    /// the failure into a test failure.
    public static var queueAssertionHandler: (@Sendable (QueueAssertionFailure) -> Void)? {
        get { storage.lock.withLock { storage.queueAssertionHandler } }
        set { storage.lock.withLock { storage.queueAssertionHandler = newValue } }
    }

    // MARK: Failures reaching subscribers

    /// A failure that reached a `sink` (or a `Subscribers.Sink` made by hand).
    public struct SubscriberFailure: Sendable, CustomStringConvertible {
        /// The subscriber's description (`"Sink"`).
        public let subscriber: String
        /// Where `sink` was called; `nil` for a `Subscribers.Sink` created directly.
        public let site: CallSite?
        /// The error.
        public let error: any Error

        /// `Sink at App/Feed.swift:42 failed: <error>`.
        public var description: String {
            "\(subscriber)\(site.map { " at \($0)" } ?? "") failed: \(error)"
        }
    }

    /// Called (on the thread that delivered it) for every failure that reaches a `sink`, before
    /// its `receiveCompletion` closure runs: the place to log errors a `receiveCompletion: { _ in }`
    /// would swallow, with the line that subscribed. `nil` by default.
    public static var failureHandler: (@Sendable (SubscriberFailure) -> Void)? {
        get { storage.lock.withLock { storage.failureHandler } }
        set {
            // Both copies change under one lock, so the one read back is the one called.
            storage.lock.withLock {
                storage.failureHandler = newValue
                SubscriberRegistry.failureHandler = newValue.map { handler in
                    { @Sendable subscriber, site, error in
                        handler(SubscriberFailure(subscriber: subscriber, site: site.map(CallSite.init), error: error))
                    }
                }
            }
        }
    }

    // MARK: Live subscriptions

    /// A `trackedSink`, `trackedAssign`, `sinkOnMainActor` or `assignOnMainActor` subscription
    /// that has neither completed nor been cancelled.
    public struct LiveSubscription: Sendable, Hashable, CustomStringConvertible {
        /// Increases with each tracked subscription: the registry's order.
        public let id: UInt64
        /// The subscriber's description (`"Sink"`, `"Assign Model."`).
        public let subscriber: String
        /// Where `trackedSink`/`trackedAssign` was called.
        public let site: CallSite
        /// The identity of the object the subscriber holds strongly: a `trackedAssign`'s object,
        /// which it keeps alive until the stream ends or it is cancelled. `nil` for a sink, whose
        /// closures' captures cannot be seen (its site is where to look).
        public let retainedObject: ObjectIdentifier?

        /// `Sink at App/Feed.swift:42`.
        public var description: String { "\(subscriber) at \(site)" }
    }

    /// Whether `trackedSink`, `trackedAssign`, `sinkOnMainActor` and `assignOnMainActor`
    /// register their subscriptions in ``liveSubscriptions``.
    ///
    /// Only subscriptions made while it is on are registered; each leaves the registry when it
    /// completes or is cancelled (which dropping its `AnyCancellable` does). What is left is what
    /// nobody cancelled: typically a cancellable stored for ever, or a subscription made in a
    /// loop.
    public static var tracksLiveSubscriptions: Bool {
        get { SubscriberRegistry.tracking.load(ordering: .acquiring) }
        set { SubscriberRegistry.tracking.store(newValue, ordering: .releasing) }
    }

    /// The tracked subscriptions still alive, oldest first.
    public static var liveSubscriptions: [LiveSubscription] {
        SubscriberRegistry.liveEntries.map {
            LiveSubscription(id: $0.id, subscriber: $0.subscriber, site: CallSite($0.site), retainedObject: $0.object)
        }
    }

    /// The tracked subscriptions still alive that hold `object` strongly (a `trackedAssign` to
    /// one of its properties), oldest first: what keeps an object alive that should have gone.
    ///
    /// ```swift
    /// weak var screen = model
    /// model = nil
    /// if let screen { print(DebugHooks.liveSubscriptions(retaining: screen)) }   // [Assign Model. at App/Model.swift:12]
    /// ```
    public static func liveSubscriptions(retaining object: AnyObject) -> [LiveSubscription] {
        let identity = ObjectIdentifier(object)
        return liveSubscriptions.filter { $0.retainedObject == identity }
    }

    // MARK: Internals

    private final class Storage: @unchecked Sendable {
        let lock = NSLock()
        var queueAssertionHandler: (@Sendable (QueueAssertionFailure) -> Void)?
        var failureHandler: (@Sendable (SubscriberFailure) -> Void)?
    }

    private static let storage = Storage()

    /// Reports a failed queue assertion: to the handler, or by stopping the process.
    @usableFromInline
    internal static func queueAssertionFailed(_ failure: QueueAssertionFailure) {
        if let handler = storage.lock.withLock({ storage.queueAssertionHandler }) {
            handler(failure)
        } else {
            fatalError(failure.description)
        }
    }
}
