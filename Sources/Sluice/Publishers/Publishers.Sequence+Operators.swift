// Operator specialisations of `Publishers.Sequence` (the publisher is in Publishers.Sequence.swift).
//
// As in Combine, operators applied directly to a sequence publisher are evaluated at once on the
// sequence and return another value publisher (`Publishers.Sequence`, `Optional.Publisher`,
// `Result.Publisher`, `Just`, `Empty`) instead of an operator chain.

extension Publishers.Sequence where Failure == Never {
    /// Publishes the minimum element according to `areInIncreasingOrder`, or finishes without a
    /// value if the sequence is empty. Evaluated at once.
    @inlinable
    public func min(
        by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
    ) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.min(by: areInIncreasingOrder))
    }

    /// Publishes the maximum element according to `areInIncreasingOrder`, or finishes without a
    /// value if the sequence is empty. Evaluated at once.
    @inlinable
    public func max(
        by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
    ) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.max(by: areInIncreasingOrder))
    }

    /// Publishes the first element that satisfies `predicate`, if any. Evaluated at once.
    @inlinable
    public func first(
        where predicate: (Elements.Element) -> Bool
    ) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.first(where: predicate))
    }
}

extension Publishers.Sequence {
    /// Publishes whether every element satisfies `predicate` (`true` for an empty sequence).
    @inlinable
    public func allSatisfy(_ predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(sequence.allSatisfy(predicate))
    }

    /// Publishes whether every element satisfies the error-throwing `predicate`, or fails with
    /// the error it throws.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Elements.Element) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result.Publisher(Result { try sequence.allSatisfy(predicate) })
    }

    /// Publishes all elements as one array.
    @inlinable
    public func collect() -> Result<[Elements.Element], Failure>.Publisher {
        Result.Publisher(Array(sequence))
    }

    /// Publishes the non-`nil` results of `transform`, computed at once.
    @inlinable
    public func compactMap<T>(_ transform: (Elements.Element) -> T?) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.compactMap(transform))
    }

    /// Publishes whether any element satisfies `predicate`.
    @inlinable
    public func contains(where predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(sequence.contains(where: predicate))
    }

    /// Publishes whether any element satisfies the error-throwing `predicate`, or fails with the
    /// error it throws.
    @inlinable
    public func tryContains(where predicate: (Elements.Element) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result.Publisher(Result { try sequence.contains(where: predicate) })
    }

    /// Publishes the elements after those that satisfy `predicate` (a lazy `DropWhileSequence`).
    @inlinable
    public func drop(
        while predicate: (Elements.Element) -> Bool
    ) -> Publishers.Sequence<DropWhileSequence<Elements>, Failure> {
        Publishers.Sequence<DropWhileSequence<Elements>, Failure>(sequence: sequence.drop(while: predicate))
    }

    /// Publishes the elements after the first `count`. A negative count traps.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
        Publishers.Sequence<DropFirstSequence<Elements>, Failure>(sequence: sequence.dropFirst(count))
    }

    /// Publishes the elements that satisfy `isIncluded`, selected at once.
    @inlinable
    public func filter(_ isIncluded: (Elements.Element) -> Bool) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.filter(isIncluded))
    }

    /// Publishes no elements and finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Elements.Element, Failure> {
        Empty()
    }

    /// Publishes the results of `transform`, computed at once.
    @inlinable
    public func map<T>(_ transform: (Elements.Element) -> T) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.map(transform))
    }

    /// Publishes at most the first `maxLength` elements. A negative length traps.
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
        Publishers.Sequence<PrefixSequence<Elements>, Failure>(sequence: sequence.prefix(maxLength))
    }

    /// Publishes the leading elements that satisfy `predicate`, selected at once.
    @inlinable
    public func prefix(
        while predicate: (Elements.Element) -> Bool
    ) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.prefix(while: predicate))
    }

    /// Publishes the result of combining the elements with `nextPartialResult`, computed at once.
    @inlinable
    public func reduce<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) -> T
    ) -> Result<T, Failure>.Publisher {
        Result.Publisher(sequence.reduce(initialResult, nextPartialResult))
    }

    /// Publishes the result of combining the elements with the error-throwing
    /// `nextPartialResult`, or fails with the error it throws.
    @inlinable
    public func tryReduce<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) throws -> T
    ) -> Result<T, Error>.Publisher {
        Result.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
    }

    /// Publishes the elements with each `nil` replaced by `output`. As in Combine, the elements
    /// keep their optional type.
    @inlinable
    public func replaceNil<T>(
        with output: T
    ) -> Publishers.Sequence<[Elements.Element], Failure> where Elements.Element == T? {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.map { .some($0 ?? output) })
    }

    /// Publishes each running result of `nextPartialResult`, computed at once.
    @inlinable
    public func scan<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) -> T
    ) -> Publishers.Sequence<[T], Failure> {
        var accumulated = initialResult
        return Publishers.Sequence<[T], Failure>(sequence: sequence.map { element -> T in
            accumulated = nextPartialResult(accumulated, element)
            return accumulated
        })
    }

    /// Changes the failure type the publisher declares; it still never fails.
    @inlinable
    public func setFailureType<E: Error>(to error: E.Type) -> Publishers.Sequence<Elements, E> {
        Publishers.Sequence<Elements, E>(sequence: sequence)
    }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// Publishes the elements without consecutive repeats, selected at once.
    @inlinable
    public func removeDuplicates() -> Publishers.Sequence<[Elements.Element], Failure> {
        var kept: [Elements.Element] = []
        for element in sequence where kept.last != element {
            kept.append(element)
        }
        return Publishers.Sequence<[Elements.Element], Failure>(sequence: kept)
    }

    /// Publishes whether the sequence contains `output`.
    @inlinable
    public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
        Result.Publisher(sequence.contains(output))
    }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
    /// Publishes the minimum element, or finishes without a value if the sequence is empty.
    @inlinable
    public func min() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.min())
    }

    /// Publishes the maximum element, or finishes without a value if the sequence is empty.
    @inlinable
    public func max() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.max())
    }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// Publishes the first element, if any.
    @inlinable
    public func first() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.first)
    }

    /// Publishes the element at `index`, or finishes without a value if the index is not valid.
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// Publishes the number of elements.
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result.Publisher(sequence.count)
    }

    /// Publishes the elements in `range`, copied at once. An out-of-bounds range traps.
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// Publishes the last element, if any.
    @inlinable
    public func last() -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.last)
    }

    /// Publishes the last element that satisfies `predicate`, if any.
    @inlinable
    public func last(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
        Optional.Publisher(sequence.last(where: predicate))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// Publishes the number of elements as a `Just`.
    @inlinable
    public func count() -> Just<Int> {
        Just(sequence.count)
    }
}

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
    /// Publishes `elements` before the sequence's own elements, as one sequence publisher.
    @inlinable
    public func prepend(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
        prepend(elements)
    }

    /// Publishes `elements` before the sequence's own elements, as one sequence publisher.
    @inlinable
    public func prepend<S: Swift.Sequence>(
        _ elements: S
    ) -> Publishers.Sequence<Elements, Failure> where S.Element == Elements.Element {
        var combined = Elements()
        combined.reserveCapacity(sequence.count + elements.underestimatedCount)
        combined.append(contentsOf: elements)
        combined.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: combined)
    }

    /// Publishes the other publisher's elements before this one's, as one sequence publisher.
    @inlinable
    public func prepend(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        var combined = publisher.sequence
        combined.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: combined)
    }

    /// Publishes `elements` after the sequence's own elements, as one sequence publisher.
    @inlinable
    public func append(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
        append(elements)
    }

    /// Publishes `elements` after the sequence's own elements, as one sequence publisher.
    @inlinable
    public func append<S: Swift.Sequence>(
        _ elements: S
    ) -> Publishers.Sequence<Elements, Failure> where S.Element == Elements.Element {
        var combined = sequence
        combined.append(contentsOf: elements)
        return Publishers.Sequence(sequence: combined)
    }

    /// Publishes the other publisher's elements after this one's, as one sequence publisher.
    @inlinable
    public func append(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        append(publisher.sequence)
    }
}
