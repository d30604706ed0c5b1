/// The subscriber an operator puts between its upstream and its downstream when it keeps no
/// subscription of its own (`map`, `filter`, `compactMap`, `mapError`, ...): the upstream's
/// subscription goes straight to the downstream, as Combine's do, and so does the completion
/// when the failure types agree. The operator writes what it does with a value (and with a
/// completion whose failure it converts).
@usableFromInline
package protocol PassThroughSubscriber: Subscriber, DescribedByName {
    associatedtype Downstream: Subscriber
    var downstream: Downstream { get }
}

extension PassThroughSubscriber {
    @inlinable
    package func receive(subscription: Subscription) {
        downstream.receive(subscription: subscription)
    }
}

extension PassThroughSubscriber where Failure == Downstream.Failure {
    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }
}
