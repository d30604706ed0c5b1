import XCTest
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers

/// Diagnostics on the real main thread. XCTest runs test methods on the main thread (Swift
/// Testing's `@MainActor` tests do not, on Linux: see MainThreadProbeTests).
final class MainThreadDiagnosticsTests: XCTestCase {
    func testTraceReportsTheMainThreadAsMain() {
        let log = TraceLog()
        _ = Just(1).trace("ui", to: log).sink { _ in }
        XCTAssertEqual(log.entries.map(\.isMainThread), [true, true, true, true])
        XCTAssertEqual(log.descriptions, ["ui: subscription on main", "ui: request unlimited on main", "ui: value 1 on main", "ui: finished on main"])
        XCTAssertTrue(ExecutionContext.current.isMainThread)
        XCTAssertEqual(ExecutionContext.current.queueLabel, "com.apple.main-thread")
    }

    func testSeed000HotSubjectThroughSubscribeOnDeliversOnTheSendersThread() {
        let log = TraceLog()
        let subject = PassthroughSubject<Int, Never>()
        let work = DispatchQueue(label: "work")
        // Hold the queue until after the first send, so the subscription is always made later.
        let gate = DispatchSemaphore(value: 0)
        work.async { gate.wait() }
        let cancellable = subject.subscribe(on: work).trace("sink", to: log).sink { _ in }
        subject.send(1)                       // before the subscription exists: lost
        gate.signal()
        runMainLoop(until: { log.entries.contains { $0.signal == .request(.unlimited) } })
        work.sync {}                          // the request goes up on the queue
        subject.send(2)
        XCTAssertEqual(log.entries.filter { if case .value = $0.signal { true } else { false } }.map(\.description),
                       ["sink: value 2 on main"])
        cancellable.cancel()
    }

    func testAssertMainThreadAndMainPassAfterAHopToTheMainQueue() {
        let failures = Log<DebugHooks.QueueAssertionFailure>()
        let previous = DebugHooks.queueAssertionHandler
        DebugHooks.queueAssertionHandler = { failures.append($0) }
        defer { DebugHooks.queueAssertionHandler = previous }
        let finished = Flag()
        let cancellable = [1].publisher.receive(on: DispatchQueue(label: "bg"))
            .receive(on: DispatchQueue.main).assertMainThread().assertQueue("main")
            .sink(receiveCompletion: { _ in finished.set() }, receiveValue: { _ in })
        runMainLoop(until: { finished.isSet })
        XCTAssertTrue(finished.isSet)
        XCTAssertEqual(failures.all.count, 0)
        cancellable.cancel()
    }
}
