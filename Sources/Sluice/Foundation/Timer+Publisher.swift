import Foundation

extension Timer {
    /// Returns a publisher that repeatedly emits the current date on the given interval.
    ///
    /// The publisher is connectable: nothing happens until `connect()` or `autoconnect()`.
    /// Like Combine's, it ignores `tolerance`; `mode` matters: `.default` pauses while the run
    /// loop runs in another mode (scroll tracking), `.common` does not.
    public static func publish(every interval: TimeInterval, tolerance: TimeInterval? = nil, on runLoop: RunLoop,
                               in mode: RunLoop.Mode, options: RunLoop.SchedulerOptions? = nil) -> TimerPublisher {
        TimerPublisher(interval: interval, runLoop: runLoop, mode: mode, options: options)
    }

    /// A publisher that repeatedly emits the current date on a given interval.
    ///
    /// Every subscriber receives the same dates, each as far as its own demand allows; a tick
    /// that finds a subscriber without demand is dropped for it.
    public final class TimerPublisher: ConnectablePublisher {
        public typealias Output = Date
        public typealias Failure = Never

        public let interval: TimeInterval
        public let tolerance: TimeInterval?
        public let runLoop: RunLoop
        public let mode: RunLoop.Mode
        public let options: RunLoop.SchedulerOptions?

        private let delivery = SubjectDelivery<Date, Never>(requestsUpstreamEagerly: true)

        /// Creates a publisher that repeatedly emits the current date on the given interval.
        public init(interval: TimeInterval, tolerance: TimeInterval? = nil, runLoop: RunLoop, mode: RunLoop.Mode,
                    options: RunLoop.SchedulerOptions? = nil) {
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            let conduit = SubjectConduit(subscriber, parent: self, delivery: delivery, name: "Timer",
                                         policy: .dropWithoutDemand)
            _ = delivery.attach(conduit)
            subscriber.receive(subscription: conduit)
        }

        /// Starts the timer on the run loop, in the publisher's mode; cancelling the result stops
        /// it.
        public func connect() -> Cancellable {
            let delivery = UncheckedSendable(self.delivery)
            // The first tick is one interval after connecting, as on Apple platforms; Linux
            // Foundation's `Timer(timeInterval:repeats:block:)` would fire at once.
            let timer = Timer(fire: Date(timeIntervalSinceNow: interval), interval: interval, repeats: true) { _ in
                delivery.value.send(Date())
            }
            runLoop.add(timer, forMode: mode)
            let handle = UncheckedSendable(timer)
            return TimerConnection { handle.value.invalidate() }
        }
    }
}

/// The cancellable `connect()` returns: not a subscription, as in Combine.
private final class TimerConnection: Cancellable, @unchecked Sendable {
    private let lock = Lock()
    private var stop: (() -> Void)?

    init(_ stop: @escaping () -> Void) {
        self.stop = stop
    }

    func cancel() {
        let stop = lock.locked { () -> (() -> Void)? in
            defer { self.stop = nil }
            return self.stop
        }
        stop?()
    }
}
