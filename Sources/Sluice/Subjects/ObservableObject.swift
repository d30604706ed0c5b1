@_spi(Reflection) import Swift

/// A type of object with a publisher that emits before the object has changed.
///
/// By default an `ObservableObject` synthesizes an ``objectWillChange`` publisher that emits the
/// changed value before any of its `@Published` properties changes: every `@Published` property
/// of the object (including those declared in superclasses) sends through one shared
/// ``ObservableObjectPublisher``, and repeated reads return the same instance. A type that
/// declares its own `objectWillChange` must send through it itself.
public protocol ObservableObject: AnyObject {
    /// The type of publisher that emits before the object has changed.
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
        where ObjectWillChangePublisher.Failure == Never

    /// A publisher that emits before the object has changed.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// A publisher that emits before the object has changed.
    public var objectWillChange: ObservableObjectPublisher {
        ObjectWillChangeRegistry.publisher(for: self)
    }
}

/// A publisher that publishes changes from observable objects.
///
/// Once a subscriber has asked for any demand it receives every `send()`, as Combine's does.
public final class ObservableObjectPublisher: Publisher {
    public typealias Output = Void
    public typealias Failure = Never

    @usableFromInline
    internal let delivery = SubjectDelivery<Void, Never>(requestsUpstreamEagerly: true)

    /// Creates an observable object publisher instance.
    public init() {}

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        let conduit = SubjectConduit(subscriber, parent: self, delivery: delivery,
                                     name: "ObservableObjectPublisher", policy: .everyValueAfterFirstDemand)
        _ = delivery.attach(conduit)
        subscriber.receive(subscription: conduit)
    }

    /// Sends the changed value to the downstream subscriber.
    public func send() {
        delivery.send(())
    }
}

/// Finds (or installs) the one `ObservableObjectPublisher` of an object.
///
/// The publisher lives in the storage of the object's `@Published` properties, found by
/// reflection; objects without `@Published` properties get one from a side table that forgets
/// an object once it is gone.
internal enum ObjectWillChangeRegistry {
    private static let lock = Lock()
    nonisolated(unsafe) private static var orphans: [ObjectIdentifier: (object: WeakObject, publisher: ObservableObjectPublisher)] = [:]

    struct WeakObject {
        weak var object: AnyObject?
    }

    static func publisher(for object: AnyObject) -> ObservableObjectPublisher {
        let storages = publishedStorages(of: object)
        return lock.locked {
            if !storages.isEmpty {
                if let existing = storages.lazy.compactMap({ $0.objectWillChange }).first {
                    for storage in storages where storage.objectWillChange == nil {
                        storage.objectWillChange = existing
                    }
                    return existing
                }
                let publisher = ObservableObjectPublisher()
                for storage in storages {
                    storage.objectWillChange = publisher
                }
                return publisher
            }
            let key = ObjectIdentifier(object)
            if let entry = orphans[key], entry.object.object === object {
                return entry.publisher
            }
            orphans = orphans.filter { $0.value.object.object != nil }
            let publisher = ObservableObjectPublisher()
            orphans[key] = (WeakObject(object: object), publisher)
            return publisher
        }
    }

    /// The storages of the object's `@Published` fields, its superclasses' included, read
    /// from the type's field metadata as Combine does, so that a type's own `customMirror`
    /// (which `Mirror(reflecting:)` would show instead) cannot hide them.
    private static func publishedStorages(of object: AnyObject) -> [PublishedStorageBase] {
        var storages: [PublishedStorageBase] = []
        let instance = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        // `.classType`, spelled by its raw value: the option is a mutable static, which Swift 6
        // refuses to read from here.
        let walked = _forEachField(of: type(of: object), options: _EachFieldOptions(rawValue: 1)) {
            _, offset, fieldType, _ in
            if let published = fieldType as? PublishedField.Type {
                storages.append(published.publishedStorage(at: instance + offset))
            }
            return true
        }
        assert(walked, "a class's fields are always described")
        return storages
    }
}
