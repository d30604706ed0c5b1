// Seed 003, "subscribe(on:)/receive(on:) placement and the .share() cache" (in Chinese): each code
// block as the seed writes it, on a fake OBS session (`OBSSession`, below) that gives the seed's
// project types (`sessionQueue`, `publishers`, `getStudioModeStateOnce`, `listenForEvent`,
// `connectToOBS`) a body, with the seed's claims as expectations. Changes from the seed's text
// are marked `// Sluice:`; they are recording lines in place of `print`, and `self.session.` where
// the seed's code is a method of the session.
import XCTest
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

final class Seed003ShareAndCacheTests: XCTestCase {
    private var observers = Set<AnyCancellable>()

    override func tearDown() {
        observers.removeAll()
        super.tearDown()
    }

    // MARK: "subscribe(on:) 和 receive(on:) 分别影响什么"

    /// "makePublisher() 在第一行就执行了": building the publisher runs at once on the caller's
    /// thread; the two operators added after it cannot move that call.
    func testMakePublisherRunsOnTheFirstLine() throws {
        let sessionQueue = DispatchQueue(label: "sessionQueue")
        let construction = Log<String>()
        let values = Log<String>()
        func makePublisher() throws -> AnyPublisher<Int, Error> {
            construction.append(ExecutionContext.current.description)
            return Just(1).setFailureType(to: Error.self).eraseToAnyPublisher()
        }

        let publisher = try makePublisher()
        XCTAssertEqual(construction.all, ["main"])

        publisher
            .subscribe(on: sessionQueue)
            .receive(on: DispatchQueue.main)
            .sink(
                receiveCompletion: { values.append("\($0)") },              // Sluice: records instead of print
                receiveValue: { values.append("\($0) on \(ExecutionContext.current)") }
            )
            .store(in: &observers)
        XCTAssertTrue(RunLoop.main.run { values.all.count == 2 })
        XCTAssertEqual(values.all, ["1 on main", "finished"])
        XCTAssertEqual(construction.all, ["main"])
    }

    /// "如果需要把构造推迟到订阅时，可以使用 Deferred。构造函数会抛错时，还需要在闭包内将错误转换为 Fail。"
    func testDeferredMovesConstructionToTheSubscriptionAndAThrowBecomesFail() throws {
        let sessionQueue = DispatchQueue(label: "sessionQueue")
        let construction = Log<String>()
        struct ConstructionFailed: Error {}
        func makePublisher(failing: Bool) throws -> AnyPublisher<Int, Error> {
            construction.append(ExecutionContext.current.description)
            if failing { throw ConstructionFailed() }
            return Just(1).setFailureType(to: Error.self).eraseToAnyPublisher()
        }
        func deferred(failing: Bool) -> AnyPublisher<Int, Error> {
            Deferred { () -> AnyPublisher<Int, Error> in
                do {
                    return try makePublisher(failing: failing)
                } catch {
                    return Fail<Int, Error>(error: error).eraseToAnyPublisher()
                }
            }
            .eraseToAnyPublisher()
        }

        let lazy = deferred(failing: false)
        XCTAssertEqual(construction.all, [])
        XCTAssertEqual(try lazy.subscribe(on: sessionQueue).blocking().values(), [1])
        XCTAssertEqual(construction.all, ["sessionQueue"])

        let failing = try deferred(failing: true).subscribe(on: sessionQueue).blocking().completion()
        XCTAssertEqual(failing.values, [])
        guard case .failure(let error) = failing.completion else { return XCTFail("expected the construction error") }
        XCTAssertTrue(error is ConstructionFailed)
    }

    /// The table: `subscribe(on:)` schedules the subscription, demand and cancellation upstream;
    /// `receive(on:)` moves values and completion but not `receive(subscription:)`.
    func testWhatEachOperatorSchedules() {
        let sessionQueue = DispatchQueue(label: "sessionQueue")
        let events = Log<String>()
        let cancelled = XCTestExpectation(description: "cancel reached upstream")
        let subject = PassthroughSubject<Int, Never>()
        let handle = subject
            .handleEvents(receiveSubscription: { _ in events.append("subscribe on \(ExecutionContext.current)") },
                          receiveCancel: { events.append("cancel on \(ExecutionContext.current)"); cancelled.fulfill() },
                          receiveRequest: { _ in events.append("request on \(ExecutionContext.current)") })
            .subscribe(on: sessionQueue)
            .receive(on: DispatchQueue.global())
            .handleEvents(receiveSubscription: { _ in events.append("downstream subscription on \(ExecutionContext.current)") })
            .sink { _ in }
        sessionQueue.sync {}          // the subscription, which schedules the request
        sessionQueue.sync {}          // the request
        handle.cancel()
        wait(for: [cancelled], timeout: 10)
        XCTAssertEqual(events.all, ["subscribe on sessionQueue", "downstream subscription on sessionQueue",
                                    "request on sessionQueue", "cancel on sessionQueue"])
    }

    // MARK: "<1> 和 <2> 的区别"

    /// At <1>, the flatMap closure runs on main, but an inner publisher's later values still
    /// arrive on the inner publisher's queue; at <2>, the merged output arrives on main.
    func testReceiveOnBeforeFlatMapMovesOnlyTheClosure() {
        let socketQueue = DispatchQueue(label: "socket")
        nonisolated(unsafe) let connectionOutput = PassthroughSubject<Int, Never>()     // sent to from the socket queue
        let closure = Log<String>(), atOne = Log<String>(), atTwo = Log<String>()

        Just(())
            .receive(on: DispatchQueue.main)
            .flatMap { _ -> PassthroughSubject<Int, Never> in
                closure.append(ExecutionContext.current.description)
                return connectionOutput
            }
            .sink { _ in atOne.append(ExecutionContext.current.description) }
            .store(in: &observers)

        Just(())
            .flatMap { _ in connectionOutput }
            .receive(on: DispatchQueue.main)
            .sink { _ in atTwo.append(ExecutionContext.current.description) }
            .store(in: &observers)

        XCTAssertTrue(RunLoop.main.run { closure.all.count == 1 })     // both inner subscriptions exist
        socketQueue.async { connectionOutput.send(1) }
        XCTAssertTrue(RunLoop.main.run { atOne.all.count == 1 && atTwo.all.count == 1 })
        XCTAssertEqual(closure.all, ["main"])
        XCTAssertEqual(atOne.all, ["socket"])
        XCTAssertEqual(atTwo.all, ["main"])
    }

    /// "标准 Combine 没有内置 tryFlatMap [...] tryMap 配合 switchToLatest() 也能处理返回 Publisher 的抛错调用，
    /// 但会取消先前的内部订阅".
    func testTryMapWithSwitchToLatestCancelsThePreviousInnerSubscription() {
        struct BadRequest: Error {}
        let requests = PassthroughSubject<Int, Error>()
        let inners = [PassthroughSubject<String, Error>(), PassthroughSubject<String, Error>()]
        let cancels = Log<Int>()
        var received: [String] = []
        var completion: Subscribers.Completion<Error>?
        requests
            .tryMap { index -> AnyPublisher<String, Error> in
                guard index < inners.count else { throw BadRequest() }
                return inners[index].handleEvents(receiveCancel: { cancels.append(index) }).eraseToAnyPublisher()
            }
            .switchToLatest()
            .sink(receiveCompletion: { completion = $0 }, receiveValue: { received.append($0) })
            .store(in: &observers)
        requests.send(0)
        inners[0].send("a")
        requests.send(1)
        inners[0].send("lost")
        inners[1].send("b")
        XCTAssertEqual(received, ["a", "b"])
        XCTAssertEqual(cancels.all, [0])
        requests.send(7)
        guard case .failure(let error) = completion else { return XCTFail("the throw should fail the stream") }
        XCTAssertTrue(error is BadRequest)
        XCTAssertEqual(cancels.all, [0, 1])
    }

    // MARK: "缓存必须在同一个隔离范围内完成查找和创建"

    /// The seed's `studioModeStatePublisher()`: concurrent first callers get one shared
    /// instance, created once, and its lookup and store run on the session queue.
    func testConcurrentFirstCallersShareOneCachedPublisher() {
        let session = OBSSession(studioModeEnabled: true)
        let received = Log<Bool>()
        // `AnyCancellable` is not Sendable, as in Combine.
        let handles = Mutex<[UncheckedSendable<AnyCancellable>]>([])
        DispatchQueue.concurrentPerform(iterations: 50) { _ in
            let handle = UncheckedSendable(session.studioModeStatePublisher()
                .sink(receiveCompletion: { _ in }, receiveValue: { received.append($0) }))
            handles.withLock { $0.append(handle) }
        }
        XCTAssertTrue(RunLoop.main.run { session.socketQueue.sync { session.stateRequests } == 1 && !received.all.isEmpty })
        XCTAssertEqual(session.sessionQueue.sync { session.sharedPublishersCreated }, 1)
        XCTAssertEqual(session.socketQueue.sync { session.stateRequests }, 1)
        handles.withLock { $0.removeAll() }
    }

    /// The UI subscription of the seed: connect, then the state, delivered on main; the initial
    /// state and later changes merge, and `removeDuplicates()` drops a repeated state.
    func testTheUISubscriptionReceivesTheStateAndItsChangesOnMain() throws {
        let session = OBSSession(studioModeEnabled: false)
        let values = Log<String>()

        try session.connectToOBS()
            .flatMap { _ in
                session.studioModeStatePublisher()                 // Sluice: `session.` for `self.`
            }
            .receive(on: DispatchQueue.main)
            .sink(
                receiveCompletion: { values.append("Completion: \($0)") },   // Sluice: records instead of print
                receiveValue: { enabled in
                    // 更新 UI 模型
                    values.append("Studio mode: \(enabled) on \(ExecutionContext.current)")
                }
            )
            .store(in: &observers)

        XCTAssertTrue(RunLoop.main.run { values.all.count == 1 })
        session.emit(studioModeEnabled: true)
        session.emit(studioModeEnabled: true)
        session.emit(studioModeEnabled: false)
        XCTAssertTrue(RunLoop.main.run { values.all.count == 3 })
        XCTAssertEqual(values.all, ["Studio mode: false on main", "Studio mode: true on main", "Studio mode: false on main"])
    }

    /// The completion handler of the seed's shared publisher clears the cache, so the next caller
    /// builds a new one; a publisher only held, never subscribed, does no work.
    func testCompletionClearsTheCacheAndTheNextCallerBuildsAnew() throws {
        let session = OBSSession(studioModeEnabled: true)
        let first = Log<String>()
        session.studioModeStatePublisher()
            .sink(receiveCompletion: { first.append("\($0)") }, receiveValue: { first.append("\($0)") })
            .store(in: &observers)
        XCTAssertTrue(RunLoop.main.run { first.all == ["true"] })
        session.disconnect()
        XCTAssertTrue(RunLoop.main.run { first.all == ["true", "finished"] })
        XCTAssertTrue(session.sessionQueue.sync { session.publishers.studioModeState == nil })
        session.reconnect()
        XCTAssertEqual(try session.studioModeStatePublisher().blocking().first(), true)
        XCTAssertEqual(session.sessionQueue.sync { session.sharedPublishersCreated }, 2)
    }

    /// "如果允许主动替换缓存，还应检查条目标识或连接代次，避免旧 Publisher 的 completion 清掉新条目": the seed's
    /// completion handler, as written, clears whatever entry is cached when an old shared
    /// publisher completes, the newer one included. This is the hazard the seed warns of, shown.
    func testAnOldPublishersCompletionClearsANewerEntryWithoutAGenerationCheck() throws {
        let session = OBSSession(studioModeEnabled: true)
        let old = session.studioModeStatePublisher().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        XCTAssertTrue(RunLoop.main.run { session.sessionQueue.sync { session.publishers.studioModeState != nil } })
        let oldEvents = session.socketQueue.sync { session.currentEvents }
        session.sessionQueue.sync { session.publishers.studioModeState = nil }   // replaced actively
        session.reconnect()
        let new = session.studioModeStatePublisher().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        XCTAssertTrue(RunLoop.main.run { session.sessionQueue.sync { session.sharedPublishersCreated } == 2 })
        XCTAssertTrue(RunLoop.main.run { session.sessionQueue.sync { session.publishers.studioModeState != nil } })
        oldEvents.send(completion: .finished)                            // the old connection ends
        XCTAssertTrue(RunLoop.main.run { session.sessionQueue.sync { session.publishers.studioModeState == nil } })
        withExtendedLifetime((old, new)) {}
    }

    // MARK: "<5> 可以切换输出队列，但发送顺序要在底层保证"

    /// "如果底层使用 PassthroughSubject，监听建立之前发送的响应不会自动保留": a response that arrives
    /// before its listener subscribes is lost, wherever `receive(on:)` is placed.
    func testAResponseSentBeforeItsListenerExistsIsLost() {
        let sessionQueue = DispatchQueue(label: "sessionQueue")
        let wsPublisher = PassthroughSubject<String, Never>()
        wsPublisher.send("response 1")                               // the fast response
        let received = Log<String>()
        wsPublisher
            .receive(on: sessionQueue)
            .sink { received.append($0) }
            .store(in: &observers)
        wsPublisher.send("response 2")
        sessionQueue.sync {}
        sessionQueue.sync {}
        XCTAssertEqual(received.all, ["response 2"])
    }

    // MARK: "`.share()`、缓存实例和缓存最新值是三件事"

    /// "A 订阅，初始请求返回 true。B 随后订阅同一个共享实例。OBS 一直没有变化。此时 B 收不到 true 是预期行为".
    func testShareDoesNotReplayToALateSubscriber() {
        let state = PassthroughSubject<Bool, Never>()
        let shared = state.removeDuplicates().share()
        var a: [Bool] = [], b: [Bool] = []
        shared.sink { a.append($0) }.store(in: &observers)
        state.send(true)
        shared.sink { b.append($0) }.store(in: &observers)
        XCTAssertEqual(a, [true])
        XCTAssertEqual(b, [])
        state.send(true)                                     // no change: removeDuplicates sends nothing
        XCTAssertEqual(b, [])
        state.send(false)
        XCTAssertEqual(a, [true, false])
        XCTAssertEqual(b, [false])
    }

    /// "CurrentValueSubject 会保留最近发布的一个元素。尚未取得初始值时，宜使用 Bool?" and "Subject 一旦收到
    /// completion，就不能继续承载重连后的更新".
    func testACurrentValueSubjectHoldsTheStateAndEndsWithItsCompletion() {
        let state = CurrentValueSubject<Bool?, Error>(nil)
        var late: [Bool?] = []
        state.send(true)
        state.sink(receiveCompletion: { _ in }, receiveValue: { late.append($0) }).store(in: &observers)
        XCTAssertEqual(late, [true])
        state.send(completion: .failure(URLError(.networkConnectionLost)))
        state.send(false)                                    // after completion: ignored
        XCTAssertEqual(late, [true])
        var afterCompletion: [Bool?] = []
        var completed = false
        state.sink(receiveCompletion: { _ in completed = true }, receiveValue: { afterCompletion.append($0) })
            .store(in: &observers)
        XCTAssertEqual(afterCompletion, [])
        XCTAssertTrue(completed)
    }

    /// "在共享实例前放置 receive(on:)，也不能保证自定义回放值的交付队列。向后来订阅者回放值的过程可能直接发生在订阅调用中":
    /// the replay reaches a late subscriber on the thread that subscribes.
    func testAReplayRunsInsideTheSubscribeCall() throws {
        let sessionQueue = DispatchQueue(label: "sessionQueue")
        let state = PassthroughSubject<Bool, Never>()
        let shared = state.receive(on: sessionQueue).share(replay: 1)
        shared.sink { _ in }.store(in: &observers)
        state.send(true)
        sessionQueue.sync {}
        let replayed = Log<String>()
        shared.sink { replayed.append("\($0) on \(ExecutionContext.current)") }.store(in: &observers)
        XCTAssertEqual(replayed.all, ["true on main"])
        shared.receive(on: DispatchQueue.main).sink { replayed.append("\($0) on \(ExecutionContext.current)") }
            .store(in: &observers)
        XCTAssertTrue(RunLoop.main.run { replayed.all.count == 2 })
        XCTAssertEqual(replayed.all.last, "true on main")
    }

    // MARK: "自定义 shareReplay 为什么可能在测试中正常、在 SwiftUI 中丢值"

    /// The seed's deterministic test: a subscriber keeps its subscription without demand, the
    /// subject has tried to replay, then it asks for `.max(1)` and must get the cached value.
    /// Sluice's replaying publishers pass it.
    func testAReplayWaitsForDemandThatArrivesAfterSubscribing() {
        let replaySubject = ReplaySubject<Bool, Never>(bufferSize: 1)
        replaySubject.send(true)
        let source = PassthroughSubject<Bool, Never>()
        let shared = source.share(replay: 1)
        shared.sink { _ in }.store(in: &observers)
        source.send(true)

        for publisher in [replaySubject.eraseToAnyPublisher(), shared.eraseToAnyPublisher()] {
            let subscriber = TestSubscriber<Bool, Never>(initialDemand: .none)
            publisher.subscribe(subscriber)
            XCTAssertEqual(subscriber.values, [])
            subscriber.request(.max(1))
            XCTAssertEqual(subscriber.values, [true])
        }
    }

    // MARK: "按数据经过的位置排查"

    /// "先去掉测试中的 .output(in: 0..<4)。它在收满四个输出后会结束下游订阅，而取消不保证触发上游的 receiveCompletion":
    /// the seed's logging block, above `.output(in: 0..<4)`, sees a cancel and no completion,
    /// right after the fourth output ("收满四个输出后"): a fifth value sent finds nobody there.
    func testOutputInCancelsUpstreamWithoutACompletion() {
        let state = PassthroughSubject<Bool, Never>()
        let log = Log<String>()
        var downstream: [String] = []
        state
            .handleEvents(
                receiveSubscription: { _ in log.append("state: subscribed") },   // Sluice: log.append for print
                receiveOutput: { log.append("state: output \($0)") },
                receiveCompletion: { log.append("state: completion \($0)") },
                receiveCancel: { log.append("state: cancelled") },
                receiveRequest: { log.append("state: demand \($0)") }
            )
            .output(in: 0..<4)
            .sink(receiveCompletion: { downstream.append("\($0)") }, receiveValue: { downstream.append("\($0)") })
            .store(in: &observers)
        for value in [true, false, true, false, true] { state.send(value) }
        XCTAssertEqual(log.all, ["state: subscribed", "state: demand unlimited",
                                 "state: output true", "state: output false", "state: output true", "state: output false",
                                 "state: cancelled"])
        XCTAssertEqual(downstream, ["true", "false", "true", "false", "finished"])
    }

    /// "merge 还有一个独立的状态一致性问题：它按到达顺序转发两个来源，不保证初始快照先到": an event that
    /// overtakes the initial snapshot is overwritten by the older snapshot.
    func testMergeForwardsInArrivalOrderSoAStaleSnapshotWins() {
        let initial = PassthroughSubject<Bool, Never>()
        let changes = PassthroughSubject<Bool, Never>()
        var latest: Bool?
        initial.merge(with: changes).sink { latest = $0 }.store(in: &observers)
        changes.send(true)            // the newer event arrives first
        initial.send(false)           // the older snapshot arrives late
        XCTAssertEqual(latest, false)
    }
}

// MARK: - The seed's project types, given a body

enum OBSEvents {
    struct StudioModeStateChanged: Sendable {
        let studioModeEnabled: Bool
    }
}

/// The seed's `publishers` member.
struct PublisherCache {
    var studioModeState: AnyPublisher<Bool, Error>?
}

/// An in-process OBS connection: requests are answered and events sent on a socket queue,
/// and the seed's cache lives on the session queue.
final class OBSSession: @unchecked Sendable {
    let sessionQueue = DispatchQueue(label: "sessionQueue")
    let socketQueue = DispatchQueue(label: "socket")
    var publishers = PublisherCache()                      // on sessionQueue
    var sharedPublishersCreated = 0                        // on sessionQueue
    private var studioModeEnabled: Bool                    // on socketQueue
    var stateRequests = 0                                  // on socketQueue
    var currentEvents = PassthroughSubject<OBSEvents.StudioModeStateChanged, Error>()   // on socketQueue

    init(studioModeEnabled: Bool) {
        self.studioModeEnabled = studioModeEnabled
    }

    func connectToOBS() throws -> AnyPublisher<Void, Error> {
        Just(()).setFailureType(to: Error.self).receive(on: socketQueue).eraseToAnyPublisher()
    }

    /// A request whose response arrives on the socket queue; the request starts on subscription.
    func getStudioModeStateOnce() throws -> AnyPublisher<Bool, Error> {
        Deferred {
            Future { promise in
                nonisolated(unsafe) let promise = promise  // not Sendable, as in Combine
                self.socketQueue.async {
                    self.stateRequests += 1
                    promise(.success(self.studioModeEnabled))
                }
            }
        }
        .eraseToAnyPublisher()
    }

    func listenForEvent(_ type: OBSEvents.StudioModeStateChanged.Type, firstOnly: Bool) throws
        -> AnyPublisher<OBSEvents.StudioModeStateChanged, Error>
    {
        let events = socketQueue.sync { currentEvents }
        return firstOnly ? events.first().eraseToAnyPublisher() : events.eraseToAnyPublisher()
    }

    func emit(studioModeEnabled: Bool) {
        socketQueue.sync {
            self.studioModeEnabled = studioModeEnabled
            currentEvents.send(OBSEvents.StudioModeStateChanged(studioModeEnabled: studioModeEnabled))
        }
    }

    func disconnect() {
        socketQueue.sync { currentEvents.send(completion: .finished) }
    }

    func reconnect() {
        socketQueue.sync { currentEvents = PassthroughSubject() }
    }

    // The seed's code, as written.

    public func studioModeStatePublisher() -> AnyPublisher<Bool, Error> {
        Just(())
            .setFailureType(to: Error.self)
            .receive(on: sessionQueue)
            .flatMap { [weak self] _ -> AnyPublisher<Bool, Error> in
                guard let self = self else {
                    return Empty<Bool, Error>().eraseToAnyPublisher()
                }

                do {
                    return try self.studioModeStateOnQueue()
                } catch {
                    return Fail<Bool, Error>(error: error)
                        .eraseToAnyPublisher()
                }
            }
            .eraseToAnyPublisher()
    }

    private func studioModeStateOnQueue() throws
        -> AnyPublisher<Bool, Error> {
        dispatchPrecondition(condition: .onQueue(sessionQueue))

        if let cached = publishers.studioModeState {
            return cached
        }

        let initial = try getStudioModeStateOnce()
        let changes = try listenForEvent(
            OBSEvents.StudioModeStateChanged.self,
            firstOnly: false
        )
        .map(\.studioModeEnabled)

        let shared = initial
            .merge(with: changes)
            .receive(on: sessionQueue)
            .removeDuplicates()
            .handleEvents(receiveCompletion: { [weak self] _ in
                self?.publishers.studioModeState = nil
            })
            .share()
            .eraseToAnyPublisher()

        sharedPublishersCreated += 1                       // Sluice: counts what the test checks
        publishers.studioModeState = shared
        return shared
    }
}
