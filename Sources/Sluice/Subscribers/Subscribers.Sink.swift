import Synchronization

extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// On completion or cancellation the sink releases its closures, so a closure that captures
    /// its owner strongly does not keep it alive once the stream has ended.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        @usableFromInline
        internal let lock = Lock()

        // The state lives in separate stored properties rather than one generic struct: the
        // deinit of a generic class is unspecialised, and a field of a nested generic type costs
        // a metadata look-up there, while class and function-typed fields cost none.
        @usableFromInline @exclusivity(unchecked)
        internal var status = SubscriptionStatus.awaitingSubscription
        /// The closures, until the stream ends. Held in the sink itself, in a noncopyable value,
        /// so that a call reads them in place: a closure in a stored variable of a copyable type
        /// is copied, a retain and a release, for each call, while a noncopyable one can only be
        /// borrowed. The borrow is a read access, which calls from several threads at once (a
        /// broken upstream) may share; `closureUse` keeps the one write, the release, apart from
        /// every call.
        @usableFromInline @exclusivity(unchecked)
        internal var closures: SinkClosures<Input, Failure>?
        /// Who is using the closures: bit 0 (`ended`) is set when the stream ends, and the rest
        /// counts the calls in progress, two per call. A call starts only while `ended` is clear;
        /// the closures are released by whoever leaves the count at zero with `ended` set, so no
        /// closure is freed while it runs. A value costs two atomic operations instead of a lock
        /// and a retain.
        @usableFromInline
        internal let closureUse = Atomic<UInt>(0)
        @inlinable
        internal static var ended: UInt { 1 }
        @inlinable
        internal static var oneCall: UInt { 2 }
        /// The `DebugHooks` registration to end when the stream does (0: not tracked). Atomic,
        /// not under the lock: a sink taking a value at hand finishes without the lock.
        @usableFromInline
        internal let trackingID = Atomic<UInt64>(0)

        /// Starts a call of the closures, unless the stream has ended.
        @inlinable
        @inline(__always)
        internal func beginClosureCall() -> Bool {
            // One compare-exchange when no other call is in progress; the rest out of line, to
            // keep small the code inlined into every upstream's delivery.
            let (exchanged, current) = closureUse.compareExchange(
                expected: 0, desired: Self.oneCall, ordering: .acquiring)
            return exchanged || beginClosureCall(seeing: current, alsoEnding: false)
        }

        /// Starts a call of the closures from the state last seen, unless the stream has ended.
        /// `alsoEnding` marks the end in the same compare-exchange: a completion is the last
        /// call, and must hold the closures until it returns.
        @inlinable
        @inline(never)
        internal func beginClosureCall(seeing observed: UInt, alsoEnding: Bool) -> Bool {
            let end = alsoEnding ? Self.ended : 0
            var current = observed
            while current & Self.ended == 0 {
                let (exchanged, original) = closureUse.compareExchange(
                    expected: current, desired: (current &+ Self.oneCall) | end,
                    ordering: .acquiringAndReleasing)
                if exchanged { return true }
                current = original
            }
            return false
        }

        /// Ends a call begun by `beginClosureCall`; the last call out after the end releases.
        @inlinable
        @inline(__always)
        internal func endClosureCall() {
            let previous = closureUse.wrappingSubtract(Self.oneCall, ordering: .acquiringAndReleasing).oldValue
            if previous == Self.ended | Self.oneCall {
                releaseClosures()
            }
        }

        /// Ends a call begun by `beginClosureCall` after the stream has ended (the last calls: a
        /// completion, a value at hand). No call begins after the end, so if this is the only one
        /// in progress nothing else can change the count: a load and a store replace the
        /// read-modify-write, and this call releases the closures.
        @inlinable
        @inline(__always)
        internal func endClosureCallAfterEnd() {
            if closureUse.load(ordering: .acquiring) == Self.ended | Self.oneCall {
                closureUse.store(Self.ended, ordering: .releasing)
                releaseClosures()
            } else {
                endClosureCall()
            }
        }

        /// Marks the stream ended. Returns whether the caller must release the closures (after
        /// unlocking): true unless a call is in progress, whose end then releases them.
        @inlinable
        internal func markEnded() -> Bool {
            closureUse.bitwiseOr(Self.ended, ordering: .acquiringAndReleasing).oldValue == 0
        }

        /// Drops the closures and what they capture. Only the one thread that `closureUse`
        /// chooses calls this, outside the lock (a capture's deinit may run anything).
        @inlinable
        @inline(never)
        internal func releaseClosures() {
            closures = nil
        }

        /// Calls the value closure in place. Only within a call begun by `beginClosureCall`, which
        /// keeps the closures from being released meanwhile.
        @inlinable
        @inline(__always)
        internal func callReceiveValue(_ value: Input) {
            switch closures {
            case .some(let closures): closures.receiveValue(value)
            case .none: break
            }
        }

        /// Calls the completion closure in place, within a call begun by `beginClosureCall`.
        @inlinable
        @inline(__always)
        internal func callReceiveCompletion(_ completion: Subscribers.Completion<Failure>) {
            switch closures {
            case .some(let closures): closures.receiveCompletion(completion)
            case .none: break
            }
        }

        /// Ends the `DebugHooks` registration, if there is one. Whoever ends the stream calls it,
        /// outside the lock; the exchange gives the registration to one of them.
        @inlinable
        internal func endTracking() {
            // A load first, so that an untracked sink (the usual case) writes nothing.
            guard trackingID.load(ordering: .relaxed) != 0 else { return }
            let registration = trackingID.exchange(0, ordering: .relaxed)
            if registration != 0 {
                SubscriberRegistry.endTracking(registration)
            }
        }

        /// Where `sink` was called (`nil` for a sink created directly), for `DebugHooks`.
        @usableFromInline
        internal let site: SubscriberSite?

        /// The closure to execute on receipt of a value.
        public var receiveValue: (Input) -> Void {
            guard beginClosureCall() else { return { _ in } }
            defer { endClosureCall() }
            switch closures {
            case .some(let closures): return closures.receiveValue
            case .none: return { _ in }
            }
        }

        /// The closure to execute on completion.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            guard beginClosureCall() else { return { _ in } }
            defer { endClosureCall() }
            switch closures {
            case .some(let closures): return closures.receiveCompletion
            case .none: return { _ in }
            }
        }

        /// `cancel()` specialised for the concrete input and failure types, captured where the
        /// sink is created: `cancel()` usually arrives through `AnyCancellable`, whose
        /// `Cancellable` witness is the library's unspecialised code, and unspecialised code pays
        /// for generic metadata look-ups on every call.
        @usableFromInline
        internal let cancelSpecialized: (AnyObject, CancelPlace) -> Void

        /// Initializes a sink with the provided closures.
        @inlinable
        public convenience init(receiveCompletion: consuming @escaping (Subscribers.Completion<Failure>) -> Void,
                                receiveValue: consuming @escaping (Input) -> Void) {
            self.init(receiveCompletion: receiveCompletion, receiveValue: receiveValue, site: nil)
        }

        /// A sink that remembers where it was made (`nil`: made directly, not tracked), and
        /// registers with `DebugHooks` when it is tracking live subscriptions (before
        /// subscribing, so a synchronous completion finds it).
        @inlinable
        @inline(__always)
        package init(receiveCompletion: consuming @escaping (Subscribers.Completion<Failure>) -> Void,
                      receiveValue: consuming @escaping (Input) -> Void, site: SubscriberSite?) {
            // Moved, not copied: a copy is a retain and a release of each closure's context.
            closures = SinkClosures(receiveValue: consume receiveValue, receiveCompletion: consume receiveCompletion)
            cancelSpecialized = { sink, _ in unsafeDowncast(sink, to: Sink.self).cancelSubscription() }
            self.site = site
            if let site, SubscriberRegistry.isTracking {
                trackingID.store(SubscriberRegistry.beginTracking(subscriber: "Sink", site: site), ordering: .relaxed)
            }
        }

        /// The cancellable `sink` returns, with the sink moved into it (a copy would be a retain
        /// and a release).
        @inlinable
        @inline(__always)
        package static func cancellable(for sink: consuming Sink) -> AnyCancellable {
            let cancel = sink.cancelSpecialized
            return AnyCancellable(object: sink, cancel: cancel)
        }

        @inlinable
        @inline(__always)
        public func receive(subscription: Subscription) {
            let accepted = lock.locked { status.accept(subscription) }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Subscribes to a publisher whose one value is at hand (`Just`, and `Optional.Publisher`
        /// and `Result.Publisher` with a value): what `receive(subscription:)`, its request for
        /// unlimited values, the value and `finished` come to, without a subscription object. A
        /// sink that already has a subscription takes nothing, as it would cancel the new one; a
        /// cancel during the value stops the `finished`, as it would with a subscription.
        @inlinable
        @inline(__always)
        internal func receiveAtOnce(_ value: Input) {
            // `terminal`: subscribed, with nothing upstream left to cancel. So the finish has no
            // status to take and needs no lock: `closureUse` alone decides between it and a
            // cancel, whichever sets `ended` first.
            let accepted = lock.locked { status.acceptNothingToCancel() }
            guard accepted, beginClosureCall() else { return }
            callReceiveValue(value)
            // The value and the finish are one call of the closures: the finish marks the end
            // unless a cancel (or a completion from inside the value) already has.
            let previous = closureUse.bitwiseOr(Self.ended, ordering: .acquiringAndReleasing).oldValue
            if previous & Self.ended == 0 {
                endTracking()
                callReceiveCompletion(.finished)
            }
            endClosureCallAfterEnd()
        }

        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            // Also a value nested in another delivery (a closure that sends to its own
            // upstream), or from a misbehaving upstream delivering concurrently: each is one more
            // call in progress. After the end, nothing is delivered.
            guard beginClosureCall() else { return .none }
            callReceiveValue(value)
            endClosureCall()
            return .none
        }

        @inlinable
        public func receive(completion: Subscribers.Completion<Failure>) {
            // The subscription is returned alone, not in a tuple or an `Optional` (either is
            // destroyed through the runtime's generic witness; see `SubscriptionStatus`).
            var live = false
            // The completion is a call of the closures like a value, begun in the step that
            // marks the end, so that they stay until it returns; a second completion finds the
            // stream ended.
            let finishedUpstream = lock.locked { () -> Subscription in
                live = beginClosureCall(seeing: closureUse.load(ordering: .relaxed), alsoEnding: true)
                return status.endTakingSubscription()
            }
            endTracking()
            // `live` says that the stream had not ended. (Not the old status: a sink taking a
            // value at hand is `terminal` before its end.)
            if case .failure(let error) = completion, live, SubscriberRegistry.reportsFailures {
                SubscriberRegistry.subscriberFailed("Sink", site: site, error: error)
            }
            if live {
                callReceiveCompletion(completion)
                endClosureCallAfterEnd()
            }
            // The finished upstream's subscription goes after the completion closure has run.
            // (Wrapping the call in `withExtendedLifetime` instead copied it: a retain and a
            // release.)
            withExtendedLifetime(finishedUpstream) {}
        }

        /// Cancels the subscription and releases the closures.
        @inlinable
        public func cancel() {
            cancelSpecialized(self, CancelPlace())
        }

        @inlinable
        internal func cancelSubscription() {
            // Ended means the stream has ended (completion or an earlier cancel), so there is
            // nothing to cancel: skip the lock, as `AnyCancellable`'s deinit cancels every sink.
            if closureUse.load(ordering: .acquiring) & Self.ended != 0 { return }
            var cancelled = false
            var releasesClosures = false
            // The subscription is returned alone (``NoSubscription`` if there is none), not as an
            // `Optional`, whose destroy goes through the runtime's generic witness.
            let upstream = lock.locked { () -> Subscription in
                // Before a subscription there is nothing to cancel yet (as in Combine, the sink
                // then takes the one that comes). `terminal` here is a sink taking a value at hand
                // (`receiveAtOnce`), whose value call `markEnded` then waits for, or one whose
                // completion came after the check above, for which `markEnded` releases nothing.
                guard !status.isAwaitingSubscription else { return NoSubscription() }
                cancelled = true
                releasesClosures = markEnded()
                return status.endTakingSubscription()
            }
            // Not before a subscription: the sink is still live then.
            if cancelled {
                endTracking()
            }
            upstream.cancel()
            if releasesClosures {
                releaseClosures()
            }
        }

        public var description: String { "Sink" }

        public var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

        public var playgroundDescription: Any { description }
    }
}

/// A sink's two closures. Noncopyable, so that the sink can only borrow them for a call, never
/// copy them (see `Subscribers.Sink.closures`).
@usableFromInline
internal struct SinkClosures<Input, Failure: Error>: ~Copyable {
    @usableFromInline
    internal let receiveValue: (Input) -> Void
    @usableFromInline
    internal let receiveCompletion: (Subscribers.Completion<Failure>) -> Void

    @inlinable
    internal init(receiveValue: consuming @escaping (Input) -> Void,
                  receiveCompletion: consuming @escaping (Subscribers.Completion<Failure>) -> Void) {
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }
}

// Combine's signatures, and no overload beside them: a call resolves as it does against
// Combine, also when other code in scope adds overloads of its own. Recording the call site is
// `trackedSink`, a name of its own (SluiceExtras, Diagnostics/TrackedSubscribers.swift).

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// Requests unlimited demand. The returned cancellable cancels the subscription when
    /// cancelled or deinitialized.
    @inlinable
    @inline(__always)
    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                     receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        // Inlined always, so that a caller that drops the cancellable (`_ = ….sink {}`) can keep
        // it on its stack; the sink is moved (not copied) into the cancellable.
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return Subscribers.Sink.cancellable(for: sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    @inlinable
    @inline(__always)
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
