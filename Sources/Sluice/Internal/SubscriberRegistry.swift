import Synchronization

/// Where a tracked `sink` or `assign` was made: `#fileID` and `#line` at the call. SluiceExtras'
/// `CallSite` is the public face of it; Combine's module has no such name.
@usableFromInline
package struct SubscriberSite: Sendable {
    @usableFromInline
    package let fileID: StaticString
    @usableFromInline
    package let line: UInt

    @inlinable
    package init(fileID: StaticString, line: UInt) {
        self.fileID = fileID
        self.line = line
    }
}

/// The state behind SluiceExtras' `DebugHooks` that the subscribers here feed: which `sink` and
/// `assign` subscriptions are alive, and who hears about failures reaching a sink. Off until
/// SluiceExtras switches it on; while off it costs one relaxed atomic load per `sink`/`assign`.
@usableFromInline
package enum SubscriberRegistry {
    package struct Entry: Sendable {
        package let id: UInt64
        package let subscriber: String
        package let site: SubscriberSite
        /// The object the subscriber holds strongly (an `assign`'s), by identity: it cannot be
        /// freed while the entry is listed, since the entry leaves when the subscriber lets go.
        package let object: ObjectIdentifier?
    }

    package typealias FailureHandler = @Sendable (_ subscriber: String, _ site: SubscriberSite?, _ error: any Error) -> Void

    @usableFromInline
    package static let tracking = Atomic<Bool>(false)

    @usableFromInline
    package static let failureHandlerInstalled = Atomic<Bool>(false)

    private final class Storage: @unchecked Sendable {
        let lock = Lock()
        var failureHandler: FailureHandler?
        var live: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
    }

    private static let storage = Storage()

    /// Whether a new subscriber should register itself.
    @inlinable
    package static var isTracking: Bool { tracking.load(ordering: .relaxed) }

    /// Whether a failure handler is installed.
    @inlinable
    package static var reportsFailures: Bool { failureHandlerInstalled.load(ordering: .relaxed) }

    package static var failureHandler: FailureHandler? {
        get { storage.lock.locked { storage.failureHandler } }
        set {
            // The flag is set under the lock, so concurrent setters cannot leave a handler
            // installed with the flag saying none is.
            storage.lock.locked {
                storage.failureHandler = newValue
                failureHandlerInstalled.store(newValue != nil, ordering: .releasing)
            }
        }
    }

    /// The registered subscriptions still alive, oldest first.
    package static var liveEntries: [Entry] {
        storage.lock.locked { storage.live.values.sorted { $0.id < $1.id } }
    }

    /// Registers a live subscription, with the object it holds if any; the result is its id,
    /// never 0.
    @usableFromInline
    package static func beginTracking(subscriber: String, site: SubscriberSite, holding object: ObjectIdentifier? = nil) -> UInt64 {
        storage.lock.locked {
            storage.nextID += 1
            let id = storage.nextID
            storage.live[id] = Entry(id: id, subscriber: subscriber, site: site, object: object)
            return id
        }
    }

    /// Removes a live subscription (0, an untracked one, is ignored).
    @usableFromInline
    package static func endTracking(_ id: UInt64) {
        guard id != 0 else { return }
        _ = storage.lock.locked { storage.live.removeValue(forKey: id) }
    }

    /// Reports a failure that reached a subscriber, if anyone listens.
    @usableFromInline
    package static func subscriberFailed(_ subscriber: String, site: SubscriberSite?, error: any Error) {
        guard failureHandlerInstalled.load(ordering: .acquiring),
              let handler = storage.lock.locked({ storage.failureHandler }) else { return }
        handler(subscriber, site, error)
    }
}
