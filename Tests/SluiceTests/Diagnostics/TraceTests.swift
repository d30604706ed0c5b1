import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Waits (with a generous bound) for a semaphore signalled from a queue.
func waitFor(_ semaphore: DispatchSemaphore, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(semaphore.wait(timeout: .now() + 10) == .success, "timed out", sourceLocation: sourceLocation)
}

@Suite("trace")
struct TraceTests {
    @Test func recordsEverySignalInOrderWithItsLabel() {
        let log = TraceLog()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), onValue: { _ in .max(1) })
        upstream.trace("t", to: log).subscribe(subscriber)
        upstream.send(1)
        subscriber.request(.max(2))
        upstream.send(completion: .failure(TestError(code: 7)))
        #expect(log.entries.map(\.signal) == [
            .subscription("TestSubscription"), .request(.max(1)), .value("1"), .request(.max(1)),
            .request(.max(2)), .failure("TestError(7)"),
        ])
        #expect(log.entries.allSatisfy { $0.label == "t" })
        #expect(subscriber.events == [.subscription("HandleEvents"), .value(1), .completion(.failure(TestError(code: 7)))])
    }

    @Test func recordsCancelAndFinished() {
        let log = TraceLog()
        let upstream = TestPublisher<Int, Never>()
        let cancellable = upstream.trace("a", to: log).sink { _ in }
        upstream.send(5)
        cancellable.cancel()
        let finished = Just(2).trace("b", to: log).sink { _ in }
        #expect(log.entries(labelled: "a").map(\.signal.description) == ["subscription", "request unlimited", "value 5", "cancel"])
        #expect(log.entries(labelled: "b").map(\.signal.description) == ["subscription", "request unlimited", "value 2", "finished"])
        _ = finished
    }

    @Test func seed000SubscribeOnMovesTheSequencesWorkToTheQueue() {
        let log = TraceLog()
        let work = DispatchQueue(label: "work")
        let done = DispatchSemaphore(value: 0)
        let cancellable = [1, 2].publisher
            .trace("sequence", to: log)
            .subscribe(on: work)
            .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { _ in })
        waitFor(done)
        #expect(log.descriptions == [
            "sequence: subscription on work", "sequence: request unlimited on work",
            "sequence: value 1 on work", "sequence: value 2 on work", "sequence: finished on work",
        ])
        #expect(log.entries.allSatisfy { !$0.isMainThread && $0.thread == "background" })
        cancellable.cancel()
    }

    @Test func traceOnBothSidesOfReceiveOnShowsWhatMoves() {
        let log = TraceLog()
        let work = DispatchQueue(label: "work")
        let delivery = DispatchQueue(label: "delivery")
        let done = DispatchSemaphore(value: 0)
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject
            .trace("before", to: log)
            .receive(on: delivery)
            .trace("after", to: log)
            .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { _ in })
        work.async {
            subject.send(1)
            subject.send(completion: .finished)
        }
        waitFor(done)
        #expect(log.entries(labelled: "before").filter { $0.signal == .value("1") || $0.signal == .finished }
            .map(\.description) == ["before: value 1 on work", "before: finished on work"])
        #expect(log.entries(labelled: "after").filter { $0.signal == .value("1") || $0.signal == .finished }
            .map(\.description) == ["after: value 1 on delivery", "after: finished on delivery"])
        cancellable.cancel()
    }

    @Test func contextDescriptionAndConcurrentRecording() {
        #expect(ExecutionContext(isMainThread: false, queueLabel: "").description == "background")
        #expect(ExecutionContext(isMainThread: false, queueLabel: "q").description == "q")
        #expect(ExecutionContext(isMainThread: true, queueLabel: "q").description == "main")
        let log = TraceLog()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for j in 0..<100 { log.record(.value("\(i)-\(j)"), label: "c") }
        }
        #expect(log.entries.count == 800)
        #expect(Set(log.entries.map(\.signal)).count == 800)
        log.removeAll()
        #expect(log.entries.isEmpty)
    }
}
