import SluiceRx

// SluiceRx's subscription costs (`Hooks.recordCallStackOnError`, and logging each
// subscription's call site). Built in nonisolated code, as every benchmark pipeline is.

/// `Observable.just(i).subscribe(onNext:)` `count` times, with call-stack recording on or off.
@inline(never)
nonisolated func rxSubscribe(_ count: Int, recordingCallStacks: Bool) -> Int {
    let previous = Hooks.recordCallStackOnError
    Hooks.recordCallStackOnError = recordingCallStacks
    defer { Hooks.recordCallStackOnError = previous }
    var total = 0
    for value in 0..<count {
        _ = Observable.just(value).subscribe(onNext: { total &+= $0 })
    }
    return total
}

/// The same with `subscribeLogged`, which captures `#fileID` and `#line` instead, optionally
/// recording each site in a `SubscribeSiteLog`.
@inline(never)
nonisolated func rxSubscribeLogged(_ count: Int, intoLog: Bool) -> Int {
    let log = intoLog ? SubscribeSiteLog() : nil
    var total = 0
    for value in 0..<count {
        _ = Observable.just(value).subscribeLogged(onNext: { total &+= $0 }, log: log)
    }
    return total &+ (log?.sites.count ?? 0)
}
