/// A publisher that eventually produces a single value and then finishes or fails.
///
/// The closure passed to the initializer runs at once, inside `init`, and receives a `Promise`
/// to call with the result; only the first call counts. Every subscriber, including one that
/// subscribes after the promise was fulfilled, gets the same result: a success value (followed by
/// `.finished`) once it has requested anything, a failure at once, without demand.
///
/// `Future` is thread-safe: the promise may be called from any thread, concurrently with
/// subscribing, requesting and cancelling.
public final class Future<Output, Failure: Error>: Publisher {
    /// A function the future's closure calls, once, to publish its result.
    ///
    /// Calling it from any thread is safe. As in Combine, it is not `@Sendable`: Swift 6 code
    /// written for Combine that fulfils it from another queue or task marks it
    /// `nonisolated(unsafe) let promise = promise`, which a `@Sendable` promise would turn
    /// into a warning.
    public typealias Promise = (Result<Output, Failure>) -> Void

    @usableFromInline
    package let lock = Lock()

    /// The first result passed to the promise.
    @usableFromInline @exclusivity(unchecked)
    internal var result: Result<Output, Failure>?

    /// Subscriptions waiting for the result, in the order they were made.
    @usableFromInline @exclusivity(unchecked)
    internal var conduits: [FutureConduitBase<Output, Failure>] = []

    /// The task running the `async` closure of `init(operation:)`, if the future was made from
    /// one: cancelled when the future goes away, since nothing can observe its result then.
    @usableFromInline @exclusivity(unchecked)
    package var operationTask: Task<Void, Never>?

    deinit {
        operationTask?.cancel()
    }

    /// Creates a publisher that invokes `attemptToFulfill` at once with a promise to fulfil.
    @inlinable
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        // The promise holds the future strongly, so a result delivered later still reaches
        // subscribers that hold only their subscription.
        attemptToFulfill { result in self.fulfill(result) }
    }

    /// Attaches the subscriber; it receives the result once the promise is fulfilled (at once
    /// if it already has been), a success only after it has requested a value.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        let conduit = FutureConduit(subscriber, parent: self)
        let existing = lock.locked { () -> Result<Output, Failure>? in
            if let result { return result }
            conduits.append(conduit)
            return nil
        }
        if let existing {
            conduit.resolve(with: existing)
        }
        subscriber.receive(subscription: conduit)
        conduit.subscriptionDelivered()
    }

    /// Records the first result and offers it to every waiting subscription.
    @inlinable
    package func fulfill(_ newResult: Result<Output, Failure>) {
        guard let waiting = lock.locked({ () -> [FutureConduitBase<Output, Failure>]? in
            guard result == nil else { return nil }
            result = newResult
            defer { conduits = [] }
            return conduits
        }) else { return }
        for conduit in waiting {
            conduit.resolveSpecialized(conduit, newResult)
        }
    }

    @inlinable
    internal func detach(_ conduit: FutureConduitBase<Output, Failure>) {
        lock.locked {
            if let index = conduits.firstIndex(where: { $0 === conduit }) {
                conduits.remove(at: index)
            }
        }
    }
}

/// A future's subscription, type-erased over the subscriber so the future can keep a list.
///
/// The future calls `resolveSpecialized`, a function value created where the concrete
/// subscriber type is known, rather than an overridden method reached through the library's
/// unspecialised vtable.
@usableFromInline
internal class FutureConduitBase<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    internal let resolveSpecialized: (FutureConduitBase, Result<Output, Failure>) -> Void

    @inlinable
    internal init(resolveSpecialized: @escaping (FutureConduitBase, Result<Output, Failure>) -> Void) {
        self.resolveSpecialized = resolveSpecialized
    }
}

/// One subscriber's connection to a `Future`. It delivers the result exactly once, when three
/// things are true: the subscription has been handed to the subscriber, the result is known,
/// and (for a success) the subscriber has asked for something.
@usableFromInline
internal final class FutureConduit<Downstream: Subscriber>:
    FutureConduitBase<Downstream.Input, Downstream.Failure>, Subscription,
    DescribedByName, @unchecked Sendable
{
    @usableFromInline
    internal typealias Output = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let lock = Lock()
    /// The subscriber, until the result is delivered or the subscription cancelled.
    @usableFromInline @exclusivity(unchecked)
    internal var downstream: Downstream?
    /// The future, until this subscription ends.
    @usableFromInline @exclusivity(unchecked)
    internal var parent: Future<Output, Failure>?
    @usableFromInline @exclusivity(unchecked)
    internal var result: Result<Output, Failure>?
    @usableFromInline @exclusivity(unchecked)
    internal var hasAnyDemand = false
    /// Set once `receive(subscription:)` has returned: nothing is delivered before that.
    @usableFromInline @exclusivity(unchecked)
    internal var isSubscriptionDelivered = false

    @inlinable
    internal init(_ downstream: Downstream, parent: Future<Output, Failure>) {
        self.downstream = downstream
        self.parent = parent
        super.init(resolveSpecialized: { conduit, result in
            unsafeDowncast(conduit, to: FutureConduit.self).resolve(with: result)
        })
    }

    @inlinable
    internal func resolve(with result: Result<Output, Failure>) {
        lock.locked { self.result = result }
        deliverIfReady()
    }

    @inlinable
    internal func subscriptionDelivered() {
        lock.locked { isSubscriptionDelivered = true }
        deliverIfReady()
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let live = lock.locked { () -> Bool in
            guard downstream != nil else { return false }
            hasAnyDemand = true
            return true
        }
        if live { deliverIfReady() }
    }

    @inlinable
    internal func deliverIfReady() {
        let ready = lock.locked { () -> (Downstream, Result<Output, Failure>)? in
            guard isSubscriptionDelivered, let downstream, let result else { return nil }
            if case .success = result, !hasAnyDemand { return nil }
            defer { self.downstream = nil }
            return (downstream, result)
        }
        guard let (downstream, result) = ready else { return }
        switch result {
        case .success(let value):
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
        // As in Combine, the subscription lets go of its future after delivering, so a look at
        // its mirror from inside the downstream still shows the parent.
        let parent = lock.locked { () -> Future<Output, Failure>? in
            defer { self.parent = nil }
            return self.parent
        }
        withExtendedLifetime(parent) {}
    }

    @inlinable
    internal func cancel() {
        let (downstream, parent) = lock.locked { () -> (Downstream?, Future<Output, Failure>?) in
            defer {
                self.downstream = nil
                self.parent = nil
            }
            return (self.downstream, self.parent)
        }
        parent?.detach(self)
        withExtendedLifetime(downstream) {}
    }

    @usableFromInline
    internal var description: String { "Future" }

    @usableFromInline
    internal var customMirror: Mirror {
        let (parent, downstream, hasAnyDemand) = lock.locked { (self.parent, self.downstream, self.hasAnyDemand) }
        return Mirror(self, children: [
            "parent": parent as Any,
            "downstream": downstream as Any,
            "hasAnyDemand": hasAnyDemand,
            "subject": parent as Any,
        ])
    }
}

// MARK: - async/await

/// Subscribes for `Future.value` and resumes the waiting task with the first value or failure.
@usableFromInline
internal final class FutureValueSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var resume: ((Result<UncheckedSendable<Input>, Failure>) -> Void)?

    @inlinable
    internal init(_ resume: @escaping (Result<UncheckedSendable<Input>, Failure>) -> Void) {
        self.resume = resume
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        subscription.request(.unlimited)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        lock.locked { resume.take() }?(.success(UncheckedSendable(input)))
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        guard case .failure(let error) = completion else { return }
        lock.locked { resume.take() }?(.failure(error))
    }
}

extension Future where Failure == Never {
    /// The published value of the future, delivered asynchronously.
    ///
    /// Subscribes to the future and returns its value once the promise is fulfilled. Cancelling
    /// the waiting task does not end the wait: a future that cannot fail has nothing else to
    /// return. It runs in the caller's isolation, so main-actor code can await a value that is
    /// not `Sendable`.
    public nonisolated(nonsending) var value: Output {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<UncheckedSendable<Output>, Never>) in
                subscribe(FutureValueSubscriber<Output, Never> { result in
                    switch result {
                    case .success(let box): continuation.resume(returning: box)
                    }
                })
            }.value
        }
    }
}

extension Future {
    /// The published value of the future or an error, delivered asynchronously.
    ///
    /// Subscribes to the future and returns its value once the promise is fulfilled, or throws
    /// the failure it was fulfilled with. It runs in the caller's isolation, so main-actor code
    /// can await a value that is not `Sendable`.
    public nonisolated(nonsending) var value: Output {
        get async throws {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<UncheckedSendable<Output>, Error>) in
                subscribe(FutureValueSubscriber<Output, Failure> { result in
                    switch result {
                    case .success(let box): continuation.resume(returning: box)
                    case .failure(let error): continuation.resume(throwing: error)
                    }
                })
            }.value
        }
    }
}
