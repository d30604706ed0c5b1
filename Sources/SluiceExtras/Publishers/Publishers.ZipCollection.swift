import Sluice

extension Publishers {
    /// A publisher that zips a collection of publishers of one type into arrays (beyond
    /// Combine, which stops at four).
    ///
    /// It follows `Zip`'s rules over any number of upstreams: each upstream's values queue up,
    /// and as soon as every upstream has one, the array of the oldest value of each goes out, in
    /// the collection's order. The downstream gets its subscription once every upstream has
    /// sent one, and requests go to every upstream unchanged. It finishes as soon as a finished
    /// upstream has no value left to pair, and fails as soon as one fails, cancelling the
    /// others first. An empty collection finishes at once without a value.
    public struct ZipCollection<Upstream: Publisher>: Publisher {
        public typealias Output = [Upstream.Output]
        public typealias Failure = Upstream.Failure

        /// The publishers to zip, in the order of the arrays' elements.
        public let upstreams: [Upstream]

        /// Creates a publisher that zips `upstreams`.
        public init<C: Collection>(_ upstreams: C) where C.Element == Upstream {
            self.upstreams = Array(upstreams)
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            guard !upstreams.isEmpty else {
                return Empty<Output, Failure>().receive(subscriber: subscriber)
            }
            let inner = ZipSubscription<S, ZipCollectionQueues<Upstream.Output>>(
                downstream: subscriber, count: upstreams.count,
                queues: ZipCollectionQueues(count: upstreams.count))
            for (index, upstream) in upstreams.enumerated() {
                upstream.receive(subscriber: ZipSide(index: index, parent: inner) {
                    $0.append($1, at: index)
                })
            }
        }
    }
}

extension Publishers.ZipCollection: Equatable where Upstream: Equatable {}

extension Collection where Element: Publisher {
    /// Zips every publisher in the collection: arrays of one value of each, in the
    /// collection's order; see ``Publishers/ZipCollection``.
    @_disfavoredOverload
    public func zip() -> Publishers.ZipCollection<Element> {
        Publishers.ZipCollection(self)
    }
}

/// The unpaired values of each upstream of a collection, and how many upstreams have none.
internal struct ZipCollectionQueues<Value>: ZipStore {
    internal var queues: [RingBuffer<Value>]
    internal var emptyCount: Int

    internal init(count: Int) {
        queues = Array(repeating: RingBuffer(), count: count)
        emptyCount = count
    }

    internal mutating func append(_ value: Value, at index: Int) {
        if queues[index].isEmpty { emptyCount -= 1 }
        queues[index].append(value)
    }

    internal func isEmpty(_ index: Int) -> Bool { queues[index].isEmpty }

    internal var isReady: Bool { emptyCount == 0 }

    internal mutating func popAll() -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(queues.count)
        for index in queues.indices {
            values.append(queues[index].popFirst()!)
            if queues[index].isEmpty { emptyCount += 1 }
        }
        return values
    }

    internal mutating func takeAll() -> ZipCollectionQueues {
        defer { self = ZipCollectionQueues(count: queues.count) }
        return self
    }
}
