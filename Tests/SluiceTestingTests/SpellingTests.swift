import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Issue 24, "small friction": one spelling of the initial demand, and typed-failure marble
/// publishers that need no empty errors dictionary.
@Suite("Spellings")
struct SpellingTests {
    @Test func initialDemandIsSpelledOneWayForEverySubscriberAndRecorder() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("ab|", tick: .seconds(1))
        // A publisher that cannot fail takes the same spelling as any other, with onValue.
        var asked = 0
        let subscriber = TestSubscriber<String, Never>(initialDemand: .max(1), onValue: { _ in
            asked += 1
            return asked == 1 ? .max(1) : .none
        })
        cold.subscribe(subscriber)
        let failing = TestSubscriber<String, Boom>(initialDemand: .none)
        let recorder = cold.recordTimeline(on: scheduler, initialDemand: .max(1))
        let manual = TimelineRecorder<String, Never>(scheduler: scheduler, initialDemand: .none)
        cold.subscribe(manual)
        scheduler.advance(by: .seconds(5))
        #expect(subscriber.values == ["a", "b"])
        #expect(failing.history.isEmpty)
        #expect(recorder.timeline.values == ["a"])
        #expect(manual.timeline.values == [])
        #expect(TestSubscriber<Int, Never>().history.isEmpty, "the defaults still resolve without ambiguity")
    }

    @Test func theEarlierSpellingsStillCompileAndBehaveTheSame() {
        // Called through a protocol so that this file builds without deprecation warnings.
        let (subscriber, recorder, second) = (EarlierSpellings() as any MakesSubscribers).make(on: DispatchQueue.test)
        #expect(subscriber.history == [.subscription("PassthroughSubject")], "no demand, as asked")
        #expect(recorder.timeline.values == [])
        #expect(second.timeline.values == [])
    }

    @Test func aTypedFailureColdPublisherNeedsNoEmptyErrorsDictionary() {
        let scheduler = DispatchQueue.test
        // From the context: a search that can fail, written without "#".
        let search: (String) -> AnyPublisher<[String], URLError> = { query in
            scheduler.cold("--r|", values: ["r": ["\(query) result"]], tick: .milliseconds(100)).eraseToAnyPublisher()
        }
        let recorder = search("swift").recordTimeline(on: scheduler)
        // Or named, where nothing else says it.
        let named = scheduler.cold("-a|", values: ["a": 1], failure: Boom.self, tick: .milliseconds(100))
        let hot = scheduler.hot("-a|", values: ["a": 1], failure: Boom.self, tick: .milliseconds(100))
        let namedRecorder = named.recordTimeline(on: scheduler)
        let hotRecorder = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .milliseconds(200), ["swift result"]),
                                      .finished(at: .milliseconds(300))])
        #expect(namedRecorder.timeline.completion == .finished)
        #expect(hotRecorder.timeline.values == [1])
        let _: ColdMarblePublisher<Int, Never> = scheduler.cold("-a|", values: ["a": 1], tick: .milliseconds(100))
    }
}

private protocol MakesSubscribers {
    func make(on scheduler: TestSchedulerOf<DispatchQueue>)
        -> (TestSubscriber<Int, Never>, TimelineRecorder<Int, Never>, TimelineRecorder<Int, Never>)
}

private struct EarlierSpellings: MakesSubscribers {
    @available(*, deprecated)
    func make(on scheduler: TestSchedulerOf<DispatchQueue>)
        -> (TestSubscriber<Int, Never>, TimelineRecorder<Int, Never>, TimelineRecorder<Int, Never>)
    {
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(demand: .none)
        upstream.subscribe(subscriber)
        let recorder = TimelineRecorder<Int, Never>(scheduler: scheduler, demand: .none)
        upstream.subscribe(recorder)
        let second = upstream.recordTimeline(on: scheduler, demand: .none)
        upstream.send(1)
        return (subscriber, recorder, second)
    }
}
