/// A publisher that awaits subscription before running the supplied closure to create a
/// publisher for the new subscriber.
///
/// The closure runs once per subscriber, on the thread that subscribes: `subscribe(on:)` moves
/// it, which is how cold work such as decoding a file moves off the main thread.
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    public typealias Output = DeferredPublisher.Output
    public typealias Failure = DeferredPublisher.Failure

    /// The closure to execute when this deferred publisher receives a subscription.
    public let createPublisher: () -> DeferredPublisher

    /// Creates a deferred publisher.
    @inlinable
    public init(createPublisher: @escaping () -> DeferredPublisher) {
        self.createPublisher = createPublisher
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        createPublisher().receive(subscriber: subscriber)
    }
}
