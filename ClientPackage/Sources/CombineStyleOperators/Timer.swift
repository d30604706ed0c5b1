import Combine

extension Publishers {
    /// A connectable publisher of the scheduler's time every `interval`: this library's own
    /// `Publishers.Timer` (Combine has none; another library's may sit beside it).
    public final class Timer<Context: Scheduler>: ConnectablePublisher {
        public typealias Output = Context.SchedulerTimeType
        public typealias Failure = Never

        public let interval: Context.SchedulerTimeType.Stride
        public let scheduler: Context
        private let subject = PassthroughSubject<Output, Never>()

        public init(every interval: Context.SchedulerTimeType.Stride, scheduler: Context) {
            self.interval = interval
            self.scheduler = scheduler
        }

        public func receive<S: Combine.Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            subject.receive(subscriber: subscriber)
        }

        public func connect() -> Combine.Cancellable {
            scheduler.schedule(after: scheduler.now.advanced(by: interval), interval: interval) { [subject, scheduler] in
                subject.send(scheduler.now)
            }
        }
    }
}
