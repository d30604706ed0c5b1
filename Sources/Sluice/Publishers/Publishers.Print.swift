extension Publishers {
    /// A publisher that prints log messages for all publishing events, optionally prefixed with
    /// a given string.
    ///
    /// Lines are Combine's: `receive subscription: (…)`, `request unlimited`,
    /// `request max: (n)`, `receive value: (…)`, `receive finished`, `receive error: (…)`,
    /// `receive cancel`, and `request max: (n) (synchronous)` for non-zero demand the downstream
    /// returns from a value. Each line is logged before the event is passed on, and written
    /// with `print(_:to:)`, to standard output when no stream is given.
    public struct Print<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// A string with which to prefix all log messages.
        public let prefix: String

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The stream to which the log is written, or `nil` for standard output.
        public let stream: TextOutputStream?

        /// Creates a publisher that prints log messages for all publishing events.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - prefix: A string with which to prefix all log messages.
        ///   - stream: A stream for text output that receives messages, and which directs
        ///     output to the console by default. Each subscription writes to its own copy of a
        ///     value-type stream, so use a class to collect the output.
        @inlinable
        public init(upstream: Upstream, prefix: String, to stream: TextOutputStream? = nil) {
            self.upstream = upstream
            self.prefix = prefix
            self.stream = stream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: PrintSubscription<Upstream, S>(
                downstream: subscriber, prefix: prefix, stream: stream))
        }
    }
}

/// Where one `print` subscription writes its lines: the prefix, the stream (a copy per
/// subscription, as in Combine) and the lock that serialises writes, so that lines from events
/// on different threads never interleave. The lock is held while the stream's `write` runs; it
/// guards nothing but the stream, so the subscription's own state is never locked by a write.
@usableFromInline
internal final class PrintOutput: @unchecked Sendable {
    @usableFromInline
    internal let prefix: String
    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var stream: TextOutputStream?

    @usableFromInline
    internal init(prefix: String, stream: TextOutputStream?) {
        self.prefix = prefix
        self.stream = stream
    }

    /// Writes one line with `print(_:to:)`, to standard output when there is no stream.
    @usableFromInline
    internal func write(_ text: String) {
        let line = prefix.isEmpty ? text : "\(prefix): \(text)"
        lock.locked {
            if var target = stream {
                printLine(line, to: &target)
                stream = target
            } else {
                Swift.print(line)
            }
        }
    }
}

/// `print(_:to:)` through a generic parameter: passing the `TextOutputStream` existential to it
/// directly crashes the 6.3.1 compiler (IRGen), opening it at this call does not.
@usableFromInline
internal func printLine<Target: TextOutputStream>(_ line: String, to target: inout Target) {
    Swift.print(line, to: &target)
}

/// The subscription of `print`: it logs every event, then forwards it.
@usableFromInline
internal final class PrintSubscription<Upstream: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    @usableFromInline @exclusivity(unchecked)
    internal var pendingDemand = Subscribers.Demand.none

    @usableFromInline
    internal let output: PrintOutput

    @inlinable
    internal init(downstream: Downstream, prefix: String, stream: TextOutputStream?) {
        link = .awaitingSubscription(downstream)
        output = PrintOutput(prefix: prefix, stream: stream)
    }

    @inlinable
    internal func log(_ text: String) {
        output.write(text)
    }

    @inlinable
    internal static func describe(_ demand: Subscribers.Demand) -> String {
        if let max = demand.max {
            return "max: (\(max))"
        }
        return "unlimited"
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        log("receive subscription: (\(subscription))")
        let accepted = lock.locked { link.accept(subscription, takingPending: &pendingDemand) }
        guard announce(self, to: accepted?.downstream, orCancel: subscription),
              let pending = accepted?.pending, pending > 0 else { return }
        subscription.request(pending)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        log("receive value: (\(input))")
        guard let downstream = lock.locked({ link.downstream }) else { return .none }
        let more = downstream.receive(input)
        if more != .none {
            log("request \(Self.describe(more)) (synchronous)")
        }
        return more
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            log("receive finished")
        case .failure(let error):
            log("receive error: (\(error))")
        }
        let previous = lock.locked { link.terminate() }
        previous.downstream?.receive(completion: completion)
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        log("request \(Self.describe(demand))")
        let subscription = lock.locked { () -> Subscription? in
            switch link {
            case .subscribed(let subscription, _):
                return subscription
            case .awaitingSubscription:
                pendingDemand += demand
                return nil
            case .terminal:
                return nil
            }
        }
        subscription?.request(demand)
    }

    @inlinable
    internal func cancel() {
        log("receive cancel")
        let previous = lock.locked { link.terminate() }
        previous.subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { "Print" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}

extension Publisher {
    /// Prints log messages for all publishing events.
    ///
    /// - Parameters:
    ///   - prefix: A string, followed by `": "`, at the start of every message; nothing is
    ///     added when it is empty.
    ///   - stream: A stream for text output that receives messages, and which directs output
    ///     to the console by default.
    @inlinable
    public func print(_ prefix: String = "", to stream: TextOutputStream? = nil) -> Publishers.Print<Self> {
        Publishers.Print(upstream: self, prefix: prefix, to: stream)
    }
}
