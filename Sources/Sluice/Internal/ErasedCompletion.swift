/// A completion without its failure type, for a generic class to store: a stored
/// `Subscribers.Completion<Failure>?` costs the class's deinit, which is always unspecialised, a
/// metadata look-up of the optional completion type.
@usableFromInline
package enum ErasedCompletion {
    case finished
    case failure(any Error)

    @inlinable
    package init<Failure: Error>(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: self = .finished
        case .failure(let error): self = .failure(error)
        }
    }

    /// The completion again, with the failure type it was stored with.
    @inlinable
    package func completion<Failure: Error>(failingWith _: Failure.Type) -> Subscribers.Completion<Failure> {
        switch self {
        case .finished: return .finished
        case .failure(let error): return .failure(error as! Failure)
        }
    }
}
