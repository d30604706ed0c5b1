import Combine

extension Publishers {
    /// A publisher made from a closure that is handed the subscriber's side (`send`, `finish`,
    /// `fail`) and returns what to cancel: values wait in a demand buffer until requested.
    public struct Create<Output, Failure: Error>: Publisher {
        public typealias Factory = (Emitter) -> Combine.Cancellable

        /// What the factory closure sends through.
        public struct Emitter {
            let onValue: (Output) -> Void
            let onCompletion: (Subscribers.Completion<Failure>) -> Void

            public func send(_ value: Output) { onValue(value) }
            public func send(completion: Subscribers.Completion<Failure>) { onCompletion(completion) }
        }

        private let factory: Factory

        public init(_ factory: @escaping Factory) {
            self.factory = factory
        }

        public func receive<S: Combine.Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            subscriber.receive(subscription: CreateSubscription(subscriber: subscriber, factory: factory))
        }
    }
}

extension AnyPublisher {
    /// `Publishers.Create` erased.
    public static func create(_ factory: @escaping Publishers.Create<Output, Failure>.Factory) -> AnyPublisher {
        Publishers.Create(factory).eraseToAnyPublisher()
    }
}

private final class CreateSubscription<S: Combine.Subscriber>: Combine.Subscription {
    private let buffer: DemandBuffer<S>
    private var cancellable: Combine.Cancellable?

    init(subscriber: S, factory: Publishers.Create<S.Input, S.Failure>.Factory) {
        let buffer = DemandBuffer(subscriber: subscriber)
        self.buffer = buffer
        cancellable = factory(.init(onValue: { buffer.buffer(value: $0) }, onCompletion: { buffer.complete($0) }))
    }

    func request(_ demand: Subscribers.Demand) {
        buffer.demand(demand)
    }

    func cancel() {
        buffer.cancel()
        cancellable?.cancel()
        cancellable = nil
    }
}
