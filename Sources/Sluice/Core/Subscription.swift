/// A protocol representing the connection of a subscriber to a publisher.
///
/// Subscriptions are class constrained because a subscription has identity, defined by the moment
/// a particular subscriber attached to a publisher. Cancelling a subscription must be thread-safe,
/// and must be possible to do only once.
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Tells a publisher that it may send more values to the subscriber.
    func request(_ demand: Subscribers.Demand)
}

/// A namespace for symbols related to subscriptions.
public enum Subscriptions {}

extension Subscriptions {
    /// Returns the "empty" subscription: requests and cancellation do nothing.
    ///
    /// Use it to satisfy `receive(subscription:)` for a subscriber that is about to be completed
    /// at once, such as a subscriber attached to a subject that has already finished.
    public static var empty: Subscription { EmptySubscription.shared }
}

// Unchecked: its one field is an identifier that never changes (`CombineIdentifier` is not
// `Sendable`, as in Combine).
@usableFromInline
internal final class EmptySubscription: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline
    static let shared = EmptySubscription()

    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    private init() {}

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {}

    @usableFromInline
    func cancel() {}

    @usableFromInline
    var description: String { "Empty" }

    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    @usableFromInline
    var playgroundDescription: Any { description }
}
