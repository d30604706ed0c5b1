import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: started and stopped by the test, on a port
/// the kernel picks, served by one thread that the test joins when it stops the server.
///
/// Each route answers with a fixed status and body and closes the connection, except a
/// `.hang` route, which sends its headers and the first bytes of a body and then waits for the
/// client to go away (a slow response), recording when it does.
final class LoopbackHTTPServer: @unchecked Sendable {
    enum Response {
        case respond(status: Int, body: Data)
        case hang(partialBody: Data)
    }

    /// What the server saw, in order: `"GET /path"` for each request, `"closed /path"` when the
    /// client closed the connection of a hanging response.
    var events: [String] {
        condition.lock()
        defer { condition.unlock() }
        return eventLog
    }

    let port: UInt16
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private let routes: [String: Response]
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: pthread_t?
    private let condition = NSCondition()
    private var eventLog: [String] = []
    private var eventWaiters: [Int: (event: String, continuation: CheckedContinuation<Void, Error>)] = [:]
    private var nextWaiter = 0
    private var stopped = false

    private final class Connection {
        let fd: Int32
        var request = Data()
        var path: String?
        var hanging = false
        /// The response is out and our side shut down; waiting for the client to close.
        var draining = false
        init(fd: Int32) { self.fd = fd }
    }

    init(routes: [String: Response]) throws {
        self.routes = routes
        let (listener, port) = try Self.bindLoopback(listen: true)
        self.listener = listener
        self.port = port
        // Live from the moment it listens, so a test that finds the port taken knows by whom.
        Self.livePorts.withLock { $0.append(port) }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0,
              fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC) == 0 else {
            let error = errno
            close(listener)
            Self.forget(port: port)
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        var tid = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&tid, nil, { raw in
            let server = Unmanaged<LoopbackHTTPServer>.fromOpaque(raw!).takeRetainedValue()
            server.serve()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<LoopbackHTTPServer>.fromOpaque(context).release()
            close(listener)
            close(wakeRead)
            close(wakeWrite)
            Self.forget(port: port)
            throw POSIXError(.init(rawValue: created) ?? .EAGAIN)
        }
        thread = tid
    }

    /// The ports of the servers that have started and not stopped, in this process. Tests run
    /// in parallel: a stopped server's port may already be another server's.
    private static let livePorts = Mutex<[UInt16]>([])

    /// Whether a server in this process that has not stopped listens on `port`.
    static func isLive(port: UInt16) -> Bool {
        livePorts.withLock { $0.contains(port) }
    }

    /// Whether a stopped server's `port` is closed, or has become another live server's: with
    /// the result of the last connection attempt. The kernel can hand the port to a server of a
    /// test running in parallel, which may be starting or stopping while this looks; so it looks
    /// again for up to a second. A listener left open by the stopped server stays, and fails.
    static func portIsClosedOrReused(_ port: UInt16) -> (closed: Bool, result: Int32) {
        var result = connectionResult(port: port)
        for _ in 0..<100 {
            if result == ECONNREFUSED || isLive(port: port) { return (true, result) }
            Thread.sleep(forTimeInterval: 0.01)
            result = connectionResult(port: port)
        }
        return (false, result)
    }

    /// Stops serving, closes every socket and waits for the server thread to end.
    func stop() {
        condition.lock()
        let first = !stopped
        stopped = true
        condition.unlock()
        guard first, let thread else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        pthread_join(thread, nil)
        close(wakeRead)
        close(wakeWrite)
        Self.forget(port: port)
    }

    private static func forget(port: UInt16) {
        livePorts.withLock { ports in
            if let index = ports.firstIndex(of: port) { ports.remove(at: index) }
        }
    }

    /// Suspends until `event` has been recorded. Tests bound the wait with a time limit; when
    /// it cancels the test, this throws `CancellationError` at once, so that the test fails and
    /// stops the server instead of hanging with it up.
    func waitFor(_ event: String) async throws {
        let id = newWaiterID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                condition.lock()
                let outcome: Result<Void, Error>?
                if eventLog.contains(event) {
                    outcome = .success(())
                } else if Task.isCancelled {
                    // Cancelled before the continuation was in place: the handler found nothing.
                    outcome = .failure(CancellationError())
                } else {
                    eventWaiters[id] = (event, continuation)
                    outcome = nil
                }
                condition.unlock()
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            condition.lock()
            let waiter = eventWaiters.removeValue(forKey: id)
            condition.unlock()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func newWaiterID() -> Int {
        condition.lock()
        defer { condition.unlock() }
        nextWaiter += 1
        return nextWaiter
    }

    /// How many waits are suspended (for the tests of this helper).
    var suspendedWaits: Int {
        condition.lock()
        defer { condition.unlock() }
        return eventWaiters.count
    }

    private func record(_ event: String) {
        condition.lock()
        eventLog.append(event)
        let ready = eventWaiters.filter { $0.value.event == event }
        for id in ready.keys { eventWaiters.removeValue(forKey: id) }
        condition.unlock()
        for waiter in ready.values { waiter.continuation.resume() }
    }

    /// Connects to `port` on 127.0.0.1 and hangs up: `0` if something accepted the connection,
    /// otherwise the error (`ECONNREFUSED` when nothing listens there).
    ///
    /// A connection whose own ephemeral port the kernel happened to pick as `port` connects to
    /// itself (TCP's simultaneous open) when nothing listens there; that is not a listener, so
    /// it is tried again from another port.
    static func connectionResult(port: UInt16) -> Int32 {
        for _ in 0..<10 {
            #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard fd >= 0 else { return errno }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { return errno }
            var local = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            if UInt16(bigEndian: local.sin_port) != port { return 0 }
        }
        return ECONNREFUSED
    }

    /// A socket bound to 127.0.0.1 on a port the kernel chose, listening or not, and its port.
    /// Every socket here is close-on-exec: the test process starts child processes (Swift
    /// Testing's exit tests), which would otherwise inherit them and keep a stopped server's
    /// port open.
    static func bindLoopback(listen shouldListen: Bool) throws -> (Int32, UInt16) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, !shouldListen || listen(fd, 16) == 0 else {
            let error = errno
            close(fd)
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    // MARK: The server thread

    private func serve() {
        var connections: [Connection] = []
        defer {
            for connection in connections { close(connection.fd) }
            close(listener)
        }
        while true {
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            fds += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 else {
                if errno == EINTR { continue }
                return
            }
            if fds[0].revents != 0 { return }
            var open: [Connection] = []
            for (index, connection) in connections.enumerated() {
                let revents = fds[index + 2].revents
                if revents == 0 || handle(connection) {
                    open.append(connection)
                } else {
                    close(connection.fd)
                }
            }
            if fds[1].revents & Int16(POLLIN) != 0 {
                let fd = accept(listener, nil, nil)
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    open.append(Connection(fd: fd))
                }
            }
            connections = open
        }
    }

    /// Reads what the connection has for us; `false` when it should be closed.
    private func handle(_ connection: Connection) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(connection.fd, &buffer, buffer.count)
        if count <= 0 {
            if connection.hanging, let path = connection.path { record("closed \(path)") }
            return false
        }
        if connection.hanging || connection.draining { return true }
        connection.request.append(contentsOf: buffer[0..<count])
        guard let end = connection.request.range(of: Data("\r\n\r\n".utf8)) else { return true }
        let head = String(decoding: connection.request[..<end.lowerBound], as: UTF8.self)
        let requestLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        let method = parts.first.map(String.init) ?? "?"
        let path = parts.count > 1 ? String(parts[1]) : "/"
        connection.path = path
        record("\(method) \(path)")
        switch routes[path] ?? .respond(status: 404, body: Data("no route".utf8)) {
        case .respond(let status, let body):
            transmit(connection.fd, head: "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: text/plain\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n", body: body)
            // Half-close and wait for the client to close, so the response is never cut short
            // by a reset.
            shutdown(connection.fd, Int32(SHUT_WR))
            connection.draining = true
            return true
        case .hang(let partialBody):
            transmit(connection.fd, head: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                + "Content-Length: \(partialBody.count + 1_000_000)\r\n\r\n", body: partialBody)
            connection.hanging = true
            record("hanging \(path)")
            return true
        }
    }

    private func transmit(_ fd: Int32, head: String, body: Data) {
        var bytes = Data(head.utf8)
        bytes.append(body)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                // MSG_NOSIGNAL: a client that has gone must not raise SIGPIPE in the test process.
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 404: return "Not Found"
        case 500: return "Internal Server Error"
        default: return "Status"
        }
    }
}
