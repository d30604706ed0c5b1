import Sluice

extension Publishers {
    /// A publisher that combines the latest values of a collection of publishers of one type
    /// into an array (beyond Combine, which stops at four).
    ///
    /// It follows `CombineLatest`'s rules over any number of upstreams: once every upstream has
    /// sent a value, each new value from any of them sends the array of the latest value of
    /// each, in the collection's order, while the downstream has demand (a value that arrives
    /// without demand only updates the latest values). Requests go to every upstream unchanged.
    /// It finishes when every upstream has finished and fails as soon as one fails, cancelling
    /// the others. An empty collection finishes at once without a value. Each value costs one
    /// array of the upstreams' count, not one per pair as nesting `combineLatest` would.
    public struct CombineLatestCollection<Upstream: Publisher>: Publisher {
        public typealias Output = [Upstream.Output]
        public typealias Failure = Upstream.Failure

        /// The publishers to combine, in the order of the arrays' elements.
        public let upstreams: [Upstream]

        /// Creates a publisher that combines the latest values of `upstreams`.
        public init<C: Collection>(_ upstreams: C) where C.Element == Upstream {
            self.upstreams = Array(upstreams)
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            guard !upstreams.isEmpty else {
                return Empty<Output, Failure>().receive(subscriber: subscriber)
            }
            let inner = CombineLatestSubscription<S, LatestCollectionValues<Upstream.Output>>(
                downstream: subscriber, count: upstreams.count,
                values: LatestCollectionValues(count: upstreams.count))
            for (index, upstream) in upstreams.enumerated() {
                upstream.receive(subscriber: CombineLatestSide(index: index, parent: inner) {
                    $0.swap(&$1, at: index)
                })
            }
            inner.handOver(inner)
        }
    }
}

extension Publishers.CombineLatestCollection: Equatable where Upstream: Equatable {}

extension Collection where Element: Publisher {
    /// Combines the latest values of every publisher in the collection into an array, in the
    /// collection's order, once each has sent one; see ``Publishers/CombineLatestCollection``.
    @_disfavoredOverload
    public func combineLatest() -> Publishers.CombineLatestCollection<Element> {
        Publishers.CombineLatestCollection(self)
    }
}

/// The latest value of each upstream of a collection, and how many have none yet.
internal struct LatestCollectionValues<Value>: CombineLatestStore {
    internal var values: [Value?]
    internal var missing: Int

    internal init(count: Int) {
        values = Array(repeating: nil, count: count)
        missing = count
    }

    /// Swaps `value` into upstream `index`'s slot, leaving the old one in `value`.
    internal mutating func swap(_ value: inout Value?, at index: Int) {
        if values[index] == nil, value != nil { missing -= 1 }
        Swift.swap(&values[index], &value)
    }

    internal var combination: [Value]? {
        missing == 0 ? values.map { $0! } : nil
    }

    internal mutating func takeAll() -> LatestCollectionValues {
        defer { self = LatestCollectionValues(count: values.count) }
        return self
    }

    internal var latest: [Any?] { values.map { $0 as Any? } }
}
