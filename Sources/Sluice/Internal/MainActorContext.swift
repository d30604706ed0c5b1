import Dispatch

/// Whether the calling code runs where Swift's main actor runs: Sluice's one answer to "is this
/// main?", for every scheduler, check and label in Sluice and its companion modules.
///
/// On Linux the main actor's executor is the main dispatch queue, and Swift's isolation check
/// (what `MainActor.assumeIsolated` and a main-actor closure's entry check do) asks Dispatch
/// whether the main queue is the current queue. `Thread.isMainThread` is a different question:
/// under `dispatchMain()`, and in Swift Testing's `@MainActor` tests, main-queue work runs on a
/// thread that is not the process's first one, so `Thread.isMainThread` is false where the main
/// actor's code runs. A queue-specific value set on the main queue answers the same question as
/// Swift's check without stopping the process when the answer is no: it is found on the main
/// queue, on queues that target it, and on the main thread outside any queue (where Dispatch
/// counts the main queue as current), and nowhere else.
@usableFromInline
package enum MainActorContext {
    /// The key of the value Sluice sets on the main queue. Set once, before the first look-up;
    /// the key is never written again.
    private static let key: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    /// `true` exactly when `MainActor.assumeIsolated` would not stop the process.
    @usableFromInline
    package static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) != nil
    }
}
