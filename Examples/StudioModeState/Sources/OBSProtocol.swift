import Foundation
import Sluice

// The slice of an OBS-WebSocket-style protocol the session needs: requests with IDs, responses
// that carry their request's ID, and events. Real OBS does not number its messages; this
// protocol stamps each response and event with the server's state version (a counter the
// server bumps on every change of state), standing in for whatever ordering information a
// real protocol offers, so that the session can tell a stale snapshot from a newer event.

/// A request to the server. Its `requestID` is echoed by the response.
public struct OBSRequest: Equatable, Sendable, CustomStringConvertible {
    /// Unique within a session; the response carries it back.
    public var requestID: String
    /// What is asked for, as OBS names it: `GetStudioModeEnabled`.
    public var requestType: String

    /// A request of `requestType` identified by `requestID`.
    public init(requestID: String, requestType: String) {
        self.requestID = requestID
        self.requestType = requestType
    }

    /// `GetStudioModeEnabled #3`.
    public var description: String { "\(requestType) #\(requestID)" }
}

/// The server's answer to one request.
public struct OBSResponse: Equatable, Sendable, CustomStringConvertible {
    /// The request answered.
    public var requestID: String
    /// The request's type.
    public var requestType: String
    /// Whether the request succeeded; a failed one carries no data.
    public var succeeded: Bool
    /// For `GetStudioModeEnabled`: whether studio mode is on.
    public var studioModeEnabled: Bool?
    /// The server's state version the answer was read at.
    public var stateVersion: Int

    /// A response to request `requestID`.
    public init(requestID: String, requestType: String, succeeded: Bool = true, studioModeEnabled: Bool?,
                stateVersion: Int) {
        self.requestID = requestID
        self.requestType = requestType
        self.succeeded = succeeded
        self.studioModeEnabled = studioModeEnabled
        self.stateVersion = stateVersion
    }

    /// `response #3 studio mode on (v2)`.
    public var description: String {
        "response #\(requestID) " + (studioModeEnabled.map { "studio mode \($0 ? "on" : "off")" } ?? "failed")
            + " (v\(stateVersion))"
    }
}

/// A change the server announces without being asked.
public struct OBSEvent: Equatable, Sendable, CustomStringConvertible {
    /// What happened, as OBS names it: `StudioModeStateChanged`.
    public var eventType: String
    /// For `StudioModeStateChanged`: whether studio mode is now on.
    public var studioModeEnabled: Bool
    /// The server's state version after the change.
    public var stateVersion: Int

    /// An event of `eventType`.
    public init(eventType: String, studioModeEnabled: Bool, stateVersion: Int) {
        self.eventType = eventType
        self.studioModeEnabled = studioModeEnabled
        self.stateVersion = stateVersion
    }

    /// `StudioModeStateChanged on (v2)`.
    public var description: String { "\(eventType) \(studioModeEnabled ? "on" : "off") (v\(stateVersion))" }
}

/// One message from the server.
public enum OBSMessage: Equatable, Sendable, CustomStringConvertible {
    /// The answer to a request.
    case response(OBSResponse)
    /// An announcement.
    case event(OBSEvent)

    /// The message's own description.
    public var description: String {
        switch self {
        case .response(let response): return response.description
        case .event(let event): return event.description
        }
    }
}

/// One connection to an OBS-style server: a WebSocket, or an in-process fake.
public protocol OBSConnection: AnyObject, Sendable {
    /// What the server sends, in the order the connection delivers it, on whatever thread the
    /// connection calls back on. Hot, like a `PassthroughSubject`: a message that arrives while
    /// nobody is subscribed is gone. Finishes when the connection has closed.
    var messages: AnyPublisher<OBSMessage, Never> { get }
    /// Sends a request. Its response may arrive before this returns, on this thread.
    func send(_ request: OBSRequest)
    /// Asks the connection to close; `messages` finishes once it has.
    func close()
}
