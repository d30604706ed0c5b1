extension Publishers {
    /// A publisher that publishes a single Boolean value that indicates whether all received
    /// elements pass a given predicate.
    ///
    /// The first element that fails the predicate cancels the upstream at once and `false` is
    /// published; `true` is published when the upstream finishes (at once for an empty one).
    public struct AllSatisfy<Upstream: Publisher>: Publisher {
        public typealias Output = Bool
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        ///
        /// Return `true` to continue, or `false` to cancel the upstream and finish.
        public let predicate: (Upstream.Output) -> Bool

        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: AllSatisfyCheck<Upstream, Upstream.Failure>(name: "AllSatisfy", predicate: predicate)))
        }
    }

    /// A publisher that publishes a single Boolean value that indicates whether all received
    /// elements pass a given error-throwing predicate.
    ///
    /// If the predicate throws, the upstream is cancelled and the publisher fails with the error.
    public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
        public typealias Output = Bool
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        ///
        /// Return `true` to continue, or `false` to cancel the upstream and complete. The closure
        /// may throw, in which case the publisher cancels the upstream and fails.
        public let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Error {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: AllSatisfyCheck<Upstream, Error>(name: "TryAllSatisfy", predicate: predicate)))
        }
    }
}

/// `allSatisfy` and `tryAllSatisfy`: finish with `false` at the first element that fails.
@usableFromInline
internal struct AllSatisfyCheck<Upstream: Publisher, Failure: Error>: ReduceLogic {
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Output = Bool
    @usableFromInline
    internal typealias UpstreamFailure = Upstream.Failure

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let predicate: (Input) throws -> Bool
    @usableFromInline
    internal var satisfied = true

    @inlinable
    internal init(name: String, predicate: @escaping (Input) throws -> Bool) {
        self.name = name
        self.predicate = predicate
    }

    @inlinable
    internal var result: Bool? { satisfied }

    @inlinable
    internal var initial: Bool? { true }

    @inlinable
    internal mutating func receive(_ input: Input) -> ReduceStep<Failure> {
        do {
            if try predicate(input) { return .proceed }
            satisfied = false
            return .finish
        } catch {
            // Only TryAllSatisfy's closure throws, and its Failure is `Error`.
            return .fail(error as! Failure)
        }
    }

    @inlinable
    internal func convert(_ failure: Upstream.Failure) -> Failure {
        // Failure is either Upstream.Failure or Error.
        failure as! Failure
    }
}

extension Publisher {
    /// Publishes a single Boolean value that indicates whether all received elements pass a
    /// given predicate.
    ///
    /// The first element that fails cancels the upstream and publishes `false`; otherwise `true`
    /// is published when the upstream finishes.
    @inlinable
    public func allSatisfy(_ predicate: @escaping (Output) -> Bool) -> Publishers.AllSatisfy<Self> {
        Publishers.AllSatisfy(upstream: self, predicate: predicate)
    }

    /// Publishes a single Boolean value that indicates whether all received elements pass a
    /// given error-throwing predicate. A thrown error cancels the upstream and fails the stream.
    @inlinable
    public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool) -> Publishers.TryAllSatisfy<Self> {
        Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
    }
}
