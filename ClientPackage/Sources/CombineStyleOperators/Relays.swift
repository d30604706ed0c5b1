import Combine

/// A subject that can neither fail nor finish: `accept(_:)` is its only input.
public final class PassthroughRelay<Output>: Publisher {
    public typealias Failure = Never
    private let subject = PassthroughSubject<Output, Never>()

    public init() {}

    public func accept(_ value: Output) { subject.send(value) }

    public func receive<S: Combine.Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subject.receive(subscriber: subscriber)
    }
}

/// A relay with a current value, sent to each new subscriber first.
public final class CurrentValueRelay<Output>: Publisher {
    public typealias Failure = Never
    private let subject: CurrentValueSubject<Output, Never>

    public init(_ value: Output) { subject = CurrentValueSubject(value) }

    public var value: Output { subject.value }

    public func accept(_ value: Output) { subject.send(value) }

    public func receive<S: Combine.Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subject.receive(subscriber: subscriber)
    }
}
