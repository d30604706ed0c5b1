/// A type that publishes a property marked with an attribute.
///
/// Publishing a property with the `@Published` attribute creates a publisher of this type,
/// reached through the projected value (`$property`). A subscriber receives the current value
/// on its first demand and every change after; a change is published *before* it is stored
/// (reading the property from inside the subscriber still gives the old value), right after the
/// owning ``ObservableObject``'s `objectWillChange` has fired. A subscriber that subscribes while
/// a change is being delivered starts from the new value, as in Combine; a subscriber that sets
/// the property again while a change is being delivered makes its value the one that stays.
@propertyWrapper
public struct Published<Value> {
    @usableFromInline
    internal let storage: PublishedStorage<Value>

    /// Creates the published instance with an initial wrapped value.
    public init(wrappedValue: Value) {
        storage = PublishedStorage(wrappedValue)
    }

    /// Creates the published instance with an initial value.
    public init(initialValue: Value) {
        self.init(wrappedValue: initialValue)
    }

    /// The property's value. (Combine makes this unavailable and reaches the value only through
    /// the enclosing instance; Sluice also lets `@Published` work outside classes, where there is
    /// no `objectWillChange` to notify.)
    public var wrappedValue: Value {
        get { storage.value }
        nonmutating set { storage.publish(newValue) }
    }

    /// The property's publisher. Assigning to it (other than through `assign(to:)`) has no
    /// effect, as in Combine.
    public var projectedValue: Publisher {
        get { Publisher(storage) }
        // swiftlint:disable:next unused_setter_value
        set {}
    }

    /// Reads and writes the property of an enclosing class, publishing changes.
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].storage.value }
        set { object[keyPath: storageKeyPath].storage.publish(newValue) }
    }

    /// A publisher for properties marked with the `@Published` attribute.
    public struct Publisher: Sluice.Publisher {
        public typealias Output = Value
        public typealias Failure = Never

        @usableFromInline
        internal let storage: PublishedStorage<Value>

        @usableFromInline
        internal init(_ storage: PublishedStorage<Value>) {
            self.storage = storage
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            storage.receive(subscriber: subscriber)
        }
    }
}

/// Lets the registry find a `Published` field by reflection without knowing its value type.
internal protocol PublishedField {
    var publishedStorage: PublishedStorageBase { get }
    /// The storage of a field of this type, read from an instance's memory.
    static func publishedStorage(at field: UnsafeRawPointer) -> PublishedStorageBase
}

extension Published: PublishedField {
    internal var publishedStorage: PublishedStorageBase { storage }

    internal static func publishedStorage(at field: UnsafeRawPointer) -> PublishedStorageBase {
        field.load(as: Published<Value>.self).storage
    }
}

/// What `ObjectWillChangeRegistry` installs into: the object's shared `objectWillChange`.
@usableFromInline
internal class PublishedStorageBase: @unchecked Sendable {
    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var installedObjectWillChange: ObservableObjectPublisher?

    @usableFromInline
    internal init() {}

    internal var objectWillChange: ObservableObjectPublisher? {
        get { lock.locked { installedObjectWillChange } }
        set { lock.locked { installedObjectWillChange = newValue } }
    }
}

/// The storage of one `@Published` property: its value, its subscribers, and the upstream
/// subscriptions made by `assign(to:)`, cancelled when the storage (its object) goes away.
@usableFromInline
internal final class PublishedStorage<Value>: PublishedStorageBase, CustomStringConvertible, @unchecked Sendable {
    /// How the subscription's mirror shows its parent, as Combine names the subject behind `$x`.
    @usableFromInline
    internal var description: String { "PublishedSubject" }

    @usableFromInline @exclusivity(unchecked)
    internal var current: Value
    /// The value being published, from before its delivery until it is stored: a subscriber
    /// that arrives meanwhile (one subscribed from inside a sink seeing the change) starts from
    /// it, as in Combine, while reading the property still gives the old value.
    @usableFromInline @exclusivity(unchecked)
    internal var publishing: Value?
    /// Counts publishes, so that only the latest one stores its value: when a subscriber sets
    /// the property again while the first change is being delivered, the second value is the
    /// one that stays.
    @usableFromInline @exclusivity(unchecked)
    internal var publishCount: UInt64 = 0
    @usableFromInline
    internal let delivery = SubjectDelivery<Value, Never>(requestsUpstreamEagerly: true)

    @usableFromInline
    internal init(_ value: Value) {
        current = value
    }

    deinit {
        delivery.cancelUpstreams()
    }

    @usableFromInline
    internal var value: Value { lock.locked { current } }

    /// What a new subscriber starts from: the value being published, if any, else the stored one.
    @usableFromInline
    internal var latestValue: Value { lock.locked { publishing ?? current } }

    /// `objectWillChange` fires, subscribers see the new value, then it is stored (Combine's
    /// will-set order).
    @usableFromInline
    internal func publish(_ newValue: Value) {
        objectWillChange?.send()
        let count = lock.locked { () -> UInt64 in
            publishing = newValue
            publishCount &+= 1
            return publishCount
        }
        delivery.send(newValue)
        let replaced = lock.locked { () -> Value? in
            guard count == publishCount else { return nil }
            publishing = nil
            defer { current = newValue }
            return current
        }
        withExtendedLifetime(replaced) {}  // the old value's deinit runs after unlocking
    }

    @usableFromInline
    internal func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
        let conduit = SubjectConduit(subscriber, parent: self, delivery: delivery, name: "PublishedSubject",
                                     policy: .currentValue({ [weak self] in self?.latestValue }))
        _ = delivery.attach(conduit)
        subscriber.receive(subscription: conduit)
    }
}

extension Publisher where Failure == Never {
    /// Republishes elements received from a publisher, by assigning them to a property marked as
    /// a publisher.
    ///
    /// The subscription lives as long as the property's object: it is cancelled when the
    /// `@Published` storage is deallocated, so no `AnyCancellable` is needed and no retain cycle
    /// forms. The upstream's completion is ignored.
    public func assign(to published: inout Published<Output>.Publisher) {
        receive(subscriber: PublishedAssigner(published.storage))
    }
}

/// The subscriber behind `assign(to:)`: it holds the storage weakly and hands its subscription
/// to the storage, which cancels it on deinit.
@usableFromInline
internal final class PublishedAssigner<Value>: Subscriber, CustomStringConvertible, @unchecked Sendable {
    @usableFromInline
    internal typealias Input = Value
    @usableFromInline
    internal typealias Failure = Never

    @usableFromInline
    internal weak var storage: PublishedStorage<Value>?

    @usableFromInline
    internal init(_ storage: PublishedStorage<Value>) {
        self.storage = storage
    }

    @usableFromInline
    internal func receive(subscription: Subscription) {
        guard let storage else {
            subscription.cancel()
            return
        }
        storage.delivery.add(upstream: subscription)
    }

    @usableFromInline
    internal func receive(_ input: Value) -> Subscribers.Demand {
        storage?.publish(input)
        return .none
    }

    @usableFromInline
    internal func receive(completion: Subscribers.Completion<Never>) {}

    @usableFromInline
    internal var description: String { "Assign" }
}
