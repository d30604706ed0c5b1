import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceTesting

/// Live subscriptions made from this file (other suites may be subscribing in parallel).
private func liveHere() -> [DebugHooks.LiveSubscription] {
    DebugHooks.liveSubscriptions.filter { $0.site.fileID.description == #fileID }
}

/// A screen model that subscribes in a way that keeps itself alive: the cancellable it stores
/// holds a subscriber that holds it.
private final class LeakyScreen {
    var position = 0
    var title = ""
    var cancellables: [AnyCancellable] = []
    let positionLine: UInt
    let titleLine: UInt

    init(positions: PassthroughSubject<Int, Never>, titles: PassthroughSubject<String, Never>) {
        positionLine = #line + 2
        titleLine = #line + 2
        let assign = positions.trackedAssign(to: \.position, on: self)
        let sink = titles.trackedSink { self.title = $0 }
        cancellables = [assign, sink]
    }
}

/// Nested in `DebugHooksTests`, whose `.serialized` covers it: every suite that switches
/// `DebugHooks`' process-wide state runs one test at a time with the others.
extension DebugHooksTests {
    @Suite("Finding the subscription that keeps an object alive")
    struct LiveSubscriptionsTests {
        @Test func aCycleThroughAnAssignIsFoundInTheListByTheObjectItHolds() {
            DebugHooks.tracksLiveSubscriptions = true
            defer { DebugHooks.tracksLiveSubscriptions = false }
            let positions = PassthroughSubject<Int, Never>()
            let titles = PassthroughSubject<String, Never>()
            var screen: LeakyScreen? = LeakyScreen(positions: positions, titles: titles)
            weak let leaked = screen
            let positionLine = screen!.positionLine
            let titleLine = screen!.titleLine
            screen = nil
            // Dropped, yet alive: something holds it.
            guard let alive = leaked else {
                Issue.record("the screen was freed: no cycle to find")
                return
            }
            #expect(liveHere().map(\.site.line) == [positionLine, titleLine], "both subscriptions are listed, oldest first")
            let holding = DebugHooks.liveSubscriptions(retaining: alive)
            #expect(holding.map(\.description) == ["Assign LeakyScreen. at SluiceTests/LiveSubscriptionsTests.swift:\(positionLine)"])
            #expect(liveHere().last?.retainedObject == nil, "a sink's captures cannot be seen: only its site is listed")

            // Breaking the cycle frees it, and empties the list.
            alive.cancellables.removeAll()
            withExtendedLifetime(alive) {}
            #expect(liveHere().isEmpty)
        }

        @Test func cancellingBreaksTheCycleAndTheObjectGoes() {
            DebugHooks.tracksLiveSubscriptions = true
            defer { DebugHooks.tracksLiveSubscriptions = false }
            var screen: LeakyScreen? = LeakyScreen(positions: PassthroughSubject(), titles: PassthroughSubject())
            weak let watched = screen
            for subscription in screen!.cancellables { subscription.cancel() }
            screen = nil
            #expect(watched == nil)
            #expect(liveHere().isEmpty)
        }

        @Test func anObjectNobodyHoldsIsNotInTheList() {
            DebugHooks.tracksLiveSubscriptions = true
            defer { DebugHooks.tracksLiveSubscriptions = false }
            final class Target { var value = 0 }
            let kept = Target()
            let other = Target()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.trackedAssign(to: \.value, on: kept)
            #expect(DebugHooks.liveSubscriptions(retaining: other).isEmpty)
            #expect(DebugHooks.liveSubscriptions(retaining: kept).count == 1)
            subject.send(completion: .finished)
            #expect(DebugHooks.liveSubscriptions(retaining: kept).isEmpty, "the stream ended: the object is let go")
            withExtendedLifetime(cancellable) {}
        }
    }
}
