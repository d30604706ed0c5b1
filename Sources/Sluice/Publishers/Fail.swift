/// A publisher that immediately terminates with the specified error.
public struct Fail<Output, Failure: Error>: Publisher {
    /// The failure to send when terminating the publisher.
    public let error: Failure

    /// Creates a publisher that immediately terminates with the specified failure.
    @inlinable
    public init(error: Failure) {
        self.error = error
    }

    /// Creates publisher with the given output type, that immediately terminates with the
    /// specified failure.
    @inlinable
    public init(outputType: Output.Type, failure: Failure) {
        self.error = failure
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
    }
}

extension Fail: Equatable where Failure: Equatable {
    @inlinable
    public static func == (lhs: Fail<Output, Failure>, rhs: Fail<Output, Failure>) -> Bool {
        lhs.error == rhs.error
    }
}
