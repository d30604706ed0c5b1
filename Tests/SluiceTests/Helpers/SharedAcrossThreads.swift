import Sluice

// Combine's subjects, `AnyCancellable`, `Future`, `Sink` and async iterators are not `Sendable`,
// and neither are Sluice's, so that Swift 6 code written for Combine compiles unchanged. These
// tests share them across threads and tasks on purpose (that this is safe is what they check),
// so they declare the conformances, as Swift 6 code written for Combine does
// (`@retroactive` there: here the types are in the same package).
extension PassthroughSubject: @unchecked Sendable {}
extension CurrentValueSubject: @unchecked Sendable {}
extension AnyCancellable: @unchecked Sendable {}
extension Future: @unchecked Sendable {}
extension Subscribers.Sink: @unchecked Sendable {}
extension AsyncPublisher.Iterator: @unchecked Sendable {}
extension AsyncThrowingPublisher.Iterator: @unchecked Sendable {}
