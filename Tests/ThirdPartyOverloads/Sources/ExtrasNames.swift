import Sluice

// Written as a popular third-party operator library writes its operators: unconstrained
// extensions with the same names and labels as some of SluiceExtras' additions. A project that
// imports both must still compile, each call reaching the library's (SluiceExtras' are
// disfavoured), as it did before SluiceExtras was added.

/// What this library's operators return, so that a test can see whose operator ran.
public struct LibraryOperator<Output, Failure: Error>: Publisher {
    public let name: String
    let upstream: AnyPublisher<Output, Failure>

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.receive(subscriber: subscriber)
    }
}

extension Publisher {
    public func share(replay count: Int) -> LibraryOperator<Output, Failure> {
        LibraryOperator(name: "share(replay:)", upstream: multicast(subject: PassthroughSubject()).autoconnect().eraseToAnyPublisher())
    }

    public func withLatestFrom<Other: Publisher>(_ other: Other) -> LibraryOperator<Other.Output, Failure>
        where Other.Failure == Failure
    {
        LibraryOperator(name: "withLatestFrom", upstream: combineLatest(other).map(\.1).eraseToAnyPublisher())
    }

    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P) -> LibraryOperator<P.Output, Failure>
        where P.Failure == Failure
    {
        LibraryOperator(name: "flatMapLatest", upstream: map(transform).switchToLatest().eraseToAnyPublisher())
    }

    public func retry<S: Scheduler>(_ retries: Int, delay: S.SchedulerTimeType.Stride, scheduler: S)
        -> LibraryOperator<Output, Failure>
    {
        LibraryOperator(name: "retry(_:delay:scheduler:)",
                        upstream: self.catch { _ in self.delay(for: delay, scheduler: scheduler) }.eraseToAnyPublisher())
    }
}

extension Collection where Element: Publisher {
    public func combineLatest() -> LibraryOperator<[Element.Output], Element.Failure> {
        LibraryOperator(name: "combineLatest()", upstream: Empty().eraseToAnyPublisher())
    }

    public func zip() -> LibraryOperator<[Element.Output], Element.Failure> {
        LibraryOperator(name: "zip()", upstream: Empty().eraseToAnyPublisher())
    }
}
