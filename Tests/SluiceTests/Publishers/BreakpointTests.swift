import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
import Foundation

// A closure that returns true raises SIGTRAP, which ends the test process, so only the paths
// where every closure returns false are run here.
@Suite("Breakpoint")
struct BreakpointTests {
    @Test func passesEverythingThroughAndAsksTheClosures() {
        let upstream = TestPublisher<Int, TestError>()
        let log = EventLog()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), onValue: { _ in .max(3) })
        upstream.breakpoint(
            receiveSubscription: { log.append("subscription \($0)"); return false },
            receiveOutput: { log.append("output \($0)"); return false },
            receiveCompletion: { log.append("completion \($0)"); return false }
        ).subscribe(subscriber)
        #expect(upstream.send(1) == .max(3))
        subscriber.request(.max(2))
        upstream.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .completion(.failure(TestError()))])
        #expect(upstream.demandLog == [.requested(.max(1)), .requested(.max(2))])
        #expect(log.entries == ["subscription TestSubscription", "output 1", "completion failure(TestError(1))"])
    }

    @Test func withoutClosuresItIsAPlainPassThrough() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.breakpoint().subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(2))
        #expect(subscriber.events == [.subscription("1...3"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    @Test func breakpointOnErrorStopsOnlyForFailures() throws {
        let publisher = TestPublisher<Int, TestError>().breakpointOnError()
        #expect(publisher.receiveSubscription == nil)
        #expect(publisher.receiveOutput == nil)
        let receiveCompletion = try #require(publisher.receiveCompletion)
        #expect(receiveCompletion(.finished) == false)
        #expect(receiveCompletion(.failure(TestError())) == true)
    }

    @Test func breakpointOnErrorLetsValuesAndFinishThrough() {
        let subscriber = TestSubscriber<Int, Never>()
        (1...3).publisher.breakpointOnError().subscribe(subscriber)
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions == [.finished])
    }

    @Test func forwardsCancelAndCancelFromInsideReceive() {
        let upstream = TestPublisher<Int, Never>()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 2 { subscription?.cancel() }
                return .none
            })
        upstream.breakpoint(receiveOutput: { _ in false }).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        #expect(subscriber.values == [1, 2])
    }

    @Test func theUpstreamSeesAnInnerNamedBreakpoint() {
        let probe = SubscriberProbe<Int, Never>()
        probe.breakpoint().subscribe(TestSubscriber<Int, Never>())
        #expect(probe.descriptions == ["Breakpoint"])
        #expect(probe.mirrorLabels == [])
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            subject.breakpoint(receiveOutput: { _ in false }).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func concurrentSendsThroughASubjectLoseNothing() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.breakpoint(receiveOutput: { $0 < 0 }).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<500 { subject.send(thread * 500 + i) }
                }
            }
        }
        #expect(Set(subscriber.values) == Set(0..<4_000))
        #expect(!subscriber.sawConcurrentSignals)
    }
}

/// Without a debugger, a breakpoint that fires ends the process with `SIGTRAP`, as Combine's
/// does (on Linux the runtime's backtracer would otherwise report the signal and carry on).
@Suite("Breakpoint without a debugger")
struct BreakpointSignalTests {
    @Test func aFiringBreakpointEndsTheProcessWithSIGTRAP() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            _ = Just(1).breakpoint(receiveOutput: { _ in true }).sink { _ in }
            print("carried on after the breakpoint")
        }
    }
}
