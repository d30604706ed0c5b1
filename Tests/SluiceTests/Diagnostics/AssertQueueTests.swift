import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Installs a recording queue-assertion handler for the duration of `body`.
private func capturingQueueFailures(_ body: () -> Void) -> [DebugHooks.QueueAssertionFailure] {
    let failures = Log<DebugHooks.QueueAssertionFailure>()
    let previous = DebugHooks.queueAssertionHandler
    DebugHooks.queueAssertionHandler = { failures.append($0) }
    defer { DebugHooks.queueAssertionHandler = previous }
    body()
    return failures.all
}

/// Runs `[1].publisher` through a chain built by `build` and waits for it to finish.
private func runChain<P: Publisher>(_ build: (AnyPublisher<Int, Never>) -> P) where P.Failure == Never {
    let done = DispatchSemaphore(value: 0)
    let cancellable = build([1].publisher.eraseToAnyPublisher())
        .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { _ in })
    waitFor(done)
    cancellable.cancel()
}

@Suite("assertQueue and assertMainThread", .serialized)
struct AssertQueueTests {
    @Test func passesWhenEverySignalArrivesOnTheQueue() {
        let failures = capturingQueueFailures {
            runChain { $0.receive(on: DispatchQueue(label: "work")).assertQueue("work") }
        }
        #expect(failures.isEmpty)
    }

    @Test func failsNamingTheSignalTheQueuesAndTheCallSite() throws {
        let line = #line + 2
        let failures = capturingQueueFailures {
            runChain { $0.receive(on: DispatchQueue(label: "work")).assertQueue("render") }
        }
        #expect(failures.map(\.signal) == ["value 1", "finished"])
        let first = try #require(failures.first)
        #expect(first.expected == "queue \"render\"")
        #expect(first.actual.queueLabel == "work")
        #expect(!first.actual.isMainThread)
        #expect(first.site == CallSite(fileID: #fileID, line: UInt(line)))
        #expect(first.description ==
            "SluiceTests/AssertQueueTests.swift:\(line): assertQueue failed: value 1 arrived on queue \"work\" off the main thread; expected queue \"render\"")
    }

    @Test func seed004MovingTheHopOneStepEarlierTripsTheRightAssertion() {
        let decodeQueue = DispatchQueue(label: "decode")
        let renderQueue = DispatchQueue(label: "render")
        // Correct chain: decode work on "decode", rendering on "render".
        let good = capturingQueueFailures {
            runChain {
                $0.receive(on: decodeQueue).assertQueue("decode").map { $0 * 2 }
                    .receive(on: renderQueue).assertQueue("render").map { $0 + 1 }
            }
        }
        #expect(good.isEmpty)
        // The second hop moved before the first assertion: that assertion is the one that fails.
        let decodeLine = #line + 4
        let moved = capturingQueueFailures {
            runChain {
                $0.receive(on: decodeQueue).receive(on: renderQueue)
                    .assertQueue("decode").map { $0 * 2 }
                    .assertQueue("render").map { $0 + 1 }
            }
        }
        #expect(moved.map(\.site.line) == [UInt(decodeLine), UInt(decodeLine)])
        #expect(moved.map(\.actual.queueLabel) == ["render", "render"])
    }

    @Test func assertMainThreadFailsOffTheMainThread() {
        let failures = capturingQueueFailures {
            runChain { $0.receive(on: DispatchQueue(label: "bg")).assertMainThread() }
        }
        #expect(failures.map(\.expected) == ["main thread", "main thread"])
        #expect(failures.first?.description.contains("arrived on queue \"bg\" off the main thread; expected main thread") == true)
    }

    @Test func failuresAreReportedForFailuresToo() {
        let upstream = TestPublisher<Int, TestError>()
        let failures = capturingQueueFailures {
            let subscriber = TestSubscriber<Int, TestError>()
            upstream.assertQueue("nowhere").subscribe(subscriber)
            upstream.send(completion: .failure(TestError(code: 3)))
            #expect(subscriber.events == [.subscription("TestSubscription"), .completion(.failure(TestError(code: 3)))])
        }
        #expect(failures.map(\.signal) == ["failure(TestError(3))"])
    }

    @Test func aCheckPassesSignalsAndDemandThroughUnchanged() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(2) })
        _ = capturingQueueFailures {
            upstream.assertQueue("elsewhere").subscribe(subscriber)
            #expect(upstream.send(1) == .max(2))
            subscriber.cancel()
        }
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1)])
    }

    @Test func disabledChecksAddNothing() {
        let failures = capturingQueueFailures {
            runChain { $0.receive(on: DispatchQueue(label: "work")).assertQueue("render", enabled: false) }
            runChain { $0.receive(on: DispatchQueue(label: "work")).assertMainThread(enabled: false) }
        }
        #expect(failures.isEmpty)
        // The upstream is handed the downstream subscriber itself: nothing in between.
        let upstream = SubscriberNamingPublisher()
        _ = upstream.assertQueue("render", enabled: false).sink { _ in }
        _ = upstream.assertMainThread(enabled: false).sink { _ in }
        _ = upstream.assertQueue("render", enabled: true).sink { _ in }
        #expect(upstream.subscribers == ["Sink", "Sink", "AssertQueue"])
    }

    @Test func enabledTrueChecksInEveryBuild() {
        let failures = capturingQueueFailures {
            runChain { $0.receive(on: DispatchQueue(label: "work")).assertQueue("render", enabled: true) }
            runChain { $0.receive(on: DispatchQueue(label: "work")).assertMainThread(enabled: true) }
        }
        #expect(failures.map(\.expected) == ["queue \"render\"", "queue \"render\"", "main thread", "main thread"])
    }

    @Test func checksAreOnByDefaultExactlyInDebugAndDiagnosticsBuilds() {
        // The test target is compiled with the same conditions as Sluice (`swift test` and
        // `swift test -c release`, with or without `-Xswiftc -DSLUICE_DIAGNOSTICS`), so each
        // build checks its own branch.
        let publisher = TestPublisher<Int, Never>()
        #if DEBUG || SLUICE_DIAGNOSTICS
        #expect(DebugHooks.queueAssertionsEnabledByDefault, "debug and diagnostics builds check by default")
        #expect(publisher.assertQueue("x").isEnabled)
        #expect(publisher.assertMainThread().isEnabled)
        #else
        #expect(!DebugHooks.queueAssertionsEnabledByDefault, "release builds carry no check unless asked")
        #expect(!publisher.assertQueue("x").isEnabled)
        #expect(!publisher.assertMainThread().isEnabled)
        #endif
    }
}

/// A publisher that only records the description of each subscriber it is handed.
private final class SubscriberNamingPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    private let log = Log<String>()
    var subscribers: [String] { log.all }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        log.append(String(describing: subscriber))
    }
}

/// The default handler: no handler installed stops the process, naming the failure.
@Suite("assertQueue's default handler")
struct AssertQueueDefaultHandlerTests {
    @Test func aFailedCheckStopsTheProcessNamingTheSiteTheSignalAndTheQueues() async throws {
        // The body of an exit test is moved into the macro's expansion: the site it records
        // is the line of `#require(processExitsWith:)`.
        let line = #line + 1
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DispatchQueue(label: "work").sync {
                _ = Just(1)
                    .assertQueue("render", enabled: true)
                    .sink { _ in }
            }
        }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(output.contains(
            "SluiceTests/AssertQueueTests.swift:\(line): assertQueue failed: value 1 arrived on queue \"work\" off the main thread; expected queue \"render\""),
            "\(output)")
    }
}
