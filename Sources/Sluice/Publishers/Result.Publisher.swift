extension Result {
    /// A publisher that publishes a result to each subscriber exactly once: the success value
    /// followed by a normal finish, or the failure.
    ///
    /// With a success it waits for the subscriber's first demand before sending the value (its
    /// subscription is described as `"Once"`, Combine's old name for it). With a failure it hands
    /// the subscriber the empty subscription and fails at once, without waiting for demand.
    public struct Publisher: Sluice.Publisher {
        /// The success type.
        public typealias Output = Success

        /// The result to deliver to each subscriber.
        public let result: Result<Output, Failure>

        /// Creates a publisher that delivers `result`.
        @inlinable
        public init(_ result: Result<Output, Failure>) {
            self.result = result
        }

        /// Creates a publisher that sends `output`, then finishes.
        @inlinable
        public init(_ output: Output) {
            self.init(.success(output))
        }

        /// Creates a publisher that fails with `failure` as soon as it is subscribed to.
        @inlinable
        public init(_ failure: Failure) {
            self.init(.failure(failure))
        }

        /// Hands the subscriber a subscription that sends the success value on its first demand,
        /// or fails the subscriber at once.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Success, S.Failure == Failure {
            switch result {
            case .success(let output):
                deliverJust(output, to: subscriber, failing: Failure.self, name: "Once")
            case .failure(let failure):
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .failure(failure))
            }
        }
    }

    /// A publisher that publishes this result to each subscriber once.
    @inlinable
    public var publisher: Publisher {
        Publisher(self)
    }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {
    /// Two result publishers are equal when their results are equal.
    @inlinable
    public static func == (lhs: Result<Success, Failure>.Publisher, rhs: Result<Success, Failure>.Publisher) -> Bool {
        lhs.result == rhs.result
    }
}

extension Result {
    /// Maps the success with a throwing transform; a failure stays a failure, erased to `Error`.
    @inlinable
    internal func sluiceTryMap<T>(_ transform: (Success) throws -> T) -> Result<T, Error> {
        switch self {
        case .success(let value):
            return Result<T, Error> { try transform(value) }
        case .failure(let error):
            return .failure(error)
        }
    }
}

// MARK: - Operator specialisations
//
// As in Combine, operators applied directly to a result publisher are evaluated at once and
// return another value publisher. A failure passes through every one of them unchanged (with its
// type erased to `Error` by the `try` forms), except `replaceError(with:)` and `ignoreOutput()`.

extension Result.Publisher where Output: Equatable {
    /// Publishes whether the success value equals `output`.
    @inlinable
    public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map { $0 == output })
    }

    /// A single value has no duplicates: returns this publisher.
    @inlinable
    public func removeDuplicates() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher where Output: Comparable {
    /// The minimum of one value: returns this publisher.
    @inlinable
    public func min() -> Result<Output, Failure>.Publisher {
        self
    }

    /// The maximum of one value: returns this publisher.
    @inlinable
    public func max() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher {
    /// Publishes whether the success value satisfies `predicate`.
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the success value satisfies the error-throwing `predicate`.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(result.sluiceTryMap(predicate))
    }

    /// Publishes whether the success value satisfies `predicate`.
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the success value satisfies the error-throwing `predicate`.
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(result.sluiceTryMap(predicate))
    }

    /// Publishes the success value in a one-element array.
    @inlinable
    public func collect() -> Result<[Output], Failure>.Publisher {
        Result<[Output], Failure>.Publisher(result.map { [$0] })
    }

    /// The minimum of one value: returns this publisher without calling the comparator.
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Calls the comparator once with the success value as both arguments, failing with the
    /// error it throws; otherwise publishes the value.
    @inlinable
    public func tryMin(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(result.sluiceTryMap { value in
            _ = try areInIncreasingOrder(value, value)
            return value
        })
    }

    /// The maximum of one value: returns this publisher without calling the comparator.
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Calls the comparator once with the success value as both arguments, failing with the
    /// error it throws; otherwise publishes the value.
    @inlinable
    public func tryMax(by areInIncreasingOrder: (Output, Output) throws -> Bool) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(result.sluiceTryMap { value in
            _ = try areInIncreasingOrder(value, value)
            return value
        })
    }

    /// Publishes `1` for a success.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(result.map { _ in 1 })
    }

    /// The first of one value: returns this publisher.
    @inlinable
    public func first() -> Result<Output, Failure>.Publisher {
        self
    }

    /// The last of one value: returns this publisher.
    @inlinable
    public func last() -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes nothing and finishes at once, even for a failure (as in Combine).
    @inlinable
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty()
    }

    /// Publishes the transformed success value.
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map(transform))
    }

    /// Publishes the transformed success value, or fails with the error `transform` throws.
    @inlinable
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(result.sluiceTryMap(transform))
    }

    /// Publishes the success value, or the transformed failure.
    @inlinable
    public func mapError<E: Error>(_ transform: (Failure) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(result.mapError(transform))
    }

    /// Publishes `nextPartialResult(initialResult, value)`.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`, or fails with the error it throws.
    @inlinable
    public func tryReduce<T>(
        _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
    ) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(result.sluiceTryMap { try nextPartialResult(initialResult, $0) })
    }

    /// A single value has no duplicates: returns this publisher without calling the predicate.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Calls the predicate once with the success value as both arguments, failing with the
    /// error it throws; otherwise publishes the value.
    @inlinable
    public func tryRemoveDuplicates(
        by predicate: (Output, Output) throws -> Bool
    ) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(result.sluiceTryMap { value in
            _ = try predicate(value, value)
            return value
        })
    }

    /// Publishes the success value, or `output` in place of a failure.
    @inlinable
    public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
        switch result {
        case .success(let value): return Result<Output, Never>.Publisher(.success(value))
        case .failure: return Result<Output, Never>.Publisher(.success(output))
        }
    }

    /// A result publisher is never empty: returns it unchanged.
    @inlinable
    public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Retrying would give the same result: returns this publisher unchanged.
    @inlinable
    public func retry(_ times: Int) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes `nextPartialResult(initialResult, value)`.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`, or fails with the error it throws.
    @inlinable
    public func tryScan<T>(
        _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
    ) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(result.sluiceTryMap { try nextPartialResult(initialResult, $0) })
    }
}

extension Result.Publisher where Failure == Never {
    /// Changes the failure type the publisher declares; it still never fails.
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        switch result {
        case .success(let value): return Result<Output, E>.Publisher(.success(value))
        }
    }
}
