import Synchronization

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
                downstream: subscriber, sequence: sequence, iterator: iterator, next: first,
                completion: .finished, presentation: .sequence)
            subscriber.receive(subscription: subscription)
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {
    /// Two sequence publishers are equal when their sequences are equal.
    @inlinable
    public static func == (lhs: Publishers.Sequence<Elements, Failure>, rhs: Publishers.Sequence<Elements, Failure>) -> Bool {
        lhs.sequence == rhs.sequence
    }
}

extension Sequence {
    /// A publisher that emits the elements of this sequence, then finishes.
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> {
        Publishers.Sequence(sequence: self)
    }
}

/// How a ``SequenceSubscription`` describes itself: Combine's sequence publisher and `Record`
/// play back the same way but name their subscriptions differently.
@usableFromInline
internal enum SequencePresentation {
    /// `Publishers.Sequence`: the sequence's description, `"Sequence"` once terminated; mirror
    /// child `sequence`.
    case sequence
    /// `Record`: the output array's description, `"Cancelled Events"` once terminated; mirror
    /// children `sequence` and `completion`.
    case record
}

/// Emits a sequence's elements as demand allows, then the given completion right after the last
/// element. Shared by `Publishers.Sequence` (completion `.finished`) and `Record` (the recorded
/// completion).
///
/// The iterator is touched only by the thread that holds `emitting`, outside the lock, so that a
/// lazy sequence's closures never run under it; requests that arrive meanwhile (re-entrantly or
/// from another thread) only add demand for that thread's loop to serve.
@usableFromInline
internal final class SequenceSubscription<Downstream: Subscriber, Elements: Sequence>: Subscription,
    DescribedByName,
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

    /// Set by `cancel()`: what an emission loop under unlimited demand checks instead of taking
    /// the lock for each value.
    @usableFromInline
    internal let cancelled = Atomic<Bool>(false)

    /// Owned by the emitting thread; see the type's comment.
    @usableFromInline
    internal var iterator: Elements.Iterator

    /// The element to deliver next: the iterator runs one ahead so completion follows the last
    /// element at once.
    @usableFromInline
    internal var next: Elements.Element?

    @usableFromInline
    internal let sequence: Elements

    /// Sent right after the last element.
    @usableFromInline
    internal let completion: Subscribers.Completion<Downstream.Failure>

    @usableFromInline
    internal let presentation: SequencePresentation

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, sequence: Elements, iterator: Elements.Iterator,
                  next: Elements.Element, completion: Subscribers.Completion<Downstream.Failure>,
                  presentation: SequencePresentation) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: SequenceSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: SequenceSubscription.self).cancelSpecialized() })
        self.downstream = downstream
        self.sequence = sequence
        self.iterator = iterator
        self.next = next
        self.completion = completion
        self.presentation = presentation
    }

    /// Adds demand and, unless another call is already emitting, emits. A request for nothing
    /// is ignored, as Combine's sequence publisher ignores it.
    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        entryPoints.request(self, demand)
    }

    @inlinable
    internal func cancel() {
        entryPoints.cancel(self)
    }

    @inlinable
    internal func requestSpecialized(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        guard let downstream = lock.locked({ () -> Downstream? in
            guard let downstream = self.downstream else { return nil }
            self.demand += demand
            if emitting { return nil }
            emitting = true
            return downstream
        }) else { return }
        emit(to: downstream)
    }

    @inlinable
    internal func emit(to downstream: Downstream) {
        var unlimited = false
        while true {
            guard let element = next else {
                // Exhausted: the last delivery left nothing to look ahead to.
                let live = lock.locked { () -> Downstream? in
                    emitting = false
                    return self.downstream.take()
                }
                if live != nil { downstream.receive(completion: completion) }
                return
            }
            if unlimited {
                // Unlimited demand needs no accounting: only a cancel can stop the loop.
                if cancelled.load(ordering: .relaxed) {
                    lock.locked { emitting = false }
                    return
                }
            } else {
                let proceed = lock.locked { () -> Bool in
                    guard self.downstream != nil, demand > 0 else {
                        emitting = false
                        return false
                    }
                    if demand == .unlimited {
                        unlimited = true
                    } else {
                        demand -= 1
                    }
                    return true
                }
                guard proceed else { return }
            }
            next = iterator.next()
            let additional = downstream.receive(element)
            if !unlimited && additional > 0 {
                lock.locked { demand += additional }
            }
        }
    }

    @inlinable
    internal func cancelSpecialized() {
        let downstream = lock.locked { self.downstream.take() }
        cancelled.store(true, ordering: .relaxed)
        withExtendedLifetime(downstream) {}
    }

    @usableFromInline
    internal var description: String {
        if lock.locked({ downstream == nil }) {
            switch presentation {
            case .sequence: return "Sequence"
            case .record: return "Cancelled Events"
            }
        }
        return String(describing: sequence)
    }

    @usableFromInline
    internal var customMirror: Mirror {
        let finished = lock.locked { downstream == nil }
        let remaining: Any = finished ? [] as [Elements.Element] : sequence
        switch presentation {
        case .sequence:
            return Mirror(self, children: ["sequence": remaining])
        case .record:
            return Mirror(self, children: ["sequence": remaining, "completion": completion])
        }
    }
}
