import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Hot and cold marble publishers")
struct MarblePublisherTests {
    let tick = Duration.milliseconds(100)

    @Test func coldPlaysTheWholeDiagramToEachSubscriberFromItsSubscription() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], tick: tick)
        let first = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        let second = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        // Times are the scheduler's: the second subscriber's copy of the diagram starts at 200 ms.
        #expect(first.timeline == [.subscription(at: .zero), .value(at: .milliseconds(100), 1), .value(at: .milliseconds(300), 2), .finished(at: .milliseconds(400))])
        #expect(second.timeline == [.subscription(at: .milliseconds(200)), .value(at: .milliseconds(300), 1), .value(at: .milliseconds(500), 2), .finished(at: .milliseconds(600))])
        #expect(cold.subscriptions == [SubscriptionInterval(subscribedAt: .zero, endedAt: .milliseconds(400), by: .finished),
                                       SubscriptionInterval(subscribedAt: .milliseconds(200), endedAt: .milliseconds(600), by: .finished)])
    }

    @Test func coldRespectsDemandAndHoldsValuesUntilAsked() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("ab-c|", values: ["a": 1, "b": 2, "c": 3], tick: tick)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        cold.subscribe(subscriber)
        scheduler.advance(by: .milliseconds(500))
        #expect(subscriber.values == [1], "b, c and the completion wait for demand")
        subscriber.request(.max(5))
        #expect(subscriber.history == [
            .subscription("MarbleSubscription"), .request(.max(1)), .value(1), .request(.max(5)), .value(2), .value(3),
            .completion(.finished),
        ])
    }

    @Test func coldCancelStopsDeliveryAndIsLogged() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("-a-b-c|", tick: tick)
        let recorder = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(300))
        recorder.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .milliseconds(100), "a"), .value(at: .milliseconds(300), "b"), .cancel(at: .milliseconds(300))])
        #expect(cold.subscriptions == [SubscriptionInterval(subscribedAt: .zero, cancelledAt: .milliseconds(300))])
        #expect(cold.subscriptions.first?.description == "0 ..< 300 ms (cancelled)")
    }

    @Test func coldFailsWithTheTypedError() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("-a#", values: ["a": 1], errors: ["#": Boom(code: 4)], tick: tick)
        let recorder = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .milliseconds(100), 1), .failure(at: .milliseconds(200), Boom(code: 4))])
    }

    @Test func coldReentrantRequestFromInsideAValueKeepsOrder() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("(abc)|", tick: tick)
        var subscriber: TestSubscriber<String, Never>!
        subscriber = TestSubscriber<String, Never>(initialDemand: .max(1), onValue: { _ in
            subscriber.request(.max(1))
            return .none
        })
        cold.subscribe(subscriber)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.values == ["a", "b", "c"])
        #expect(subscriber.completion == .finished)
    }

    @Test func hotRunsWhoeverListensAndLateSubscribersMissThePast() {
        let scheduler = DispatchQueue.test
        let hot = scheduler.hot("-a-b-c|", tick: tick)
        let early = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        let late = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(early.timeline.values == ["a", "b", "c"])
        #expect(late.timeline == [.subscription(at: .milliseconds(200)), .value(at: .milliseconds(300), "b"), .value(at: .milliseconds(500), "c"), .finished(at: .milliseconds(600))])
        #expect(hot.subscriptions.map(\.subscribedAt) == [.zero, .milliseconds(200)])
    }

    @Test func hotEventsBeforeTheCaretWereNeverSeen() {
        let scheduler = DispatchQueue.test
        // "^" is itself the tick at time zero: b is two ticks after it.
        let hot = scheduler.hot("a-^-b|", values: ["a": 1, "b": 2], tick: tick)
        let recorder = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .milliseconds(200), 2), .finished(at: .milliseconds(300))])
    }

    @Test func hotDropsValuesWithoutDemandLikeASubjectAndKeepsTheSubjectsDescription() {
        let scheduler = DispatchQueue.test
        let hot = scheduler.hot("ab|", tick: tick)
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1))
        hot.subscribe(subscriber)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.events == [.subscription("PassthroughSubject"), .value("a"), .completion(.finished)])
        // The subscription ended when the hot source finished, at 200 ms; a cancel afterwards
        // does not move its end.
        subscriber.cancel()
        #expect(hot.subscriptions == [SubscriptionInterval(subscribedAt: .zero, endedAt: .milliseconds(200), by: .finished)])
    }

    @Test func badSourceDiagramsAreTestFailuresAtTheCaller() {
        let scheduler = DispatchQueue.test
        let line = #line + 2
        let (publishers, failures) = TestFailure.capturingFailures { () -> (ColdMarblePublisher<String, Never>, HotMarblePublisher<String, Never>, ColdMarblePublisher<Int, Never>) in
            (scheduler.cold("^-a|"), scheduler.hot("-a-!"), scheduler.cold("-x", values: ["a": 1]))
        }
        #expect(failures.map(\.message) == [
            "marble diagram: a cold diagram starts when it is subscribed to; \"^\" belongs in hot diagrams\n  ^-a|\n  ^",
            "marble diagram: \"!\" (the subscriber's cancel) belongs in expected diagrams, not in a source\n  -a-!\n     ^",
            "marble diagram: no value for \"x\" in the values dictionary\n  -x\n   ^",
        ])
        #expect(failures.allSatisfy { $0.fileID == #fileID && $0.line == line })
        #expect(publishers.0.diagram?.events.isEmpty == true)
        #expect(publishers.0.timeline.isEmpty && publishers.1.timeline.isEmpty && publishers.2.timeline.isEmpty)
    }
}
