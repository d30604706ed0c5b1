import Foundation
import Sluice
import SluiceSchedulers
import StudioModeStateExample

/// An in-process OBS-style server: no network, and everything it sends waits for the test.
///
/// It answers `GetStudioModeEnabled` from its current state, stamped with its state version,
/// and announces every change of studio mode as a `StudioModeStateChanged` event to every open
/// connection. With `.held` delivery (the default) each connection keeps what the server sent
/// in an outbox, in the order the server sent it, until the test releases it: in that order
/// (`deliverAll()`), one at a time, out of order (`deliver(where:)`), or from whatever threads
/// the test calls from. With `.immediate` delivery every message is delivered inside the call
/// that caused it, on that thread: a response arrives inside `send`, before it returns.
final class FakeOBSServer: @unchecked Sendable {
    enum Delivery {
        case immediate
        case held
    }

    private let lock = NSLock()
    // Guarded by `lock`.
    private var deliveryMode: Delivery
    private var studioModeEnabled: Bool
    private var stateVersion = 0
    private var received: [OBSRequest] = []
    private var opened: [FakeOBSConnection] = []

    init(studioModeEnabled: Bool = false, delivery: Delivery = .held) {
        self.studioModeEnabled = studioModeEnabled
        deliveryMode = delivery
    }

    var delivery: Delivery {
        get { lock.withLock { deliveryMode } }
        set { lock.withLock { deliveryMode = newValue } }
    }

    /// Every request received, on every connection, in order.
    var requests: [OBSRequest] { lock.withLock { received } }

    /// How many `GetStudioModeEnabled` queries have reached the server.
    var studioModeQueries: Int { requests.filter { $0.requestType == "GetStudioModeEnabled" }.count }

    /// Every connection opened, in order.
    var connections: [FakeOBSConnection] { lock.withLock { opened } }

    /// Opens connection number `connections.count + 1`.
    func makeConnection() -> FakeOBSConnection {
        lock.withLock {
            let connection = FakeOBSConnection(number: opened.count + 1, server: self)
            opened.append(connection)
            return connection
        }
    }

    /// Someone toggles studio mode in OBS: the state version goes up and every open
    /// connection is told.
    func setStudioModeEnabled(_ enabled: Bool) {
        let (event, connections) = lock.withLock {
            studioModeEnabled = enabled
            stateVersion += 1
            return (OBSEvent(eventType: "StudioModeStateChanged", studioModeEnabled: enabled, stateVersion: stateVersion),
                    opened)
        }
        for connection in connections { connection.post(.message(.event(event))) }
    }

    /// The server closes every connection.
    func dropAllConnections() {
        for connection in connections { connection.post(.closed) }
    }

    fileprivate func handle(_ request: OBSRequest, on connection: FakeOBSConnection) {
        let response = lock.withLock {
            received.append(request)
            guard request.requestType == "GetStudioModeEnabled" else {
                return OBSResponse(requestID: request.requestID, requestType: request.requestType, succeeded: false,
                                   studioModeEnabled: nil, stateVersion: stateVersion)
            }
            return OBSResponse(requestID: request.requestID, requestType: request.requestType,
                               studioModeEnabled: studioModeEnabled, stateVersion: stateVersion)
        }
        connection.post(.message(.response(response)))
    }
}

/// One connection to the fake server.
final class FakeOBSConnection: OBSConnection, @unchecked Sendable {
    /// What the server has sent: a message, or the close.
    enum Outgoing: Equatable, CustomStringConvertible {
        case message(OBSMessage)
        case closed

        var isEvent: Bool { if case .message(.event) = self { return true } else { return false } }
        var isResponse: Bool { if case .message(.response) = self { return true } else { return false } }

        var description: String {
            switch self {
            case .message(let message): return message.description
            case .closed: return "closed"
            }
        }
    }

    let number: Int
    private weak var server: FakeOBSServer?
    private let subject = PassthroughSubject<OBSMessage, Never>()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var outbox: [Outgoing] = []
    private var closing = false

    fileprivate init(number: Int, server: FakeOBSServer) {
        self.number = number
        self.server = server
    }

    var messages: AnyPublisher<OBSMessage, Never> { subject.eraseToAnyPublisher() }

    func send(_ request: OBSRequest) {
        guard !lock.withLock({ closing }) else { return }
        server?.handle(request, on: self)
    }

    /// The client closes: the close is delivered like any other message, after what is queued.
    func close() {
        post(.closed)
    }

    /// What is waiting to be delivered.
    var pending: [Outgoing] { lock.withLock { outbox } }

    /// Delivers the oldest waiting item, if any, on the calling thread.
    @discardableResult
    func deliverNext() -> Outgoing? {
        deliver(where: { _ in true })
    }

    /// Delivers the oldest waiting item that matches, overtaking the ones before it.
    @discardableResult
    func deliver(where matches: (Outgoing) -> Bool) -> Outgoing? {
        let item: Outgoing? = lock.withLock {
            guard let index = outbox.firstIndex(where: matches) else { return nil }
            return outbox.remove(at: index)
        }
        if let item { deliverNow(item) }
        return item
    }

    /// Delivers everything waiting, in order.
    func deliverAll() {
        while deliverNext() != nil {}
    }

    fileprivate func post(_ item: Outgoing) {
        let now: Bool? = lock.withLock {
            guard !closing else { return nil }        // nothing more after a close
            if item == .closed { closing = true }
            if server?.delivery == .immediate { return true }
            outbox.append(item)
            return false
        }
        if now == true { deliverNow(item) }
    }

    private func deliverNow(_ item: Outgoing) {
        switch item {
        case .message(let message): subject.send(message)
        case .closed: subject.send(completion: .finished)
        }
    }
}
