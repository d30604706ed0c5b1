import Sluice
extension Future where Failure == Never {
    /// Creates a future that runs an `async` closure and publishes its result (beyond Combine).
    ///
    /// Like every `Future`, it starts at once, without waiting for a subscriber, and every
    /// subscriber gets the same value. The closure runs in a new task; that task is cancelled
    /// if the future goes away before the closure returns (every subscriber cancelled and no
    /// other reference left), so abandoned work stops.
    public convenience init(priority: TaskPriority? = nil, operation: sending @escaping () async -> Output) {
        self.init { _ in }
        let held = WeakFuture(self)
        let task = Task(priority: priority) {
            let output = await operation()
            held.future?.fulfill(.success(output))
        }
        lock.locked { operationTask = task }
    }
}

extension Future where Failure == Error {
    /// Creates a future that runs an `async throws` closure and publishes its result or the
    /// error it throws (beyond Combine).
    ///
    /// Like every `Future`, it starts at once, without waiting for a subscriber, and every
    /// subscriber gets the same result. The closure runs in a new task; that task is cancelled
    /// if the future goes away before the closure returns (every subscriber cancelled and no
    /// other reference left), so abandoned work stops.
    public convenience init(priority: TaskPriority? = nil, operation: sending @escaping () async throws -> Output) {
        self.init { _ in }
        let held = WeakFuture(self)
        let task = Task(priority: priority) {
            let result: Result<Output, Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            held.future?.fulfill(result)
        }
        lock.locked { operationTask = task }
    }
}

/// The future its operation's task fulfils, held weakly, so that a future nobody holds goes away
/// and cancels the task. A `Future` is not `Sendable` (as in Combine), but fulfilling it from any
/// thread is safe.
private struct WeakFuture<Output, Failure: Error>: @unchecked Sendable {
    weak var future: Future<Output, Failure>?

    init(_ future: Future<Output, Failure>) {
        self.future = future
    }
}
