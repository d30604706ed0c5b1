extension Publishers {
    /// A publisher that applies a closure to all received elements and produces an accumulated
    /// value when the upstream publisher finishes.
    ///
    /// It asks its upstream for an unlimited number of elements as soon as it is subscribed and
    /// publishes the single result, followed by `.finished`, once the upstream finishes and the
    /// downstream has asked for at least one element (an empty upstream gets `initial` at once).
    public struct Reduce<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on creation of the publisher.
        public let initial: Output

        /// A closure that takes the previously-accumulated value and the next element from the
        /// upstream publisher to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        @inlinable
        public init(upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ReduceAccumulate<Upstream, Output, Upstream.Failure>(
                    name: "Reduce", initial: initial, next: nextPartialResult)))
        }
    }

    /// A publisher that applies an error-throwing closure to all received elements and produces
    /// an accumulated value when the upstream publisher finishes.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error
    /// at once, whether or not the downstream has asked for anything.
    public struct TryReduce<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on creation of the publisher.
        public let initial: Output

        /// An error-throwing closure that takes the previously-accumulated value and the next
        /// element from the upstream to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        @inlinable
        public init(upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ReduceAccumulate<Upstream, Output, Error>(
                    name: "TryReduce", initial: initial, next: nextPartialResult)))
        }
    }
}

/// `reduce` and `tryReduce`: fold every value into the accumulator; a throw ends the stream.
@usableFromInline
internal struct ReduceAccumulate<Upstream: Publisher, Output, Failure: Error>: ReduceLogic {

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let initial: Output?
    @usableFromInline
    internal var accumulator: Output
    @usableFromInline
    internal let next: (Output, Upstream.Output) throws -> Output

    @inlinable
    internal init(name: String, initial: Output, next: @escaping (Output, Upstream.Output) throws -> Output) {
        self.name = name
        self.initial = initial
        accumulator = initial
        self.next = next
    }

    @inlinable
    internal var result: Output? { accumulator }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> ReduceStep<Failure> {
        .catching {
            accumulator = try next(accumulator, input)
            return .proceed
        }
    }
}

extension Publisher {
    /// Applies a closure that collects each element of a stream and publishes a final result
    /// upon completion.
    ///
    /// The result (and then `.finished`) is sent when the upstream finishes and the downstream
    /// has requested at least one element; an empty upstream publishes `initialResult` at once.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Reduce<Self, T> {
        Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }

    /// Applies an error-throwing closure that collects each element of a stream and publishes a
    /// final result upon completion. A thrown error cancels the upstream and fails the stream.
    @inlinable
    public func tryReduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T) -> Publishers.TryReduce<Self, T> {
        Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}
