import Foundation
import Sluice
import SluiceSchedulers

/// Why a poll ended without a status that satisfied its predicate.
public enum PollError<Failure: Error>: Error {
    /// A fetch failed, and so did every retry of it.
    case fetchFailed(Failure)
    /// No status satisfied the predicate in time.
    case timedOut
}

extension PollError: Equatable where Failure: Equatable {}

/// Polls a status until it is final.
public enum Poller {
    /// Fetches a status at once and then every `interval`, retrying a failed fetch up to
    /// `retries` times, and publishes each status until one satisfies `isDone`, which it
    /// publishes before finishing. It fails with ``PollError/timedOut`` if that has not happened
    /// within `timeout`, and with ``PollError/fetchFailed(_:)`` if a fetch fails `retries + 1`
    /// times in a row.
    ///
    /// `fetch` is called once per attempt (a retry calls it again). A tick that comes while a
    /// fetch and its retries are still running is skipped: one fetch at a time. When the poll
    /// ends, for whatever reason, it stops its timer, its deadline and any fetch in flight.
    ///
    /// A failed fetch travels as a value until the poll has stopped its ticks and its deadline,
    /// and only then becomes the failure: a child publisher's failure makes `flatMap` fail
    /// without cancelling its upstream (in Combine as in Sluice), which would leave the timer
    /// ticking after the poll has failed.
    ///
    /// At `timeout`, a tick due at the same instant (30 s with a 5 s interval and a 30 s timeout)
    /// runs first: the timer is scheduled before the deadline, and a scheduler runs actions due
    /// at one instant in the order they were scheduled. So the fetch that tick starts is
    /// cancelled at once by the timeout (the tests show both).
    public static func poll<Status, Failure: Error, S: Scheduler>(
        every interval: S.SchedulerTimeType.Stride,
        retries: Int = 2,
        timeout: S.SchedulerTimeType.Stride,
        scheduler: S,
        fetch: @escaping () -> AnyPublisher<Status, Failure>,
        until isDone: @escaping (Status) -> Bool
    ) -> AnyPublisher<Status, PollError<Failure>> {
        typealias Outcome = Result<Status, PollError<Failure>>
        return Deferred {
            // Sent by the last outcome (a final status or a failed fetch): it ends the ticks and
            // the deadline, before that outcome goes on.
            let stop = PassthroughSubject<Void, Never>()
            let ticks = Just(()).append(scheduler.timerPublisher(every: interval).autoconnect().map { _ in () })
                .prefix(untilOutputFrom: stop)
            let outcomes = ticks
                .setFailureType(to: PollError<Failure>.self)
                .flatMap(maxPublishers: .max(1)) { _ in
                    Deferred(createPublisher: fetch)
                        .retry(retries)
                        .map(Outcome.success)
                        .catch { Just(Outcome.failure(.fetchFailed($0))).setFailureType(to: PollError<Failure>.self) }
                }
            // Fails at the deadline unless the poll has stopped first.
            let deadline = Empty<Outcome, PollError<Failure>>(completeImmediately: false)
                .timeout(timeout, scheduler: scheduler, customError: { .timedOut })
                .prefix(untilOutputFrom: stop)
            return outcomes
                .merge(with: deadline)
                .handleEvents(receiveOutput: { outcome in
                    if case .success(let status) = outcome, !isDone(status) { return }
                    stop.send()
                })
                .flatMap(maxPublishers: .max(1)) { $0.publisher }
        }
        .eraseToAnyPublisher()
    }
}
