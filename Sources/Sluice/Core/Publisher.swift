/// Declares that a type can transmit a sequence of values over time.
///
/// As in Combine: a publisher delivers elements to one or more ``Subscriber`` instances, the
/// subscriber's `Input` and `Failure` must match the publisher's `Output` and `Failure`, and
/// `receive(subscriber:)` is the single entry point every subscription goes through.
public protocol Publisher<Output, Failure> {
    /// The kind of values published by this publisher.
    associatedtype Output
    /// The kind of errors this publisher might publish; `Never` if it cannot fail.
    associatedtype Failure: Error

    /// Attaches the specified subscriber to this publisher.
    ///
    /// Implementations must call the subscriber's `receive(subscription:)` before anything else.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches the specified subscriber to this publisher.
    @inlinable
    public func subscribe<S: Subscriber>(_ subscriber: S)
        where S.Input == Output, S.Failure == Failure
    {
        receive(subscriber: subscriber)
    }
}

/// A namespace for types that serve as publishers.
public enum Publishers {}
