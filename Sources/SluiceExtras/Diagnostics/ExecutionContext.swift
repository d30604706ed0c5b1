import Sluice
import Foundation
import Dispatch

#if canImport(Darwin)
@inline(__always)
private func currentDispatchQueueLabel() -> UnsafePointer<CChar> {
    __dispatch_queue_get_label(nil)
}
#else
// `dispatch_queue_get_label` is hidden from Swift on Linux, but the symbol is there
// (docs/ARCHITECTURE.md, "Linux facts"). A nil queue means DISPATCH_CURRENT_QUEUE_LABEL.
@_silgen_name("dispatch_queue_get_label")
private func _sluice_dispatch_queue_get_label(_ queue: OpaquePointer?) -> UnsafePointer<CChar>

@inline(__always)
private func currentDispatchQueueLabel() -> UnsafePointer<CChar> {
    _sluice_dispatch_queue_get_label(nil)
}
#endif

/// Where a piece of code is running: on the main thread or not, and the label of the current
/// dispatch queue. "The main thread" means what Swift's main actor means: the main queue, on
/// whichever thread drains it (under `dispatchMain()` that is not the process's first thread).
///
/// This is what `trace(_:to:)` records for each signal and what
/// `assertQueue(_:enabled:fileID:line:)` checks. Off any queue the label is the
/// one Dispatch reports for the thread (the main thread reports `com.apple.main-thread`, a
/// global queue `com.apple.root.default-qos` and so on).
public struct ExecutionContext: Sendable, Hashable, CustomStringConvertible {
    /// Whether the code runs where the main actor runs (`MainActor.assumeIsolated` would not
    /// stop), which is not always `Thread.isMainThread`.
    public var isMainThread: Bool
    /// The label of the current dispatch queue (empty for a queue created without one).
    public var queueLabel: String

    /// Creates a context from its parts (for comparisons in tests).
    public init(isMainThread: Bool, queueLabel: String) {
        self.isMainThread = isMainThread
        self.queueLabel = queueLabel
    }

    /// The context of the calling code.
    public static var current: ExecutionContext {
        ExecutionContext(isMainThread: MainActorContext.isCurrent, queueLabel: currentQueueLabel)
    }

    /// The label of the current dispatch queue.
    public static var currentQueueLabel: String {
        String(cString: currentDispatchQueueLabel())
    }

    /// Whether the current dispatch queue has exactly this label, without allocating.
    static func currentQueueHasLabel(_ label: String) -> Bool {
        let current = currentDispatchQueueLabel()
        return label.withCString { strcmp($0, current) == 0 }
    }

    /// `"main"` on the main thread, otherwise the queue's label (`"background"` for a queue with
    /// no label), as a hand-written `currentQueue()` helper in a test would print it.
    public var description: String {
        if isMainThread { return "main" }
        return queueLabel.isEmpty ? "background" : queueLabel
    }
}
