import Foundation
import Sluice
import SluiceExtras

/// Why a request, or a connection's stream, ended.
public enum StudioModeSessionError: Error, Equatable {
    /// The connection went away before the answer came.
    case disconnected
    /// The server answered the request with a failure.
    case requestFailed(String)
}

/// A session object: it keeps OBS's studio-mode state for every page of an app that
/// shows it, over one connection after another.
///
/// - Confinement: every piece of mutable state (the connection and its generation, the
///   pending requests, the publisher cache, the subscriptions the session holds) lives on one
///   serial session queue, and every entry point hops there first. Looking up, creating and
///   storing the cached publisher therefore happen as one step: concurrent first callers never
///   create two, and exactly one upstream query is made.
/// - State: a `CurrentValueSubject<Bool?, Error>`, `nil` while unknown (before the first
///   answer, and again after a disconnect), never `false` for "don't know yet". It replays the
///   current value to every new subscriber, which `share()` does not (with `share()` alone, a
///   late subscriber got nothing until studio mode changed). The session itself holds the
///   subscription that feeds it, so the state stays current with no UI subscribed.
/// - Initial query and events: the event listener is subscribed, and the response listener
///   registered under the request's ID, before the request is sent, so neither a fast
///   response nor an event can find nobody listening. Both are merged, and every update older
///   than one already applied (by the server's state version) is dropped, so a snapshot that
///   arrives after a newer event cannot overwrite it.
/// - Connections: each has a generation number. A disconnect or reconnect sets the state back
///   to unknown, fails the old connection's pending requests and drops its cache entries; the
///   old connection's publishers end when it finishes closing, which may be after a new entry
///   exists, so an entry is removed on completion only if it is still the entry that publisher
///   created, and the old connection's late values are ignored.
///
/// Values from ``studioModeState()`` and ``studioModeChanges()`` arrive on the session queue:
/// a UI subscribes with `.receive(on: DispatchQueue.main)` after them (see
/// `StudioModeViewModel`).
public final class StudioModeSession: @unchecked Sendable {
    private enum CacheKey: Hashable {
        case studioModeState
    }

    private struct CacheEntry {
        let id: UInt64
        let generation: Int
        let publisher: AnyPublisher<Bool, Error>
    }

    private struct Link {
        let generation: Int
        let connection: any OBSConnection
    }

    private struct PendingRequest {
        let generation: Int
        let promise: Future<OBSResponse, Error>.Promise
    }

    /// One studio-mode reading and the server state version it was read at.
    private struct Update {
        let enabled: Bool
        let version: Int
    }

    private let sessionQueue: DispatchQueue
    private let makeConnection: @Sendable () -> any OBSConnection
    private let state = CurrentValueSubject<Bool?, Error>(nil)

    // Confined to `sessionQueue`.
    private var link: Link?
    private var lastGeneration = 0
    private var isClosed = false
    private var routers: [Int: AnyCancellable] = [:]
    private var eventStreams: [Int: PassthroughSubject<OBSEvent, Error>] = [:]
    private var pendingRequests: [String: PendingRequest] = [:]
    private var lastRequestNumber = 0
    private var publishers: [CacheKey: CacheEntry] = [:]
    private var feeds: [UInt64: AnyCancellable] = [:]
    private var lastEntryID: UInt64 = 0
    private var wantsStudioModeState = false

    /// A session that opens its connections with `makeConnection`.
    ///
    /// - Parameter sessionQueue: the serial queue the session's state is confined to; it must
    ///   not be a concurrent queue.
    public init(sessionQueue: DispatchQueue = DispatchQueue(label: "StudioModeSession"),
                makeConnection: @escaping @Sendable () -> any OBSConnection) {
        self.sessionQueue = sessionQueue
        self.makeConnection = makeConnection
    }

    /// The last known state (`nil`: unknown). Safe from any thread.
    public var studioModeEnabled: Bool? { state.value }

    /// Opens a connection; if one is open, closes it first (a reconnect). Asynchronous, on the
    /// session queue. If anyone has asked for the studio-mode state, the new connection is
    /// queried at once.
    public func connect() {
        sessionQueue.async { self.connectOnQueue() }
    }

    /// Closes the connection; the state becomes unknown. Asynchronous, on the session queue.
    public func disconnect() {
        sessionQueue.async { self.invalidateOnQueue(closing: true) }
    }

    /// Ends the session: closes the connection and finishes the state. A closed session
    /// does not connect again (its subject, once finished, cannot carry new values).
    public func close() {
        sessionQueue.async {
            self.isClosed = true
            self.wantsStudioModeState = false
            self.invalidateOnQueue(closing: true)
            let feeds = self.feeds
            self.feeds = [:]
            feeds.values.forEach { $0.cancel() }
            self.state.send(completion: .finished)
        }
    }

    /// Whether studio mode is on, `nil` while unknown: the current value at once, then every
    /// change, over reconnects (unknown in between), until the session is closed.
    ///
    /// Subscribing starts monitoring the current connection if nobody has yet, and every later
    /// connection. Values arrive on the session queue.
    public func studioModeState() -> AnyPublisher<Bool?, Error> {
        Just(())
            .setFailureType(to: Error.self)
            .receive(on: sessionQueue)
            .flatMap { [weak self] _ -> AnyPublisher<Bool?, Error> in
                guard let self else { return Empty().eraseToAnyPublisher() }
                self.wantsStudioModeState = !self.isClosed
                _ = self.studioModeEntryOnQueue()
                return self.state.eraseToAnyPublisher()
            }
            .eraseToAnyPublisher()
    }

    /// The current connection's studio-mode readings: its cached, shared publisher. Like
    /// `share()`, it does not replay: a subscriber sees only the changes after it subscribed
    /// (use ``studioModeState()`` for the current value). Fails with
    /// ``StudioModeSessionError/disconnected`` when there is no connection, and when this one
    /// ends. Values arrive on the session queue.
    public func studioModeChanges() -> AnyPublisher<Bool, Error> {
        Just(())
            .setFailureType(to: Error.self)
            .receive(on: sessionQueue)
            .flatMap { [weak self] _ -> AnyPublisher<Bool, Error> in
                guard let self else { return Empty().eraseToAnyPublisher() }
                guard let entry = self.studioModeEntryOnQueue() else {
                    return Fail(error: StudioModeSessionError.disconnected).eraseToAnyPublisher()
                }
                return entry.publisher
            }
            .eraseToAnyPublisher()
    }

    // MARK: On the session queue

    private func connectOnQueue() {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        guard !isClosed else { return }
        invalidateOnQueue(closing: true)
        lastGeneration += 1
        let generation = lastGeneration
        let connection = makeConnection()
        link = Link(generation: generation, connection: connection)
        eventStreams[generation] = PassthroughSubject()
        // Subscribed before anything is sent on this connection, so nothing it delivers can
        // find nobody. Messages come on the connection's thread; the hop puts them in line
        // with everything else the session does.
        routers[generation] = connection.messages
            .receive(on: sessionQueue)
            .sink(receiveCompletion: { [weak self] _ in self?.connectionEndedOnQueue(generation) },
                  receiveValue: { [weak self] message in self?.routeOnQueue(message, generation: generation) })
        if wantsStudioModeState { _ = studioModeEntryOnQueue() }
    }

    /// The lookup, creation and storage of the cached publisher, as one step on the queue.
    private func studioModeEntryOnQueue() -> CacheEntry? {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        guard let link else { return nil }
        if let cached = publishers[.studioModeState], cached.generation == link.generation { return cached }

        lastEntryID += 1
        let id = lastEntryID
        let generation = link.generation
        let changes = eventsOnQueue(generation)
            .filter { $0.eventType == "StudioModeStateChanged" }
            .map { Update(enabled: $0.studioModeEnabled, version: $0.stateVersion) }
        let initial = requestOnQueue("GetStudioModeEnabled", on: link)
            .tryMap { response -> Update in
                guard let enabled = response.studioModeEnabled else {
                    throw StudioModeSessionError.requestFailed(response.requestType)
                }
                return Update(enabled: enabled, version: response.stateVersion)
            }
        // `changes` first: merge subscribes in order, so the event listener exists before
        // the request goes out.
        let shared = changes.merge(with: initial)
            .scan(nil as Update?) { newest, update in
                // Keep the newest reading seen: a snapshot older than an applied event loses.
                guard let newest, newest.version >= update.version else { return update }
                return newest
            }
            .compactMap { $0 }
            .removeDuplicates { $0.version == $1.version }
            .map(\.enabled)
            .removeDuplicates()
            .handleEvents(receiveCompletion: { [weak self] _ in self?.entryCompletedOnQueue(id) })
            .share()
            .eraseToAnyPublisher()
        let entry = CacheEntry(id: id, generation: generation, publisher: shared)
        publishers[.studioModeState] = entry
        wantsStudioModeState = true         // and every later connection: keep the state current
        feeds[id] = shared.sink(
            receiveCompletion: { [weak self] completion in self?.feedEndedOnQueue(id, generation: generation, completion) },
            receiveValue: { [weak self] enabled in self?.applyOnQueue(enabled, generation: generation) })
        return entry
    }

    /// The reconnect race, fixed: by the time an old connection's publisher completes, the cache
    /// may hold a newer entry; clear only the entry this publisher created.
    private func entryCompletedOnQueue(_ id: UInt64) {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        if publishers[.studioModeState]?.id == id {
            publishers[.studioModeState] = nil
        }
    }

    private func applyOnQueue(_ enabled: Bool, generation: Int) {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        guard link?.generation == generation else { return }    // a late value from an old connection
        state.send(enabled)
    }

    private func feedEndedOnQueue(_ id: UInt64, generation: Int, _ completion: Subscribers.Completion<Error>) {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        feeds[id] = nil
        // The current connection's monitor failed (its query was refused): unknown again; the
        // entry is gone, so the next subscriber or connection asks again.
        if link?.generation == generation, case .failure = completion, state.value != nil {
            state.send(nil)
        }
    }

    /// A request publisher: when subscribed (on the queue), it registers the response listener
    /// under a new request ID and only then sends the request, so a response that arrives at
    /// once, even inside `send`, is not lost.
    private func requestOnQueue(_ requestType: String, on link: Link) -> AnyPublisher<OBSResponse, Error> {
        Deferred { [weak self] () -> AnyPublisher<OBSResponse, Error> in
            guard let self else { return Fail(error: StudioModeSessionError.disconnected).eraseToAnyPublisher() }
            return Future { promise in
                dispatchPrecondition(condition: .onQueue(self.sessionQueue))
                guard self.link?.generation == link.generation else {
                    promise(.failure(StudioModeSessionError.disconnected))
                    return
                }
                self.lastRequestNumber += 1
                let requestID = String(self.lastRequestNumber)
                self.pendingRequests[requestID] = PendingRequest(generation: link.generation, promise: promise)
                link.connection.send(OBSRequest(requestID: requestID, requestType: requestType))
            }
            .eraseToAnyPublisher()
        }
        .eraseToAnyPublisher()
    }

    private func eventsOnQueue(_ generation: Int) -> AnyPublisher<OBSEvent, Error> {
        eventStreams[generation]?.eraseToAnyPublisher()
            ?? Fail(error: StudioModeSessionError.disconnected).eraseToAnyPublisher()
    }

    private func routeOnQueue(_ message: OBSMessage, generation: Int) {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        switch message {
        case .response(let response):
            // A response to a request already failed by a disconnect finds nothing here.
            guard let pending = pendingRequests[response.requestID], pending.generation == generation else { return }
            pendingRequests[response.requestID] = nil
            pending.promise(response.succeeded
                ? .success(response) : .failure(StudioModeSessionError.requestFailed(response.requestType)))
        case .event(let event):
            eventStreams[generation]?.send(event)
        }
    }

    /// The connection of `generation` has closed: whether the session or the server closed
    /// it, its streams end now.
    private func connectionEndedOnQueue(_ generation: Int) {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        routers[generation] = nil
        if link?.generation == generation {
            invalidateOnQueue(closing: false)                      // the server closed it
        }
        failPendingRequestsOnQueue(of: generation)
        eventStreams.removeValue(forKey: generation)?.send(completion: .failure(StudioModeSessionError.disconnected))
    }

    /// Forgets the current connection: state unknown, its cache entries dropped, its pending
    /// requests failed. Its event stream (and so its publishers) ends when the connection has
    /// finished closing.
    private func invalidateOnQueue(closing: Bool) {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        guard let old = link else { return }
        link = nil
        publishers = publishers.filter { $0.value.generation != old.generation }
        if state.value != nil { state.send(nil) }
        if closing { old.connection.close() }
        failPendingRequestsOnQueue(of: old.generation)
    }

    private func failPendingRequestsOnQueue(of generation: Int) {
        let failing = pendingRequests.filter { $0.value.generation == generation }
        for requestID in failing.keys { pendingRequests[requestID] = nil }
        for pending in failing.values { pending.promise(.failure(StudioModeSessionError.disconnected)) }
    }
}
