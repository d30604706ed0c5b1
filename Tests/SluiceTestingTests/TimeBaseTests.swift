import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Issue 24, "three zeros of time": timelines, marble publishers' subscriptions and
/// expectMarbles all measure from the scheduler's origin, and reports show its `now`.
@Suite("One time base: the scheduler's origin")
struct TimeBaseTests {
    let tick = Duration.milliseconds(100)

    @Test func theSchedulerKnowsItsOriginAndTheTimeSinceIt() {
        let scheduler = DispatchQueue.test
        let origin = scheduler.now
        #expect(scheduler.origin == origin)
        #expect(scheduler.elapsed == .zero)
        scheduler.advance(by: .milliseconds(1400))
        #expect(scheduler.origin == origin)
        #expect(scheduler.elapsed == .milliseconds(1400))
        let runLoop = RunLoop.test
        runLoop.advance(by: .milliseconds(250))
        #expect(runLoop.elapsed == .milliseconds(250))
    }

    /// The issue's case: a cold publisher made inside a search closure at 1,400 ms reported its
    /// subscription as `[0 ..< 400 ms]`, counted from its own creation.
    @Test func aColdPublisherMadeLateRecordsItsSubscriptionOnTheSchedulersClock() throws {
        let scheduler = DispatchQueue.test
        let query = PassthroughSubject<String, Never>()
        var searches: [ColdMarblePublisher<String, Never>] = []
        let results = query
            .map { term -> ColdMarblePublisher<String, Never> in
                let search = scheduler.cold("----r|", values: ["r": "\(term) result"], tick: .milliseconds(100))
                searches.append(search)
                return search
            }
            .switchToLatest()
            .recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(1400))
        query.send("swift")
        scheduler.advance(by: .seconds(1))
        let search = try #require(searches.first)
        #expect(search.subscriptions == [SubscriptionInterval(subscribedAt: .milliseconds(1400), endedAt: .milliseconds(1900),
                                                              by: .finished)])
        #expect(search.subscriptions.first?.description == "1.4 s ..< 1.9 s (finished)")
        #expect(results.timeline == [.subscription(at: .zero), .value(at: .milliseconds(1800), "swift result")])
    }

    @Test func aHotPublisherPlaysFromItsCreationAndRecordsSubscriptionsFromTheOrigin() {
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .seconds(1))
        let hot = scheduler.hot("-a-b|", tick: tick)
        let recorder = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        recorder.cancel()
        #expect(recorder.timeline == [.subscription(at: .seconds(1)), .value(at: .milliseconds(1100), "a"),
                                      .cancel(at: .milliseconds(1200))])
        #expect(hot.subscriptions == [SubscriptionInterval(subscribedAt: .seconds(1), cancelledAt: .milliseconds(1200))])
        #expect(hot.subscriptions.first?.description == "1 s ..< 1.2 s (cancelled)")
    }

    @Test func expectMarblesCalledLateReadsItsDiagramFromTheCallAndReportsSchedulerTimes() throws {
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .milliseconds(1400))
        let source = scheduler.cold("-a|", tick: tick)
        #expect(TestFailure.capturingFailures {
            expectMarbles(source, "-a|", scheduler: scheduler, tick: tick)
        }.failures.isEmpty, "the diagram's time zero is the subscription, whenever it is made")
        let (_, failures) = TestFailure.capturingFailures {
            expectMarbles(source.delay(for: .milliseconds(100), scheduler: scheduler), "-a|", scheduler: scheduler, tick: tick)
        }
        #expect(try #require(failures.first).message == """
            expectMarbles: the publisher's timeline does not match the diagram (one tick = 100 ms; the diagram starts at 1.6 s; times since the scheduler's origin, now 1.9 s)
            expected: -a|
            actual:   --a|
            first difference: expected value a at 1.7 s, got value a at 1.8 s
            """)
    }
}

/// Subscription records that show where a subscription ended, and subscription marbles.
@Suite("Subscription marbles")
struct SubscriptionMarbleTests {
    let tick = Duration.milliseconds(100)

    @Test func aFinishedOrFailedSubscriptionShowsWhereItEnded() {
        let scheduler = DispatchQueue.test
        let finishing = scheduler.cold("-a-|", tick: tick)
        let failing = scheduler.cold("--#", values: ["a": 1], errors: ["#": Boom()], tick: tick)
        _ = finishing.recordTimeline(on: scheduler)
        _ = failing.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(finishing.subscriptions == [SubscriptionInterval(subscribedAt: .zero, endedAt: .milliseconds(300), by: .finished)])
        #expect(finishing.subscriptions.first?.cancelledAt == nil)
        #expect(finishing.subscriptions.first?.description == "0 ..< 300 ms (finished)")
        #expect(failing.subscriptions.first?.description == "0 ..< 200 ms (failed)")
        #expect(finishing.subscriptions.first?.marbles(tick: tick) == "^--!")
        #expect(failing.subscriptions.first?.marbles(tick: tick) == "^-!")
    }

    @Test func aCompletionHeldForDemandEndsTheSubscriptionWhenItIsDelivered() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("a|", tick: tick)
        let subscriber = TestSubscriber<String, Never>(initialDemand: .none)
        cold.subscribe(subscriber)
        scheduler.advance(by: .milliseconds(500))
        #expect(cold.subscriptions.first?.description == "0 ... (still subscribed)")
        subscriber.request(.max(1))
        #expect(cold.subscriptions == [SubscriptionInterval(subscribedAt: .zero, endedAt: .milliseconds(500), by: .finished)])
    }

    @Test func subscriptionsDrawAsMarblesFromTheOrigin() {
        #expect(SubscriptionInterval(subscribedAt: .milliseconds(200), cancelledAt: .milliseconds(500)).marbles(tick: tick) == "--^--!")
        #expect(SubscriptionInterval(subscribedAt: .milliseconds(200)).marbles(tick: tick) == "--^")
        #expect(SubscriptionInterval(subscribedAt: .milliseconds(300), cancelledAt: .milliseconds(300)).marbles(tick: tick) == "---(^!)")
        // A long wait before it is written as a time progression.
        #expect(SubscriptionInterval(subscribedAt: .seconds(5), cancelledAt: .milliseconds(5300)).marbles(tick: tick) == "5s ^--!")
    }

    @Test func expectSubscriptionsPassesWhenEachSubscriptionMatches() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("-a-b|", tick: tick)
        _ = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        let second = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(100))
        second.cancel()
        scheduler.advance(by: .seconds(1))
        let (matched, failures) = TestFailure.capturingFailures {
            expectSubscriptions(cold.subscriptions, "^---!", "--^!", tick: tick)
        }
        #expect(matched && failures.isEmpty)
        #expect(TestFailure.capturingFailures {
            expectSubscriptions(cold.subscriptions, "^--- !", "-- 100ms (^!)", tick: tick)
        }.result == false, "a group is one instant: (^!) there ends where it begins")
        #expect(TestFailure.capturingFailures {
            expectSubscriptions([SubscriptionInterval(subscribedAt: .seconds(5), cancelledAt: .milliseconds(5300))],
                                "5s ^--!", tick: tick)
        }.failures.isEmpty, "time progressions are allowed")
    }

    @Test func aSubscriptionMismatchIsDrawnAtTheCallersLine() throws {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("-a-b|", tick: tick)
        _ = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        let line = #line + 2
        let (matched, failures) = TestFailure.capturingFailures {
            expectSubscriptions(cold.subscriptions, "^--!", tick: tick)
        }
        #expect(!matched)
        let failure = try #require(failures.first)
        #expect(failure.line == line)
        #expect(failure.message == """
            expectSubscriptions: the subscriptions do not match the diagrams (one tick = 100 ms; times since the scheduler's origin)
            expected 1: ^--!
            actual 1:   ^---!
            expected: 0 ..< 300 ms
            actual:   0 ..< 400 ms (finished)
            """)
        // Given the publisher rather than its list, the report also gives the scheduler's now.
        let (_, withNow) = TestFailure.capturingFailures { expectSubscriptions(cold, "^--!", tick: tick) }
        #expect(withNow.first?.message.hasPrefix(
            "expectSubscriptions: the subscriptions do not match the diagrams (one tick = 100 ms; times since the scheduler's origin, now 1 s)\n") == true)
        let hot = scheduler.hot("-a|", tick: tick)
        _ = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(TestFailure.capturingFailures { expectSubscriptions(hot, "^-!", tick: tick) }.failures.count == 1, "subscribed at 1 s, not 0")
        #expect(TestFailure.capturingFailures { expectSubscriptions(hot, "1s ^-!", tick: tick) }.failures.isEmpty)
        let (_, bad) = TestFailure.capturingFailures { expectSubscriptions([], "--!", tick: tick) }
        #expect(bad.first?.message.hasPrefix("expectSubscriptions: marble diagram: \"!\" before \"^\"") == true)
    }
}
