extension Publishers {
    /// A publisher that buffers items.
    ///
    /// It asks its upstream for an unlimited number of elements as soon as it is subscribed, and
    /// publishes all of them as one array, followed by `.finished`, once the upstream finishes
    /// and the downstream has asked for at least one element (an empty upstream gets `[]` at
    /// once). A failure is forwarded at once and the buffer is dropped.
    public struct Collect<Upstream: Publisher>: Publisher {
        public typealias Output = [Upstream.Output]
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == [Upstream.Output], S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(downstream: subscriber, logic: CollectAll<Upstream>()))
        }
    }
}

extension Publishers.Collect: Equatable where Upstream: Equatable {
    /// Returns whether the two publishers have equal upstreams.
    @inlinable
    public static func == (lhs: Publishers.Collect<Upstream>, rhs: Publishers.Collect<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream
    }
}

/// `collect()`: keep every value.
@usableFromInline
internal struct CollectAll<Upstream: Publisher>: ReduceLogic {
    /// No user code runs in `receive(_:)`: the buffer is worked on in place.
    @inlinable
    internal static var runsUserCode: Bool { false }

    @usableFromInline
    internal typealias Output = [Upstream.Output]
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal var buffer: [Upstream.Output] = []

    @inlinable
    internal init() {}

    @inlinable
    internal var name: String { "Collect" }

    @inlinable
    internal var result: Output? { buffer }

    /// Combine's `Collect` mirror shows only how many elements it holds.
    @inlinable
    internal var mirrorChildren: [(label: String, value: Any)]? { [(label: "count", value: buffer.count)] }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> ReduceStep<Failure> {
        buffer.append(input)
        return .proceed
    }
}

extension Publisher {
    /// Collects all received elements, and emits a single array of the collection when the
    /// upstream publisher finishes.
    ///
    /// If the upstream fails, the error is forwarded and the collected elements are dropped.
    /// The buffer is unbounded: use `collect(_:)` to emit arrays of at most a given size.
    @inlinable
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}
