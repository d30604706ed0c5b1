extension Optional {
    /// A publisher that publishes an optional value to each subscriber exactly once, if the
    /// optional has a value.
    ///
    /// Unlike `Just`, it may publish nothing: with a `nil` output it hands the subscriber the
    /// empty subscription and finishes at once. With a value it waits for the subscriber's first
    /// demand, then sends the value and finishes. It never fails.
    public struct Publisher: Sluice.Publisher {
        /// The wrapped type.
        public typealias Output = Wrapped

        /// This publisher never fails.
        public typealias Failure = Never

        /// The output to deliver to each subscriber.
        public let output: Wrapped?

        /// Creates a publisher that emits `output` if it is not `nil`, and otherwise finishes
        /// immediately.
        @inlinable
        public init(_ output: Output?) {
            self.output = output
        }

        /// Hands the subscriber a subscription that sends the value on its first demand, or
        /// finishes the subscriber at once if there is no value.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Wrapped, S.Failure == Never {
            if let output {
                deliverJust(output, to: subscriber, failing: Never.self, name: "Optional")
            } else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
            }
        }
    }

    /// A publisher that publishes this optional's value, if any, then finishes.
    @inlinable
    public var publisher: Publisher {
        Publisher(self)
    }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {
    /// Two optional publishers are equal when their outputs are equal.
    @inlinable
    public static func == (lhs: Optional<Wrapped>.Publisher, rhs: Optional<Wrapped>.Publisher) -> Bool {
        lhs.output == rhs.output
    }
}

// MARK: - Operator specialisations
//
// As in Combine, operators applied directly to an optional publisher are evaluated at once and
// return another value publisher. A `nil` output stays `nil` through all of them except
// `collect()` (which publishes `[]`) and `replaceEmpty(with:)`.

extension Optional.Publisher where Wrapped: Equatable {
    /// Publishes whether the value equals `output`; `nil` stays `nil`.
    @inlinable
    public func contains(_ output: Output) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(self.output.map { $0 == output })
    }

    /// A single value has no duplicates: returns this publisher.
    @inlinable
    public func removeDuplicates() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher where Wrapped: Comparable {
    /// The minimum of at most one value: returns this publisher.
    @inlinable
    public func min() -> Optional<Wrapped>.Publisher {
        self
    }

    /// The maximum of at most one value: returns this publisher.
    @inlinable
    public func max() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher {
    /// Publishes whether the value satisfies `predicate`; `nil` stays `nil` (not `true`, unlike
    /// the general operator on an empty stream, as in Combine).
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// Publishes the value in a one-element array, or `[]` for `nil`.
    @inlinable
    public func collect() -> Optional<[Output]>.Publisher {
        Optional<[Output]>.Publisher(output.map { [$0] } ?? [])
    }

    /// Publishes the non-`nil` result of `transform`.
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.flatMap(transform))
    }

    /// The minimum of at most one value: returns this publisher without calling the comparator.
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Wrapped>.Publisher {
        self
    }

    /// The maximum of at most one value: returns this publisher without calling the comparator.
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Wrapped>.Publisher {
        self
    }

    /// Publishes whether the value satisfies `predicate`; `nil` stays `nil`.
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Optional<Bool>.Publisher {
        Optional<Bool>.Publisher(output.map(predicate))
    }

    /// Publishes `1` for a value; `nil` stays `nil`.
    @inlinable
    public func count() -> Optional<Int>.Publisher {
        Optional<Int>.Publisher(output.map { _ in 1 })
    }

    /// Publishes the value only if `count` is zero. A negative count traps.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "dropFirst(_:) requires a non-negative count")
        return Optional<Output>.Publisher(count == 0 ? output : nil)
    }

    /// Publishes the value unless it satisfies `predicate`.
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
    }

    /// The first of at most one value: returns this publisher.
    @inlinable
    public func first() -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value if it satisfies `predicate`.
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// The last of at most one value: returns this publisher.
    @inlinable
    public func last() -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value if it satisfies `predicate`.
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// Publishes the value if it satisfies `isIncluded`.
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
    }

    /// Publishes nothing and finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty()
    }

    /// Publishes the transformed value; `nil` stays `nil` and `transform` is not called.
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map(transform))
    }

    /// Publishes the value only for index 0. A negative index traps.
    @inlinable
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "output(at:) requires a non-negative index")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Publishes the value if `range` (relative to `0..<Int.max`) starts at 0 and is not empty.
    ///
    /// As in Combine, a negative lower bound traps, and so does an upper bound of `Int.max - 1`
    /// or more (so an unbounded range such as `0...` traps too).
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let bounds = range.relative(to: 0 ..< Int.max)
        precondition(bounds.lowerBound >= 0, "output(in:) requires a non-negative lower bound")
        precondition(bounds.upperBound < Int.max - 1, "output(in:) requires an upper bound below Int.max - 1")
        return Optional<Output>.Publisher(bounds.lowerBound == 0 && bounds.upperBound != 0 ? output : nil)
    }

    /// Publishes the value if `maxLength` is positive. A negative length traps.
    @inlinable
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        precondition(maxLength >= 0, "prefix(_:) requires a non-negative length")
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// Publishes the value if it satisfies `predicate`.
    @inlinable
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }

    /// Publishes `nextPartialResult(initialResult, value)`; `nil` stays `nil` (the initial
    /// result is not published, unlike the general operator on an empty stream).
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`; `nil` stays `nil`.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// A single value has no duplicates: returns this publisher without calling the predicate.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }

    /// This publisher cannot fail: returns it unchanged.
    @inlinable
    public func replaceError(with output: Output) -> Optional<Output>.Publisher {
        self
    }

    /// Publishes the value, or `output` if there is none.
    @inlinable
    public func replaceEmpty(with output: Output) -> Just<Output> {
        Just(self.output ?? output)
    }

    /// This publisher cannot fail, so there is nothing to retry: returns it unchanged.
    @inlinable
    public func retry(_ times: Int) -> Optional<Output>.Publisher {
        self
    }
}
