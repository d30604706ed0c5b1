import Sluice
import Foundation

extension Publishers {
    /// A publisher that checks that each value and the completion arrive on an expected
    /// dispatch queue (or on the main thread), reporting through
    /// ``DebugHooks/queueAssertionHandler`` (by default: stopping the process) when one does not.
    ///
    /// Made by `assertQueue(_:enabled:fileID:line:)` and
    /// `assertMainThread(enabled:fileID:line:)`. When not enabled it subscribes the
    /// downstream straight to the upstream: no object, no check, nothing on the path.
    public struct AssertQueue<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// Where signals must arrive.
        public enum Expectation: Sendable, Hashable, CustomStringConvertible {
            /// Where the main actor runs: the main queue (or a queue targeting it), on whichever
            /// thread drains it, exactly when `MainActor.assumeIsolated` would not stop.
            case mainThread
            /// On the dispatch queue with this label.
            case queue(String)

            /// `main thread` or `queue "label"`.
            public var description: String {
                switch self {
                case .mainThread: return "main thread"
                case .queue(let label): return "queue \"\(label)\""
                }
            }

            /// Whether the calling code meets the expectation.
            @usableFromInline
            internal var isMet: Bool {
                switch self {
                case .mainThread: return MainActorContext.isCurrent
                case .queue(let label): return ExecutionContext.currentQueueHasLabel(label)
                }
            }
        }

        /// The publisher whose signals are checked.
        public let upstream: Upstream
        /// Where they must arrive.
        public let expectation: Expectation
        /// Whether the check runs at all.
        public let isEnabled: Bool
        /// Where the operator was written, named in the failure.
        public let site: CallSite

        @inlinable
        public init(upstream: Upstream, expectation: Expectation, isEnabled: Bool, site: CallSite) {
            self.upstream = upstream
            self.expectation = expectation
            self.isEnabled = isEnabled
            self.site = site
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            if isEnabled {
                upstream.receive(subscriber: Inner(downstream: subscriber, expectation: expectation, site: site))
            } else {
                upstream.receive(subscriber: subscriber)
            }
        }
    }
}

extension Publishers.AssertQueue {
    /// Checks each value and the completion, then passes it on; the upstream's subscription
    /// goes straight through (the subscription itself is not checked: it arrives wherever the
    /// subscribing code runs, which `receive(on:)` does not move).
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let expectation: Expectation
        @usableFromInline
        internal let site: CallSite
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream, expectation: Expectation, site: CallSite) {
            self.downstream = downstream
            self.expectation = expectation
            self.site = site
        }

        @inlinable
        internal func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            if !expectation.isMet {
                fail("value \(input)")
            }
            return downstream.receive(input)
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            if !expectation.isMet {
                switch completion {
                case .finished: fail("finished")
                case .failure(let error): fail("failure(\(error))")
                }
            }
            downstream.receive(completion: completion)
        }

        @usableFromInline
        internal func fail(_ signal: String) {
            DebugHooks.queueAssertionFailed(DebugHooks.QueueAssertionFailure(
                expected: expectation.description, actual: .current, signal: signal, site: site))
        }

        @usableFromInline
        internal var description: String { "AssertQueue" }

        @usableFromInline
        internal var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }

        @usableFromInline
        internal var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Checks that every value and the completion arrive on the dispatch queue labelled
    /// `label` (`"main"` means the main thread), failing loudly otherwise: the failure names
    /// the signal, the expected and the actual queue, and this call's file and line.
    ///
    /// A failure goes to ``DebugHooks/queueAssertionHandler``, or stops the process if none is
    /// installed. The check runs when `enabled` is true, which by default it is in debug builds
    /// and in builds with the `SLUICE_DIAGNOSTICS` condition
    /// (``DebugHooks/queueAssertionsEnabledByDefault``); otherwise the operator adds nothing to
    /// the chain. Pass `enabled: true` to keep one check in a release build.
    @inlinable
    public func assertQueue(_ label: String, enabled: Bool = DebugHooks.queueAssertionsEnabledByDefault,
                            fileID: StaticString = #fileID, line: UInt = #line) -> Publishers.AssertQueue<Self> {
        Publishers.AssertQueue(upstream: self, expectation: label == "main" ? .mainThread : .queue(label),
                               isEnabled: enabled, site: CallSite(fileID: fileID, line: line))
    }

    /// Checks that every value and the completion arrive on the main thread, failing loudly
    /// otherwise; see ``assertQueue(_:enabled:fileID:line:)`` for how failures are reported and
    /// when the check is compiled in.
    @inlinable
    public func assertMainThread(enabled: Bool = DebugHooks.queueAssertionsEnabledByDefault,
                                 fileID: StaticString = #fileID, line: UInt = #line) -> Publishers.AssertQueue<Self> {
        Publishers.AssertQueue(upstream: self, expectation: .mainThread, isEnabled: enabled,
                               site: CallSite(fileID: fileID, line: line))
    }
}
