import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Print")
struct PrintTests {
    /// Runs the same scenario as Combine's print tests, with the downstream's callbacks writing
    /// into the same stream, so that the order of log lines and forwarding shows.
    private static func scenario(prefix: String) -> (lines: [String], writes: [String], subscriber: TestSubscriber<Int, TestError>, upstream: TestPublisher<Int, TestError>) {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, TestError>(subscriptionName: "CustomSubscription")
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .none,
            onSubscription: {
                stream.write("callback subscription\n")
                $0.request(.unlimited)
                $0.request(.max(30))
                subscription = $0
            },
            onValue: { value in
                stream.write("callback value\n")
                subscription?.request(.max(100))
                return value == 10 ? .unlimited : .max(2)
            },
            onCompletion: { _ in
                stream.write("callback completion\n")
                subscription?.request(.max(12))
            })
        upstream.print(prefix, to: stream).subscribe(subscriber)
        #expect(upstream.send(1) == .max(2))
        subscriber.request(.max(42))
        #expect(upstream.send(10) == .unlimited)
        #expect(upstream.send(3) == .max(2))
        upstream.send(completion: .finished)
        return (stream.lines, stream.writes, subscriber, upstream)
    }

    @Test func logsEveryEventInCombinesFormatBeforeForwardingIt() {
        let (lines, _, subscriber, upstream) = Self.scenario(prefix: "")
        #expect(lines == [
            "receive subscription: (CustomSubscription)",
            "callback subscription",
            "request unlimited",
            "request max: (30)",
            "receive value: (1)",
            "callback value",
            "request max: (100)",
            "request max: (2) (synchronous)",
            "request max: (42)",
            "receive value: (10)",
            "callback value",
            "request max: (100)",
            "request unlimited (synchronous)",
            "receive value: (3)",
            "callback value",
            "request max: (100)",
            "request max: (2) (synchronous)",
            "receive finished",
            "callback completion",
            "request max: (12)",
        ])
        #expect(subscriber.subscriptionNames == ["Print"])
        #expect(subscriber.values == [1, 10, 3])
        #expect(upstream.demandLog == [
            .requested(.unlimited), .requested(.max(30)), .requested(.max(100)), .requested(.max(42)),
            .requested(.max(100)), .requested(.max(100)),
        ])
    }

    @Test func aPrefixStartsEveryLogLine() {
        let (lines, _, _, _) = Self.scenario(prefix: "👉")
        #expect(lines.filter { !$0.hasPrefix("callback") } == [
            "👉: receive subscription: (CustomSubscription)",
            "👉: request unlimited",
            "👉: request max: (30)",
            "👉: receive value: (1)",
            "👉: request max: (100)",
            "👉: request max: (2) (synchronous)",
            "👉: request max: (42)",
            "👉: receive value: (10)",
            "👉: request max: (100)",
            "👉: request unlimited (synchronous)",
            "👉: receive value: (3)",
            "👉: request max: (100)",
            "👉: request max: (2) (synchronous)",
            "👉: receive finished",
            "👉: request max: (12)",
        ])
    }

    @Test func eachLineIsWrittenAsPrintWritesIt() {
        let stream = RecordingStream()
        _ = Just(5).print("p", to: stream).sink { _ in }
        #expect(stream.writes == [
            "", "p: receive subscription: (Just)", "\n",
            "", "p: request unlimited", "\n",
            "", "p: receive value: (5)", "\n",
            "", "p: receive finished", "\n",
        ])
    }

    @Test func logsErrorsAndCancels() {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.print(to: stream).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 7)))
        #expect(stream.lines == [
            "receive subscription: (TestSubscription)",
            "request max: (1)",
            "receive error: (TestError(7))",
        ])
        #expect(subscriber.completions == [.failure(TestError(code: 7))])
    }

    @Test func cancelIsLoggedEveryTimeButForwardedOnce() {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.print(to: stream).subscribe(subscriber)
        subscriber.cancel()
        subscriber.request(.max(5))
        subscriber.cancel()
        // After the end, what the upstream still sends is logged but not forwarded.
        #expect(upstream.send(9) == .none)
        upstream.send(completion: .finished)
        #expect(stream.lines == [
            "receive subscription: (TestSubscription)",
            "request max: (1)",
            "receive cancel",
            "request max: (5)",
            "receive cancel",
            "receive value: (9)",
            "receive finished",
        ])
        #expect(upstream.demandLog == [.requested(.max(1)), .cancelled])
        #expect(subscriber.events == [.subscription("Print")])
    }

    @Test func valuesAndCompletionsAfterTheEndAreLoggedButNotForwarded() {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(onValue: { _ in .max(1) })
        upstream.print(to: stream).subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("Print"), .completion(.finished)])
        #expect(stream.lines.suffix(3) == ["receive finished", "receive error: (TestError(1))", "receive value: (1)"])
    }

    @Test func aSecondSubscriptionIsLoggedAndCancelled() {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        upstream.print(to: stream).subscribe(subscriber)
        upstream.sendSubscription()
        #expect(stream.lines == ["receive subscription: (TestSubscription)", "receive subscription: (TestSubscription)"])
        #expect(upstream.demandLog == [.cancelled])
        #expect(subscriber.subscriptionNames == ["Print"])
    }

    @Test func demandReturnedAsNoneIsNotLogged() {
        let stream = RecordingStream()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.print(to: stream).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(stream.lines == [
            "receive subscription: (1...3)",
            "request max: (1)",
            "receive value: (1)",
            "request max: (1)",
            "receive value: (2)",
        ])
        #expect(subscriber.values == [1, 2])
    }

    @Test func requestAndCancelFromInsideReceive() {
        let stream = RecordingStream()
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            initialDemand: .max(1),
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 1 { subscription?.request(.max(1)) }
                if value == 2 { subscription?.cancel() }
                return .none
            })
        (1...5).publisher.print(to: stream).subscribe(subscriber)
        #expect(subscriber.values == [1, 2])
        #expect(stream.lines == [
            "receive subscription: (1...5)",
            "request max: (1)",
            "receive value: (1)",
            "request max: (1)",
            "receive value: (2)",
            "receive cancel",
        ])
    }

    @Test func writesToStandardOutputWithoutAStream() {
        let subscriber = TestSubscriber<Int, Never>()
        Just(1).print("stdout check").subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Print"), .value(1), .completion(.finished)])
    }

    @Test func keepsItsParts() {
        let stream = RecordingStream()
        let printer = Just(1).print("x", to: stream)
        #expect(printer.prefix == "x")
        #expect(printer.upstream == Just(1))
        #expect(printer.stream is RecordingStream)
        #expect(Publishers.Print(upstream: Just(1), prefix: "").stream == nil)
    }

    @Test func reflectsLikeCombine() throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        TestPublisher<Int, Never>().print(to: RecordingStream()).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Print")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Print")
    }

    @Test func releasesTheDownstreamAfterCancel() {
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.print(to: RecordingStream()).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func linesFromConcurrentEventsNeverInterleave() async {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        upstream.print("c", to: stream).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<100 { subscriber.request(.max(1)) }
                }
            }
        }
        let writes = stream.writes
        #expect(writes.count == 3 * 801)
        // Every line arrived as its own uninterrupted "", line, "\n".
        for index in stride(from: 0, to: writes.count, by: 3) {
            #expect(writes[index] == "")
            #expect(writes[index + 2] == "\n")
        }
        #expect(stream.lines.filter { $0 == "c: request max: (1)" }.count == 800)
        #expect(upstream.demandLog.count == 800)
    }
}
