import Sluice

/// RxSwift's `Event`: one signal of a sequence, the Rx spelling of a Sluice value
/// (`.next`) or `Subscribers.Completion` (`.error`, `.completed`).
///
/// Errors are untyped, as in RxSwift: every SluiceRx sequence is a Sluice publisher whose
/// `Failure` is `Error`.
@frozen
public enum Event<Element> {
    /// An element.
    case next(Element)
    /// The sequence failed; nothing follows.
    case error(Swift.Error)
    /// The sequence finished; nothing follows.
    case completed

    /// Whether this is `.error` or `.completed`.
    public var isStopEvent: Bool {
        if case .next = self { return false }
        return true
    }

    /// The element of a `.next`.
    public var element: Element? {
        if case .next(let element) = self { return element }
        return nil
    }

    /// The error of an `.error`.
    public var error: Swift.Error? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// Whether this is `.completed`.
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// The event with its element transformed; a thrown error becomes `.error`.
    public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        do {
            switch self {
            case .next(let element): return .next(try transform(element))
            case .error(let error): return .error(error)
            case .completed: return .completed
            }
        } catch {
            return .error(error)
        }
    }

    /// The Sluice completion this terminal event stands for (`nil` for `.next`).
    public var completion: Subscribers.Completion<Swift.Error>? {
        switch self {
        case .next: return nil
        case .error(let error): return .failure(error)
        case .completed: return .finished
        }
    }

    /// The event a Sluice completion stands for.
    public init(_ completion: Subscribers.Completion<Swift.Error>) {
        switch completion {
        case .finished: self = .completed
        case .failure(let error): self = .error(error)
        }
    }
}

extension Event: CustomDebugStringConvertible {
    /// `next(1)`, `error(boom)`, `completed`, as RxSwift prints them.
    public var debugDescription: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

extension Event: Equatable where Element: Equatable {
    /// Events are equal when they are the same case with equal elements; two errors are equal
    /// when they have the same type and the same description (errors are untyped, so this is
    /// as close as RxTest's comparison gets without `NSError` bridging).
    public static func == (lhs: Event, rhs: Event) -> Bool {
        switch (lhs, rhs) {
        case (.next(let left), .next(let right)): return left == right
        case (.completed, .completed): return true
        case (.error(let left), .error(let right)):
            return type(of: left) == type(of: right) && String(describing: left) == String(describing: right)
        default: return false
        }
    }
}

extension Event: Sendable where Element: Sendable {}
