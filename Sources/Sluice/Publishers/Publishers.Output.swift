extension Publishers {
    /// A publisher that publishes elements specified by a range in the sequence of published
    /// elements.
    ///
    /// Elements before the range are dropped and replaced by a request for one more; elements
    /// in the range are republished. Once the last element of the range has been delivered the
    /// upstream is cancelled and the stream finishes, without waiting for another element (so
    /// `prefix(1)` ends with its first value). Elements counted before the upstream's
    /// subscription arrived cannot end it; then the first element after the range does.
    /// Downstream demand is forwarded unchanged.
    public struct Output<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The range of elements to publish.
        public let range: CountableRange<Int>

        /// Creates a publisher that publishes elements specified by a range. Negative bounds
        /// stop the program.
        @inlinable
        public init(upstream: Upstream, range: CountableRange<Int>) {
            precondition(range.lowerBound >= 0, "Publishers.Output requires a non-negative lower bound, got \(range.lowerBound)")
            precondition(range.upperBound >= 0, "Publishers.Output requires a non-negative upper bound, got \(range.upperBound)")
            self.upstream = upstream
            self.range = range
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: OutputSubscription<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, range: range))
        }
    }
}

extension Publishers.Output: Equatable where Upstream: Equatable {
    /// Two `Output` publishers are equal if their upstreams and ranges are.
    @inlinable
    public static func == (lhs: Publishers.Output<Upstream>, rhs: Publishers.Output<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream && lhs.range == rhs.range
    }
}

@usableFromInline
internal final class OutputSubscription<Input, Failure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, DescribedByName,
    @unchecked Sendable
    where Downstream.Input == Input, Downstream.Failure == Failure
{
    /// What one value leads to, decided under the lock and carried out after it.
    @usableFromInline
    internal enum Step {
        case ignore
        case skip
        case emit(Downstream, last: Bool)
        case finish(LinkState<Downstream>)
    }

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    /// The index of the next element.
    @usableFromInline @exclusivity(unchecked)
    internal var index = 0
    @usableFromInline
    internal let range: CountableRange<Int>

    @inlinable
    internal init(downstream: Downstream, range: CountableRange<Int>) {
        link = .awaitingSubscription(downstream)
        self.range = range
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        announce(self, to: lock.locked { link.accept(subscription) }, orCancel: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        // As in Combine, elements are counted, and those in range passed on, even before the
        // upstream's subscription has arrived.
        let step = lock.locked { () -> Step in
            let downstream: Downstream
            switch link {
            case .terminal: return .ignore
            case .awaitingSubscription(let early): downstream = early
            case .subscribed(_, let live): downstream = live
            }
            let position = index
            index += 1
            if position < range.lowerBound { return .skip }
            if position < range.upperBound { return .emit(downstream, last: position == range.upperBound - 1) }
            guard case .subscribed = link else { return .ignore }
            return .finish(link.terminate())
        }
        switch step {
        case .ignore:
            return .none
        case .skip:
            return .max(1)
        case .emit(let downstream, let last):
            let demand = downstream.receive(input)
            if last {
                // Unless the downstream cancelled meanwhile, or the subscription has not come.
                finish(lock.locked { link.terminateIfSubscribed() })
            }
            return demand
        case .finish(let previous):
            finish(previous)
            return .none
        }
    }

    /// Cancels the upstream, then finishes the downstream, if `previous` was subscribed.
    @inlinable
    internal func finish(_ previous: LinkState<Downstream>) {
        if case .subscribed(let upstream, let downstream) = previous {
            upstream.cancel()
            downstream.receive(completion: .finished)
        }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        // A completion before the upstream's subscription is ignored, as in Combine.
        let previous = lock.locked { link.terminateIfSubscribed() }
        if case .subscribed(_, let downstream) = previous {
            downstream.receive(completion: completion)
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        lock.locked { link.subscription }?.request(demand)
    }

    /// A cancel before the upstream's subscription arrives does nothing, as in Combine (the
    /// downstream cannot hold this subscription yet).
    @inlinable
    internal func cancel() {
        let previous = lock.locked { link.terminateIfSubscribed() }
        previous.subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { "Output" }
}

extension Publisher {
    /// Publishes a specific element, indicated by its index in the sequence of published
    /// elements. A negative index (or `Int.max`) stops the program.
    @inlinable
    public func output(at index: Int) -> Publishers.Output<Self> {
        precondition(index >= 0, "output(at:) requires a non-negative index, got \(index)")
        return output(in: index ..< index + 1)
    }

    /// Publishes elements specified by their range in the sequence of published elements. The
    /// range is resolved relative to `0 ..< Int.max`; negative bounds stop the program.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        Publishers.Output(upstream: self, range: range.relative(to: 0 ..< Int.max))
    }

    /// Republishes elements up to the specified maximum count, then finishes. A negative count
    /// stops the program.
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        precondition(maxLength >= 0, "prefix(_:) requires a non-negative length, got \(maxLength)")
        return output(in: 0 ..< maxLength)
    }
}
