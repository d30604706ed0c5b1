import Sluice
import Synchronization

/// What a publisher did, and when: its subscription, values, completion and cancel, each at the
/// virtual time it happened, measured from the test scheduler's origin (the instant its clock
/// started at), whoever recorded it and whenever recording started.
///
/// A `TimelineRecorder` produces one; a test compares it with `==` against a literal, prints it,
/// checks it against a marble diagram with `expectMarbles(timeline, diagram, ...)`, or draws it
/// with ``marbles(tick:values:)`` and ``svg(tick:title:values:)``.
///
/// ```swift
/// #expect(recorder.timeline == [
///     .subscription(at: .zero),
///     .value(at: .milliseconds(300), "swift result"),
/// ])
/// ```
///
/// It is a collection of its events, so Swift Testing's `#expect(a == b)` shows what differs
/// when two timelines do not match (`± inserted [300 ms: value b], removed [200 ms: value b]`).
/// A recorded timeline also knows which of the scheduler's actions each event happened in
/// (``actions``), which is how a report shows in which order actions due at one instant ran;
/// that is not compared by `==`.
public struct Timeline<Output, Failure: Error>: ExpressibleByArrayLiteral, CustomStringConvertible,
    RandomAccessCollection
{
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

        /// The same event `offset` later.
        func shifted(by offset: Duration) -> Event {
            switch self {
            case .subscription(let time): return .subscription(at: time + offset)
            case .value(let time, let value): return .value(at: time + offset, value)
            case .finished(let time): return .finished(at: time + offset)
            case .failure(let time, let error): return .failure(at: time + offset, error)
            case .cancel(let time): return .cancel(at: time + offset)
            }
        }
    }

    /// The events, in the order they happened.
    public var events: [Event] {
        didSet { stamps = [] }
    }

    /// For a recorded timeline, when each event was recorded and in which scheduler action;
    /// empty otherwise (and once `events` is changed).
    private(set) var stamps: [RecordingStamp] = []

    /// A timeline of these events.
    public init(_ events: [Event]) {
        self.events = events
    }

    public init(arrayLiteral events: Event...) {
        self.events = events
    }

    init(_ events: [Event], stamps: [RecordingStamp]) {
        self.events = events
        self.stamps = stamps.count == events.count ? stamps : []
    }

    public var startIndex: Int { events.startIndex }
    public var endIndex: Int { events.endIndex }
    public subscript(position: Int) -> Event { events[position] }

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
        let kept = events.indices.filter { if case .subscription = events[$0] { return false } else { return true } }
        return Timeline(kept.map { events[$0] }, stamps: stamps.isEmpty ? [] : kept.map { stamps[$0] })
    }

    /// The scheduler action each event happened in, for a timeline a `TimelineRecorder`
    /// recorded: `nil` for an event that happened outside the scheduler's actions (sent by
    /// the test itself) or in a timeline that was not recorded.
    ///
    /// Actions due at one instant run in the order they were scheduled; this shows which ran
    /// first when two events share an instant (a timer's tick and a timeout at 30 s, say).
    public var actions: [TestSchedulerAction?] {
        stamps.isEmpty ? events.map { _ in nil } : stamps.map(\.action)
    }

    /// When the subscription arrived, if the timeline has one.
    var subscriptionTime: Duration? {
        for case .subscription(let time) in events { return time }
        return nil
    }

    /// The events one after another: `[0: subscription, 300 ms: value swift result]`.
    public var description: String {
        "[" + events.map(\.description).joined(separator: ", ") + "]"
    }
}

extension Timeline.Event: Equatable where Output: Equatable, Failure: Equatable {}

extension Timeline: Equatable where Output: Equatable, Failure: Equatable {
    /// Whether the events are equal: when and what, not which scheduler action they happened in.
    public static func == (lhs: Timeline, rhs: Timeline) -> Bool {
        lhs.events == rhs.events
    }
}

extension Timeline.Event: Sendable where Output: Sendable {}
extension Timeline: Sendable where Output: Sendable {}

/// When an event was recorded: its place in the order of everything recorded in this process
/// (so events of two recorders of one run can be put in order), and the scheduler action it
/// happened in.
struct RecordingStamp: Sendable {
    var sequence: Int
    var action: TestSchedulerAction?

    private static let counter = Atomic<Int>(0)

    /// A stamp for an event recorded now, in `action`.
    static func now(in action: TestSchedulerAction?) -> RecordingStamp {
        RecordingStamp(sequence: counter.add(1, ordering: .relaxed).newValue, action: action)
    }
}
