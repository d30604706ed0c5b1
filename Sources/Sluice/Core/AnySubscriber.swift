/// A type-erasing subscriber.
///
/// Use an `AnySubscriber` to wrap an existing subscriber whose details you don't want to expose,
/// to create a subscriber from closures, or to subscribe a subject to a publisher.
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline
    internal let box: AnySubscriberBase<Input, Failure>

    public let combineIdentifier: CombineIdentifier

    public var description: String { box.description }

    public var customMirror: Mirror { box.customMirror }

    /// A custom playground description for this instance.
    public var playgroundDescription: Any { box.playgroundDescription }

    /// Creates a type-erasing subscriber to wrap an existing subscriber.
    @inlinable
    public init<S: Subscriber>(_ s: S) where Input == S.Input, Failure == S.Failure {
        if let erased = s as? AnySubscriber<Input, Failure> {
            self = erased
            return
        }
        combineIdentifier = s.combineIdentifier
        box = AnySubscriberBox(s)
    }

    /// Creates a type-erasing subscriber that forwards everything it receives to a subject.
    ///
    /// The subscription goes to `send(subscription:)`, values to `send(_:)` and the completion to
    /// `send(completion:)`; the subscriber asks for nothing more per value (the subject decides
    /// how much to request).
    @inlinable
    public init<S: Subject>(_ s: S) where Input == S.Output, Failure == S.Failure {
        self.init(SubjectSubscriber(s))
    }

    /// Creates a type-erasing subscriber that executes the provided closures.
    @inlinable
    public init(
        receiveSubscription: ((Subscription) -> Void)? = nil,
        receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        combineIdentifier = CombineIdentifier()
        box = ClosureBasedAnySubscriber(
            receiveSubscription ?? { _ in },
            receiveValue ?? { _ in .none },
            receiveCompletion ?? { _ in }
        )
    }

    @inlinable
    public func receive(subscription: Subscription) {
        box.receive(subscription: subscription)
    }

    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
        box.receive(value)
    }

    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
        box.receive(completion: completion)
    }
}

@usableFromInline
internal class AnySubscriberBase<Input, Failure: Error>: Subscriber {
    @inlinable
    internal init() {}

    @usableFromInline
    internal var description: String { "Anonymous AnySubscriber" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(reflecting: "Anonymous AnySubscriber") }

    @usableFromInline
    internal var playgroundDescription: Any { description }

    @inlinable
    internal func receive(subscription: Subscription) {
        fatalError("AnySubscriberBase is abstract")
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        fatalError("AnySubscriberBase is abstract")
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        fatalError("AnySubscriberBase is abstract")
    }
}

@usableFromInline
internal final class AnySubscriberBox<Base: Subscriber>: AnySubscriberBase<Base.Input, Base.Failure> {
    @usableFromInline
    internal let base: Base

    @inlinable
    internal init(_ base: Base) {
        self.base = base
    }

    @usableFromInline
    override internal var description: String {
        String(describing: base)
    }

    @usableFromInline
    override internal var customMirror: Mirror {
        Mirror(reflecting: base)
    }

    @usableFromInline
    override internal var playgroundDescription: Any {
        (base as? CustomPlaygroundDisplayConvertible)?.playgroundDescription ?? description
    }

    @inlinable
    override internal func receive(subscription: Subscription) {
        base.receive(subscription: subscription)
    }

    @inlinable
    override internal func receive(_ input: Input) -> Subscribers.Demand {
        base.receive(input)
    }

    @inlinable
    override internal func receive(completion: Subscribers.Completion<Failure>) {
        base.receive(completion: completion)
    }
}

@usableFromInline
internal final class ClosureBasedAnySubscriber<Input, Failure: Error>: AnySubscriberBase<Input, Failure> {
    @usableFromInline
    internal let receiveSubscriptionThunk: (Subscription) -> Void
    @usableFromInline
    internal let receiveValueThunk: (Input) -> Subscribers.Demand
    @usableFromInline
    internal let receiveCompletionThunk: (Subscribers.Completion<Failure>) -> Void

    @inlinable
    internal init(
        _ receiveSubscription: @escaping (Subscription) -> Void,
        _ receiveValue: @escaping (Input) -> Subscribers.Demand,
        _ receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
    ) {
        receiveSubscriptionThunk = receiveSubscription
        receiveValueThunk = receiveValue
        receiveCompletionThunk = receiveCompletion
    }

    @inlinable
    override internal func receive(subscription: Subscription) {
        receiveSubscriptionThunk(subscription)
    }

    @inlinable
    override internal func receive(_ input: Input) -> Subscribers.Demand {
        receiveValueThunk(input)
    }

    @inlinable
    override internal func receive(completion: Subscribers.Completion<Failure>) {
        receiveCompletionThunk(completion)
    }
}
