import Sluice

extension Publishers {
    /// A publisher that resubscribes to a failed upstream after a delay (beyond Combine, whose
    /// `retry` resubscribes at once): a fixed one, or one that grows with each attempt
    /// (exponential backoff).
    ///
    /// Made by `retry(_:delay:scheduler:)`. It is Combine's `retry` in every other respect, on
    /// the same subscription:
    ///
    /// - After a failure, while retries are left, it schedules the resubscription on `scheduler`
    ///   at `scheduler.now` plus `delay(attempt)`, where `attempt` is the retry's number: 1 for
    ///   the first retry, 2 for the second. Once the retries are used up, the next failure is
    ///   passed on. Values are passed on as they come; a value does not reset the count.
    /// - Demand the downstream made and did not receive (also during the wait) is asked of each
    ///   new subscription.
    /// - A cancel during the wait resubscribes nothing: the scheduled action finds the
    ///   subscription cancelled and does nothing.
    ///
    /// The `retry(_:delay:scheduler:)` methods never change how Combine's `retry(_:)` resolves
    /// (they need two more arguments), and they are disfavoured overloads: a
    /// `retry(_:delay:scheduler:)` that a project already declares for itself (a common helper)
    /// wins over them, so adding `import SluiceExtras` to its files never makes a call ambiguous.
    public struct DelayedRetry<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher to subscribe to, and again after each failure.
        public let upstream: Upstream
        /// The most retries to make; a negative number retries without end, as `retry(_:)` does.
        public let retries: Int
        /// The wait before retry number `attempt` (from 1).
        public let delay: (_ attempt: Int) -> Context.SchedulerTimeType.Stride
        /// The scheduler that times the waits (and on which each resubscription happens).
        public let scheduler: Context

        /// Creates a publisher that retries `upstream` up to `retries` times, waiting
        /// `delay(attempt)` on `scheduler` before retry number `attempt`.
        @inlinable
        public init(upstream: Upstream, retries: Int,
                    delay: @escaping (_ attempt: Int) -> Context.SchedulerTimeType.Stride, scheduler: Context) {
            self.upstream = upstream
            self.retries = retries
            self.delay = delay
            self.scheduler = scheduler
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let delay = self.delay
            let scheduler = self.scheduler
            RetrySubscription(upstream: upstream, retries: retries, downstream: subscriber) { attempt, resubscribe in
                scheduler.schedule(after: scheduler.now.advanced(by: delay(attempt)), resubscribe)
            }.start()
        }
    }
}

extension Publisher {
    /// Resubscribes after a failure, up to `retries` times, waiting `delay` on `scheduler`
    /// before each resubscription; see ``Publishers/DelayedRetry``.
    ///
    /// ```swift
    /// feed.retry(3, delay: .seconds(2), scheduler: DispatchQueue.main)
    /// ```
    @inlinable @_disfavoredOverload
    public func retry<S: Scheduler>(_ retries: Int, delay: S.SchedulerTimeType.Stride, scheduler: S)
        -> Publishers.DelayedRetry<Self, S>
    {
        Publishers.DelayedRetry(upstream: self, retries: retries, delay: { _ in delay }, scheduler: scheduler)
    }

    /// Resubscribes after a failure, up to `retries` times, waiting `delay(attempt)` on
    /// `scheduler` before retry number `attempt` (from 1); see ``Publishers/DelayedRetry``.
    ///
    /// Exponential backoff, 1, 2, then 4 seconds:
    ///
    /// ```swift
    /// feed.retry(3, delay: { attempt in .seconds(1 << (attempt - 1)) }, scheduler: DispatchQueue.main)
    /// ```
    @inlinable @_disfavoredOverload
    public func retry<S: Scheduler>(_ retries: Int, delay: @escaping (_ attempt: Int) -> S.SchedulerTimeType.Stride,
                                    scheduler: S) -> Publishers.DelayedRetry<Self, S>
    {
        Publishers.DelayedRetry(upstream: self, retries: retries, delay: delay, scheduler: scheduler)
    }
}
