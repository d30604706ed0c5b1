/// A publisher that performs type erasure by wrapping another publisher.
///
/// Use it to expose a publisher to clients without exposing its concrete type, through
/// ``Publisher/eraseToAnyPublisher()``.
@frozen
public struct AnyPublisher<Output, Failure: Error>: CustomStringConvertible,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline
    internal let box: PublisherBoxBase<Output, Failure>

    /// Creates a type-erasing publisher to wrap the provided publisher.
    @inlinable
    public init<P: Publisher>(_ publisher: P) where Output == P.Output, Failure == P.Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            box = erased.box
        } else {
            box = PublisherBox(publisher)
        }
    }

    public var description: String { "AnyPublisher" }

    public var playgroundDescription: Any { description }
}

extension AnyPublisher: Publisher {
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        box.receive(subscriber: subscriber)
    }
}

extension Publisher {
    /// Wraps this publisher with a type eraser.
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}

@usableFromInline
internal class PublisherBoxBase<Output, Failure: Error>: Publisher {
    @inlinable
    internal init() {}

    @inlinable
    internal func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
        fatalError("PublisherBoxBase.receive(subscriber:) is abstract")
    }
}

@usableFromInline
internal final class PublisherBox<Base: Publisher>: PublisherBoxBase<Base.Output, Base.Failure> {
    @usableFromInline
    internal let base: Base

    @inlinable
    internal init(_ base: Base) {
        self.base = base
        super.init()
    }

    @inlinable
    override internal func receive<S: Subscriber>(subscriber: S)
        where Failure == S.Failure, Output == S.Input
    {
        base.receive(subscriber: subscriber)
    }
}
