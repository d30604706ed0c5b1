extension Subscribers {
    /// A signal that a publisher doesn't produce additional elements, either due to normal
    /// completion or an error.
    @frozen
    public enum Completion<Failure: Error> {
        /// The publisher finished normally.
        case finished
        /// The publisher stopped publishing due to the indicated error.
        case failure(Failure)
    }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {
    @inlinable
    public static func == (lhs: Subscribers.Completion<Failure>, rhs: Subscribers.Completion<Failure>) -> Bool {
        switch (lhs, rhs) {
        case (.finished, .finished): return true
        case (.failure(let left), .failure(let right)): return left == right
        default: return false
        }
    }
}

extension Subscribers.Completion: Hashable where Failure: Hashable {
    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .finished:
            hasher.combine(0)
        case .failure(let error):
            hasher.combine(1)
            hasher.combine(error)
        }
    }
}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

/// Combine's coding of a completion: `success`, and `error` for a failure.
private enum CompletionCodingKeys: String, CodingKey {
    case success
    case error
}

extension Subscribers.Completion: Encodable where Failure: Encodable {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CompletionCodingKeys.self)
        switch self {
        case .finished:
            try container.encode(true, forKey: .success)
        case .failure(let error):
            try container.encode(false, forKey: .success)
            try container.encode(error, forKey: .error)
        }
    }
}

extension Subscribers.Completion: Decodable where Failure: Decodable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CompletionCodingKeys.self)
        if try container.decode(Bool.self, forKey: .success) {
            self = .finished
        } else {
            self = .failure(try container.decode(Failure.self, forKey: .error))
        }
    }
}

extension Subscribers.Completion {
    /// Erases the failure type of a completion that cannot fail.
    @inlinable
    internal func mapFailure<NewFailure: Error>(
        _ transform: (Failure) -> NewFailure
    ) -> Subscribers.Completion<NewFailure> {
        switch self {
        case .finished: return .finished
        case .failure(let error): return .failure(transform(error))
        }
    }

    /// The completion with its failure erased to `any Error`.
    @inlinable
    internal var eraseError: Subscribers.Completion<Error> {
        mapFailure { $0 }
    }
}
