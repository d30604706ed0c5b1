/// A publisher that never publishes any values, and optionally finishes immediately.
///
/// You can create a "never" publisher, one which never sends values and never finishes or fails,
/// with the initializer `Empty(completeImmediately: false)`.
public struct Empty<Output, Failure: Error>: Publisher, Equatable {
    /// A Boolean value that indicates whether the publisher immediately sends a completion.
    public let completeImmediately: Bool

    /// Creates an empty publisher.
    @inlinable
    public init(completeImmediately: Bool = true) {
        self.completeImmediately = completeImmediately
    }

    /// Creates an empty publisher with the given completion behavior and output and failure types.
    @inlinable
    public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {
        self.init(completeImmediately: completeImmediately)
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        if completeImmediately {
            subscriber.receive(completion: .finished)
        }
    }

    @inlinable
    public static func == (lhs: Empty<Output, Failure>, rhs: Empty<Output, Failure>) -> Bool {
        lhs.completeImmediately == rhs.completeImmediately
    }
}
