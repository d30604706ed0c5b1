import Sluice

// Call-site recording has names of its own: an overload of `sink` or `assign(to:on:)` with extra
// defaulted parameters would win over Combine's own signatures in calls written out, and code
// that adds an overload of its own (`assign(to:on:ownership:)`, calling `assign(to:on:)` inside)
// would then call itself instead of Combine's method.

extension Publisher {
    /// `sink(receiveCompletion:receiveValue:)` that remembers where it was called, for
    /// ``DebugHooks``: failures reaching the sink are reported with the site, while
    /// ``DebugHooks/tracksLiveSubscriptions`` is on the sink is listed in
    /// ``DebugHooks/liveSubscriptions`` until its stream ends or it is cancelled, and while
    /// ``DebugHooks/signalChecks`` is on the signals reaching it are checked.
    ///
    /// `fileID` and `line` default to the caller's; a helper that wraps this can pass its own
    /// caller's site on.
    @inlinable
    @inline(__always)
    public func trackedSink(receiveCompletion: consuming @escaping (Subscribers.Completion<Failure>) -> Void,
                            receiveValue: consuming @escaping (Output) -> Void,
                            fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        // The closures are moved (not copied) into the sink, and the sink into the cancellable.
        let site = SubscriberSite(fileID: fileID, line: line)
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion,
                                                     receiveValue: receiveValue, site: site)
        subscribeChecking(sink, site: site)
        return Subscribers.Sink.cancellable(for: sink)
    }
}

extension Publisher where Failure == Never {
    /// `sink(receiveValue:)` that remembers where it was called; see
    /// `trackedSink(receiveCompletion:receiveValue:fileID:line:)`.
    @inlinable
    @inline(__always)
    public func trackedSink(receiveValue: consuming @escaping (Output) -> Void,
                            fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        trackedSink(receiveCompletion: { _ in }, receiveValue: receiveValue, fileID: fileID, line: line)
    }

    /// `assign(to:on:)` that remembers where it was called, for ``DebugHooks``' list of live
    /// subscriptions (which names the object it holds, see
    /// ``DebugHooks/liveSubscriptions(retaining:)``) and its signal checks.
    ///
    /// The object is held strongly until the stream ends or the returned cancellable is
    /// cancelled; beware of assigning to a property of the object that stores the cancellable.
    @inlinable
    public func trackedAssign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root,
                                    fileID: StaticString = #fileID, line: UInt = #line) -> AnyCancellable {
        let site = SubscriberSite(fileID: fileID, line: line)
        let subscriber = Subscribers.Assign(object: object, keyPath: keyPath, site: site)
        subscribeChecking(subscriber, site: site)
        return AnyCancellable(subscriber)
    }
}
