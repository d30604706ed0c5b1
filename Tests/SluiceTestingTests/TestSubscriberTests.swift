import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("TestSubscriber")
struct TestSubscriberTests {
    @Test func historyListsRequestsAndTheCancelBesideTheSignals() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.subscribe(subscriber)
        upstream.send(1)
        subscriber.request(.max(2))
        upstream.send(2)
        subscriber.cancel()
        #expect(subscriber.history == [.subscription("TestSubscription"), .request(.max(1)), .value(1), .request(.max(2)), .value(2), .cancel])
        #expect(subscriber.history.map(\.description) == ["subscription(TestSubscription)", "request(max(1))", "value(1)", "request(max(2))", "value(2)", "cancel"])
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .value(2)], "events stay signals only")
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(2)), .cancelled])
    }

    @Test func noDemandAtAllUntilTheTestAsks() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("ab|", tick: .seconds(1))
        let subscriber = TestSubscriber<String, Never>(initialDemand: .none)
        cold.subscribe(subscriber)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.history == [.subscription("MarbleSubscription")])
        subscriber.request(.unlimited)
        #expect(subscriber.history == [.subscription("MarbleSubscription"), .request(.unlimited), .value("a"), .value("b"), .completion(.finished)])
    }

    @Test func replayAfterLateDemand() {
        // A value that is ready before anyone asks arrives when demand does: the history shows
        // which request released it.
        let subject = CurrentValueSubject<Int, Never>(7)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.history == [.subscription("CurrentValueSubject"), .request(.max(1)), .value(7)])
    }

    @Test func requestAndCancelWithoutASubscriptionDoNothing() {
        let subscriber = TestSubscriber<Int, Never>()
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(subscriber.history.isEmpty)
    }
}
