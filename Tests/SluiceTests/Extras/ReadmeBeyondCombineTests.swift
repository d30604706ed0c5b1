import Testing
import XCTest
import Foundation
import Observation
import Sluice
import SluiceExtras
import SluiceSchedulers

// The examples of the README's "Beyond Combine (SluiceExtras)" section, exactly as written there:
// their imports are this file's, their declarations are at file scope here, and their statements
// are the first lines of the test named after them; what follows them checks what their comments
// say.

// From the retry example.
struct Unreachable: Error {}

// From the Observation example.
@Observable final class Thermostat {
    var target = 20
}

// The main-actor example.
@MainActor
final class FeedViewModel {
    var items: [String] = []
    var title = ""
    private var cancellables: Set<AnyCancellable> = []

    init(feed: some Publisher<[String], Never>, titles: some Publisher<String, Never>) {
        feed.sinkOnMainActor { [weak self] items in self?.items = items }   // main-actor state, checked
            .store(in: &cancellables)
        titles.assignOnMainActor(to: \.title, on: self)                      // held weakly: no cycle
            .store(in: &cancellables)
    }
}

// From the live-subscriptions example.
final class Player {
    var position = 0
    var cancellable: AnyCancellable?
}

@Suite("README: Beyond Combine (SluiceExtras)")
struct ReadmeBeyondCombineTests {
    @Test func withLatestFrom() {
        let taps = PassthroughSubject<Void, Never>()
        let text = CurrentValueSubject<String, Never>("")
        var submitted: [String] = []
        let cancellable = taps.withLatestFrom(text).sink { submitted.append($0) }
        text.send("hel")
        text.send("hello")
        taps.send()          // submitted == ["hello"]
        text.send("hello!")  // nothing: only a tap sends

        #expect(submitted == ["hello"])
        withExtendedLifetime(cancellable) {}
    }

    @Test func retryAfterADelay() {
        let scheduler = DispatchQueue.test
        var subscriptions = 0
        var completion: Subscribers.Completion<Unreachable>?
        let cancellable = Deferred { () -> Fail<String, Unreachable> in
            subscriptions += 1
            return Fail(error: Unreachable())
        }
        .retry(3, delay: { attempt in .seconds(1 << (attempt - 1)) }, scheduler: scheduler)   // 1 s, 2 s, then 4 s
        .sink(receiveCompletion: { completion = $0 }, receiveValue: { _ in })
        scheduler.advance(by: .seconds(1))   // subscriptions == 2
        scheduler.advance(by: .seconds(2))   // subscriptions == 3
        scheduler.advance(by: .seconds(4))   // subscriptions == 4, and completion is the failure

        #expect(subscriptions == 4)
        guard case .failure? = completion else {
            Issue.record("expected the failure, got \(String(describing: completion))")
            return
        }
        withExtendedLifetime(cancellable) {}
    }
}

/// The examples that need the main queue drained (XCTest runs on the main thread on Linux).
final class ReadmeBeyondCombineMainQueueTests: XCTestCase {
    func testObservation() {
        MainActor.assumeIsolated {
            let thermostat = Thermostat()
            var targets: [Int] = []
            let cancellable = Publishers.Observed(on: DispatchQueue.main) { thermostat.target }
                .sink { targets.append($0) }
            // targets == [20] at once
            thermostat.target = 22
            // targets == [20] still; [20, 22] once the main queue has run the read the change scheduled

            XCTAssertEqual(targets, [20])
            runMainLoop(until: { targets.count == 2 })
            XCTAssertEqual(targets, [20, 22])
            withExtendedLifetime(cancellable) {}
        }
    }

    func testMainActorViewModel() {
        MainActor.assumeIsolated {
            let feed = PassthroughSubject<[String], Never>()
            let titles = PassthroughSubject<String, Never>()
            var model: FeedViewModel? = FeedViewModel(feed: feed, titles: titles)
            weak let watched = model
            titles.send("News")
            XCTAssertEqual(model?.title, "News")
            DispatchQueue.global().async { feed.send(["a", "b"]) }
            runMainLoop(until: { model?.items.count == 2 })
            XCTAssertEqual(model?.items, ["a", "b"])
            model = nil
            XCTAssertNil(watched, "the model keeps its cancellables, and nothing keeps the model")
        }
    }
}

extension DebugHooksTests {
    /// The examples that switch `DebugHooks`' process-wide state, serialized with the other
    /// suites that do.
    @Suite("README: Beyond Combine, the DebugHooks examples")
    struct ReadmeDebugHooksExamples {
        @Test func brokenUpstreams() {
            DebugHooks.signalViolationHandler = { violation in print(violation) }
            DebugHooks.signalChecks = .brokenUpstreams   // checks the tracked subscribers made from now on
            let prices = PassthroughSubject<Double, Never>()
            let cancellable = prices.trackedSink { print($0) }
            // An upstream calling this sink from two threads at once would print
            // "Sink at App/Prices.swift:6: value 3.5 arrived while another thread was still delivering to the subscriber"

            #expect(DebugHooks.signalChecks == [.concurrentCalls, .valuesBeyondDemand, .signalsAfterCompletion])
            prices.send(3.5)
            cancellable.cancel()
            DebugHooks.signalChecks = []
            DebugHooks.signalViolationHandler = nil
        }

        @Test func whereAreMySubscriptions() {
            DebugHooks.tracksLiveSubscriptions = true
            let ticks = PassthroughSubject<Int, Never>()
            var player: Player? = Player()
            player?.cancellable = ticks.trackedAssign(to: \.position, on: player!)   // the player holds itself
            weak let leaked = player
            player = nil
            if let leaked {
                print(DebugHooks.liveSubscriptions(retaining: leaked))   // [Assign Player. at App/Player.swift:12]
            }

            defer { DebugHooks.tracksLiveSubscriptions = false }
            guard let alive = leaked else {
                Issue.record("the player was freed: there was no cycle to find")
                return
            }
            #expect(DebugHooks.liveSubscriptions(retaining: alive).map(\.subscriber) == ["Assign Player."])
            alive.cancellable = nil
        }
    }
}
