import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Returns a publisher that wraps a URL session data task for a given URL.
    ///
    /// The publisher publishes data when the task completes, or terminates if the task fails
    /// with an error.
    public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
        DataTaskPublisher(request: URLRequest(url: url), session: self)
    }

    /// Returns a publisher that wraps a URL session data task for a given URL request.
    ///
    /// The publisher publishes data when the task completes, or terminates if the task fails
    /// with an error.
    public func dataTaskPublisher(for request: URLRequest) -> DataTaskPublisher {
        DataTaskPublisher(request: request, session: self)
    }

    /// A publisher that delivers the results of performing URL session data tasks.
    ///
    /// Subscribing does not touch the network: each subscription creates and resumes its own
    /// data task when the subscriber first requests a value, and cancelling the subscription
    /// cancels that task. The task's result arrives as one `(data, response)` value followed by
    /// `.finished`, whatever the HTTP status (a 404 is a response, not a failure); a transport
    /// error (refused connection, timeout, cancelled task) arrives as a `URLError` failure.
    public struct DataTaskPublisher: Publisher {
        public typealias Output = (data: Data, response: URLResponse)
        public typealias Failure = URLError

        /// The URL request performed by the data task associated with this publisher.
        public let request: URLRequest

        /// The URL session that performs the data task associated with this publisher.
        public let session: URLSession

        /// Creates a data task publisher from the provided URL request and URL session.
        public init(request: URLRequest, session: URLSession) {
            self.request = request
            self.session = session
        }

        /// Hands the subscriber a subscription that starts the data task on its first request.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == URLError {
            subscriber.receive(subscription: DataTaskSubscription(parent: self, downstream: subscriber))
        }
    }
}

/// One subscriber's data task. The task is created on the first request; its completion
/// handler holds this subscription until the session calls it, which a cancelled task does
/// promptly (with `URLError.cancelled`, ignored here).
internal final class DataTaskSubscription<Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError
{
    private let lock = Lock()
    private var parent: URLSession.DataTaskPublisher?
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var task: URLSessionDataTask?

    init(parent: URLSession.DataTaskPublisher, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let start = lock.locked { () -> (URLSession.DataTaskPublisher?, URLSessionDataTask?) in
            guard let parent else { return (nil, nil) }
            self.demand += demand
            return (task == nil ? parent : nil, task)
        }
        if let existing = start.1 {
            // Combine resumes the same task again on later requests; resuming a running task is
            // harmless.
            existing.resume()
            return
        }
        guard let parent = start.0 else { return }
        // The handler is `@Sendable`; the subscription synchronises itself.
        let complete = UncheckedSendable<(Data?, URLResponse?, Error?) -> Void>({ [self] data, response, error in
            self.complete(data: data, response: response, error: error)
        })
        let newTask = parent.session.dataTask(with: parent.request) { data, response, error in
            complete.value(data, response, error)
        }
        let stillLive = lock.locked { () -> Bool in
            // A concurrent request may have created a task first; only one is kept.
            guard self.parent != nil, task == nil else { return false }
            task = newTask
            return true
        }
        if stillLive {
            newTask.resume()
        } else {
            newTask.cancel()
        }
    }

    private func complete(data: Data?, response: URLResponse?, error: Error?) {
        let target = lock.locked { () -> (Downstream, Subscribers.Demand, URLSessionDataTask?, URLSession.DataTaskPublisher?)? in
            guard let downstream, parent != nil else { return nil }
            defer {
                self.downstream = nil
                parent = nil
                task = nil
            }
            return (downstream, demand, task, parent)
        }
        guard let (downstream, demand, _, _) = target else { return }
        withExtendedLifetime(target) {
            if let error {
                downstream.receive(completion: .failure(error as? URLError ?? URLError(.unknown)))
            } else if let response, demand > 0 {
                _ = downstream.receive((data: data ?? Data(), response: response))
                downstream.receive(completion: .finished)
            } else {
                downstream.receive(completion: .failure(URLError(.unknown)))
            }
        }
    }

    func cancel() {
        let released = lock.locked { () -> (URLSessionDataTask?, Downstream?, URLSession.DataTaskPublisher?) in
            defer {
                task = nil
                downstream = nil
                parent = nil
                demand = .none
            }
            return (task, downstream, parent)
        }
        released.0?.cancel()
        withExtendedLifetime(released) {}
    }

    var description: String { "DataTaskPublisher" }

    var customMirror: Mirror {
        let (task, downstream, parent, demand) = lock.locked { (self.task, self.downstream, self.parent, self.demand) }
        return Mirror(self, children: [
            "task": task as Any,
            "downstream": downstream as Any,
            "parent": parent as Any,
            "demand": demand,
        ])
    }

    var playgroundDescription: Any { description }
}
