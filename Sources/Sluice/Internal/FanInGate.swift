/// The engine under the operators that combine a fixed set of upstreams (merge, combineLatest,
/// zip, and the collection forms of combineLatest and zip in SluiceExtras): one entry per
/// upstream, by index, on top of ``DownstreamGate``'s one lock and one serial delivery, and one
/// teardown. An operator adds only its own rule: what it keeps of each upstream's values, and
/// when a value or the completion goes out.
///
/// Teardown, whichever way the operator ends: under the lock every upstream is marked done (so
/// that its later signals are ignored) and what it held is taken out; after unlocking each is
/// cancelled and the taken values are released, so that no call-out and no `deinit` runs under
/// the lock.
@usableFromInline
package class FanInGate<Downstream: Subscriber, Tag>: DownstreamGate<Downstream, Tag>, @unchecked Sendable {
    @usableFromInline
    package final let count: Int
    @usableFromInline @exclusivity(unchecked)
    package final var upstreams: [GateUpstream]

    @inlinable
    package init(downstream: Downstream, count: Int) {
        self.count = count
        upstreams = Array(repeating: .awaitingSubscription, count: count)
        super.init(downstream: downstream)
    }

    /// Takes the subscription of upstream `index` if it is its first and the operator is live;
    /// on `false` the caller cancels it after unlocking.
    @inlinable
    package final func acceptLocked(_ subscription: Subscription, at index: Int) -> Bool {
        guard !terminated, upstreams[index].isAwaitingSubscription else { return false }
        upstreams[index] = .subscribed(subscription)
        return true
    }

    /// Marks upstream `index` finished and returns what it held, to be released after
    /// unlocking; `nil` if it had already ended or the operator has.
    @inlinable
    package final func finishLocked(_ index: Int) -> GateUpstream? {
        guard !terminated, !upstreams[index].isDone else { return nil }
        defer { upstreams[index] = .done }
        return upstreams[index]
    }

    /// Ends the operator: every upstream is marked done; the caller cancels what this returns
    /// after unlocking.
    @inlinable
    package final func detachAllLocked() -> [GateUpstream] {
        terminated = true
        defer { upstreams = Array(repeating: .done, count: count) }
        return upstreams
    }

    /// The subscriptions of the upstreams that are live.
    @inlinable
    package final var liveSubscriptionsLocked: [Subscription] {
        upstreams.compactMap(\.subscription)
    }

    /// Takes the operator's buffered values out at a cancel, to be released after unlocking.
    @inlinable
    package func takeBuffersLocked() -> Any? { nil }

    /// Closes the gate, cancels every upstream and releases the downstream and the buffered
    /// values, all of it after unlocking.
    @inlinable
    package final func cancel() {
        let (detached, dropped, gate) = lock.locked { (detachAllLocked(), takeBuffersLocked(), terminateLocked()) }
        detached.cancelAll()
        withExtendedLifetime((dropped, gate)) {}
    }
}

extension Array where Element == GateUpstream {
    /// Cancels each live subscription, in order; call with no lock held.
    @inlinable
    package func cancelAll() {
        for upstream in self {
            upstream.subscription?.cancel()
        }
    }
}
