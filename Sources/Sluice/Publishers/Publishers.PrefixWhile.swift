extension Publishers {
    /// A publisher that republishes elements while a predicate closure indicates publishing
    /// should continue.
    ///
    /// The first element for which the predicate returns `false` cancels the upstream and
    /// finishes the stream; that element is not published.
    public struct PrefixWhile<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether publishing should continue.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that republishes elements while a predicate closure indicates
        /// publishing should continue.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: PrefixWhileTransform<Upstream, Upstream.Failure>(name: "PrefixWhile", predicate: predicate)))
        }
    }

    /// A publisher that republishes elements while an error-throwing predicate closure
    /// indicates publishing should continue.
    ///
    /// A `false` result cancels the upstream and finishes; a thrown error cancels the upstream
    /// and fails with that error.
    public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether publishing should continue.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that republishes elements while an error-throwing predicate
        /// closure indicates publishing should continue.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: PrefixWhileTransform<Upstream, Error>(name: "TryPrefixWhile", predicate: predicate)))
        }
    }
}

/// `prefix(while:)` and `tryPrefix(while:)`: pass values on while the predicate holds; the first
/// that fails it finishes the stream.
@usableFromInline
internal struct PrefixWhileTransform<Upstream: Publisher, Failure: Error>: ValueTransform {
    @usableFromInline
    internal typealias Output = Upstream.Output

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let predicate: (Upstream.Output) throws -> Bool

    @inlinable
    internal init(name: String, predicate: @escaping (Upstream.Output) throws -> Bool) {
        self.name = name
        self.predicate = predicate
    }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> TransformStep<Output, Failure> {
        .catching { try predicate(input) ? .emit(input) : .finish }
    }
}

extension Publisher {
    /// Republishes elements while a predicate closure indicates publishing should continue;
    /// the first element that fails the predicate finishes the stream.
    @inlinable
    public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
        Publishers.PrefixWhile(upstream: self, predicate: predicate)
    }

    /// Republishes elements while an error-throwing predicate closure indicates publishing
    /// should continue. A thrown error cancels the upstream and fails the stream.
    @inlinable
    public func tryPrefix(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryPrefixWhile<Self> {
        Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
    }
}
