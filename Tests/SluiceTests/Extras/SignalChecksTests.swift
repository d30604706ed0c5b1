import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceTesting

/// The reports made about subscribers written in this file (other suites may have checked
/// subscribers of their own while the checks are on).
private final class Reports: Sendable {
    private let log = Log<DebugHooks.SignalViolation>()
    func append(_ violation: DebugHooks.SignalViolation) {
        if violation.site.fileID.description == #fileID { log.append(violation) }
    }
    var all: [DebugHooks.SignalViolation] { log.all }
    var kinds: [DebugHooks.SignalViolation.Kind] { all.map(\.kind) }
}

/// Runs `body` with `checks` on and the reports collected (the handler is installed first and
/// removed last, so that no report in between stops the process).
private func withSignalChecks(_ checks: DebugHooks.SignalChecks, _ body: (Reports) -> Void) {
    let reports = Reports()
    DebugHooks.signalViolationHandler = { reports.append($0) }
    DebugHooks.signalChecks = checks
    defer {
        DebugHooks.signalChecks = []
        DebugHooks.signalViolationHandler = nil
    }
    body(reports)
}

/// Nested in `DebugHooksTests`, whose `.serialized` covers it: every suite that switches
/// `DebugHooks`' process-wide state runs one test at a time with the others.
extension DebugHooksTests {
    @Suite("DebugHooks.signalChecks: broken upstreams")
    struct SignalChecksTests {
        @Test func aValueBeyondTheSubscribersDemandIsReportedWithItsCallSite() {
            withSignalChecks(.brokenUpstreams) { reports in
                let upstream = TestPublisher<Int, TestError>()
                let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
                let line = #line + 1
                upstream.trackedSubscribe(subscriber)
                upstream.send(1)
                upstream.send(2)
                #expect(reports.kinds == [.valueBeyondDemand])
                #expect(reports.all.first?.description
                            == "TestSubscriber<Int, TestError> at SluiceTests/SignalChecksTests.swift:\(line): value 2 arrived beyond the subscriber's demand")
                #expect(subscriber.values == [1, 2], "the signal is still passed on, as it would be unchecked")
                subscriber.request(.max(1))
                upstream.send(3)
                #expect(reports.kinds == [.valueBeyondDemand], "within the demand granted later")
            }
        }

        @Test func aValueBeforeASinkHasAskedIsBeyondItsDemand() {
            withSignalChecks(.brokenUpstreams) { reports in
                let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
                var received: [Int] = []
                let line = #line + 1
                let cancellable = upstream.trackedSink { received.append($0) }
                upstream.send(1)
                upstream.sendSubscription()
                upstream.send(2)
                #expect(reports.all.map(\.description) == ["Sink at SluiceTests/SignalChecksTests.swift:\(line): value 1 arrived beyond the subscriber's demand"])
                cancellable.cancel()
            }
        }

        @Test func signalsAfterTheCompletionAreReported() {
            withSignalChecks(.brokenUpstreams) { reports in
                let values = TestPublisher<Int, Never>()
                let model = AssignTarget()
                let cancellable = values.trackedAssign(to: \.value, on: model)
                values.send(completion: .finished)
                values.send(1)
                let failures = TestPublisher<Int, TestError>()
                let subscriber = TestSubscriber<Int, TestError>()
                failures.trackedSubscribe(subscriber)
                failures.send(completion: .finished)
                failures.send(completion: .failure(TestError(code: 3)))
                #expect(reports.all.map(\.subscriber) == ["Assign AssignTarget.", "TestSubscriber<Int, TestError>"])
                #expect(reports.all.map(\.signal) == ["value 1", "failure(TestError(3))"])
                #expect(reports.kinds == [.signalAfterCompletion, .signalAfterCompletion])
                #expect(model.value == 0, "the assign ignores it, as it would unchecked")
                cancellable.cancel()
            }
        }

        @Test func aSubscriberCalledFromTwoThreadsAtOnceIsReported() {
            withSignalChecks(.brokenUpstreams) { reports in
                let upstream = TestPublisher<Int, Never>()
                let firstInside = DispatchSemaphore(value: 0)
                let secondArrived = DispatchSemaphore(value: 0)
                let line = #line + 1
                let cancellable = upstream.trackedSink { value in
                    // The first value waits, inside the sink, for the second to arrive.
                    if value == 1 {
                        firstInside.signal()
                        _ = secondArrived.wait(timeout: .now() + 10)
                    } else {
                        secondArrived.signal()
                    }
                }
                Stress.runOnThreads(2) { thread in
                    if thread == 0 {
                        upstream.send(1)
                    } else {
                        _ = firstInside.wait(timeout: .now() + 10)
                        upstream.send(2)
                    }
                }
                #expect(reports.kinds == [.concurrentCall])
                #expect(reports.all.first?.description
                            == "Sink at SluiceTests/SignalChecksTests.swift:\(line): value 2 arrived while another thread was still delivering to the subscriber")
                cancellable.cancel()
            }
        }

        @Test func nestedCallsAreReportedOnlyWhenAskedFor() {
            for checks in [DebugHooks.SignalChecks.brokenUpstreams, .all] {
                withSignalChecks(checks) { reports in
                    let subject = PassthroughSubject<Int, Never>()
                    var received: [Int] = []
                    let cancellable = subject.trackedSink { value in
                        received.append(value)
                        if value == 1 { subject.send(2) }   // allowed by Combine: delivered nested
                    }
                    subject.send(1)
                    #expect(received == [1, 2])
                    #expect(reports.kinds == (checks.contains(.reentrantCalls) ? [.reentrantCall] : []))
                    cancellable.cancel()
                }
            }
        }

        @Test func aWellBehavedChainReportsNothingWithEveryCheckOn() {
            withSignalChecks(.all) { reports in
                var received: [Int] = []
                let subject = PassthroughSubject<Int, Never>()
                let a = (0..<100).publisher.trackedSink { received.append($0) }
                let b = subject.map { $0 * 2 }.trackedSink { received.append($0) }
                Stress.runOnThreads(4) { thread in
                    for index in 0..<200 { subject.send(Stress.tag(thread, index)) }
                }
                #expect(received.count == 100 + 800)
                #expect(reports.all.isEmpty)
                withExtendedLifetime((a, b)) {}
            }
        }

        @Test func withTheChecksOffNothingIsCheckedAndTurningThemOffSilencesCheckedSubscribers() {
            let reports = Reports()
            DebugHooks.signalViolationHandler = { reports.append($0) }
            defer { DebugHooks.signalViolationHandler = nil }
            let upstream = TestPublisher<Int, TestError>()
            let unchecked = TestSubscriber<Int, TestError>(initialDemand: .max(1))
            upstream.trackedSubscribe(unchecked)
            upstream.send(1)
            upstream.send(2)
            #expect(reports.all.isEmpty)
            #expect(unchecked.subscriptionNames == ["TestSubscription"], "with the checks off the subscriber is subscribed directly")

            DebugHooks.signalChecks = .brokenUpstreams
            let other = TestPublisher<Int, TestError>()
            let checked = TestSubscriber<Int, TestError>(initialDemand: .max(1))
            other.trackedSubscribe(checked)
            DebugHooks.signalChecks = []
            other.send(1)
            other.send(2)
            #expect(reports.all.isEmpty)
        }

        @Test func withoutAHandlerAViolationStopsTheProcess() async {
            await #expect(processExitsWith: .failure) {
                DebugHooks.signalChecks = .brokenUpstreams
                let upstream = TestPublisher<Int, Never>()
                let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
                upstream.trackedSubscribe(subscriber)
                upstream.send(1)
                upstream.send(2)
            }
        }
    }
}

private final class AssignTarget {
    var value = 0
}
