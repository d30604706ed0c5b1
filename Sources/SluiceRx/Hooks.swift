import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import Synchronization

/// RxSwift's `Hooks`: process-wide handlers for errors that no subscriber handled.
///
/// Both properties are computed and guarded by a lock, so Swift 6 code sets them with a plain
/// `import SluiceRx` (RxSwift's `recordCallStackOnError` is a mutable static that needs
/// `@preconcurrency import`). Set them once, early; any thread may read them.
///
/// SluiceRx's own; Sluice's nearest is `DebugHooks.failureHandler`, which hears of failures
/// that reach a `sink` (SluiceRx subscriptions do not go through it).
public enum Hooks {
    /// RxSwift's `DefaultErrorHandler`: the subscribe call's call stack (empty unless
    /// ``recordCallStackOnError`` is on, or the subscribe site for `subscribeLogged`) and the
    /// error. `@Sendable`, because it is called on whatever thread the error arrived on.
    /// SluiceRx's own.
    public typealias DefaultErrorHandler = @Sendable (_ subscriptionCallStack: [String], _ error: Swift.Error) -> Void

    /// RxSwift's `CustomCaptureSubscriptionCallstack`: what ``recordCallStackOnError`` records.
    /// SluiceRx's own.
    public typealias CustomCaptureSubscriptionCallstack = @Sendable () -> [String]

    /// RxSwift's `Hooks.defaultErrorHandler`: called for an error that reaches a
    /// `subscribe(onNext:onError:onCompleted:onDisposed:)` given no `onError` (the event form
    /// and `subscribe(with:)` count as handling it).
    ///
    /// The default prints `Unhandled error happened: <error>` and the call stack in a debug
    /// build and does nothing in a release build, as RxSwift's does. Replace it at launch with
    /// one that cannot be missed.
    ///
    /// SluiceRx's own, behind a lock (Sluice's nearest: `DebugHooks.failureHandler`).
    public static var defaultErrorHandler: DefaultErrorHandler {
        get { storage.lock.locked { storage.defaultErrorHandler } }
        set { storage.lock.locked { storage.defaultErrorHandler = newValue } }
    }

    /// RxSwift's `Hooks.recordCallStackOnError`: whether each
    /// `subscribe(onNext:onError:onCompleted:onDisposed:)` records the call stack
    /// (``customCaptureSubscriptionCallstack``, `Thread.callStackSymbols` by default) to pass
    /// to ``defaultErrorHandler``. Off by default: it costs a call-stack capture on every
    /// subscription, failing or not (`sluice-bench` measures it). `subscribeLogged` records the
    /// subscribe site instead, for the cost of two stores.
    ///
    /// Unlike RxSwift, a release build records too when this is on.
    ///
    /// SluiceRx's own, stored in an `Atomic<Bool>` (Swift's `Synchronization`).
    public static var recordCallStackOnError: Bool {
        get { recording.load(ordering: .relaxed) }
        set { recording.store(newValue, ordering: .relaxed) }
    }

    /// RxSwift's `Hooks.customCaptureSubscriptionCallstack`: how the call stack is captured when
    /// ``recordCallStackOnError`` is on. SluiceRx's own, behind a lock.
    public static var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack {
        get { storage.lock.locked { storage.capture } }
        set { storage.lock.locked { storage.capture = newValue } }
    }

    /// The call stack to remember for one subscription: empty while recording is off.
    internal static func subscriptionCallStack() -> [String] {
        guard recording.load(ordering: .relaxed) else { return [] }
        return customCaptureSubscriptionCallstack()
    }

    /// Reports an unhandled error to the current handler.
    internal static func unhandled(_ error: Swift.Error, callStack: [String]) {
        defaultErrorHandler(callStack, error)
    }

    private final class Storage: @unchecked Sendable {
        let lock = Lock()
        var defaultErrorHandler: DefaultErrorHandler = { callStack, error in
            #if DEBUG
            print("Unhandled error happened: \(error)")
            if !callStack.isEmpty {
                print(" subscription called from:\n\(callStack.joined(separator: "\n"))")
            }
            #endif
        }
        var capture: CustomCaptureSubscriptionCallstack = { Thread.callStackSymbols }
    }

    private static let storage = Storage()
    private static let recording = Atomic<Bool>(false)
}
