/// The engine under the operators with several upstreams (merge, combineLatest, zip, their
/// collection forms in SluiceExtras, withLatestFrom, concatenate, flatMap and switchToLatest):
/// one entry per upstream, by index, on top of ``DownstreamGate``'s one lock and one serial
/// delivery, and one teardown. An operator adds only its own rule: what it keeps of each
/// upstream's values, and when a value or the completion goes out.
///
/// Two kinds of set. A fixed set (``init(downstream:count:)``): upstream `i` is at `upstreams[i]`
/// for good, and stays there, `.done`, once it has ended. A growing set
/// (``init(growingWith:)``), for the inner publishers that flatMap and switchToLatest subscribe
/// to as they go: each is added under a new, larger index (``addLocked(_:)``) and taken off the
/// list when it ends, so the list holds the live ones only, in index order, and one is found by
/// a binary search over the indices alone. Those come from an outer upstream, the publisher of
/// publishers, kept in ``outer``.
///
/// Teardown, whichever way the operator ends: under the lock every upstream is marked done (so
/// that its later signals are ignored) and what it held is taken out; after unlocking each is
/// cancelled, in index order, then the outer upstream (as Combine cancels a flatMap's children
/// before its upstream), and the taken values are released, so that no call-out and no `deinit`
/// runs under the lock.
@usableFromInline
package class FanInGate<Downstream: Subscriber, Tag>: DownstreamGate<Downstream, Tag>, @unchecked Sendable {
    /// The size of a fixed set (0 for a growing one).
    @usableFromInline
    package final let count: Int
    /// The upstreams: by index in a fixed set, the live ones in index order in a growing one.
    @usableFromInline @exclusivity(unchecked)
    package final var upstreams: [GateUpstream]
    /// Whether the set grows (``init(growingWith:)``) rather than being fixed.
    @usableFromInline
    package final let grows: Bool
    /// A growing set's indices, at the same positions as ``upstreams`` (empty for a fixed set).
    /// Kept apart from the upstreams so that a search reads plain integers (an array of pairs
    /// copied each pair it compared, subscription included).
    @usableFromInline @exclusivity(unchecked)
    package final var indices: [Int] = []
    /// A growing set's outer upstream, whose values become the inner upstreams; `.done` once it
    /// has finished (or the operator has ended). Unused by a fixed set.
    @usableFromInline @exclusivity(unchecked)
    package final var outer = GateUpstream.awaitingSubscription

    /// A fixed set of `count` upstreams, awaiting their subscriptions.
    @inlinable
    package init(downstream: Downstream, count: Int) {
        self.count = count
        upstreams = Array(repeating: .awaitingSubscription, count: count)
        grows = false
        super.init(downstream: downstream)
    }

    /// A growing set, empty until ``addLocked(_:)``.
    @inlinable
    package init(growingWith downstream: Downstream) {
        count = 0
        upstreams = []
        grows = true
        super.init(downstream: downstream)
    }

    /// Where upstream `index` is in ``upstreams``: `index` itself in a fixed set; in a growing
    /// one, its position if it is live.
    @inlinable
    @inline(__always)
    package final func position(of index: Int) -> Int? {
        guard grows else { return index }
        var low = 0
        var high = indices.count
        while low < high {
            let middle = (low &+ high) / 2
            let found = indices[middle]
            if found == index { return middle }
            if found < index { low = middle &+ 1 } else { high = middle }
        }
        return nil
    }

    /// Adds upstream `index` to a growing set, awaiting its subscription; `index` must be larger
    /// than every index added before.
    @inlinable
    package final func addLocked(_ index: Int) {
        precondition(grows, "only a growing set of upstreams takes new ones")
        assert(indices.last.map { $0 < index } ?? true, "upstreams are added in index order")
        indices.append(index)
        upstreams.append(.awaitingSubscription)
    }

    /// Whether no upstream of a growing set is live (awaiting its subscription or subscribed).
    @inlinable
    package final var isEmptyLocked: Bool { upstreams.isEmpty }

    /// Whether upstream `index` is subscribed and the operator live: its values count.
    @inlinable
    @inline(__always)
    package final func isSubscribedLocked(_ index: Int) -> Bool {
        guard !terminated, let position = position(of: index) else { return false }
        return upstreams[position].isSubscribed
    }

    /// The subscription of upstream `index`, if it is subscribed.
    @inlinable
    package final func subscriptionLocked(_ index: Int) -> Subscription? {
        position(of: index).flatMap { upstreams[$0].subscription }
    }

    /// Takes the subscription of upstream `index` if it is its first and the operator is live;
    /// on `false` the caller cancels it after unlocking.
    @inlinable
    package final func acceptLocked(_ subscription: Subscription, at index: Int) -> Bool {
        guard !terminated, let position = position(of: index), upstreams[position].isAwaitingSubscription else {
            return false
        }
        upstreams[position] = .subscribed(subscription)
        return true
    }

    /// Marks upstream `index` finished (in a growing set, takes it off the list) and returns
    /// what it held, to be released after unlocking; `nil` if it had already ended or the
    /// operator has.
    @inlinable
    package final func finishLocked(_ index: Int) -> GateUpstream? {
        guard !terminated, let position = position(of: index), !upstreams[position].isDone else { return nil }
        guard grows else {
            // A lock-free claim checks no upstream of a fixed set: it waits until the operator
            // opens it again. (The one growing set that opens it, flatMap's, checks the child
            // itself: see `FlatMapSubscription.liveChildren`.)
            shutLockFreeClaimLocked()
            defer { upstreams[position] = .done }
            return upstreams[position]
        }
        indices.remove(at: position)
        return upstreams.remove(at: position)
    }

    /// Ends the operator: every upstream is marked done (a growing set is emptied); the caller
    /// cancels what this returns, in index order, after unlocking.
    @inlinable
    package final func detachAllLocked() -> [GateUpstream] {
        terminated = true
        shutLockFreeClaimLocked()
        guard grows else {
            defer { upstreams = Array(repeating: .done, count: count) }
            return upstreams
        }
        indices = []
        defer { upstreams = [] }
        return upstreams
    }

    /// Takes the upstream of a growing set that holds one at a time (switchToLatest's current
    /// inner publisher) off the list, keeping the lists' storage for the next one (emptied
    /// lists would allocate again for it); the caller cancels what this returns after unlocking.
    @inlinable
    package final func takeSoleLocked() -> GateUpstream? {
        assert(grows && upstreams.count <= 1, "a set of one upstream at a time")
        indices.removeAll(keepingCapacity: true)
        return upstreams.popLast()
    }

    /// The subscriptions of the upstreams that are live, in index order.
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
        let (detached, outer, dropped, gate) = lock.locked {
            defer { self.outer = .done }
            return (detachAllLocked(), self.outer, takeBuffersLocked(), terminateLocked())
        }
        detached.cancelAll()
        outer.subscription?.cancel()
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

/// A combining operator's store for a fixed number of upstreams, one type per arity
/// (combineLatest's `LatestValues`, zip's `ZipQueues`), which empties itself by starting again.
@usableFromInline
internal protocol FixedArityStore {
    init()
}

extension FixedArityStore {
    /// Empties the store and returns what it held, to be released after unlocking.
    @inlinable
    internal mutating func takeAll() -> Self {
        defer { self = Self() }
        return self
    }
}
