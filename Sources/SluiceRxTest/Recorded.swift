import SluiceRx

/// RxTest's `TestTime`: virtual time, in ticks of a ``TestScheduler``.
/// Sluice: none; ``TestScheduler`` turns ticks into `SluiceTesting`'s virtual dispatch time.
public typealias TestTime = Int

/// RxTest's `Recorded`: a value (usually an `Event`) at a virtual time.
/// SluiceRx's own (Sluice has no counterpart).
public struct Recorded<Value>: CustomDebugStringConvertible {
    /// RxTest's `Recorded.time`: when it happened, in ticks. SluiceRx's own.
    public let time: TestTime
    /// RxTest's `Recorded.value`: what happened. SluiceRx's own.
    public let value: Value

    /// RxTest's `Recorded(time:value:)`: a value at `time`. SluiceRx's own.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }

    /// RxTest's `Recorded.debugDescription`: `value @ time`, as RxTest prints it. SluiceRx's own.
    public var debugDescription: String {
        "\(value) @ \(time)"
    }
}

extension Recorded: Equatable where Value: Equatable {}

extension Recorded {
    /// RxTest's `Recorded.next(_:_:)`: `.next(210, x)` is the element `x` at tick 210.
    /// SluiceRx's own.
    public static func next<T>(_ time: TestTime, _ element: T) -> Recorded<Event<T>> where Value == Event<T> {
        Recorded(time: time, value: .next(element))
    }

    /// RxTest's `Recorded.completed(_:_:)`: `.completed(250)` is completion at tick 250.
    /// SluiceRx's own.
    public static func completed<T>(_ time: TestTime, _ type: T.Type = T.self) -> Recorded<Event<T>> where Value == Event<T> {
        Recorded(time: time, value: .completed)
    }

    /// RxTest's `Recorded.error(_:_:_:)`: `.error(250, error)` is the error at tick 250.
    /// SluiceRx's own.
    public static func error<T>(_ time: TestTime, _ error: Swift.Error, _ type: T.Type = T.self) -> Recorded<Event<T>>
        where Value == Event<T>
    {
        Recorded(time: time, value: .error(error))
    }
}

/// RxTest's `Subscription`: when a test observable was subscribed to and when that subscription
/// ended (disposed, or the observable's terminal event); `Int.max` while it lasts.
/// SluiceRx's own; not Sluice's `Subscription` protocol, which it shares a name with.
public struct Subscription: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
    /// RxTest's `Subscription.subscribe`: the tick of the subscription. SluiceRx's own.
    public let subscribe: TestTime
    /// RxTest's `Subscription.unsubscribe`: the tick it ended, `Int.max` if it has not.
    /// SluiceRx's own.
    public let unsubscribe: TestTime

    /// RxTest's `Subscription(_:_:)`: a subscription from `subscribe` to `unsubscribe` (for
    /// ever, by default). SluiceRx's own.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime = .max) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// RxTest's `Subscription.debugDescription`: `(200, 1000)`, or `(200, Infinity)` while it
    /// lasts. SluiceRx's own.
    public var debugDescription: String {
        "(\(subscribe), \(unsubscribe == .max ? "Infinity" : String(unsubscribe)))"
    }
}
