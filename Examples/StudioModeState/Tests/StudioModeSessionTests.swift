import Foundation
import Testing
import Sluice
import SluiceSchedulers
import SluiceTesting
import StudioModeStateExample

/// A session on its own serial queue, talking to a fake server whose messages wait for the
/// test. Deterministic: the test decides what the server delivers and when, and `settle()`
/// waits for the session queue; nothing sleeps.
final class SessionHarness: Sendable {
    let server: FakeOBSServer
    let queue = DispatchQueue(label: "StudioModeSessionTests.session")
    let session: StudioModeSession

    init(studioModeEnabled: Bool = false, delivery: FakeOBSServer.Delivery = .held) {
        let server = FakeOBSServer(studioModeEnabled: studioModeEnabled, delivery: delivery)
        self.server = server
        session = StudioModeSession(sessionQueue: queue, makeConnection: { server.makeConnection() })
    }

    /// Waits until the session queue has run everything queued so far, and what that queued in
    /// turn. Each `sync` waits for every block queued before it, so each pass gets one link
    /// further down a chain of blocks that queue the next. The chains here are short: the hop
    /// of an entry point to the queue; the router's hop for a message the fake delivered while
    /// on the queue; and `receive(on:)` working off a burst of messages in scheduled actions of
    /// up to 64 values each, each scheduling the next (200 events: 4). Eight passes cover them.
    func settle() {
        for _ in 0..<8 { queue.sync {} }
    }

    /// A subscriber to the session's state, subscribed now.
    func stateSubscriber() -> TestSubscriber<Bool?, Error> {
        let subscriber = TestSubscriber<Bool?, Error>()
        session.studioModeState().subscribe(subscriber)
        return subscriber
    }

    /// Connection `number` (1 for the first).
    func connection(_ number: Int) -> FakeOBSConnection { server.connections[number - 1] }
}

extension TestSubscriber {
    /// Whether the subscriber has finished (not failed).
    var finished: Bool {
        if case .finished? = completion { return true } else { return false }
    }

    /// The failure, if it failed, as `StudioModeSessionError`.
    var sessionError: StudioModeSessionError? {
        if case .failure(let error)? = completion { return error as? StudioModeSessionError } else { return nil }
    }
}

@Suite struct StudioModeSessionTests {
    @Test func theStateIsUnknownUntilTheFirstAnswer() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        #expect(state.values == [nil], "unknown, not false")
        #expect(h.server.requests.map(\.requestType) == ["GetStudioModeEnabled"])
        h.connection(1).deliverAll()
        h.settle()
        #expect(state.values == [nil, false])
        #expect(h.session.studioModeEnabled == false)
    }

    /// The fake answers inside `send`, on the session queue, before `send` returns. The session
    /// registered the request's listener first, so the answer is not lost; a request that sends
    /// first and then subscribes to the connection's hot stream (the question to ask
    /// of such code: "is the request ID registered before sending?") gets nothing.
    @Test func aResponseArrivingBeforeItsListenerExistsIsNotLost() {
        let h = SessionHarness(studioModeEnabled: true, delivery: .immediate)
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        #expect(state.values == [nil, true])

        let connection = h.server.makeConnection()
        connection.send(OBSRequest(requestID: "naive", requestType: "GetStudioModeEnabled"))
        let naive = TestSubscriber<OBSMessage, Never>()
        connection.messages
            .first { if case .response(let response) = $0 { return response.requestID == "naive" } else { return false } }
            .subscribe(naive)
        #expect(naive.values == [], "answered inside send, to nobody")
    }

    /// The server answered the query at version 0 (off), then studio mode was turned on
    /// (version 1), and the event overtakes the answer on its way to the session.
    @Test func anEventOvertakingTheInitialSnapshotIsNotOverwrittenByIt() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        h.server.setStudioModeEnabled(true)
        #expect(h.connection(1).pending.map(\.description)
                    == ["response #1 studio mode off (v0)", "StudioModeStateChanged on (v1)"])
        h.connection(1).deliver(where: \.isEvent)
        h.settle()
        #expect(state.values == [nil, true])
        h.connection(1).deliverAll()            // the stale snapshot
        h.settle()
        #expect(state.values == [nil, true], "the older snapshot does not overwrite the newer event")
        #expect(h.session.studioModeEnabled == true)
    }

    /// The other way round: events older than the snapshot, delivered after it, are dropped too,
    /// and in-order delivery passes everything through.
    @Test func updatesApplyInVersionOrderWhateverOrderTheyArriveIn() {
        let inOrder = SessionHarness()
        inOrder.session.connect()
        let inOrderState = inOrder.stateSubscriber()
        inOrder.settle()
        inOrder.server.setStudioModeEnabled(true)
        inOrder.connection(1).deliverAll()
        inOrder.settle()
        #expect(inOrderState.values == [nil, false, true])

        let h = SessionHarness()
        h.session.connect()
        h.settle()
        h.server.setStudioModeEnabled(true)     // v1, waiting in the outbox
        h.server.setStudioModeEnabled(false)    // v2
        let state = h.stateSubscriber()         // queried now: off at v2
        h.settle()
        h.connection(1).deliver(where: \.isResponse)
        h.connection(1).deliverAll()            // then the two older events
        h.settle()
        #expect(state.values == [nil, false])
    }

    @Test func concurrentFirstCallersMakeExactlyOneQuery() {
        let h = SessionHarness()
        h.session.connect()
        h.settle()
        let states = Log<TestSubscriber<Bool?, Error>>()
        let changes = Log<TestSubscriber<Bool, Error>>()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            if index.isMultiple(of: 2) {
                states.append(h.stateSubscriber())
            } else {
                let subscriber = TestSubscriber<Bool, Error>()
                h.session.studioModeChanges().subscribe(subscriber)
                changes.append(subscriber)
            }
        }
        h.settle()
        #expect(h.server.studioModeQueries == 1)
        h.connection(1).deliverAll()
        h.settle()
        #expect(states.all.count == 32 && states.all.allSatisfy { $0.values == [nil, false] })
        #expect(changes.all.count == 32 && changes.all.allSatisfy { $0.values == [false] }, "all share the one query")
    }

    /// `share()` does not replay; the state subject does. A page that subscribes once the state
    /// is known gets it at once from `studioModeState()`, and nothing from the shared
    /// publisher until studio mode changes (the symptom of relying on `share()`).
    @Test func aLateSubscriberGetsTheCurrentStateButNotTheSharedPublishersPastValues() {
        let h = SessionHarness(studioModeEnabled: true)
        h.session.connect()
        let first = h.stateSubscriber()
        h.settle()
        h.connection(1).deliverAll()
        h.settle()
        #expect(first.values == [nil, true])

        let late = h.stateSubscriber()
        let lateShared = TestSubscriber<Bool, Error>()
        h.session.studioModeChanges().subscribe(lateShared)
        h.settle()
        #expect(late.values == [true])
        #expect(lateShared.values == [])
        h.server.setStudioModeEnabled(false)
        h.connection(1).deliverAll()
        h.settle()
        #expect(late.values == [true, false])
        #expect(lateShared.values == [false])
        #expect(h.server.studioModeQueries == 1)
    }

    @Test func disconnectMakesTheStateUnknownAndReconnectAsksAgain() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        h.connection(1).deliverAll()
        h.settle()
        h.session.disconnect()
        h.settle()
        #expect(state.values == [nil, false, nil])
        h.server.setStudioModeEnabled(true)
        h.session.connect()
        h.settle()
        #expect(h.server.studioModeQueries == 2, "the new connection is queried without anyone asking again")
        h.connection(2).deliverAll()
        h.settle()
        #expect(state.values == [nil, false, nil, true])
        #expect(state.completion == nil, "the state outlives connections")
    }

    @Test func theServerDroppingTheConnectionMakesTheStateUnknown() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        h.connection(1).deliverAll()
        h.server.dropAllConnections()
        h.connection(1).deliverAll()
        h.settle()
        #expect(state.values == [nil, false, nil])
        h.session.connect()
        h.settle()
        h.connection(2).deliverAll()
        h.settle()
        #expect(state.values == [nil, false, nil, false])
    }

    /// The query on connection 1 is answered only after the session has moved on to
    /// connection 2: the late answer (and a late event) must not touch the new state.
    @Test func aLateAnswerFromAnOldConnectionIsIgnored() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()                               // connection 1's answer (off) waits
        h.server.setStudioModeEnabled(true)      // and so does its event
        h.session.connect()                      // reconnect
        h.settle()
        h.connection(2).deliverAll()             // on, from connection 2
        h.settle()
        #expect(state.values == [nil, true])
        h.connection(1).deliverAll()             // off (v0), on (v1), closed: all from the old connection
        h.settle()
        #expect(state.values == [nil, true])
        #expect(h.server.studioModeQueries == 2)
    }

    /// Connection 1's query was answered, so its monitor is still running when the session
    /// reconnects; events it delivers late (here one that connection 2's answer has already
    /// superseded, and one that would flip the state) must not reach the state.
    @Test func lateEventsFromAnOldConnectionAreIgnored() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        h.connection(1).deliverAll()
        h.settle()
        h.server.setStudioModeEnabled(true)      // v1 and v2 wait on connection 1
        h.server.setStudioModeEnabled(false)
        h.session.connect()
        h.settle()
        h.connection(2).deliverAll()             // off at v2
        h.settle()
        #expect(state.values == [nil, false, nil, false])
        h.connection(1).deliver(where: \.isEvent) // on (v1): newer than connection 1's last reading
        h.settle()
        #expect(state.values == [nil, false, nil, false])
        h.connection(1).deliverAll()
        h.settle()
        #expect(state.values == [nil, false, nil, false])
        #expect(h.server.studioModeQueries == 2)
    }

    /// A reconnect race: the shared publisher of connection 1 completes (its connection
    /// finishes closing) after connection 2's entry is in the cache. Its completion handler
    /// must not clear the newer entry, or the next caller would start a third query and the
    /// session would hold two monitors of one connection.
    @Test func theOldSharedPublishersCompletionDoesNotClearTheNewerEntry() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        let oldShared = TestSubscriber<Bool, Error>()
        h.session.studioModeChanges().subscribe(oldShared)
        h.settle()
        h.connection(1).deliverAll()
        h.settle()
        #expect(oldShared.values == [false])

        h.session.disconnect()                   // connection 1's close is on its way, held
        h.server.setStudioModeEnabled(true)
        h.session.connect()                      // connection 2 and its cache entry
        h.settle()
        h.connection(2).deliverAll()
        h.settle()
        #expect(state.values == [nil, false, nil, true])
        #expect(oldShared.completion == nil, "connection 1's publisher is still alive")
        #expect(h.server.studioModeQueries == 2)

        h.connection(1).deliverAll()             // connection 1 finishes closing
        h.settle()
        #expect(oldShared.sessionError == .disconnected, "the old shared publisher has completed")

        let newState = h.stateSubscriber()
        let newShared = TestSubscriber<Bool, Error>()
        h.session.studioModeChanges().subscribe(newShared)
        h.settle()
        #expect(h.server.studioModeQueries == 2, "connection 2's entry is still cached: no third query")
        h.server.setStudioModeEnabled(false)
        h.connection(2).deliverAll()
        h.settle()
        #expect(newState.values == [true, false])
        #expect(newShared.values == [false])
        #expect(state.values == [nil, false, nil, true, false])
    }

    /// Two hundred changes of studio mode, their events delivered from many threads at once:
    /// arrival order is scrambled, and the state still ends at the newest version.
    @Test func eventsFromManyThreadsAtOnceEndAtTheNewestState() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        h.connection(1).deliverAll()
        h.settle()
        for version in 1...200 { h.server.setStudioModeEnabled(version.isMultiple(of: 3)) }
        DispatchQueue.concurrentPerform(iterations: 200) { _ in h.connection(1).deliverNext() }
        h.settle()
        #expect(h.session.studioModeEnabled == false)           // version 200: 200 is not a multiple of 3
        #expect(state.values.last == false)
        #expect(!state.sawConcurrentSignals, "delivered one at a time, on the session queue")
    }

    @Test func closeFinishesTheStateForGood() {
        let h = SessionHarness()
        h.session.connect()
        let state = h.stateSubscriber()
        h.settle()
        h.connection(1).deliverAll()
        h.session.close()
        h.settle()
        #expect(state.values == [nil, false, nil])
        #expect(state.finished)
        h.session.connect()
        h.settle()
        #expect(h.server.connections.count == 1, "a closed session does not connect again")
    }
}
