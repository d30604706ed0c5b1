import Combine

/// How `assign(to:on:ownership:)` holds the object.
public enum ObjectOwnership {
    case strong
    case weak
    case unowned
}

extension Publisher where Failure == Never {
    /// `assign(to:on:)` that can hold the object weakly or unowned: written on Combine's
    /// `assign(to:on:)`, which a call inside must still reach.
    public func assign<Root: AnyObject>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root,
                                        ownership: ObjectOwnership = .strong) -> AnyCancellable {
        switch ownership {
        case .strong:
            return assign(to: keyPath, on: object)
        case .weak:
            return sink { [weak object] value in object?[keyPath: keyPath] = value }
        case .unowned:
            return sink { [unowned object] value in object[keyPath: keyPath] = value }
        }
    }
}
