import Sluice

/// Subscribes to `publisher` at the scheduler's current time, plays the scheduler, and checks
/// that what the publisher does matches `diagram` (see ``MarbleDiagram`` for the syntax); if not,
/// reports a test failure at the caller, under Swift Testing or XCTest, drawing the expected and
/// the actual timelines one above the other.
///
/// The diagram's time zero (its `^`, or its first tick) is the subscription, now. If the diagram
/// has a `!`, the subscriber cancels there; otherwise the scheduler runs until it has nothing
/// left to do (at most 1,000 ticks past the diagram's end, so that a repeating timer cannot run
/// for ever). Values are compared with `==`, errors with `==`, and times exactly: an event
/// between two ticks does not match either. The report gives times since the scheduler's
/// origin, and the scheduler's `now`.
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// let query = scheduler.hot("(ab)--c", values: ["a": "sw", "b": "swift", "c": "swiftui"], tick: .milliseconds(100))
/// expectMarbles(query.debounce(for: .milliseconds(300), scheduler: scheduler),
///               "---b-----c", values: ["b": "swift", "c": "swiftui"], scheduler: scheduler, tick: .milliseconds(100))
/// ```
///
/// To check several outputs of one run, record each with a ``TimelineRecorder``, advance the
/// scheduler yourself, and check each recording with `expectMarbles(recorder, diagram, ...)`,
/// which does not move the clock.
///
/// - Returns: whether the timelines matched.
@discardableResult
public func expectMarbles<P: Publisher, Time, Options>(
    _ publisher: P, _ diagram: String, values: [String: P.Output] = [:], errors: [String: P.Failure] = [:],
    scheduler: TestScheduler<Time, Options>, tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool where P.Output: Equatable, P.Failure: Equatable {
    MarbleExpectation(diagram: diagram, values: values, errors: errors, tick: tick, sameError: ==)
        .run(publisher, on: scheduler, at: SourcePlace(fileID, filePath, line, column))
}

/// ``expectMarbles(_:_:values:errors:scheduler:tick:fileID:filePath:line:column:)`` for a
/// publisher whose errors are not `Equatable` (such as `tryMap`'s `any Error`): errors match
/// when their descriptions do.
@discardableResult
@_disfavoredOverload
public func expectMarbles<P: Publisher, Time, Options>(
    _ publisher: P, _ diagram: String, values: [String: P.Output] = [:], errors: [String: P.Failure] = [:],
    scheduler: TestScheduler<Time, Options>, tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool where P.Output: Equatable {
    MarbleExpectation(diagram: diagram, values: values, errors: errors, tick: tick, sameError: sameDescription)
        .run(publisher, on: scheduler, at: SourcePlace(fileID, filePath, line, column))
}

/// Checks what `recorder` has recorded so far against `diagram`, without moving the clock, and
/// reports a mismatch as `expectMarbles(_:_:values:errors:scheduler:tick:)` does, with the same
/// drawing: so one run, recorded at several outputs, can be checked at each.
///
/// The diagram's time zero (its `^`, or its first tick) is the recording's subscription (the
/// scheduler's origin if it has none). Values, the completion and times must match exactly;
/// the recorder's cancel is compared only when the diagram has a `!`. The report gives times
/// since the scheduler's origin and the scheduler's `now`.
///
/// ```swift
/// let requests = source.recordTimeline(on: scheduler)
/// let results = model.$results.dropFirst().recordTimeline(on: scheduler)
/// scheduler.advance(by: .seconds(2))
/// expectMarbles(requests, "---a----b", values: ["a": "swift", "b": "swiftui"], tick: .milliseconds(100))
/// expectMarbles(results, "----A----B", values: ["A": ["swift"], "B": ["swiftui"]], tick: .milliseconds(100))
/// ```
///
/// - Returns: whether the timelines matched.
@discardableResult
public func expectMarbles<Output: Equatable, Failure: Equatable>(
    _ recorder: TimelineRecorder<Output, Failure>, _ diagram: String, values: [String: Output] = [:],
    errors: [String: Failure] = [:], tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool {
    MarbleExpectation(diagram: diagram, values: values, errors: errors, tick: tick, sameError: ==)
        .check(recorder.timeline, subject: "the recorded timeline", now: recorder.now,
               at: SourcePlace(fileID, filePath, line, column))
}

/// The recorder form of `expectMarbles` for errors that are not `Equatable`: errors match when
/// their descriptions do.
@discardableResult
@_disfavoredOverload
public func expectMarbles<Output: Equatable, Failure>(
    _ recorder: TimelineRecorder<Output, Failure>, _ diagram: String, values: [String: Output] = [:],
    errors: [String: Failure] = [:], tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool {
    MarbleExpectation(diagram: diagram, values: values, errors: errors, tick: tick, sameError: sameDescription)
        .check(recorder.timeline, subject: "the recorded timeline", now: recorder.now,
               at: SourcePlace(fileID, filePath, line, column))
}

/// Checks a timeline against `diagram`, as the recorder form does (a timeline carries no
/// scheduler, so the report cannot give its `now`).
@discardableResult
public func expectMarbles<Output: Equatable, Failure: Equatable>(
    _ timeline: Timeline<Output, Failure>, _ diagram: String, values: [String: Output] = [:],
    errors: [String: Failure] = [:], tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool {
    MarbleExpectation(diagram: diagram, values: values, errors: errors, tick: tick, sameError: ==)
        .check(timeline, subject: "the timeline", now: nil, at: SourcePlace(fileID, filePath, line, column))
}

/// The timeline form of `expectMarbles` for errors that are not `Equatable`.
@discardableResult
@_disfavoredOverload
public func expectMarbles<Output: Equatable, Failure>(
    _ timeline: Timeline<Output, Failure>, _ diagram: String, values: [String: Output] = [:],
    errors: [String: Failure] = [:], tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool {
    MarbleExpectation(diagram: diagram, values: values, errors: errors, tick: tick, sameError: sameDescription)
        .check(timeline, subject: "the timeline", now: nil, at: SourcePlace(fileID, filePath, line, column))
}

/// Checks a marble publisher's `subscriptions` against subscription diagrams, one per
/// subscription in the order they were made, as RxJS's `expectSubscriptions`: `^` where it
/// subscribed and `!` where it ended (cancelled, finished or failed), counted from the
/// scheduler's origin, `-` for a tick, spaces ignored, time progressions (`1.4s`) allowed, and
/// `(^!)` for a subscription that ended where it began.
///
/// ```swift
/// expectSubscriptions(search.subscriptions, "---^---!", "--------^---!", tick: .milliseconds(100))
/// ```
///
/// On a mismatch it reports a failure at the caller with both sets drawn on one axis. Pass the
/// publisher itself (`expectSubscriptions(search, ...)`) for a report that also gives the
/// scheduler's `now`.
///
/// - Returns: whether they matched.
@discardableResult
public func expectSubscriptions(
    _ subscriptions: [SubscriptionInterval], _ diagrams: String..., tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool {
    SubscriptionExpectation(diagrams: diagrams, tick: tick)
        .check(subscriptions, now: nil, at: SourcePlace(fileID, filePath, line, column))
}

/// Checks a cold marble publisher's subscriptions against subscription diagrams, as
/// `expectSubscriptions(_:_:tick:)` does for a list, with the scheduler's `now` in the report.
@discardableResult
public func expectSubscriptions<Output, Failure>(
    _ publisher: ColdMarblePublisher<Output, Failure>, _ diagrams: String..., tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool {
    SubscriptionExpectation(diagrams: diagrams, tick: tick)
        .check(publisher.subscriptions, now: publisher.now, at: SourcePlace(fileID, filePath, line, column))
}

/// Checks a hot marble publisher's subscriptions against subscription diagrams, as
/// `expectSubscriptions(_:_:tick:)` does for a list, with the scheduler's `now` in the report.
@discardableResult
public func expectSubscriptions<Output, Failure>(
    _ publisher: HotMarblePublisher<Output, Failure>, _ diagrams: String..., tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool {
    SubscriptionExpectation(diagrams: diagrams, tick: tick)
        .check(publisher.subscriptions, now: publisher.now, at: SourcePlace(fileID, filePath, line, column))
}

/// Subscription diagrams and what every form of `expectSubscriptions` checks.
private struct SubscriptionExpectation {
    let diagrams: [String]
    let tick: Duration

    func check(_ subscriptions: [SubscriptionInterval], now: Duration?, at place: SourcePlace) -> Bool {
        let expected: [SubscriptionInterval]
        do {
            expected = try diagrams.map { try SubscriptionMarbles.parse($0, tick: tick) }
        } catch {
            return place.fail("expectSubscriptions: \(error)")
        }
        if expected.count == subscriptions.count,
           zip(expected, subscriptions).allSatisfy({ $0.0.subscribedAt == $0.1.subscribedAt && $0.0.endedAt == $0.1.endedAt }) {
            return true
        }
        var chart = MarbleChart(tick: tick)
        for (index, interval) in expected.enumerated() { chart.add("expected \(index + 1)", subscription: interval) }
        for (index, interval) in subscriptions.enumerated() { chart.add("actual \(index + 1)", subscription: interval) }
        func span(_ interval: SubscriptionInterval) -> String {
            let start = VirtualTime.format(interval.subscribedAt)
            return interval.endedAt.map { "\(start) ..< \(VirtualTime.format($0))" } ?? "\(start) ..."
        }
        var message = "expectSubscriptions: the subscriptions do not match the diagrams (one tick = \(VirtualTime.format(tick)); "
            + "times since the scheduler's origin" + (now.map { ", now \(VirtualTime.format($0))" } ?? "") + ")\n"
        message += chart.text + "\n"
        message += "expected: " + (expected.isEmpty ? "none" : expected.map(span).joined(separator: ", "))
        message += "\nactual:   " + (subscriptions.isEmpty ? "none" : subscriptions.map(\.description).joined(separator: ", "))
        return place.fail(message)
    }
}

/// Where an assertion was called, for its report.
struct SourcePlace {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt

    init(_ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    /// Reports `message` as a test failure here, and returns false.
    func fail(_ message: String) -> Bool {
        TestFailure.report(message, fileID: fileID, filePath: filePath, line: line, column: column)
        return false
    }
}

/// Errors that are not `Equatable` match when their descriptions do.
private func sameDescription<Failure>(_ a: Failure, _ b: Failure) -> Bool {
    String(reflecting: a) == String(reflecting: b)
}

/// An expected diagram and how to read it: what every form of `expectMarbles` checks.
private struct MarbleExpectation<Output: Equatable, Failure: Error> {
    let diagram: String
    let values: [String: Output]
    let errors: [String: Failure]
    let tick: Duration
    let sameError: (Failure, Failure) -> Bool

    /// The diagram, or the message that it cannot be read.
    func parse() -> Result<MarbleDiagram<Output, Failure>, MessageError> {
        let expected: MarbleDiagram<Output, Failure>
        do {
            expected = try MarbleDiagram(diagram, values: values, errors: errors)
        } catch {
            return .failure(MessageError("expectMarbles: \(error)"))
        }
        if expected.events.contains(where: { $0.time(tick: tick) < .zero }) {
            return .failure(MessageError("expectMarbles: the expected diagram \"\(diagram)\" has events before its subscription point \"^\""))
        }
        return .success(expected)
    }

    /// Subscribes now, plays the scheduler as the diagram asks, and checks what was recorded.
    func run<P: Publisher, Time, Options>(_ publisher: P, on scheduler: TestScheduler<Time, Options>,
                                          at place: SourcePlace) -> Bool
        where P.Output == Output, P.Failure == Failure
    {
        let expected: MarbleDiagram<Output, Failure>
        switch parse() {
        case .success(let diagram): expected = diagram
        case .failure(let error): return place.fail(error.message)
        }
        let anchor = scheduler.elapsed
        func advance(to time: Duration) {
            scheduler.advance(to: scheduler.origin.advanced(by: VirtualTime.stride(of: time)))
        }
        let recorder = TimelineRecorder(recording: publisher, on: scheduler)
        let last = anchor + max(expected.last.time(tick: tick), .zero)
        if let cancellation = expected.cancellation {
            let cancelAt = anchor + cancellation.time(tick: tick)
            advance(to: cancelAt)
            recorder.cancel()
            advance(to: max(last, cancelAt))
        } else {
            advance(to: last)
            let horizon = last + tick * 1_000
            while !recorder.isCompleted, let next = scheduler.nextDueDate, next.sinceOrigin <= horizon {
                scheduler.advance(to: next)
            }
        }
        let actual = recorder.timeline
        if expected.cancellation == nil { recorder.cancel() }
        guard let message = mismatch(expected, actual: actual, anchor: anchor, now: scheduler.elapsed,
                                     subject: "the publisher's timeline") else { return true }
        return place.fail(message)
    }

    /// Checks a timeline recorded already; its subscription is the diagram's time zero.
    func check(_ actual: Timeline<Output, Failure>, subject: String, now: Duration?, at place: SourcePlace) -> Bool {
        let expected: MarbleDiagram<Output, Failure>
        switch parse() {
        case .success(let diagram): expected = diagram
        case .failure(let error): return place.fail(error.message)
        }
        guard let message = mismatch(expected, actual: actual, anchor: actual.subscriptionTime ?? .zero, now: now,
                                     subject: subject) else { return true }
        return place.fail(message)
    }

    /// The failure message if `actual` does not match `expected`, whose time zero is `anchor`.
    func mismatch(_ expected: MarbleDiagram<Output, Failure>, actual: Timeline<Output, Failure>, anchor: Duration,
                  now: Duration?, subject: String) -> String? {
        // Compare what the diagram describes: values, completion and (with "!") the cancel.
        var expectedEvents: [Timeline<Output, Failure>.Event] = expected.events.map { event in
            let time = anchor + event.time(tick: tick)
            switch event.kind {
            case .value(let value): return .value(at: time, value)
            case .finished: return .finished(at: time)
            case .failure(let error): return .failure(at: time, error)
            }
        }
        if let cancellation = expected.cancellation { expectedEvents.append(.cancel(at: anchor + cancellation.time(tick: tick))) }
        let showsSubscription = expected.subscriptionTick != nil
        let compared = actual.indices.filter { index in
            switch actual[index] {
            case .subscription: return false
            case .cancel: return expected.cancellation != nil
            default: return true
            }
        }
        let actualEvents = compared.map { actual[$0] }
        let firstDifference = zip(expectedEvents, actualEvents).enumerated().first { !same($0.element.0, $0.element.1) }?.offset
            ?? (expectedEvents.count == actualEvents.count ? nil : min(expectedEvents.count, actualEvents.count))
        guard let difference = firstDifference else { return nil }

        // Draw both on one axis, from the diagram's time zero.
        var chart = MarbleChart(tick: tick)
        chart.start = anchor
        chart.reserved = Set(values.keys)
        let until = anchor + expected.end.time(tick: tick)
        chart.add("expected", Timeline(expectedEvents + (showsSubscription ? [.subscription(at: anchor)] : [])),
                  showsSubscription: showsSubscription, until: until, label: label(for:), errorLabel: label(for:))
        let shown = actual.indices.filter { compared.contains($0) || (showsSubscription && actual[$0].isSubscription) }
        chart.add("actual", Timeline(shown.map { actual[$0] }, stamps: actual.stamps.isEmpty ? [] : shown.map { actual.stamps[$0] }),
                  showsSubscription: showsSubscription, until: until, label: label(for:), errorLabel: label(for:))

        var context = ["one tick = \(VirtualTime.format(tick))"]
        if anchor != .zero { context.append("the diagram starts at \(VirtualTime.format(anchor))") }
        context.append("times since the scheduler's origin" + (now.map { ", now \(VirtualTime.format($0))" } ?? ""))
        var message = "expectMarbles: \(subject) does not match the diagram (\(context.joined(separator: "; ")))\n"
        message += chart.text + "\n"
        let expectedText = difference < expectedEvents.count ? describe(expectedEvents[difference]) : "nothing more"
        let actualText = difference < actualEvents.count ? describe(actualEvents[difference]) : "nothing more"
        message += "first difference: expected \(expectedText), got \(actualText)"
        // Where actions due at one instant decided the order, say in which order they ran.
        let instants = [difference < actualEvents.count ? actualEvents[difference].time : nil,
                        difference < expectedEvents.count ? expectedEvents[difference].time : nil]
        var seen: Set<Duration> = []
        for case let instant? in instants where seen.insert(instant).inserted {
            for entry in chart.runOrderEntries(at: instant) {
                message += "\nat \(VirtualTime.format(entry.time)), actions ran in the order they were scheduled: \(entry.order)"
            }
        }
        return message
    }

    func same(_ a: Timeline<Output, Failure>.Event, _ b: Timeline<Output, Failure>.Event) -> Bool {
        switch (a, b) {
        case let (.value(t1, v1), .value(t2, v2)): return t1 == t2 && v1 == v2
        case let (.finished(t1), .finished(t2)), let (.cancel(t1), .cancel(t2)): return t1 == t2
        case let (.failure(t1, e1), .failure(t2, e2)): return t1 == t2 && sameError(e1, e2)
        default: return false
        }
    }

    func label(for value: Output) -> String { MarbleLabels.key(for: value, in: values) }

    /// A plain `#` for the diagram's default error, its key for a named one, else its description.
    func label(for error: Failure) -> String {
        let keys = errors.filter { sameError($0.value, error) }.map(\.key).sorted()
        if keys.contains("#") || (errors.count == 1 && !keys.isEmpty) { return "" }
        return keys.first ?? String(describing: error)
    }

    /// `value b at 600 ms`, `finished at 900 ms`.
    func describe(_ event: Timeline<Output, Failure>.Event) -> String {
        let time = VirtualTime.format(event.time)
        switch event {
        case .value(_, let value):
            let shown = String(describing: value)
            guard values.values.contains(value) else { return "value \(shown) at \(time)" }
            let key = label(for: value)
            return key == shown ? "value \(shown) at \(time)" : "value \(key) (\(shown)) at \(time)"
        case .finished: return "finished at \(time)"
        case .failure(_, let error): return "failure \(error) at \(time)"
        case .cancel: return "cancel at \(time)"
        case .subscription: return "subscription at \(time)"
        }
    }
}

/// A message, as an error.
private struct MessageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

extension Timeline.Event {
    var isSubscription: Bool {
        if case .subscription = self { return true }
        return false
    }
}

/// Subscription diagrams: `^` subscribed, `!` ended, counted from the scheduler's origin.
enum SubscriptionMarbles {
    static func parse(_ text: String, tick: Duration) throws -> SubscriptionInterval {
        let symbols = Array(text)
        var time = Duration.zero
        var subscribed: Duration?
        var ended: Duration?
        var group: Duration?
        var index = 0
        func fail(_ message: String) -> MarbleSyntaxError {
            MarbleSyntaxError(diagram: text, offset: index, message: message)
        }
        while index < symbols.count {
            if case let (duration, length)? = MarbleTimeProgression.read(symbols, at: index) {
                if group != nil { throw fail("a time progression inside a group") }
                time += duration
                index += length
                continue
            }
            switch symbols[index] {
            case " ", "\t", "\n":
                index += 1
                continue
            case "-":
                if group != nil { throw fail("\"-\" inside a group") }
            case "(":
                if group != nil { throw fail("groups cannot nest") }
                group = time
            case ")":
                if group == nil { throw fail("\")\" without \"(\"") }
                group = nil
            case "^":
                if subscribed != nil { throw fail("a second \"^\"") }
                subscribed = group ?? time
            case "!":
                if ended != nil { throw fail("a second \"!\"") }
                if subscribed == nil { throw fail("\"!\" before \"^\"") }
                ended = group ?? time
            default:
                throw fail("a subscription diagram has only \"^\", \"!\", \"-\", groups and time progressions")
            }
            // Every character is a tick, in a group too, as in other diagrams.
            index += 1
            time += tick
        }
        if group != nil { throw fail("unclosed group") }
        guard let subscribed else { throw fail("no \"^\": where does it subscribe?") }
        guard let ended else { return SubscriptionInterval(subscribedAt: subscribed) }
        var interval = SubscriptionInterval(subscribedAt: subscribed)
        interval.endedAt = ended
        return interval
    }
}
