import Synchronization

/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// A `Just` publisher can't fail with an error. It delivers its value when the subscriber's
/// first demand arrives, then finishes.
public struct Just<Output>: Publisher {
    public typealias Failure = Never

    /// The one element that the publisher emits.
    public let output: Output

    /// Initializes a publisher that emits the specified output just once.
    @inlinable
    public init(_ output: Output) {
        self.output = output
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        deliverJust(output, to: subscriber, failing: Never.self)
    }
}

extension Just: Equatable where Output: Equatable {
    /// Two `Just` publishers are equal when their outputs are equal.
    @inlinable
    public static func == (lhs: Just<Output>, rhs: Just<Output>) -> Bool {
        lhs.output == rhs.output
    }
}

// MARK: - Operator specialisations
//
// As in Combine, operators applied directly to a `Just` are evaluated at once on its value and
// return another value publisher (`Just`, `Optional.Publisher`, `Result.Publisher`, `Empty` or
// `Publishers.Sequence`) instead of an operator chain: `Just(1).map { $0 + 1 }` is `Just(2)`.

extension Just where Output: Comparable {
    /// The minimum of one value: returns this publisher.
    @inlinable
    public func min() -> Just<Output> {
        self
    }

    /// The maximum of one value: returns this publisher.
    @inlinable
    public func max() -> Just<Output> {
        self
    }
}

extension Just where Output: Equatable {
    /// Publishes whether the value equals `output`.
    @inlinable
    public func contains(_ output: Output) -> Just<Bool> {
        Just<Bool>(self.output == output)
    }

    /// A single value has no duplicates: returns this publisher.
    @inlinable
    public func removeDuplicates() -> Just<Output> {
        self
    }
}

extension Just {
    /// Publishes whether the value satisfies `predicate`.
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }

    /// Publishes whether the value satisfies the error-throwing `predicate`, or fails with the
    /// error it throws.
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(Result { try predicate(output) })
    }

    /// Publishes the value in a one-element array.
    @inlinable
    public func collect() -> Just<[Output]> {
        Just<[Output]>([output])
    }

    /// Publishes the result of `transform` if it is not `nil`.
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(transform(output))
    }

    /// The minimum of one value: returns this publisher without calling the comparator.
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// The maximum of one value: returns this publisher without calling the comparator.
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// Publishes `elements`, then the value, as one sequence publisher.
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
        prepend(elements)
    }

    /// Publishes `elements`, then the value, as one sequence publisher.
    @inlinable
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
        where S.Element == Output
    {
        Publishers.Sequence<[Output], Never>(sequence: elements + [output])
    }

    /// Publishes the value, then `elements`, as one sequence publisher.
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
        append(elements)
    }

    /// Publishes the value, then `elements`, as one sequence publisher.
    @inlinable
    public func append<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
        where S.Element == Output
    {
        Publishers.Sequence<[Output], Never>(sequence: [output] + elements)
    }

    /// Publishes whether the value satisfies `predicate`.
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Just<Bool> {
        Just<Bool>(predicate(output))
    }

    /// Publishes whether the value satisfies the error-throwing `predicate`, or fails with the
    /// error it throws.
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, Error>.Publisher {
        Result<Bool, Error>.Publisher(Result { try predicate(output) })
    }

    /// Publishes `1`.
    @inlinable
    public func count() -> Just<Int> {
        Just<Int>(1)
    }

    /// Publishes the value only if `count` is zero. A negative count traps here, when the
    /// publisher is created, as in Combine.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
        precondition(count >= 0, "dropFirst(_:) requires a non-negative count")
        return Optional<Output>.Publisher(count > 0 ? nil : output)
    }

    /// Publishes the value unless it satisfies `predicate`.
    @inlinable
    public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? nil : output)
    }

    /// The first of one value: returns this publisher.
    @inlinable
    public func first() -> Just<Output> {
        self
    }

    /// Publishes the value if it satisfies `predicate`.
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// The last of one value: returns this publisher.
    @inlinable
    public func last() -> Just<Output> {
        self
    }

    /// Publishes the value if it satisfies `predicate`.
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// Publishes the value if it satisfies `isIncluded`.
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(isIncluded(output) ? output : nil)
    }

    /// Publishes nothing and finishes at once.
    @inlinable
    public func ignoreOutput() -> Empty<Output, Never> {
        Empty()
    }

    /// Publishes the transformed value: `Just(1).map { $0 + 1 }` is `Just(2)`.
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Just<T> {
        Just<T>(transform(output))
    }

    /// Publishes the transformed value, or fails with the error `transform` throws.
    @inlinable
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(Result { try transform(output) })
    }

    /// `Just` cannot fail, so `transform` is never called; the result declares failure type `E`.
    @inlinable
    public func mapError<E: Error>(_ transform: (Never) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(.success(output))
    }

    /// Publishes the value only for index 0. A negative index traps.
    @inlinable
    public func output(at index: Int) -> Optional<Output>.Publisher {
        precondition(index >= 0, "output(at:) requires a non-negative index")
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Publishes the value if `range`, relative to `0..<Int.max`, starts at 0.
    ///
    /// As in Combine (feedback FB6169621), an empty range starting at 0 such as `0..<0` still
    /// publishes the value; `Optional.Publisher` publishes nothing for it.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        Optional<Output>.Publisher(range.relative(to: 0 ..< Int.max).lowerBound == 0 ? output : nil)
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
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }

    /// Publishes `nextPartialResult(initialResult, value)`.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result<T, Never>.Publisher(.success(nextPartialResult(initialResult, output)))
    }

    /// Publishes `nextPartialResult(initialResult, value)`, or fails with the error it throws.
    @inlinable
    public func tryReduce<T>(
        _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
    ) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// A single value has no duplicates: returns this publisher without calling the predicate.
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> {
        self
    }

    /// Calls the predicate once with the value as both arguments, failing with the error it
    /// throws; otherwise publishes the value.
    @inlinable
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, Error>.Publisher {
        Result<Output, Error>.Publisher(Result {
            _ = try predicate(output, output)
            return output
        })
    }

    /// `Just` cannot fail: returns this publisher.
    @inlinable
    public func replaceError(with output: Output) -> Just<Output> {
        self
    }

    /// `Just` is never empty: returns this publisher.
    @inlinable
    public func replaceEmpty(with output: Output) -> Just<Output> {
        self
    }

    /// `Just` cannot fail, so there is nothing to retry: returns this publisher.
    @inlinable
    public func retry(_ times: Int) -> Just<Output> {
        self
    }

    /// Publishes `nextPartialResult(initialResult, value)`.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result<T, Never>.Publisher(.success(nextPartialResult(initialResult, output)))
    }

    /// Publishes `nextPartialResult(initialResult, value)`, or fails with the error it throws.
    @inlinable
    public func tryScan<T>(
        _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
    ) -> Result<T, Error>.Publisher {
        Result<T, Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }

    /// Publishes the value with the declared failure type `E`; it still never fails.
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(.success(output))
    }
}

/// Delivers a single value and finished on the first request; shared by `Just` and by
/// `Optional.Publisher` and `Result.Publisher` for their value case.
///
/// Generic over the optional subscriber it keeps, not the subscriber: the unspecialised
/// deinit destroys each stored property through its type's metadata, and a property of type
/// `Downstream?` made it look up `Optional<Downstream>`'s (about a tenth of subscribing `Just`).
/// A generic parameter's metadata is at hand.
@usableFromInline
internal final class JustSubscription<Output, DownstreamSlot: OptionalSubscriber>: Subscription,
    DescribedByName,
    @unchecked Sendable
    where DownstreamSlot.Wrapped.Input == Output
{
    // `Output` is a generic parameter of its own, not `Downstream.Input`, for the same reason.
    @usableFromInline
    internal let output: Output

    /// Set by the first demand or cancel, which then owns `downstream` alone: one atomic
    /// operation instead of a lock.
    @usableFromInline
    internal let ended = Atomic<Bool>(false)

    /// The subscriber until the value is delivered or the subscription cancelled.
    @usableFromInline
    @exclusivity(unchecked)
    internal var downstream: DownstreamSlot

    @usableFromInline
    internal let name: String

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(_ output: Output, _ downstream: DownstreamSlot.Wrapped, name: String = "Just") {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: JustSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: JustSubscription.self).cancelSpecialized() })
        self.output = output
        self.downstream = DownstreamSlot(downstream)
        self.name = name
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        entryPoints.request(self, demand)
    }

    @inlinable
    internal func cancel() {
        entryPoints.cancel(self)
    }

    @inlinable
    internal func requestSpecialized(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        deliver()
    }

    @inlinable
    internal func deliver() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing),
              let downstream = self.downstream.take() else { return }
        _ = downstream.receive(output)
        downstream.receive(completion: .finished)
    }

    @inlinable
    internal func cancelSpecialized() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = downstream.take()
    }

    @usableFromInline
    internal var description: String { name }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, unlabeledChildren: CollectionOfOne(output)) }
}

/// Subscribes `subscriber` to `output` followed by `finished`: `Just`, and `Optional.Publisher`
/// and `Result.Publisher` with a value. `name` describes the subscription.
///
/// A sink gets both at once, without a subscription object: it requests unlimited values as soon
/// as it is subscribed, and nothing can reach the subscription it keeps. The object, its
/// retains and its destruction were about a third of subscribing `Just(x).sink {}`. The test is
/// a metatype comparison, not a cast: in unspecialised code a cast is a runtime call for every
/// subscriber.
@inlinable
@inline(__always)
internal func deliverJust<Output, Failure, S: Subscriber>(
    _ output: Output, to subscriber: S, failing: Failure.Type, name: String = "Just"
) where S.Input == Output, S.Failure == Failure {
    if S.self == Subscribers.Sink<Output, Failure>.self {
        (subscriber as! Subscribers.Sink<Output, Failure>).receiveAtOnce(output)
    } else {
        subscriber.receive(subscription: JustSubscription<Output, S?>(output, subscriber, name: name))
    }
}

/// An optional subscriber, as the type of a generic parameter (see `JustSubscription`).
@usableFromInline
internal protocol OptionalSubscriber {
    associatedtype Wrapped: Subscriber
    init(_ subscriber: Wrapped)
    mutating func take() -> Wrapped?
}

extension Optional: OptionalSubscriber where Wrapped: Subscriber {}
