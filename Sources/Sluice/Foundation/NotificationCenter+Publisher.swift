import Foundation

extension NotificationCenter {
    /// Returns a publisher that emits events when broadcasting notifications.
    ///
    /// - Parameters:
    ///   - name: The name of the notification to publish.
    ///   - object: The object posting the named notification; `nil` publishes the notification
    ///     whoever posts it.
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        Publisher(center: self, name: name, object: object)
    }

    /// A publisher that emits elements when broadcasting notifications.
    ///
    /// Each subscription registers its own observer with the center as soon as it is created,
    /// before any demand, and removes it when cancelled. Notifications are delivered
    /// synchronously on the thread that posts them. A notification that arrives while the
    /// subscriber has no outstanding demand is dropped, as in Combine. The publisher never
    /// completes.
    public struct Publisher: Sluice.Publisher {
        public typealias Output = Notification
        public typealias Failure = Never

        /// The notification center this publisher uses as a source.
        public let center: NotificationCenter

        /// The name of notifications published by this publisher.
        public let name: Notification.Name

        /// The object posting the named notification, or `nil` for any poster.
        public let object: AnyObject?

        /// Creates a publisher that emits events when broadcasting notifications.
        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        /// Registers an observer for the subscriber, then hands it its subscription.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Notification, S.Failure == Never {
            let subscription = NotificationSubscription(center: center, name: name, object: object,
                                                        downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}

extension NotificationCenter.Publisher: Equatable {
    /// Two publishers are equal when they use the same center (by identity), the same name and
    /// the same object (by identity).
    public static func == (lhs: NotificationCenter.Publisher, rhs: NotificationCenter.Publisher) -> Bool {
        lhs.center === rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
    }
}

/// What Sluice's own tests can see of a notification subscription, to check that cancelling
/// removes the observer from the center.
package protocol NotificationObserverRegistration: AnyObject {
    /// The object the observer block registered with the center holds, and nothing else does:
    /// it exists exactly as long as the center keeps the block.
    var observerHandler: AnyObject? { get }
}

/// What the center's observer block holds: the way back to the subscription, weakly.
private final class NotificationHandler: @unchecked Sendable {
    let deliver: (Notification) -> Void

    init(_ deliver: @escaping (Notification) -> Void) {
        self.deliver = deliver
    }
}

/// One subscriber's observer of a notification center.
///
/// The center holds the observer block, which holds this subscription weakly; the subscriber
/// (or its `AnyCancellable`) holds the subscription. Cancelling, or the subscription going away,
/// removes the observer.
internal final class NotificationSubscription<Downstream: Subscriber>: Subscription, NotificationObserverRegistration,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Notification, Downstream.Failure == Never
{
    private let lock = Lock()
    /// Serialises deliveries to the downstream across posting threads while letting a sink post
    /// again from inside `receive(_:)` (Combine uses a recursive lock the same way).
    private let deliveryLock = NSRecursiveLock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var observer: NSObjectProtocol?
    private var center: NotificationCenter?
    private let name: Notification.Name
    private var object: AnyObject?
    private weak var handler: NotificationHandler?

    init(center: NotificationCenter, name: Notification.Name, object: AnyObject?, downstream: Downstream) {
        self.center = center
        self.name = name
        self.object = object
        self.downstream = downstream
        // Registered before the subscriber sees the subscription, as Combine does; the queue is
        // nil so the block runs synchronously on the posting thread.
        // The block is `@Sendable`; the subscription synchronises itself.
        let handler = NotificationHandler { [weak self] notification in
            self?.deliver(notification)
        }
        let token = center.addObserver(forName: name, object: object, queue: nil) { notification in
            handler.deliver(notification)
        }
        lock.locked {
            observer = token
            self.handler = handler
        }
    }

    deinit {
        if let observer, let center {
            center.removeObserver(observer)
        }
    }

    private func deliver(_ notification: Notification) {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        let target = lock.locked { () -> Downstream? in
            guard let downstream, demand > 0 else { return nil }
            demand -= 1
            return downstream
        }
        guard let target else { return }
        let more = target.receive(notification)
        if more > 0 {
            lock.locked {
                if self.downstream != nil { demand += more }
            }
        }
    }

    /// A request for nothing is accepted and changes nothing, as in Combine (whose notification
    /// subscription, unlike most, does not stop the program for it).
    func request(_ demand: Subscribers.Demand) {
        lock.locked {
            if downstream != nil { self.demand += demand }
        }
    }

    func cancel() {
        let released = lock.locked { () -> (NSObjectProtocol?, NotificationCenter?, Downstream?, AnyObject?) in
            defer {
                observer = nil
                center = nil
                downstream = nil
                object = nil
                demand = .none
            }
            return (observer, center, downstream, object)
        }
        if let token = released.0, let center = released.1 {
            center.removeObserver(token)
        }
        withExtendedLifetime(released) {}
    }

    package var observerHandler: AnyObject? { lock.locked { handler } }

    var description: String { "NotificationCenter Observer" }

    var customMirror: Mirror {
        let (center, object, demand) = lock.locked { (self.center, self.object, self.demand) }
        return Mirror(self, children: [
            "center": center as Any,
            "name": name,
            "object": object as Any,
            "demand": demand,
        ])
    }

    var playgroundDescription: Any { description }
}
