import Foundation
import Testing
import Sluice
import SluiceTesting

// The Swift blocks of the DocC article "Testing time and marbles"
// (Sources/SluiceTesting/SluiceTesting.docc/TestingTimeAndMarbles.md), each compiled and run
// here as written: the last test checks that every block of the article is in this file.

func poll(clock: some Clock<Duration>, log: Log<String>) async throws {
    for round in 1...3 {
        try await clock.sleep(for: .seconds(1))
        log.append("poll \(round)")
    }
}

@Suite("The article Testing time and marbles")
struct ArticleSnippetTests {
    @Test func advancingTheClockRunsWhatIsDue() {
        let scheduler = DispatchQueue.test
        let query = PassthroughSubject<String, Never>()
        var received: [String] = []
        let cancellable = query
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .sink { received.append($0) }

        query.send("sw")
        query.send("swift")
        scheduler.advance(by: .milliseconds(299))
        #expect(received == [])
        scheduler.advance(by: .milliseconds(1))
        #expect(received == ["swift"])              // at exactly 300 ms
        cancellable.cancel()
    }

    @Test func nextDueDateAndPendingActions() {
        let scheduler = DispatchQueue.test
        scheduler.advance(by: .seconds(1))
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(300))) {}
        print(scheduler.nextDueDate!)                 // 1.3 s
        #expect(scheduler.nextDueDate?.sinceOrigin == .milliseconds(1300))
        #expect(scheduler.pendingActionCount == 1)
        scheduler.advance(to: scheduler.nextDueDate!)
        #expect(scheduler.elapsed == .milliseconds(1300))
    }

    @Test func theOrderThingsRunIn() {
        let scheduler = DispatchQueue.test
        var log: [String] = []
        let due = scheduler.now.advanced(by: .seconds(1))
        scheduler.schedule(after: due) { log.append("first at 1 s") }
        scheduler.schedule(after: due) { log.append("second at 1 s") }
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(500))) {
            log.append("500 ms")
            scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(100))) { log.append("600 ms") }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) { log.append("5.5 s") }
        }
        scheduler.advance(by: .seconds(1))
        #expect(log == ["500 ms", "600 ms", "first at 1 s", "second at 1 s"])   // "5.5 s" waits for a later advance

        scheduler.advance(by: .seconds(9))
        let ten = scheduler.now
        var ranAt: DispatchQueue.SchedulerTimeType?
        scheduler.schedule(after: ten.advanced(by: .seconds(-5))) { ranAt = scheduler.now }
        scheduler.advance()
        #expect(ranAt == ten)                                   // scheduled in the past: runs now
        scheduler.advance(to: ten.advanced(by: .seconds(-3)))
        #expect(scheduler.now == ten)                           // the clock never moves back
    }

    @Test func asyncCodeOnTheSameClock() throws {
        let scheduler = DispatchQueue.test
        let log = Log<String>()
        let task = Task(executorPreference: scheduler) { try await poll(clock: scheduler.clock, log: log) }
        scheduler.advance(by: .seconds(2))
        #expect(log.all == ["poll 1", "poll 2"])   // exactly two polls have run
        task.cancel()
    }

    @Test func oneClockForEveryTime() {
        let scheduler = DispatchQueue.test
        let query = PassthroughSubject<String, Never>()
        var searches: [ColdMarblePublisher<String, Never>] = []
        let results = query
            .map { term in
                let search = scheduler.cold("----r|", values: ["r": "\(term) result"], tick: .milliseconds(100))
                searches.append(search)
                return search
            }
            .switchToLatest()
            .recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(1400))
        query.send("swift")
        scheduler.advance(by: .seconds(1))
        #expect(searches[0].subscriptions.map(\.description) == ["1.4 s ..< 1.9 s (finished)"])
        #expect(results.timeline == [.subscription(at: .zero), .value(at: .milliseconds(1800), "swift result")])
    }

    @Test func recordingATimeline() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Boom>()
        let recorder = subject.delay(for: .milliseconds(250), scheduler: scheduler).recordTimeline(on: scheduler)
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(2)
        subject.send(completion: .failure(Boom(code: 3)))
        scheduler.advance(by: .seconds(1))

        #expect(recorder.timeline == [
            .subscription(at: .zero),
            .value(at: .milliseconds(250), 1),
            .value(at: .milliseconds(350), 2),
            .failure(at: .milliseconds(350), Boom(code: 3)),
        ])
        #expect(recorder.timeline.values == [1, 2])
        #expect(recorder.timeline.completion == .failure(Boom(code: 3)))
        #expect(recorder.isCompleted)
        #expect(recorder.now == .milliseconds(1100))
    }

    @Test func manualDemand() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let recorder = TimelineRecorder<Int, Never>(scheduler: scheduler, initialDemand: .none)
        upstream.subscribe(recorder)
        scheduler.advance(by: .seconds(1))
        recorder.request(.max(2))
        upstream.send(7)
        scheduler.advance(by: .seconds(1))
        recorder.cancel()
        #expect(upstream.demandLog == [.requested(.max(2)), .cancelled])
        #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .seconds(1), 7), .cancel(at: .seconds(2))])
    }

    @Test func hotAndCold() {
        let scheduler = DispatchQueue.test
        let tick = Duration.milliseconds(100)

        let cold = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], tick: tick)
        let first = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        let second = cold.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        // Each subscriber sees the whole diagram, from its own subscription:
        #expect(first.timeline == [.subscription(at: .zero), .value(at: .milliseconds(100), 1),
                                   .value(at: .milliseconds(300), 2), .finished(at: .milliseconds(400))])
        #expect(second.timeline == [.subscription(at: .milliseconds(200)), .value(at: .milliseconds(300), 1),
                                    .value(at: .milliseconds(500), 2), .finished(at: .milliseconds(600))])
        #expect(cold.subscriptions.map(\.description) == ["0 ..< 400 ms (finished)", "200 ms ..< 600 ms (finished)"])

        let hot = scheduler.hot("-a-b-c|", tick: tick)
        let early = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        let late = hot.recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(early.timeline.values == ["a", "b", "c"])
        #expect(late.timeline.values == ["b", "c"])
    }

    @Test func timedEvents() {
        let scheduler = DispatchQueue.test
        let fetch = scheduler.cold(events: [.value(at: .milliseconds(100), "page"), .finished(at: .milliseconds(100))])
        let failing: ColdMarblePublisher<String, URLError> = scheduler.cold(events: [.failure(at: .milliseconds(100), URLError(.timedOut))])
        let quiet = scheduler.cold(events: [.value(at: .seconds(5), 1)], failure: URLError.self)
        let recorder = fetch.recordTimeline(on: scheduler)
        let failed = failing.recordTimeline(on: scheduler)
        let cancelled = quiet.recordTimeline(on: scheduler)
        cancelled.cancel()
        #expect(scheduler.pendingActionCount == 3)   // fetch's two events and failing's one; none of quiet's
        scheduler.advance(by: .seconds(1))
        #expect(recorder.timeline.values == ["page"])
        #expect(failed.timeline.completion == .failure(URLError(.timedOut)))
    }

    @Test func subscriptionMarbles() {
        let scheduler = DispatchQueue.test
        let tick = Duration.milliseconds(100)
        let source = scheduler.cold("-a-b|", tick: tick)
        let whole = source.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(200))
        let partial = source.recordTimeline(on: scheduler)
        scheduler.advance(by: .milliseconds(100))
        partial.cancel()
        scheduler.advance(by: .seconds(1))
        expectSubscriptions(source.subscriptions, "^---!", "--^!", tick: tick)
        #expect(whole.isCompleted)
    }

    @Test func expectingADiagram() {
        let scheduler = DispatchQueue.test
        let query = scheduler.hot("(ab)--c", values: ["a": "sw", "b": "swift", "c": "swiftui"], tick: .milliseconds(100))
        expectMarbles(query.debounce(for: .milliseconds(300), scheduler: scheduler),
                      "---b-----c", values: ["b": "swift", "c": "swiftui"], scheduler: scheduler, tick: .milliseconds(100))
    }

    @Test func aMismatchIsReported() {
        let scheduler = DispatchQueue.test
        let tick = Duration.milliseconds(100)
        let source = scheduler.cold("-a-b|", values: ["a": 1, "b": 2], tick: tick)
        withKnownIssue {
            expectMarbles(source.map { $0 * 10 }.delay(for: .milliseconds(200), scheduler: scheduler),
                          "-x-y|", values: ["x": 10, "y": 20], scheduler: scheduler, tick: tick)
        }
    }

    @Test func checkingOneRunAtSeveralOutputs() {
        let scheduler = DispatchQueue.test
        let tick = Duration.milliseconds(100)
        let query = scheduler.hot("(ab)--c", values: ["a": "sw", "b": "swift", "c": "swiftui"], tick: tick)
        let debounced = query.debounce(for: .milliseconds(300), scheduler: scheduler)
        let searches = debounced.recordTimeline(on: scheduler)
        let results = debounced.map { "\($0) result" }.delay(for: .milliseconds(100), scheduler: scheduler)
            .recordTimeline(on: scheduler)
        scheduler.advance(by: .seconds(2))
        expectMarbles(searches, "---b-----c", values: ["b": "swift", "c": "swiftui"], tick: tick)
        expectMarbles(results, "----B-----C", values: ["B": "swift result", "C": "swiftui result"], tick: tick)
    }

    @Test func capturingFailures() {
        let scheduler = DispatchQueue.test
        let (matched, failures) = TestFailure.capturingFailures {
            expectMarbles(Just("a"), "-a|", scheduler: scheduler, tick: .milliseconds(100))
        }
        #expect(!matched)
        #expect(failures.first?.message.contains("expected: -a|\nactual:   (a|)") == true)
    }

    @Test func drawingTimelines() throws {
        let input: Timeline<String, Never> = [.value(at: .zero, "sw"), .value(at: .zero, "swift"),
                                              .value(at: .milliseconds(600), "swiftui"), .finished(at: .milliseconds(700))]
        let output: Timeline<String, Never> = [.value(at: .milliseconds(300), "swift"), .finished(at: .milliseconds(700))]
        var chart = MarbleChart(tick: .milliseconds(100), title: "debounce(for: .milliseconds(300))")
        chart.add("query", input, values: ["a": "sw", "b": "swift", "c": "swiftui"])
        chart.add("debounced", output, values: ["b": "swift"])
        #expect(chart.text == """
            query:     (ab)--c|
            debounced: ---b---|
            """)
        try chart.svg.write(toFile: NSTemporaryDirectory() + "debounce.svg", atomically: true, encoding: .utf8)
    }

    @Test func lateDemandWithShareReplay() {
        let changes = PassthroughSubject<Bool, Never>()
        let state = Just(true).merge(with: changes).share(replay: 1)
        let a = TestSubscriber<Bool, Never>()
        state.subscribe(a)                                    // a.values == [true]
        let b = TestSubscriber<Bool, Never>(initialDemand: .none)
        state.subscribe(b)                                    // b.values == []
        b.request(.max(1))                                    // b.values == [true]
        changes.send(false)                                   // a.values == [true, false]; b's demand is used up
        b.request(.max(1))                                    // b.values == [true, false]
    }

    @Test func coldSourceWaitsForDemand() {
        let scheduler = DispatchQueue.test
        let cold = scheduler.cold("ab-c|", values: ["a": 1, "b": 2, "c": 3], tick: .milliseconds(100))
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        cold.subscribe(subscriber)
        scheduler.advance(by: .milliseconds(500))
        #expect(subscriber.values == [1])                     // b, c and the completion wait for demand
        subscriber.request(.max(5))
        #expect(subscriber.history == [
            .subscription("MarbleSubscription"), .request(.max(1)), .value(1), .request(.max(5)), .value(2), .value(3),
            .completion(.finished),
        ])
    }

    @Test func blockingHelpers() throws {
        let source = [1, 2, 3].publisher.receive(on: DispatchQueue(label: "producer"))
        #expect(try source.blocking().values() == [1, 2, 3])
        #expect(try source.blocking().first() == 1)
        #expect(try source.blocking().last() == 3)
        let (values, completion) = try source.blocking(timeout: 5).completion()
        #expect(values == [1, 2, 3] && completion == .finished)
    }

    @Test func blockingRecorder() throws {
        nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()  // not Sendable, as in Combine
        let recorder = subject.blocking(timeout: 5).record()
        DispatchQueue(label: "sender").async {
            subject.send(1)
            subject.send(2)
        }
        #expect(try recorder.next(2) == [1, 2])
        recorder.expectNoValue(within: 0.1)
    }

    /// Every Swift block of the article appears in this file, line for line (indentation aside).
    @Test func everySwiftBlockOfTheArticleIsCompiledHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(contentsOf: root.appendingPathComponent(
            "Sources/SluiceTesting/SluiceTesting.docc/TestingTimeAndMarbles.md"), encoding: .utf8)
        let source = try String(contentsOf: here, encoding: .utf8)
        let blocks = SwiftBlocks.of(article)
        #expect(blocks.count >= 20)
        for block in blocks {
            #expect(SwiftBlocks.contains(source, block), "not compiled here:\n\(block.joined(separator: "\n"))")
        }
    }
}

/// The Swift blocks of a Markdown text, and whether a source file holds one.
enum SwiftBlocks {
    /// Each block as its lines, trimmed, without blank lines.
    static func of(_ markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil, !trimmed.isEmpty {
                current!.append(trimmed)
            }
        }
        return blocks
    }

    /// Whether `source` has the block's lines one after another (trimmed, blank lines aside).
    static func contains(_ source: String, _ block: [String]) -> Bool {
        let lines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !block.isEmpty, lines.count >= block.count else { return block.isEmpty }
        return (0...(lines.count - block.count)).contains { start in
            Array(lines[start..<(start + block.count)]) == block
        }
    }
}
