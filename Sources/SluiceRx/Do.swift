import Sluice
import SluiceExtras
import SluiceSchedulers

extension ObservableType {
    /// RxSwift's `do(onNext:afterNext:onError:afterError:onCompleted:afterCompleted:onSubscribe:onSubscribed:onDispose:)`:
    /// side effects at this point of the chain, without subscribing.
    ///
    /// The order, as RxSwift's: `onSubscribe` before subscribing upstream and
    /// `onSubscribed` after that call returns; for each element `onNext`, the downstream, then
    /// `afterNext`; at the end `onCompleted`/`onError`, the downstream's completion (for a
    /// `subscribe` below, its `onCompleted` and `onDisposed`), then `afterCompleted`/`afterError`,
    /// then `onDispose`. `onDispose` runs once, whether the sequence ended or was disposed (after
    /// the upstream has been cancelled). A hook that throws ends the sequence with that error.
    ///
    /// Sluice: `handleEvents(receiveSubscription:receiveOutput:receiveCompletion:receiveCancel:)`
    /// has only "before" hooks and no disposal on completion, so this is a small Sluice operator
    /// of SluiceRx's own with the after-hooks and RxSwift's disposal.
    public func `do`(onNext: ((Element) throws -> Void)? = nil,
                     afterNext: ((Element) throws -> Void)? = nil,
                     onError: ((Swift.Error) throws -> Void)? = nil,
                     afterError: ((Swift.Error) throws -> Void)? = nil,
                     onCompleted: (() throws -> Void)? = nil,
                     afterCompleted: (() throws -> Void)? = nil,
                     onSubscribe: (() -> Void)? = nil,
                     onSubscribed: (() -> Void)? = nil,
                     onDispose: (() -> Void)? = nil) -> Observable<Element> {
        let hooks = DoHooks(onNext: onNext, afterNext: afterNext, onError: onError, afterError: afterError,
                            onCompleted: onCompleted, afterCompleted: afterCompleted, onDispose: onDispose)
        return Observable(DoPublisher(upstream: source, hooks: hooks, onSubscribe: onSubscribe, onSubscribed: onSubscribed))
    }
}

/// The hooks of one `do`.
internal struct DoHooks<Element> {
    var onNext: ((Element) throws -> Void)?
    var afterNext: ((Element) throws -> Void)?
    var onError: ((Swift.Error) throws -> Void)?
    var afterError: ((Swift.Error) throws -> Void)?
    var onCompleted: (() throws -> Void)?
    var afterCompleted: (() throws -> Void)?
    var onDispose: (() -> Void)?
}

/// The publisher behind `do`.
internal struct DoPublisher<Element>: Publisher {
    typealias Output = Element
    typealias Failure = Swift.Error

    let upstream: AnyPublisher<Element, Swift.Error>
    let hooks: DoHooks<Element>
    let onSubscribe: (() -> Void)?
    let onSubscribed: (() -> Void)?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Element, S.Failure == Swift.Error {
        onSubscribe?()
        upstream.receive(subscriber: DoSubscription(downstream: subscriber, hooks: hooks))
        onSubscribed?()
    }
}

/// Sits between the upstream and the downstream of a `do`, calling the hooks around each
/// signal, and calling `onDispose` once at the end.
internal final class DoSubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    @unchecked Sendable where Downstream.Failure == Swift.Error
{
    typealias Input = Downstream.Input
    typealias Failure = Swift.Error

    private enum State {
        case awaitingSubscription(Downstream)
        case subscribed(Subscription, Downstream)
        case terminal
    }

    private let lock = Lock()
    private var state: State
    private var hooks: DoHooks<Input>?

    init(downstream: Downstream, hooks: DoHooks<Input>) {
        state = .awaitingSubscription(downstream)
        self.hooks = hooks
    }

    var description: String { "Do" }

    func receive(subscription: Subscription) {
        let downstream = lock.locked { () -> Downstream? in
            guard case .awaitingSubscription(let downstream) = state else { return nil }
            state = .subscribed(subscription, downstream)
            return downstream
        }
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let (downstream, hooks) = lock.locked({ () -> (Downstream, DoHooks<Input>)? in
            guard case .subscribed(_, let downstream) = state, let hooks else { return nil }
            return (downstream, hooks)
        }) else { return .none }
        do {
            try hooks.onNext?(input)
        } catch {
            fail(error)
            return .none
        }
        let demand = downstream.receive(input)
        do {
            try hooks.afterNext?(input)
        } catch {
            fail(error)
        }
        return demand
    }

    func receive(completion: Subscribers.Completion<Swift.Error>) {
        guard let (previous, hooks) = terminate(), case .subscribed(_, let downstream) = previous else { return }
        var completion = completion
        do {
            switch completion {
            case .finished: try hooks.onCompleted?()
            case .failure(let error): try hooks.onError?(error)
            }
        } catch {
            completion = .failure(error)
        }
        downstream.receive(completion: completion)
        // RxSwift ignores what an after-hook throws here: the downstream has already ended.
        switch completion {
        case .finished: try? hooks.afterCompleted?()
        case .failure(let error): try? hooks.afterError?(error)
        }
        hooks.onDispose?()
    }

    func request(_ demand: Subscribers.Demand) {
        guard let subscription = lock.locked({ () -> Subscription? in
            if case .subscribed(let subscription, _) = state { return subscription }
            return nil
        }) else { return }
        subscription.request(demand)
    }

    func cancel() {
        guard let (previous, hooks) = terminate() else { return }
        if case .subscribed(let subscription, _) = previous { subscription.cancel() }
        hooks.onDispose?()
    }

    /// A hook threw: the upstream is cancelled and the downstream fails with the error.
    private func fail(_ error: Swift.Error) {
        guard let (previous, hooks) = terminate(), case .subscribed(let subscription, let downstream) = previous else {
            return
        }
        subscription.cancel()
        downstream.receive(completion: .failure(error))
        hooks.onDispose?()
    }

    /// Moves to `terminal` once, returning the previous state and the hooks (released by the
    /// caller, after unlocking).
    private func terminate() -> (State, DoHooks<Input>)? {
        lock.locked {
            guard let hooks else { return nil }
            let previous = state
            state = .terminal
            self.hooks = nil
            return (previous, hooks)
        }
    }
}
