import Sluice

/// What a publisher did, and when: its subscription, values, completion and cancel, each at the
/// virtual time it happened (measured from when recording started).
///
/// A `TimelineRecorder` produces one; a test compares it with `==` against a literal, prints it,
/// or draws it with ``marbles(tick:values:)`` and ``svg(tick:title:values:)``.
///
/// ```swift
/// #expect(recorder.timeline == [
///     .subscription(at: .zero),
///     .value(at: .milliseconds(300), "swift result"),
/// ])
/// ```
public struct Timeline<Output, Failure: Error>: ExpressibleByArrayLiteral, CustomStringConvertible {
    /// One thing that happened.
    public enum Event: CustomStringConvertible {
        /// The subscription arrived.
        case subscription(at: Duration)
        /// A value arrived.
        case value(at: Duration, Output)
        /// The publisher finished.
        case finished(at: Duration)
        /// The publisher failed.
        case failure(at: Duration, Failure)
        /// The subscriber cancelled.
        case cancel(at: Duration)

        /// When it happened.
        public var time: Duration {
            switch self {
            case .subscription(let time), .value(let time, _), .finished(let time), .failure(let time, _),
                 .cancel(let time):
                return time
            }
        }

        /// `300 ms: value swift result`.
        public var description: String {
            let time = VirtualTime.format(self.time)
            switch self {
            case .subscription: return "\(time): subscription"
            case .value(_, let value): return "\(time): value \(value)"
            case .finished: return "\(time): finished"
            case .failure(_, let error): return "\(time): failure \(error)"
            case .cancel: return "\(time): cancel"
            }
        }
    }

    /// The events, in the order they happened.
    public var events: [Event]

    /// A timeline of these events.
    public init(_ events: [Event]) {
        self.events = events
    }

    public init(arrayLiteral events: Event...) {
        self.events = events
    }

    /// The values, in order.
    public var values: [Output] {
        events.compactMap { if case .value(_, let value) = $0 { return value } else { return nil } }
    }

    /// The completion, if the publisher completed.
    public var completion: Subscribers.Completion<Failure>? {
        for event in events {
            switch event {
            case .finished: return .finished
            case .failure(_, let error): return .failure(error)
            default: continue
            }
        }
        return nil
    }

    /// The events without the subscription: what a marble diagram of the output shows.
    public var signals: Timeline {
        Timeline(events.filter { if case .subscription = $0 { return false } else { return true } })
    }

    /// The events one to a line: `[0: subscription, 300 ms: value swift result]`.
    public var description: String {
        "[" + events.map(\.description).joined(separator: ", ") + "]"
    }
}

extension Timeline.Event: Equatable where Output: Equatable, Failure: Equatable {}
extension Timeline: Equatable where Output: Equatable, Failure: Equatable {}
extension Timeline.Event: Sendable where Output: Sendable {}
extension Timeline: Sendable where Output: Sendable {}
