import Sluice
/// The error `firstValue` and `lastValue` throw when the publisher
/// finishes without publishing a value (beyond Combine).
public struct FinishedWithoutValueError: Error, Equatable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// Says what happened.
    public var description: String { "The publisher finished without publishing a value" }
}

extension Publisher {
    /// The first value the publisher publishes, awaited (beyond Combine).
    ///
    /// Subscribes, requests one value, and cancels the subscription as soon as it arrives.
    /// Throws the publisher's failure if it fails first, ``FinishedWithoutValueError`` if it
    /// finishes first, and `CancellationError` if the waiting task is cancelled (which cancels
    /// the subscription too).
    ///
    /// It runs in the caller's isolation, so main-actor code can await a value that is not
    /// `Sendable`.
    public nonisolated(nonsending) var firstValue: Output {
        get async throws {
            try await AsyncValueSubscriber<Output, Failure>(mode: .first).value(from: self)
        }
    }

    /// The last value the publisher publishes before it finishes, awaited (beyond Combine).
    ///
    /// Subscribes with unlimited demand and waits for the publisher to finish; only the latest
    /// value is kept. Throws the publisher's failure, ``FinishedWithoutValueError`` if it
    /// finishes without a value, and `CancellationError` if the waiting task is cancelled
    /// (which cancels the subscription). A publisher that never finishes never returns.
    ///
    /// It runs in the caller's isolation, so main-actor code can await a value that is not
    /// `Sendable`.
    public nonisolated(nonsending) var lastValue: Output {
        get async throws {
            try await AsyncValueSubscriber<Output, Failure>(mode: .last).value(from: self)
        }
    }
}

/// The subscriber behind `firstValue` and `lastValue`: one subscription, one answer.
internal final class AsyncValueSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    enum Mode {
        case first
        case last
    }

    private enum State {
        case waiting
        case subscribed(Subscription)
        case done
    }

    private typealias Waiter = CheckedContinuation<UncheckedSendable<Input>, Error>

    private let mode: Mode
    private let lock = Lock()
    private var state = State.waiting
    private var waiter: Waiter?
    private var latest: Input?
    /// Set by a cancellation that came before the continuation was in place.
    private var cancelledEarly = false

    init(mode: Mode) {
        self.mode = mode
    }

    nonisolated(nonsending) func value<P: Publisher>(from publisher: P) async throws -> Input where P.Output == Input, P.Failure == Failure {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let early = lock.locked { () -> Bool in
                    if cancelledEarly { return true }
                    waiter = continuation
                    return false
                }
                if early {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                publisher.subscribe(self)
            }.value
        } onCancel: {
            self.end(with: .failure(CancellationError()))
        }
    }

    func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard case .waiting = state, waiter != nil else { return false }
            state = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        subscription.request(mode == .first ? .max(1) : .unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        switch mode {
        case .first:
            end(with: .success(input))
        case .last:
            let previous = lock.locked { () -> Input? in
                guard case .subscribed = state else { return nil }
                defer { latest = input }
                return latest
            }
            withExtendedLifetime(previous) {}
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let last = lock.locked { () -> Input? in
                guard case .subscribed = state else { return nil }
                return latest
            }
            if let last {
                end(with: .success(last), cancelUpstream: false)
            } else {
                end(with: .failure(FinishedWithoutValueError()), cancelUpstream: false)
            }
        case .failure(let error):
            end(with: .failure(error), cancelUpstream: false)
        }
    }

    /// Answers the waiting task once; the first answer wins. Cancels the subscription unless
    /// the publisher has already completed.
    private func end(with result: Result<Input, Error>, cancelUpstream: Bool = true) {
        let (subscription, waiter, latest) = lock.locked { () -> (Subscription?, Waiter?, Input?) in
            let subscription: Subscription?
            switch state {
            case .done:
                return (nil, nil, nil)
            case .waiting:
                subscription = nil
                if self.waiter == nil { cancelledEarly = true }
            case .subscribed(let live):
                subscription = live
            }
            state = .done
            defer {
                self.waiter = nil
                self.latest = nil
            }
            return (subscription, self.waiter, self.latest)
        }
        if cancelUpstream { subscription?.cancel() }
        withExtendedLifetime(latest) {}
        switch result {
        case .success(let value): waiter?.resume(returning: UncheckedSendable(value))
        case .failure(let error): waiter?.resume(throwing: error)
        }
    }
}
