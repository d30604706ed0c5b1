import Sluice

// Written as a third-party Combine operator library writes it (against Apple's Combine): its
// own overloads of Combine's names, with extra defaulted parameters, that call Combine's
// methods inside. Against Combine those inner calls reach Combine's; they must against Sluice
// too, or the overload calls itself until the stack runs out.

/// How `assign(to:on:ownership:)` holds the object.
public enum ObjectOwnership: Sendable {
    case strong
    case weak
}

extension Publisher where Failure == Never {
    /// Assigns each value to a property, holding the object as `ownership` says.
    public func assign<Root: AnyObject>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root,
                                        ownership: ObjectOwnership = .strong) -> AnyCancellable {
        switch ownership {
        case .strong:
            return assign(to: keyPath, on: object)
        case .weak:
            return sink { [weak object] value in object?[keyPath: keyPath] = value }
        }
    }
}

extension Publisher {
    /// A sink that also reports its completion to a tag, calling Combine's sink inside.
    public func sink(tag: String = "", receiveValue: @escaping (Output) -> Void) -> AnyCancellable
        where Failure == Never
    {
        sink(receiveValue: receiveValue)
    }
}
