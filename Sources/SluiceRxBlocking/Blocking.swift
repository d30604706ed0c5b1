// SluiceRxBlocking: RxBlocking's `toBlocking`, for tests and command-line tools. A module of
// its own, as RxBlocking is, because it rests on SluiceTesting (which links XCTest and Swift
// Testing) and an app that uses SluiceRx should not have to link those.
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceRx
import SluiceTesting

extension ObservableConvertibleType {
    /// RxBlocking's `toBlocking(timeout:)`: blocking access to the sequence's elements, for
    /// tests and command-line tools.
    ///
    /// Each call subscribes and waits, running the current run loop meanwhile, so work the
    /// sequence schedules on the main queue or `MainScheduler` proceeds even when called on the
    /// main thread. A `nil` timeout waits as long as it takes; otherwise the wait throws
    /// `RxError.timeout` when it runs out. Called from inside another subscription's callback,
    /// it runs its own subscription on a fresh trampoline, so it never waits behind the step it
    /// was called from. Sluice: `SluiceTesting`'s `blocking(timeout:)`.
    public func toBlocking(timeout: TimeInterval? = nil) -> BlockingObservable<Element> {
        BlockingObservable(source: asObservable(), timeout: timeout)
    }
}

/// RxBlocking's `BlockingObservable`: a sequence seen through blocking calls (see
/// `toBlocking(timeout:)`). Sluice: `SluiceTesting`'s `BlockingPublisher`, over `asPublisher()`.
public struct BlockingObservable<Element> {
    private let source: Observable<Element>
    private let timeout: TimeInterval?

    internal init(source: Observable<Element>, timeout: TimeInterval?) {
        self.source = source
        self.timeout = timeout
    }

    /// RxBlocking's `toArray()`: every element, once the sequence completes; throws its error if
    /// it fails. Sluice: `BlockingPublisher.values()`.
    public func toArray() throws -> [Element] {
        try wait { try $0.values() }
    }

    /// RxBlocking's `first()`: the first element (then disposes the subscription), or `nil` if
    /// the sequence completes without one; throws its error if it fails first.
    /// Sluice: `BlockingPublisher.first()`.
    public func first() throws -> Element? {
        try wait { try $0.first() }
    }

    /// RxBlocking's `last()`: the last element, once the sequence completes, or `nil` if there
    /// was none. Sluice: `BlockingPublisher.last()`.
    public func last() throws -> Element? {
        try wait { try $0.last() }
    }

    /// RxBlocking's `single()`: the only element; throws `RxError.noElements` or
    /// `RxError.moreThanOneElement` otherwise. Sluice: `BlockingPublisher.values()`, then counted.
    public func single() throws -> Element {
        let elements = try toArray()
        guard let only = elements.first else { throw RxError.noElements }
        guard elements.count == 1 else { throw RxError.moreThanOneElement }
        return only
    }

    /// RxBlocking's `single(_:)`: the only element satisfying `predicate`; throws as ``single()``
    /// does. Sluice: `tryFilter` (SluiceRx's `filter`), then `BlockingPublisher.values()`.
    public func single(_ predicate: @escaping (Element) throws -> Bool) throws -> Element {
        try source.filter(predicate).toBlocking(timeout: timeout).single()
    }

    /// RxBlocking's `materialize()`: how the sequence ended, with the elements before: an error
    /// is returned, not thrown. Sluice: `BlockingPublisher.completion()`.
    public func materialize() throws -> MaterializedSequenceResult<Element> {
        let (elements, completion) = try wait { try $0.completion() }
        switch completion {
        case .finished: return .completed(elements: elements)
        case .failure(let error): return .failed(elements: elements, error: error)
        }
    }

    private func wait<Result>(_ body: (BlockingPublisher<AnyPublisher<Element, Swift.Error>>) throws -> Result) throws -> Result {
        // A nil timeout means no limit; a few decades stands in for it.
        let blocking = source.asPublisher().blocking(timeout: timeout ?? 1e9)
        do {
            return try Trampoline.detached { try body(blocking) }
        } catch is BlockingTimeoutError {
            throw RxError.timeout
        }
    }
}

/// RxBlocking's `MaterializedSequenceResult`: the elements and how the sequence ended.
/// Sluice: the values and `Subscribers.Completion` that `BlockingPublisher.completion()` returns.
public enum MaterializedSequenceResult<Element> {
    /// It completed after these elements.
    case completed(elements: [Element])
    /// It failed with `error` after these elements.
    case failed(elements: [Element], error: Swift.Error)
}
