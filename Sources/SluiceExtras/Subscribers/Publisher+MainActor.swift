import Sluice
import SluiceSchedulers

// Main-actor delivery that the compiler checks. After `receive(on: DispatchQueue.main)` Combine's
// `sink` takes a nonisolated closure, so Swift 6 code that touches main-actor state from it
// needs `MainActor.assumeIsolated`. These take `@MainActor` closures and hop to the main actor
// themselves. They have names of their own: an overload of `sink` or `assign(to:on:)` with
// extra parameters would change how calls written with Combine's names resolve (CONTRIBUTING).

extension Publisher {
    /// A sink whose closures run on the main actor, and are checked as main-actor code by the
    /// compiler: a `@MainActor` view model's sink touches its state directly.
    ///
    /// ```swift
    /// @MainActor final class FeedModel {
    ///     var items: [Item] = []
    ///     var cancellable: AnyCancellable?
    ///     func start(_ feed: some Publisher<[Item], Error>) {
    ///         cancellable = feed.sinkOnMainActor(receiveCompletion: { _ in }) { [weak self] in self?.items = $0 }
    ///     }
    /// }
    /// ```
    ///
    /// It is `receive(on: UIScheduler.shared)` and a sink: a signal sent on the main actor, with
    /// nothing of the sink's still queued, runs the closure at once (before the send returns);
    /// any other hops to the main queue, behind those queued before, so order is kept. A cancel
    /// made on the main actor stops the closures at once, also for values already queued. It
    /// asks for `.unlimited`, releases its closures when the stream ends or it is cancelled, and
    /// records where it was called, for ``DebugHooks`` (listed while
    /// ``DebugHooks/tracksLiveSubscriptions`` is on; checked while ``DebugHooks/signalChecks``
    /// is; failures reported to ``DebugHooks/failureHandler``).
    @inlinable
    public func sinkOnMainActor(receiveCompletion: @escaping @MainActor (Subscribers.Completion<Failure>) -> Void,
                                receiveValue: @escaping @MainActor (Output) -> Void,
                                fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        let site = SubscriberSite(fileID: fileID, line: line)
        let sink = Subscribers.Sink<Output, Failure>(
            receiveCompletion: { completion in MainActorCall.run(receiveCompletion, with: completion) },
            receiveValue: { value in MainActorCall.run(receiveValue, with: value) },
            site: site)
        receive(on: UIScheduler.shared).subscribeChecking(sink, site: site)
        return Subscribers.Sink.cancellable(for: sink)
    }
}

extension Publisher where Failure == Never {
    /// `sinkOnMainActor(receiveCompletion:receiveValue:fileID:line:)` for a publisher that
    /// cannot fail.
    @inlinable
    public func sinkOnMainActor(receiveValue: @escaping @MainActor (Output) -> Void,
                                fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        sinkOnMainActor(receiveCompletion: { _ in }, receiveValue: receiveValue, fileID: fileID, line: line)
    }

    /// Assigns each value to a property of a main-actor object, on the main actor (as
    /// `sinkOnMainActor` delivers), with the write checked by the compiler: the object must be
    /// `Sendable`, which a `@MainActor` class is, and the key path is formed where its property
    /// is accessible, in main-actor code for a main-actor property.
    ///
    /// ```swift
    /// titles.assignOnMainActor(to: \.title, on: self).store(in: &cancellables)   // in a @MainActor model
    /// ```
    ///
    /// Unlike `assign(to:on:)` it holds the object weakly: storing the cancellable in the object
    /// itself makes no cycle. Once the object is gone, values are ignored.
    @inlinable
    public func assignOnMainActor<Root: AnyObject & Sendable>(to keyPath: ReferenceWritableKeyPath<Root, Output>,
                                                                on object: Root,
                                                                fileID: StaticString = #fileID, line: UInt = #line)
        -> AnyCancellable
    {
        // Formed in the caller's isolation and used only on the main actor.
        let path = UncheckedSendable(keyPath)
        return sinkOnMainActor(receiveValue: { [weak object] value in object?[keyPath: path.value] = value },
                               fileID: fileID, line: line)
    }
}

/// Calls a main-actor closure from a delivery that `UIScheduler` runs on the main actor.
@usableFromInline
internal enum MainActorCall {
    @inlinable
    internal static func run<Value>(_ body: @escaping @MainActor (Value) -> Void, with value: Value) {
        // `UIScheduler` delivers only where the main actor runs, so the call is what
        // `MainActor.assumeIsolated` does after its check: the closure called as a nonisolated
        // one (the same representation). `assumeIsolated` itself allocated once per value
        // (`sluice-bench --allocations`); the check here is Sluice's own, a queue-specific look-up,
        // and the closure, compiled as main-actor code, checks its isolation on entry too.
        precondition(MainActorContext.isCurrent, "sinkOnMainActor delivered off the main actor")
        let call = unsafeBitCast(body, to: ((Value) -> Void).self)
        call(value)
    }
}
