import Sluice

/// Subscribes to `publisher` at the scheduler's current time, plays the scheduler, and checks
/// that what the publisher does matches `diagram` (see ``MarbleDiagram`` for the syntax); if not,
/// reports a test failure at the caller, under Swift Testing or XCTest, drawing the expected and
/// the actual timelines one above the other.
///
/// The subscription is time zero (the diagram's `^`, or its first tick). If the diagram has a `!`,
/// the subscriber cancels at that tick; otherwise the scheduler runs until it has nothing left
/// to do (at most 1,000 ticks past the diagram's end, so that a repeating timer cannot run for
/// ever). Values are compared with `==`, errors with `==`, and times exactly: an event between
/// two ticks does not match either.
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// let query = scheduler.hot("(ab)--c", values: ["a": "sw", "b": "swift", "c": "swiftui"], tick: .milliseconds(100))
/// expectMarbles(query.debounce(for: .milliseconds(300), scheduler: scheduler),
///               "---b-----c", values: ["b": "swift", "c": "swiftui"], scheduler: scheduler, tick: .milliseconds(100))
/// ```
///
/// - Returns: whether the timelines matched.
@discardableResult
public func expectMarbles<P: Publisher, Time, Options>(
    _ publisher: P, _ diagram: String, values: [String: P.Output] = [:], errors: [String: P.Failure] = [:],
    scheduler: TestScheduler<Time, Options>, tick: Duration = .seconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> Bool where P.Output: Equatable, P.Failure: Equatable {
    MarbleExpectation(publisher: publisher, diagram: diagram, values: values, errors: errors, tick: tick,
                      sameError: ==)
        .run(on: scheduler, fileID: fileID, filePath: filePath, line: line, column: column)
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
    MarbleExpectation(publisher: publisher, diagram: diagram, values: values, errors: errors, tick: tick,
                      sameError: { String(reflecting: $0) == String(reflecting: $1) })
        .run(on: scheduler, fileID: fileID, filePath: filePath, line: line, column: column)
}

private struct MarbleExpectation<P: Publisher> where P.Output: Equatable {
    typealias Output = P.Output
    typealias Failure = P.Failure

    let publisher: P
    let diagram: String
    let values: [String: Output]
    let errors: [String: Failure]
    let tick: Duration
    let sameError: (Failure, Failure) -> Bool

    func run<Time, Options>(on scheduler: TestScheduler<Time, Options>, fileID: StaticString, filePath: StaticString,
                            line: UInt, column: UInt) -> Bool {
        func fail(_ message: String) -> Bool {
            TestFailure.report(message, fileID: fileID, filePath: filePath, line: line, column: column)
            return false
        }
        let expected: MarbleDiagram<Output, Failure>
        do {
            expected = try MarbleDiagram(diagram, values: values, errors: errors)
        } catch {
            return fail("expectMarbles: \(error)")
        }
        if expected.events.contains(where: { $0.tick < 0 }) {
            return fail("expectMarbles: the expected diagram \"\(diagram)\" has events before its subscription point \"^\"")
        }

        let start = scheduler.now
        func advance(toTick ticks: Int) {
            scheduler.advance(to: start.advanced(by: VirtualTime.stride(of: tick * ticks)))
        }
        let recorder = TimelineRecorder(recording: publisher, on: scheduler)
        let lastTick = max(expected.endTick - 1, 0)
        if let cancelTick = expected.cancellationTick {
            advance(toTick: cancelTick)
            recorder.cancel()
            advance(toTick: max(lastTick, cancelTick))
        } else {
            advance(toTick: lastTick)
            let horizon = start.advanced(by: VirtualTime.stride(of: tick * (lastTick + 1_000)))
            while !recorder.isCompleted, let next = scheduler.nextDueDate, next <= horizon {
                scheduler.advance(to: next)
            }
        }
        let actual = recorder.timeline
        if expected.cancellationTick == nil { recorder.cancel() }

        // Compare what the diagram describes: values, completion and (with "!") the cancel.
        let expectedEvents: [Timeline<Output, Failure>.Event] = expected.events.map { event in
            switch event.kind {
            case .value(let value): return .value(at: tick * event.tick, value)
            case .finished: return .finished(at: tick * event.tick)
            case .failure(let error): return .failure(at: tick * event.tick, error)
            }
        } + (expected.cancellationTick.map { [.cancel(at: tick * $0)] } ?? [])
        let actualEvents = actual.events.filter { event in
            switch event {
            case .subscription: return false
            case .cancel: return expected.cancellationTick != nil
            default: return true
            }
        }
        let firstDifference = zip(expectedEvents, actualEvents).enumerated().first { !same($0.element.0, $0.element.1) }?.offset
            ?? (expectedEvents.count == actualEvents.count ? nil : min(expectedEvents.count, actualEvents.count))
        guard let difference = firstDifference else { return true }

        // Draw both on one axis.
        let showsSubscription = expected.subscriptionTick != nil
        var chart = MarbleChart(tick: tick)
        let until = tick * expected.endTick
        chart.add("expected", Timeline(expectedEvents + (showsSubscription ? [.subscription(at: .zero)] : [])),
                  showsSubscription: showsSubscription, until: until, label: label(for:), errorLabel: label(for:))
        chart.add("actual", Timeline(actualEvents + (showsSubscription ? [.subscription(at: .zero)] : [])),
                  showsSubscription: showsSubscription, until: until, label: label(for:), errorLabel: label(for:))

        var message = "expectMarbles: the publisher's timeline does not match the diagram (one tick = \(VirtualTime.format(tick)))\n"
        message += chart.text + "\n"
        let expectedText = difference < expectedEvents.count ? describe(expectedEvents[difference]) : "nothing more"
        let actualText = difference < actualEvents.count ? describe(actualEvents[difference]) : "nothing more"
        message += "first difference: expected \(expectedText), got \(actualText)"
        let between = actualEvents.filter { VirtualTime.nanoseconds($0.time) % max(1, VirtualTime.nanoseconds(tick)) != 0 }
        if !between.isEmpty {
            message += "\nbetween ticks (drawn at the tick before): " + between.map(describe).joined(separator: ", ")
        }
        return fail(message)
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
