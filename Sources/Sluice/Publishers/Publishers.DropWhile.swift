extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a given closure
    /// returns `false`.
    ///
    /// Each omitted element is replaced by a request for one more. Once the closure has
    /// returned `false`, it is not called again and every element is republished.
    public struct DropWhile<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that indicates whether to drop the element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that omits elements from an upstream publisher until a given
        /// closure returns `false`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: DropWhileTransform<Upstream, Upstream.Failure>(name: "DropWhile", predicate: predicate)))
        }
    }

    /// A publisher that omits elements from an upstream publisher until a given error-throwing
    /// closure returns `false`.
    ///
    /// A thrown error cancels the upstream and fails with that error.
    public struct TryDropWhile<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that indicates whether to drop the element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that omits elements from an upstream publisher until a given
        /// error-throwing closure returns `false`.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: DropWhileTransform<Upstream, Error>(name: "TryDropWhile", predicate: predicate)))
        }
    }
}

/// `drop(while:)` and `tryDrop(while:)`: skip values while the predicate holds, then pass every
/// value on without calling it again.
@usableFromInline
internal struct DropWhileTransform<Upstream: Publisher, Failure: Error>: ValueTransform {
    @usableFromInline
    internal typealias Output = Upstream.Output

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let predicate: (Upstream.Output) throws -> Bool
    @usableFromInline
    internal var dropping = true

    @inlinable
    internal init(name: String, predicate: @escaping (Upstream.Output) throws -> Bool) {
        self.name = name
        self.predicate = predicate
    }

    /// Combine's `DropWhile` and `TryDropWhile` ignore values and completions that arrive
    /// before their subscription, and a cancel made before it.
    @inlinable
    internal static var beforeSubscription: BeforeSubscriptionPolicy { .ignore }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> TransformStep<Output, Failure> {
        guard dropping else { return .emit(input) }
        return .catching {
            if try predicate(input) { return .skip }
            dropping = false
            return .emit(input)
        }
    }

    @inlinable
    internal func mirrorChildren(downstream: Any?, status: String) -> [Mirror.Child] { [] }
}

extension Publisher {
    /// Omits elements from the upstream publisher until a given closure returns `false`, then
    /// republishes all remaining elements.
    @inlinable
    public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
        Publishers.DropWhile(upstream: self, predicate: predicate)
    }

    /// Omits elements from the upstream publisher until an error-throwing closure returns
    /// `false`, then republishes all remaining elements. A thrown error cancels the upstream
    /// and fails the stream.
    @inlinable
    public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
        Publishers.TryDropWhile(upstream: self, predicate: predicate)
    }
}
