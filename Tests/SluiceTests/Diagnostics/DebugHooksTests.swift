import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Live subscriptions made from this file (other suites may be subscribing in parallel).
private func liveHere() -> [DebugHooks.LiveSubscription] {
    DebugHooks.liveSubscriptions.filter { $0.site.fileID.description == #fileID }
}

/// The error this file's failure-handler tests send. `DebugHooks.failureHandler` is global and
/// suites run in parallel: the handlers here keep only failures carrying this error, never
/// another suite's (a hand-made `Subscribers.Sink` failing elsewhere has no site to tell it by).
private struct HookProbe: Error, CustomStringConvertible {
    let code: Int
    var description: String { "HookProbe(\(code))" }
}

private final class Model {
    var value = 0
    var text = ""
}

@Suite("DebugHooks and call sites", .serialized)
struct DebugHooksTests {
    @Test func trackedSubscriptionsStayListedUntilCancelledOrFinished() {
        DebugHooks.tracksLiveSubscriptions = true
        defer { DebugHooks.tracksLiveSubscriptions = false }
        let subject = PassthroughSubject<Int, TestError>()
        let sinkLine = #line + 1
        let a = subject.trackedSink(receiveCompletion: { _ in }, receiveValue: { _ in })
        let neverLine = #line + 1
        let b = PassthroughSubject<Int, Never>().trackedSink { _ in }
        let model = Model()
        let assignLine = #line + 1
        let c = PassthroughSubject<Int, Never>().trackedAssign(to: \.value, on: model)
        #expect(liveHere().map(\.site.line) == [UInt(sinkLine), UInt(neverLine), UInt(assignLine)])
        #expect(liveHere().map(\.subscriber) == ["Sink", "Sink", "Assign Model."])
        #expect(liveHere().first?.description == "Sink at SluiceTests/DebugHooksTests.swift:\(sinkLine)")

        subject.send(completion: .finished)
        #expect(liveHere().map(\.site.line) == [UInt(neverLine), UInt(assignLine)], "finishing unlists it")
        b.cancel()
        #expect(liveHere().map(\.site.line) == [UInt(assignLine)], "cancelling unlists it")
        c.cancel()
        #expect(liveHere().isEmpty)
        _ = a
    }

    @Test func droppingTheCancellableAndSynchronousCompletionUnlist() {
        DebugHooks.tracksLiveSubscriptions = true
        defer { DebugHooks.tracksLiveSubscriptions = false }
        _ = PassthroughSubject<Int, Never>().trackedSink { _ in }
        _ = Just(1).trackedSink { _ in }
        let kept = Just(1).trackedSink { _ in }
        #expect(liveHere().isEmpty)
        _ = kept
    }

    @Test func untrackedSubscriptionsAreNotListed() {
        let before = liveHere()
        let cancellable = PassthroughSubject<Int, Never>().trackedSink { _ in }
        #expect(liveHere() == before)
        DebugHooks.tracksLiveSubscriptions = true
        cancellable.cancel()
        DebugHooks.tracksLiveSubscriptions = false
        #expect(liveHere() == before)
    }

    @Test func failuresReachingASinkAreReportedWithTheSite() {
        let reports = Log<String>()
        DebugHooks.failureHandler = { failure in
            if failure.error is HookProbe { reports.append(failure.description) }
        }
        defer { DebugHooks.failureHandler = nil }
        let subject = PassthroughSubject<Int, HookProbe>()
        var order: [String] = []
        let line = #line + 1
        let cancellable = subject.trackedSink(receiveCompletion: { _ in order.append("closure") }, receiveValue: { _ in })
        subject.send(completion: .failure(HookProbe(code: 9)))
        subject.send(completion: .failure(HookProbe(code: 10)))
        #expect(reports.all == ["Sink at SluiceTests/DebugHooksTests.swift:\(line) failed: HookProbe(9)"])
        #expect(order == ["closure"])

        let direct = Subscribers.Sink<Int, HookProbe>(receiveCompletion: { _ in }, receiveValue: { _ in })
        Fail<Int, HookProbe>(error: HookProbe(code: 2)).subscribe(direct)
        #expect(reports.all == ["Sink at SluiceTests/DebugHooksTests.swift:\(line) failed: HookProbe(9)", "Sink failed: HookProbe(2)"],
                "a hand-made Sink has no site")
        _ = cancellable
    }

    /// A failure a broken upstream sends after the end (a second one, or one after a cancel)
    /// reaches neither the closure nor the failure handler.
    @Test func aFailureAfterTheEndIsNotReported() {
        let reports = Log<String>()
        DebugHooks.failureHandler = { failure in
            if failure.error is HookProbe { reports.append(failure.description) }
        }
        defer { DebugHooks.failureHandler = nil }
        var completions: [String] = []
        let twice = Subscribers.Sink<Int, HookProbe>(receiveCompletion: { _ in completions.append("twice") },
                                                     receiveValue: { _ in })
        twice.receive(subscription: Subscriptions.empty)
        twice.receive(completion: .failure(HookProbe(code: 3)))
        twice.receive(completion: .failure(HookProbe(code: 4)))
        let cancelled = Subscribers.Sink<Int, HookProbe>(receiveCompletion: { _ in completions.append("cancelled") },
                                                         receiveValue: { _ in })
        cancelled.receive(subscription: Subscriptions.empty)
        cancelled.cancel()
        cancelled.receive(completion: .failure(HookProbe(code: 5)))
        #expect(reports.all == ["Sink failed: HookProbe(3)"])
        #expect(completions == ["twice"])
    }

    @Test func finishedIsNotAFailure() {
        let reports = Log<String>()
        DebugHooks.failureHandler = { if $0.site?.fileID.description == #fileID { reports.append($0.description) } }
        defer { DebugHooks.failureHandler = nil }
        _ = Empty<Int, TestError>().trackedSink(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(reports.all.isEmpty)
    }

    @Test func aHelperCanPassItsCallersSiteOn() {
        DebugHooks.tracksLiveSubscriptions = true
        defer { DebugHooks.tracksLiveSubscriptions = false }
        func subscribeLogged<P: Publisher>(_ p: P, fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable
            where P.Failure == Never {
            p.trackedSink(receiveValue: { _ in }, fileID: fileID, line: line)
        }
        let line = #line + 1
        let cancellable = subscribeLogged(PassthroughSubject<Int, Never>())
        #expect(liveHere().map(\.site.line) == [UInt(line)])
        cancellable.cancel()
    }

    @Test func sinkAndAssignResolveAsInCombine() {
        // Every spelling of Combine's sink and assign still compiles and behaves the same.
        let subject = PassthroughSubject<Int, Never>()
        var log: [String] = []
        let c1 = subject.sink { log.append("trailing \($0)") }
        let c2 = subject.sink(receiveValue: { log.append("labelled \($0)") })
        let c3 = subject.sink(receiveCompletion: { _ in log.append("done") }) { log.append("mixed \($0)") }
        let c4 = subject.sink { _ in log.append("done2") } receiveValue: { log.append("multiple \($0)") }
        // As function values they have Combine's exact types.
        let valueOnly: (@escaping (Int) -> Void) -> AnyCancellable = subject.sink(receiveValue:)
        let both: (@escaping (Subscribers.Completion<Never>) -> Void, @escaping (Int) -> Void) -> AnyCancellable =
            subject.sink(receiveCompletion:receiveValue:)
        let c5 = valueOnly { log.append("reference \($0)") }
        let c6 = both({ _ in }, { log.append("reference2 \($0)") })
        let model = Model()
        let assign: (ReferenceWritableKeyPath<Model, Int>, Model) -> AnyCancellable = subject.assign(to:on:)
        let c7 = assign(\.value, model)
        let c8 = subject.map { "\($0)" }.assign(to: \.text, on: model)
        subject.send(4)
        subject.send(completion: .finished)
        #expect(log == ["trailing 4", "labelled 4", "mixed 4", "multiple 4", "reference 4", "reference2 4", "done", "done2"])
        #expect(model.value == 4 && model.text == "4")
        // A failing publisher offers only the two-closure form, as in Combine.
        let failing = PassthroughSubject<Int, TestError>()
        let c9 = failing.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        withExtendedLifetime((c1, c2, c3, c4, c5, c6, c7, c8, c9)) {}
    }

    /// Combine's own `sink` and `assign(to:on:)` record nothing: only the tracked spellings do.
    @Test func combinesSinkAndAssignAreNeverTracked() {
        DebugHooks.tracksLiveSubscriptions = true
        defer { DebugHooks.tracksLiveSubscriptions = false }
        let model = Model()
        let a = PassthroughSubject<Int, Never>().sink { _ in }
        let b = PassthroughSubject<Int, TestError>().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        let c = PassthroughSubject<Int, Never>().assign(to: \.value, on: model)
        #expect(liveHere().isEmpty)
        withExtendedLifetime((a, b, c)) {}
    }

    @Test func functionValueSinksAreNotTrackedWithAWrongSite() {
        DebugHooks.tracksLiveSubscriptions = true
        defer { DebugHooks.tracksLiveSubscriptions = false }
        let subject = PassthroughSubject<Int, Never>()
        let reference = subject.sink(receiveValue:)
        let cancellable = reference { _ in }
        #expect(DebugHooks.liveSubscriptions.allSatisfy { !$0.site.fileID.description.hasPrefix("Sluice/") })
        cancellable.cancel()
    }

    @Test func callSiteEqualityAndDescription() {
        let here = CallSite()
        #expect(here == CallSite(fileID: #fileID, line: #line - 1))
        #expect(here != CallSite(fileID: #fileID, line: 1))
        #expect(here.description == "SluiceTests/DebugHooksTests.swift:\(#line - 3)")
        #expect(Set([here, CallSite(fileID: #fileID, line: here.line)]).count == 1)
    }
}
