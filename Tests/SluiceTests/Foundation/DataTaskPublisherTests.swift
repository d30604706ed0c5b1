import Testing
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

private struct Item: Codable, Equatable {
    var name: String
}

private typealias Output = URLSession.DataTaskPublisher.Output

/// The loopback tests: a real `URLSession` against `LoopbackHTTPServer`, which each test starts
/// on a free port and stops (joining its thread) before it returns.
@Suite("URLSession.DataTaskPublisher", .timeLimit(.minutes(1)))
struct DataTaskPublisherTests {
    private static let routes: [String: LoopbackHTTPServer.Response] = [
        "/hello": .respond(status: 200, body: Data("hello, sluice".utf8)),
        "/item": .respond(status: 200, body: Data(#"{"name":"sluice"}"#.utf8)),
        "/garbage": .respond(status: 200, body: Data("{not json".utf8)),
        "/slow": .hang(partialBody: Data("the first bytes".utf8)),
    ]

    /// Runs `body` with a fresh server and an ephemeral session, then tears both down and
    /// checks that the server's port is closed.
    private func withServer(_ body: (LoopbackHTTPServer, URLSession) async throws -> Void) async throws {
        let server = try LoopbackHTTPServer(routes: Self.routes)
        let session = URLSession(configuration: .ephemeral)
        defer {
            session.invalidateAndCancel()
            server.stop()
            // (Unless a server of a test running in parallel has been given the port since.)
            let (closed, result) = LoopbackHTTPServer.portIsClosedOrReused(server.port)
            #expect(closed, "nothing listens on the server's port once it has stopped (connecting gave \(result == 0 ? "a connection" : "errno \(result)"))")
        }
        try await body(server, session)
    }

    /// A subscriber whose completion the test can await.
    private func subscriber(demand: Subscribers.Demand = .unlimited) -> (TestSubscriber<Output, URLError>, AsyncSignal) {
        let completed = AsyncSignal()
        let subscriber = TestSubscriber<Output, URLError>(initialDemand: demand, onCompletion: { _ in completed.fire() })
        return (subscriber, completed)
    }

    @Test func a200DeliversTheBodyAndResponseThenFinishes() async throws {
        try await withServer { server, session in
            let (subscriber, completed) = subscriber()
            session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("hello")).subscribe(subscriber)
            try await completed.wait()
            #expect(subscriber.values.count == 1)
            let value = try #require(subscriber.values.first)
            #expect(String(decoding: value.data, as: UTF8.self) == "hello, sluice")
            let response = try #require(value.response as? HTTPURLResponse)
            #expect(response.statusCode == 200)
            #expect(response.url?.path == "/hello")
            #expect(subscriber.completions == [.finished])
            #expect(subscriber.subscriptionNames == ["DataTaskPublisher"])
            #expect(server.events == ["GET /hello"])
        }
    }

    @Test func a404IsAResponseNotAFailure() async throws {
        try await withServer { server, session in
            let (subscriber, completed) = subscriber()
            session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("missing")).subscribe(subscriber)
            try await completed.wait()
            let value = try #require(subscriber.values.first)
            #expect((value.response as? HTTPURLResponse)?.statusCode == 404)
            #expect(String(decoding: value.data, as: UTF8.self) == "no route")
            #expect(subscriber.completions == [.finished])
        }
    }

    @Test func aRefusedConnectionFailsWithAURLError() async throws {
        // A socket bound to a port but not listening: connecting to it is refused. It stays
        // bound until the test ends, so nothing else can take the port meanwhile.
        let (socket, port) = try LoopbackHTTPServer.bindLoopback(listen: false)
        defer { close(socket) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (subscriber, completed) = subscriber()
        session.dataTaskPublisher(for: URL(string: "http://127.0.0.1:\(port)/hello")!).subscribe(subscriber)
        try await completed.wait()
        #expect(subscriber.values.isEmpty)
        guard case .failure(let error) = try #require(subscriber.completion) else {
            Issue.record("expected a failure, got \(subscriber.events)")
            return
        }
        #expect(error.code == .cannotConnectToHost)
    }

    @Test func theTaskStartsOnTheFirstRequestNotOnSubscribe() async throws {
        try await withServer { server, session in
            let (waiting, waitingCompleted) = subscriber(demand: .none)
            session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("item")).subscribe(waiting)
            let subscription = try #require(waiting.subscription)
            #expect(Mirror(reflecting: subscription).descendant("task") as? URLSessionDataTask == nil)

            // Another request through the same session and server completes while the first
            // subscriber has asked for nothing: the server never saw the first one.
            let (other, otherCompleted) = subscriber()
            session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("hello")).subscribe(other)
            try await otherCompleted.wait()
            #expect(server.events == ["GET /hello"])

            waiting.request(.max(1))
            // The task may already have finished (and been let go) by the time the mirror is
            // read on a loaded machine; the server's log below is what proves it ran.
            if let task = Mirror(reflecting: subscription).descendant("task") as? URLSessionDataTask {
                #expect(task.originalRequest?.url?.path == "/item")
            }
            try await waitingCompleted.wait()
            #expect(server.events == ["GET /hello", "GET /item"])
            #expect(waiting.values.map { String(decoding: $0.data, as: UTF8.self) } == [#"{"name":"sluice"}"#])
        }
    }

    @Test func cancellingASlowResponseMidFlightCancelsTheTaskAndClosesTheConnection() async throws {
        try await withServer { server, session in
            weak var weakSubscriber: TestSubscriber<Output, URLError>?
            weak var weakSubscription: AnyObject?
            weak var weakTask: URLSessionDataTask?
            do {
                let (subscriber, _) = subscriber()
                weakSubscriber = subscriber
                session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("slow")).subscribe(subscriber)
                let subscription = try #require(subscriber.subscription)
                weakSubscription = subscription as AnyObject
                let task = try #require(Mirror(reflecting: subscription).descendant("task") as? URLSessionDataTask)
                weakTask = task
                try await server.waitFor("hanging /slow")
                #expect(task.state == .running)

                subscriber.cancel()
                #expect(task.state != .running, "cancel cancelled the data task")
                // The client side of the connection went away: the server saw it close.
                try await server.waitFor("closed /slow")
                #expect(subscriber.events.count == 1, "nothing after the subscription: \(subscriber.events)")
                #expect(await eventually { task.state == .completed })
                #expect((task.error as? URLError)?.code == .cancelled)
                subscriber.releaseSubscriptions()
            }
            #expect(weakSubscriber == nil, "cancel released the subscriber at once")
            // The session drops the task and its completion handler (which holds the
            // subscription) once the cancelled task has completed.
            #expect(await eventually { weakSubscription == nil && weakTask == nil })
            #expect(server.events == ["GET /slow", "hanging /slow", "closed /slow"])
        }
    }

    @Test func theURLRequestFormSendsTheRequestAsGiven() async throws {
        try await withServer { server, session in
            var request = URLRequest(url: server.baseURL.appendingPathComponent("hello"))
            request.httpMethod = "DELETE"
            let publisher = session.dataTaskPublisher(for: request)
            #expect(publisher.request == request)
            #expect(publisher.session === session)
            let (subscriber, completed) = subscriber()
            publisher.subscribe(subscriber)
            try await completed.wait()
            #expect(server.events == ["DELETE /hello"])
            #expect(subscriber.completions == [.finished])
        }
    }

    @Test func eachSubscriptionRunsItsOwnTask() async throws {
        try await withServer { server, session in
            let publisher = session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("hello"))
            let (first, firstCompleted) = subscriber()
            let (second, secondCompleted) = subscriber()
            publisher.subscribe(first)
            publisher.subscribe(second)
            try await firstCompleted.wait()
            try await secondCompleted.wait()
            #expect(server.events == ["GET /hello", "GET /hello"])
            #expect(first.values.count == 1 && second.values.count == 1)
        }
    }

    @Test func decodingTheBodyDeliversTheValueOrFailsWithTheDecodingError() async throws {
        try await withServer { server, session in
            let item = try await session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("item"))
                .map(\.data)
                .decode(type: Item.self, decoder: JSONDecoder())
                .firstValue
            #expect(item == Item(name: "sluice"))

            do {
                _ = try await session.dataTaskPublisher(for: server.baseURL.appendingPathComponent("garbage"))
                    .map(\.data)
                    .decode(type: Item.self, decoder: JSONDecoder())
                    .firstValue
                Issue.record("malformed JSON decoded")
            } catch {
                #expect(error is DecodingError, "a decoding error is a failure, never a crash: \(error)")
            }
        }
    }

    @Test func aFailureReachesAsyncCodeAsTheURLError() async throws {
        let (socket, port) = try LoopbackHTTPServer.bindLoopback(listen: false)
        defer { close(socket) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        do {
            _ = try await session.dataTaskPublisher(for: URL(string: "http://127.0.0.1:\(port)/")!).firstValue
            Issue.record("a refused connection produced a value")
        } catch let error as URLError {
            #expect(error.code == .cannotConnectToHost)
        }
    }
}

/// The loopback helpers themselves: a stopped server leaves its port closed, and waits end when
/// the waiting task is cancelled (as a suite's time limit does), so a test that times out fails
/// and stops its server instead of hanging.
@Suite("Loopback test helpers", .timeLimit(.minutes(1)))
struct LoopbackHelperTests {
    @Test func aServerAcceptsConnectionsUntilItStops() throws {
        let server = try LoopbackHTTPServer(routes: [:])
        #expect(LoopbackHTTPServer.connectionResult(port: server.port) == 0)
        #expect(LoopbackHTTPServer.isLive(port: server.port))
        server.stop()
        #expect(LoopbackHTTPServer.portIsClosedOrReused(server.port).0)
    }

    @Test func waitingForAServerEventEndsWhenTheTaskIsCancelled() async throws {
        let server = try LoopbackHTTPServer(routes: [:])
        defer { server.stop() }
        let suspended = Task { try await server.waitFor("GET /never") }
        #expect(await eventually { server.suspendedWaits == 1 })
        suspended.cancel()
        await #expect(throws: CancellationError.self) { try await suspended.value }
        #expect(server.suspendedWaits == 0)

        let cancelledFirst = Task { try await server.waitFor("GET /never") }
        cancelledFirst.cancel()
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
        #expect(server.suspendedWaits == 0)
    }

    @Test func waitingForASignalEndsWhenTheTaskIsCancelled() async throws {
        let signal = AsyncSignal()
        let suspended = Task { try await signal.wait() }
        #expect(await eventually { signal.suspendedWaits == 1 })
        suspended.cancel()
        await #expect(throws: CancellationError.self) { try await suspended.value }
        #expect(signal.suspendedWaits == 0)

        let cancelledFirst = Task { try await signal.wait() }
        cancelledFirst.cancel()
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }

        signal.fire()
        try await signal.wait()
    }
}
