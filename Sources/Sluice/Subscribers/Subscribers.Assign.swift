extension Subscribers {
    /// A simple subscriber that assigns received elements to a property indicated by a key path.
    ///
    /// The subscriber holds the object strongly until the stream completes or is cancelled.
    public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        public typealias Failure = Never

        @usableFromInline
        internal let lock = Lock()

        @usableFromInline
        @exclusivity(unchecked)
        internal var status = SubscriptionStatus.awaitingSubscription

        @usableFromInline
        @exclusivity(unchecked)
        internal var storedObject: Root?

        /// The `DebugHooks` registration to end when the stream does (0: not tracked).
        @usableFromInline
        @exclusivity(unchecked)
        internal var trackingID: UInt64 = 0

        /// The object that contains the property to assign; `nil` once the stream has ended.
        public var object: Root? { lock.locked { storedObject } }

        /// The key path that indicates the property to assign.
        public let keyPath: ReferenceWritableKeyPath<Root, Input>

        /// Creates a subscriber to assign the value of a property indicated by a key path.
        @inlinable
        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            storedObject = object
            self.keyPath = keyPath
        }

        /// An `Assign` made by SluiceExtras' `trackedAssign(to:on:)`, registered with `DebugHooks` when it is
        /// tracking live subscriptions.
        @inlinable
        package init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>, site: SubscriberSite) {
            storedObject = object
            self.keyPath = keyPath
            if SubscriberRegistry.isTracking {
                trackingID = SubscriberRegistry.beginTracking(subscriber: "Assign \(Root.self).", site: site,
                                                              holding: ObjectIdentifier(object as AnyObject))
            }
        }

        @inlinable
        public func receive(subscription: Subscription) {
            let accepted = lock.locked { status.accept(subscription) }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            guard let object = lock.locked({ status.subscription == nil ? nil : storedObject }) else {
                return .none
            }
            object[keyPath: keyPath] = value
            return .none
        }

        @inlinable
        public func receive(completion: Subscribers.Completion<Never>) {
            // As in Combine, a completion before the subscription is ignored: the object stays,
            // and a subscription that comes later still assigns to it.
            let (object, previous, trackingID) = lock.locked { () -> (Root?, SubscriptionStatus, UInt64) in
                guard status.subscription != nil else { return (nil, .awaitingSubscription, 0) }
                defer {
                    status = .terminal
                    self.trackingID = 0
                }
                return (storedObject.take(), status, self.trackingID)
            }
            if trackingID != 0 {
                SubscriberRegistry.endTracking(trackingID)
            }
            withExtendedLifetime((object, previous)) {}
        }

        /// Cancels the subscription and releases the object.
        @inlinable
        public func cancel() {
            let (subscription, object, trackingID) = lock.locked { () -> (Subscription?, Root?, UInt64) in
                guard let subscription = status.subscription else { return (nil, nil, 0) }
                status = .terminal
                defer { self.trackingID = 0 }
                return (subscription, storedObject.take(), self.trackingID)
            }
            if trackingID != 0 {
                SubscriberRegistry.endTracking(trackingID)
            }
            withExtendedLifetime(object) {
                subscription?.cancel()
            }
        }

        public var description: String { "Assign \(Root.self)." }

        public var customMirror: Mirror {
            let (object, status) = lock.locked { (storedObject, self.status) }
            return Mirror(self, children: [
                "object": object as Any,
                "keyPath": keyPath,
                "status": status,
            ])
        }

        public var playgroundDescription: Any { description }
    }
}

extension Publisher where Failure == Never {
    /// Assigns each element from a publisher to a property on an object.
    ///
    /// The object is held strongly until the stream ends or the returned cancellable is
    /// cancelled; beware of assigning to a property of the object that stores the cancellable.
    @inlinable
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>,
                             on object: Root) -> AnyCancellable {
        let subscriber = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}
