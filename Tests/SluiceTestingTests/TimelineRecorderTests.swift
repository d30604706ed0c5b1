import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("TimelineRecorder and Timeline")
struct TimelineRecorderTests {
    @Test func recordsEachSignalAtItsVirtualTime() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Boom>()
        let recorder = TimelineRecorder(recording: subject.delay(for: .milliseconds(250), scheduler: scheduler), on: scheduler)
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(2)
        subject.send(completion: .failure(Boom(code: 3)))
        scheduler.advance(by: .seconds(1))
        #expect(recorder.timeline == [
            .subscription(at: .zero),
            .value(at: .milliseconds(250), 1),
            .value(at: .milliseconds(350), 2),
            .failure(at: .milliseconds(350), Boom(code: 3)),
        ])
        #expect(recorder.timeline.values == [1, 2])
        #expect(recorder.timeline.completion == .failure(Boom(code: 3)))
        #expect(recorder.isCompleted)
        #expect(recorder.now == .milliseconds(1100))
    }

    @Test func timesAreMeasuredFromTheSchedulersOriginNotTheRecordersCreation() {
        // Before issue 24 this recorder, made at 5 s, counted from its own creation and said
        // [0: subscription, 2 s: value x, 3 s: finished]: the scheduler's clock read 7 s and 8 s.
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .seconds(5))
        let subject = PassthroughSubject<String, Never>()
        let recorder = subject.recordTimeline(on: scheduler)
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { subject.send("x") }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(3))) { subject.send(completion: .finished) }
        scheduler.advance(by: .seconds(10))
        #expect(recorder.timeline == [.subscription(at: .seconds(5)), .value(at: .seconds(7), "x"), .finished(at: .seconds(8))])
        #expect(recorder.now == .seconds(15))
        #expect(recorder.now == scheduler.elapsed)
    }

    @Test func twoRecordersMadeAtDifferentTimesReadOneClock() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let early = subject.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(1400))
        let late = subject.recordTimeline(on: scheduler)
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(100))) { subject.send(1) }
        scheduler.advance(by: .seconds(1))
        #expect(early.timeline.last == .value(at: .milliseconds(1500), 1))
        #expect(late.timeline == [.subscription(at: .milliseconds(1400)), .value(at: .milliseconds(1500), 1)])
    }

    @Test func manualDemandAndCancelAreUnderTheTestsControl() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let recorder = TimelineRecorder<Int, Never>(scheduler: scheduler, initialDemand: .none)
        upstream.subscribe(recorder)
        scheduler.advance(by: .seconds(1))
        recorder.request(.max(2))
        upstream.send(7)
        scheduler.advance(by: .seconds(1))
        recorder.cancel()
        #expect(upstream.demandLog == [.requested(.max(2)), .cancelled])
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .seconds(1), 7), .cancel(at: .seconds(2))])
    }

    @Test func recordsWhatArrivesAfterTheEndSoMisbehaviourShows() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let recorder = upstream.recordTimeline(on: scheduler)
        upstream.send(completion: .finished)
        upstream.send(1)
        #expect(recorder.timeline == [.subscription(at: .zero), .finished(at: .zero), .value(at: .zero, 1)])
    }

    @Test func worksOnRunLoopAndOperationQueueTime() {
        for scheduler in [RunLoop.test] {
            let subject = PassthroughSubject<Int, Never>()
            let recorder = subject.debounce(for: .milliseconds(300), scheduler: scheduler).recordTimeline(on: scheduler)
            subject.send(1)
            scheduler.advance(by: .seconds(1))
            #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .milliseconds(300), 1)])
        }
        let operations = OperationQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.delay(for: .milliseconds(700), scheduler: operations).recordTimeline(on: operations)
        subject.send(1)
        operations.advance(by: .seconds(1))
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .milliseconds(700), 1)])
    }

    @Test func printsReadably() {
        let timeline: Timeline<String, Boom> = [
            .subscription(at: .zero), .value(at: .milliseconds(300), "swift"), .value(at: .milliseconds(1500), "ui"),
            .failure(at: .seconds(2), Boom(code: 2)), .cancel(at: .microseconds(2_000_250)),
        ]
        #expect(timeline.description == "[0: subscription, 300 ms: value swift, 1.5 s: value ui, 2 s: failure Boom(2), 2.00025 s: cancel]")
        #expect(Timeline<Int, Never>.Event.value(at: .nanoseconds(7), 1).description == "7 ns: value 1")
        #expect(timeline.signals.events.count == 4)
        #expect(timeline != Timeline(timeline.events.dropLast()))
    }
}
