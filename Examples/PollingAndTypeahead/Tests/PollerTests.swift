import Foundation
import Testing
import Sluice
import SluiceTesting
import PollingAndTypeaheadExample

/// A job's status, as a server reports it.
enum JobStatus: Equatable {
    case queued
    case running(percent: Int)
    case done

    var isFinal: Bool { self == .done }
}

/// The poller in virtual time: each test records one run at several outputs (the statuses the
/// poll publishes, the calls of `fetch`, each fetch's subscription) and checks every one of them
/// against a diagram, with a 100 ms tick and time progressions for the 5 s between polls.
@Suite("Poller: every 5 s, retry twice, stop when done, time out at 30 s")
struct PollerTests {
    let tick = Duration.milliseconds(100)

    /// A fetch that answers after 100 ms, and one that fails after 100 ms.
    func answer(_ scheduler: TestSchedulerOf<DispatchQueue>, _ status: JobStatus) -> ColdMarblePublisher<JobStatus, URLError> {
        scheduler.cold("-(s|)", values: ["s": status], failure: URLError.self, tick: tick)
    }

    func failure(_ scheduler: TestSchedulerOf<DispatchQueue>) -> ColdMarblePublisher<JobStatus, URLError> {
        scheduler.cold("-#", errors: ["#": URLError(.networkConnectionLost)], tick: tick)
    }

    /// Plays `attempts` to the poller's fetch calls, one each, and records which call came when.
    func poll(_ attempts: [ColdMarblePublisher<JobStatus, URLError>], on scheduler: TestSchedulerOf<DispatchQueue>)
        -> (statuses: TimelineRecorder<JobStatus, PollError<URLError>>, calls: TimelineRecorder<Int, Never>)
    {
        let calls = PassthroughSubject<Int, Never>()
        let callRecorder = calls.recordTimeline(on: scheduler)
        var next = 0
        let statuses = Poller.poll(every: .seconds(5), timeout: .seconds(30), scheduler: scheduler,
                                   fetch: {
                                       defer { next += 1 }
                                       calls.send(next)
                                       return attempts[next].eraseToAnyPublisher()
                                   },
                                   until: \.isFinal)
        return (statuses.recordTimeline(on: scheduler), callRecorder)
    }

    @Test func retriesAFailedFetchAndStopsWhenTheJobIsDone() {
        let scheduler = DispatchQueue.test
        let attempts = [
            answer(scheduler, .queued),                  // the first poll, at once
            failure(scheduler), failure(scheduler),      // the poll at 5 s fails, and its first retry
            answer(scheduler, .running(percent: 50)),    // the second retry answers
            answer(scheduler, .done),                    // the poll at 10 s: done
        ]
        let (statuses, calls) = poll(attempts, on: scheduler)
        scheduler.advance(by: .seconds(40))

        // What the poll published: done at 10.1 s, and finished there.
        expectMarbles(statuses, "-q 4.9s --r 4.7s (d|)",
                      values: ["q": .queued, "r": .running(percent: 50), "d": .done], tick: tick)
        // When fetch was called: the poll at 5 s and its two retries, 100 ms apart.
        expectMarbles(calls, "0 4.9s 123 4.7s 4", values: ["0": 0, "1": 1, "2": 2, "3": 3, "4": 4], tick: tick)
        // Each attempt's subscription, from subscribing to its answer or failure.
        expectSubscriptions(attempts.flatMap(\.subscriptions), "^!", "5s ^!", "5.1s ^!", "5.2s ^!", "10s ^!", tick: tick)
        // Once done, nothing is left running: no timer, no deadline.
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func timesOutAt30SecondsWhereTheTickRunsFirst() {
        let scheduler = DispatchQueue.test
        let attempts = (0..<7).map { _ in answer(scheduler, .running(percent: 10)) }
        let (statuses, calls) = poll(attempts, on: scheduler)
        scheduler.advance(by: .seconds(40))

        expectMarbles(statuses, "-r 4.9s r 4.9s r 4.9s r 4.9s r 4.9s r 4.8s #",
                      values: ["r": .running(percent: 10)], errors: ["#": .timedOut], tick: tick)
        expectMarbles(calls, "0 4.9s 1 4.9s 2 4.9s 3 4.9s 4 4.9s 5 4.9s 6",
                      values: ["0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6], tick: tick)
        // The tick due at 30 s ran before the deadline due then: its fetch was subscribed and
        // cancelled at the same instant.
        expectSubscriptions(attempts[6].subscriptions, "30s (^!)", tick: tick)
        #expect(attempts[6].subscriptions.first?.ending == .cancelled)
        // The same order, as the recorders saw it: the timer (action #3, scheduled at 0) before
        // the deadline (#5: `timeout` starts its timer when it is subscribed, #4, and starts it
        // again at the first request).
        var chart = MarbleChart(tick: tick)
        chart.add("calls", calls.timeline)
        chart.add("statuses", statuses.timeline)
        #expect(chart.runOrder == "at 30 s: calls value 6 in action #3 (scheduled at 0, repeating every 5 s), "
            + "then statuses failure in action #5 (scheduled at 0, repeating every 30 s)")
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func failsWhenAFetchAndBothRetriesFail() {
        let scheduler = DispatchQueue.test
        let attempts = [answer(scheduler, .queued), failure(scheduler), failure(scheduler), failure(scheduler)]
        let (statuses, calls) = poll(attempts, on: scheduler)
        scheduler.advance(by: .seconds(40))

        expectMarbles(statuses, "-q 4.9s --#", values: ["q": .queued],
                      errors: ["#": .fetchFailed(URLError(.networkConnectionLost))], tick: tick)
        expectMarbles(calls, "0 4.9s 123", values: ["0": 0, "1": 1, "2": 2, "3": 3], tick: tick)
        expectSubscriptions(attempts.flatMap(\.subscriptions), "^!", "5s ^!", "5.1s ^!", "5.2s ^!", tick: tick)
        // The timer stopped with the poll: a flatMap whose child fails does not cancel its
        // upstream, so a poll that let the failure through flatMap would leave it ticking here.
        #expect(scheduler.pendingActionCount == 0)
    }
}
