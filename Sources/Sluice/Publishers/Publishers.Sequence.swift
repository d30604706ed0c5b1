extension Publishers {
    /// A publisher that publishes a given sequence of elements.
    ///
    /// When the publisher exhausts the elements in the sequence, the next request causes the
    /// publisher to finish; in fact it looks one element ahead, so it finishes right after
    /// delivering the last element, without waiting for more demand.
    public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
        public typealias Output = Elements.Element

        /// The sequence of elements to publish.
        public let sequence: Elements

        /// Creates a publisher for a sequence of elements.
        @inlinable
        public init(sequence: Elements) {
            self.sequence = sequence
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
            where Failure == S.Failure, Elements.Element == S.Input
        {
            var iterator = sequence.makeIterator()
            guard let first = iterator.next() else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
                return
            }
            let subscription = SequenceSubscription<S, Elements>(
                downstream: subscriber, sequence: sequence, iterator: iterator, next: first)
            subscriber.receive(subscription: subscription)
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}

extension Publishers.Sequence: Sendable where Elements: Sendable {}

extension Sequence {
    /// A publisher that emits the elements of this sequence, then finishes.
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> {
        Publishers.Sequence(sequence: self)
    }
}

/// Emits a sequence's elements as demand allows.
///
/// The iterator is touched only by the thread that holds `emitting`, outside the lock, so that a
/// lazy sequence's closures never run under it; requests that arrive meanwhile (re-entrantly or
/// from another thread) only add demand for that thread's loop to serve.
@usableFromInline
internal final class SequenceSubscription<Downstream: Subscriber, Elements: Sequence>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
    where Downstream.Input == Elements.Element
{
    @usableFromInline
    internal let lock = Lock()

    /// The subscriber until the sequence is exhausted or the subscription cancelled.
    @usableFromInline
    @exclusivity(unchecked)
    internal var downstream: Downstream?

    @usableFromInline
    @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none

    @usableFromInline
    @exclusivity(unchecked)
    internal var emitting = false

    /// Owned by the emitting thread; see the type's comment.
    @usableFromInline
    internal var iterator: Elements.Iterator

    /// The element to deliver next: the iterator runs one ahead so completion follows the last
    /// element at once.
    @usableFromInline
    internal var next: Elements.Element?

    @usableFromInline
    internal let sequence: Elements

    /// The emission loop, captured where this subscription is created. `request(_:)` arrives
    /// through the `Subscription` existential, whose witness is the library's unspecialised
    /// code; calling through this function value runs the loop specialised for the concrete
    /// downstream instead (about 40 times faster per value).
    @usableFromInline
    internal let emitSpecialized: (SequenceSubscription, Downstream) -> Void

    @inlinable
    internal init(downstream: Downstream, sequence: Elements, iterator: Elements.Iterator,
                  next: Elements.Element) {
        self.downstream = downstream
        self.sequence = sequence
        self.iterator = iterator
        self.next = next
        emitSpecialized = { subscription, downstream in subscription.emit(to: downstream) }
    }

    /// Adds demand and, unless another call is already emitting, emits. A request for nothing
    /// is ignored, as Combine's sequence publisher ignores it.
    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        guard let downstream = lock.locked({ () -> Downstream? in
            guard let downstream = self.downstream else { return nil }
            self.demand += demand
            if emitting { return nil }
            emitting = true
            return downstream
        }) else { return }
        emitSpecialized(self, downstream)
    }

    @inlinable
    internal func emit(to downstream: Downstream) {
        while true {
            guard let element = next else {
                // Exhausted: the last delivery left nothing to look ahead to.
                let live = lock.locked { () -> Downstream? in
                    emitting = false
                    return self.downstream.take()
                }
                if live != nil { downstream.receive(completion: .finished) }
                return
            }
            let proceed = lock.locked { () -> Bool in
                guard self.downstream != nil, demand > 0 else {
                    emitting = false
                    return false
                }
                demand -= 1
                return true
            }
            guard proceed else { return }
            next = iterator.next()
            let additional = downstream.receive(element)
            if additional > 0 {
                lock.locked { demand += additional }
            }
        }
    }

    @inlinable
    internal func cancel() {
        let downstream = lock.locked { self.downstream.take() }
        withExtendedLifetime(downstream) {}
    }

    @usableFromInline
    internal var description: String {
        lock.locked { downstream == nil } ? "Sequence" : String(describing: sequence)
    }

    @usableFromInline
    internal var customMirror: Mirror {
        let finished = lock.locked { downstream == nil }
        return Mirror(self, children: ["sequence": finished ? [] as [Elements.Element] as Any : sequence])
    }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}
