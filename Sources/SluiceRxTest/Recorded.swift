import SluiceRx

/// RxTest's `TestTime`: virtual time, in ticks of a ``TestScheduler``.
public typealias TestTime = Int

/// RxTest's `Recorded`: a value (usually an ``Event``) at a virtual time.
public struct Recorded<Value>: CustomDebugStringConvertible {
    /// When it happened, in ticks.
    public let time: TestTime
    /// What happened.
    public let value: Value

    /// A value at `time`.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }

    /// `value @ time`, as RxTest prints it.
    public var debugDescription: String {
        "\(value) @ \(time)"
    }
}

extension Recorded: Equatable where Value: Equatable {}

extension Recorded {
    /// `.next(210, x)`: the element `x` at tick 210.
    public static func next<T>(_ time: TestTime, _ element: T) -> Recorded<Event<T>> where Value == Event<T> {
        Recorded(time: time, value: .next(element))
    }

    /// `.completed(250)`: completion at tick 250.
    public static func completed<T>(_ time: TestTime, _ type: T.Type = T.self) -> Recorded<Event<T>> where Value == Event<T> {
        Recorded(time: time, value: .completed)
    }

    /// `.error(250, error)`: the error at tick 250.
    public static func error<T>(_ time: TestTime, _ error: Swift.Error, _ type: T.Type = T.self) -> Recorded<Event<T>>
        where Value == Event<T>
    {
        Recorded(time: time, value: .error(error))
    }
}

/// RxTest's `Subscription`: when a test observable was subscribed to and when that subscription
/// ended (disposed, or the observable's terminal event); `Int.max` while it lasts.
public struct Subscription: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
    /// The tick of the subscription.
    public let subscribe: TestTime
    /// The tick it ended, `Int.max` if it has not.
    public let unsubscribe: TestTime

    /// A subscription from `subscribe` to `unsubscribe` (for ever, by default).
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime = .max) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// `(200, 1000)`, or `(200, Infinity)` while it lasts.
    public var debugDescription: String {
        "(\(subscribe), \(unsubscribe == .max ? "Infinity" : String(unsubscribe)))"
    }
}
