extension Publisher where Failure == Never {
    /// The elements produced by the publisher, as an asynchronous sequence.
    ///
    /// Each iterator subscribes when it is made and asks the publisher for one value per call
    /// to `next()`, so nothing is buffered and nothing the publisher sends in answer to a request
    /// is lost between iterations. The subscription is cancelled when the iterating task is
    /// cancelled (the pending `next()` returns `nil`) and when the loop ends early and the
    /// iterator goes away.
    public var values: AsyncPublisher<Self> {
        AsyncPublisher(self)
    }
}

extension Publisher {
    /// The elements produced by the publisher, as a throwing asynchronous sequence.
    ///
    /// As the `values` of a publisher that cannot fail, but a failure of the publisher is thrown from `next()`.
    public var values: AsyncThrowingPublisher<Self> {
        AsyncThrowingPublisher(self)
    }
}

/// A publisher that exposes its elements as an asynchronous sequence.
///
/// Made by `Publisher.values` for publishers that cannot fail. Each `next()` requests
/// `.max(1)`; concurrent `next()` calls each add a request and are answered in order. When the
/// publisher finishes, every pending and later `next()` returns `nil`.
///
/// A publisher that sends more values than it was asked for breaks the Combine contract;
/// Combine stops with a precondition failure, Sluice drops the excess values.
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    public typealias Element = P.Output
    public typealias AsyncIterator = Iterator

    @usableFromInline
    internal let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as an
    /// asynchronous sequence.
    @inlinable
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its elements.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(publisher)
    }

    /// The iterator of an ``AsyncPublisher``; it owns one subscription.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = P.Output

        @usableFromInline
        internal let inner: AsyncPublisherInner<P.Output, Never>
        @usableFromInline
        internal let reaper: AsyncPublisherReaper<P.Output, Never>

        @inlinable
        internal init(_ publisher: P) {
            inner = AsyncPublisherInner()
            reaper = AsyncPublisherReaper(inner)
            publisher.subscribe(inner)
        }

        /// Requests one element and waits for it; `nil` once the publisher has finished or the
        /// task was cancelled.
        @inlinable
        public mutating func next() async -> P.Output? {
            switch await inner.next(isolation: nil) {
            case .success(let element): return element
            }
        }

        /// Requests one element and waits for it in the caller's isolation.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async -> P.Output? {
            switch await inner.next(isolation: actor) {
            case .success(let element): return element
            }
        }
    }
}

/// A publisher that exposes its elements as a throwing asynchronous sequence.
///
/// Made by `Publisher.values`. As ``AsyncPublisher``, but a failure is thrown from the `next()`
/// that is waiting when it arrives (or the next one to be called); any other pending `next()`
/// returns `nil`, and so does every later one.
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
    public typealias Element = P.Output
    public typealias AsyncIterator = Iterator

    @usableFromInline
    internal let publisher: P

    /// Creates a publisher that exposes elements received from an upstream publisher as a
    /// throwing asynchronous sequence.
    @inlinable
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its elements.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(publisher)
    }

    /// The iterator of an ``AsyncThrowingPublisher``; it owns one subscription.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = P.Output

        @usableFromInline
        internal let inner: AsyncPublisherInner<P.Output, P.Failure>
        @usableFromInline
        internal let reaper: AsyncPublisherReaper<P.Output, P.Failure>

        @inlinable
        internal init(_ publisher: P) {
            inner = AsyncPublisherInner()
            reaper = AsyncPublisherReaper(inner)
            publisher.subscribe(inner)
        }

        /// Requests one element and waits for it; `nil` once the publisher has finished or the
        /// task was cancelled; throws the publisher's failure.
        @inlinable
        public mutating func next() async throws -> P.Output? {
            try await inner.next(isolation: nil).get()
        }

        /// Requests one element and waits for it in the caller's isolation.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> P.Output? {
            try await inner.next(isolation: actor).get()
        }
    }
}

/// Cancels the subscription when the last copy of its iterator goes away (a loop left with
/// `break`, `return` or a thrown error), since the upstream keeps the subscriber itself alive.
@usableFromInline
internal final class AsyncPublisherReaper<Input, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    internal let inner: AsyncPublisherInner<Input, Failure>

    @inlinable
    internal init(_ inner: AsyncPublisherInner<Input, Failure>) {
        self.inner = inner
    }

    deinit {
        inner.cancel()
    }
}

/// The subscriber behind an async publisher's iterator: it turns each `next()` into a request
/// of one and resumes the waiting calls in order.
@usableFromInline
internal final class AsyncPublisherInner<Input, Failure: Error>: Subscriber, Cancellable,
    CustomStringConvertible, @unchecked Sendable
{
    @usableFromInline
    internal typealias Answer = Result<Input?, Failure>
    @usableFromInline
    internal typealias Waiter = CheckedContinuation<UncheckedSendable<Answer>, Never>

    @usableFromInline
    internal enum State {
        /// Waiting for the subscription; `next()` calls so far are counted, to be requested at
        /// once when it arrives.
        case awaitingSubscription(requested: Int)
        case subscribed(Subscription)
        /// The publisher failed with no `next()` waiting: the next call throws it.
        case failedUndelivered(Failure)
        /// Finished, failed (and thrown) or cancelled: every `next()` returns `nil`.
        case terminal
    }

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var state = State.awaitingSubscription(requested: 0)
    @usableFromInline @exclusivity(unchecked)
    internal var waiters: [Waiter] = []
    /// Requests of one value not yet made: `next()` calls from several tasks share one iterator's
    /// subscription, and a subscription may be called by one thread at a time only (Reactive
    /// Streams' rule 2.7; a subscription written for a single caller crashed when two `next()`
    /// calls requested at once). So one thread at a time calls the subscription, the
    /// `requester`, and it makes the requests that others added meanwhile before it lets go:
    /// each its own `request(.max(1))`, as Combine makes one per `next()`.
    @usableFromInline @exclusivity(unchecked)
    internal var unrequested = 0
    /// The `next()` calls made before the subscription arrived, asked for in one request when
    /// it does (as Combine pools them), ahead of any later call's.
    @usableFromInline @exclusivity(unchecked)
    internal var pooled = 0
    @usableFromInline @exclusivity(unchecked)
    internal var requesting = false
    /// A cancel made while another thread was requesting: the requester cancels once its
    /// request returns.
    @usableFromInline @exclusivity(unchecked)
    internal var owedCancel: Subscription?

    @inlinable
    internal init() {}

    @usableFromInline
    internal var description: String { "AsyncPublisher" }

    @usableFromInline
    internal func receive(subscription: Subscription) {
        let requested = lock.locked { () -> Int? in
            guard case .awaitingSubscription(let requested) = state else { return nil }
            state = .subscribed(subscription)
            pooled = requested
            return requested
        }
        guard let requested else {
            // A second subscription, or one arriving after the task was cancelled or the
            // publisher completed.
            subscription.cancel()
            return
        }
        if requested > 0 {
            request(0)
        }
    }

    /// Adds `count` requests of one value, and makes them (and those still owed) unless another
    /// thread is calling the subscription: then that thread makes them (see `unrequested`).
    @usableFromInline
    internal func request(_ count: Int) {
        var subscription = lock.locked { () -> Subscription? in
            unrequested += count
            guard !requesting, case .subscribed(let live) = state else { return nil }
            requesting = true
            return live
        }
        while let live = subscription {
            // One request per turn: the pooled calls together, then each later call on its own.
            let take = lock.locked { () -> Int in
                if pooled > 0 {
                    defer { pooled = 0 }
                    return pooled
                }
                guard unrequested > 0 else { return 0 }
                unrequested -= 1
                return 1
            }
            if take > 0 { live.request(.max(take)) }
            let (next, cancel) = lock.locked { () -> (Subscription?, Subscription?) in
                if let owed = owedCancel.take() {
                    requesting = false
                    return (nil, owed)
                }
                guard unrequested > 0 || pooled > 0, case .subscribed = state else {
                    requesting = false
                    return (nil, nil)
                }
                return (live, nil)
            }
            cancel?.cancel()
            subscription = next
        }
    }

    @usableFromInline
    internal func receive(_ input: Input) -> Subscribers.Demand {
        var early: [Waiter] = []
        let waiter = lock.locked { () -> Waiter? in
            switch state {
            case .subscribed:
                return waiters.isEmpty ? nil : waiters.removeFirst()
            case .awaitingSubscription:
                // A value before the subscription (a broken upstream), as Combine answers it:
                // every waiting `next()` returns `nil`, and the count of calls is kept for the
                // subscription that may still come.
                early = waiters
                waiters = []
                return nil
            case .failedUndelivered, .terminal:
                return nil
            }
        }
        waiter?.resume(returning: UncheckedSendable(.success(input)))
        for waiter in early {
            waiter.resume(returning: UncheckedSendable(.success(nil)))
        }
        return .none
    }

    @usableFromInline
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let (waiting, previous) = lock.locked { () -> ([Waiter], State?) in
            // A completion before the subscription ends the sequence as one after it does (the
            // subscription that may still come is cancelled), so no `next()` waits for ever.
            switch state {
            case .subscribed, .awaitingSubscription: break
            case .failedUndelivered, .terminal: return ([], nil)
            }
            let previous = state
            let waiting = waiters
            waiters = []
            if case .failure(let error) = completion, waiting.isEmpty {
                state = .failedUndelivered(error)
            } else {
                state = .terminal
            }
            return (waiting, previous)
        }
        withExtendedLifetime(previous) {}
        var first = true
        for waiter in waiting {
            if first, case .failure(let error) = completion {
                waiter.resume(returning: UncheckedSendable(.failure(error)))
            } else {
                waiter.resume(returning: UncheckedSendable(.success(nil)))
            }
            first = false
        }
    }

    /// Cancels the subscription (or the one still to come) and answers every waiting `next()`
    /// with `nil`. After completion it does nothing.
    @usableFromInline
    internal func cancel() {
        let (subscription, waiting) = lock.locked { () -> (Subscription?, [Waiter]) in
            let subscription: Subscription?
            switch state {
            case .awaitingSubscription:
                subscription = nil
            case .subscribed(let live):
                subscription = live
            case .failedUndelivered, .terminal:
                return (nil, [])
            }
            state = .terminal
            defer { waiters = [] }
            if requesting, let subscription {
                // The requesting thread cancels once its request returns, so the subscription
                // is never called by two threads at once.
                owedCancel = subscription
                return (nil, waiters)
            }
            return (subscription, waiters)
        }
        subscription?.cancel()
        for waiter in waiting {
            waiter.resume(returning: UncheckedSendable(.success(nil)))
        }
    }

    /// What one `next()` does: registers as a waiter and asks for one value, all before the
    /// task suspends, so that a value sent synchronously in answer cannot be missed.
    @inlinable
    internal func next(isolation actor: isolated (any Actor)?) async -> Answer {
        await withTaskCancellationHandler(operation: {
            await withCheckedContinuation(isolation: actor) { (waiter: Waiter) in
                enqueue(waiter)
            }.value
        }, onCancel: {
            cancel()
        }, isolation: actor)
    }

    @usableFromInline
    internal enum EnqueueStep {
        case answer(Answer)
        case request
        case wait
    }

    @usableFromInline
    internal func enqueue(_ waiter: Waiter) {
        let step = lock.locked { () -> EnqueueStep in
            switch state {
            case .terminal:
                return .answer(.success(nil))
            case .failedUndelivered(let error):
                state = .terminal
                return .answer(.failure(error))
            case .awaitingSubscription(let requested):
                waiters.append(waiter)
                state = .awaitingSubscription(requested: requested + 1)
                return .wait
            case .subscribed:
                waiters.append(waiter)
                return .request
            }
        }
        switch step {
        case .answer(let answer):
            waiter.resume(returning: UncheckedSendable(answer))
        case .request:
            request(1)
        case .wait:
            break
        }
    }
}
