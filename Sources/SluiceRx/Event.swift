import Sluice
import SluiceExtras
import SluiceSchedulers

/// RxSwift's `Event`: one signal of a sequence, the Rx spelling of a Sluice value
/// (`.next`) or `Subscribers.Completion` (`.error`, `.completed`).
///
/// Errors are untyped, as in RxSwift: every SluiceRx sequence is a Sluice publisher whose
/// `Failure` is `Error`.
///
/// Sluice: a publisher's `Output`, or its `Subscribers.Completion<Error>`.
@frozen
public enum Event<Element> {
    /// An element.
    case next(Element)
    /// The sequence failed; nothing follows.
    case error(Swift.Error)
    /// The sequence finished; nothing follows.
    case completed

    /// RxSwift's `Event.isStopEvent`: whether this is `.error` or `.completed`.
    /// Sluice: whether it stands for a `Subscribers.Completion`.
    public var isStopEvent: Bool {
        if case .next = self { return false }
        return true
    }

    /// RxSwift's `Event.element`: the element of a `.next`. Sluice: a publisher's `Output`.
    public var element: Element? {
        if case .next(let element) = self { return element }
        return nil
    }

    /// RxSwift's `Event.error`: the error of an `.error`. Sluice: `.failure(error)`.
    public var error: Swift.Error? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// RxSwift's `Event.isCompleted`: whether this is `.completed`. Sluice: `.finished`.
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// RxSwift's `Event.map(_:)`: the event with its element transformed; a thrown error becomes
    /// `.error`. SluiceRx's own (Sluice has no counterpart).
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

    /// The Sluice completion this terminal event stands for (`nil` for `.next`). RxSwift has no
    /// counterpart. Sluice: `Subscribers.Completion<Error>`.
    public var completion: Subscribers.Completion<Swift.Error>? {
        switch self {
        case .next: return nil
        case .error(let error): return .failure(error)
        case .completed: return .finished
        }
    }

    /// The event a Sluice completion stands for. RxSwift has no counterpart.
    /// Sluice: `Subscribers.Completion<Error>`.
    public init(_ completion: Subscribers.Completion<Swift.Error>) {
        switch completion {
        case .finished: self = .completed
        case .failure(let error): self = .error(error)
        }
    }
}

extension Event: CustomDebugStringConvertible {
    /// RxSwift's `Event.debugDescription`: `next(1)`, `error(boom)`, `completed`, as RxSwift
    /// prints them. SluiceRx's own.
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
    /// RxTest's `Event` equality; SluiceRx's own (Sluice has no counterpart).
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
