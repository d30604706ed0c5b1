import Sluice
extension Publishers {
    /// A connectable publisher that emits the scheduler's current time on a fixed interval, on
    /// any scheduler.
    ///
    /// On a `TestScheduler` a periodic pipeline runs in virtual time. Like `Timer.TimerPublisher`
    /// it does nothing until connected; every subscriber receives the same ticks, each as far as
    /// its own demand allows.
    public final class Timer<Context: Scheduler>: ConnectablePublisher, @unchecked Sendable {
        public typealias Output = Context.SchedulerTimeType
        public typealias Failure = Never

        /// The time between ticks.
        public let interval: Context.SchedulerTimeType.Stride
        /// The tolerance passed to the scheduler, if any.
        public let tolerance: Context.SchedulerTimeType.Stride?
        /// The scheduler that keeps time.
        public let scheduler: Context
        /// Options passed to the scheduler.
        public let options: Context.SchedulerOptions?

        private let delivery = SubjectDelivery<Context.SchedulerTimeType, Never>(requestsUpstreamEagerly: true)

        /// Creates a timer publisher on a scheduler.
        public init(every interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride? = nil,
                    scheduler: Context, options: Context.SchedulerOptions? = nil) {
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Context.SchedulerTimeType, S.Failure == Never {
            let conduit = SubjectConduit(subscriber, parent: self, delivery: delivery, name: "Timer",
                                         policy: .dropWithoutDemand)
            _ = delivery.attach(conduit)
            subscriber.receive(subscription: conduit)
        }

        /// Starts ticking: the first tick comes one interval from now.
        public func connect() -> Cancellable {
            let scheduler = self.scheduler
            let delivery = self.delivery
            return scheduler.schedule(after: scheduler.now.advanced(by: interval), interval: interval,
                                      tolerance: tolerance ?? scheduler.minimumTolerance, options: options) {
                delivery.send(scheduler.now)
            }
        }
    }
}

extension Scheduler {
    /// A connectable publisher that emits this scheduler's time every `interval`.
    public func timerPublisher(every interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride? = nil,
                               options: SchedulerOptions? = nil) -> Publishers.Timer<Self> {
        Publishers.Timer(every: interval, tolerance: tolerance, scheduler: self, options: options)
    }
}
