import Combine

/// A view model written with `Combine.`-qualified names, as code that must not clash with a
/// type of its own called `Published` or `Subscriber` writes them.
public final class CounterModel: Combine.ObservableObject {
    @Combine.Published public var count = 0
    public init() {}
}

/// A subscriber written against `Combine.Subscriber`: collects what it gets, one at a time.
public final class CollectingSubscriber<Input>: Combine.Subscriber, Combine.Cancellable {
    public typealias Failure = Never
    public private(set) var values: [Input] = []
    public private(set) var finished = false
    private var subscription: Combine.Subscription?

    public init() {}

    public func receive(subscription: Combine.Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    public func receive(_ input: Input) -> Combine.Subscribers.Demand {
        values.append(input)
        return .max(1)
    }

    public func receive(completion: Combine.Subscribers.Completion<Never>) {
        finished = true
    }

    public func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
