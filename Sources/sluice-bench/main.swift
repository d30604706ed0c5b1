import Sluice
import Foundation
import Synchronization

@inline(never) func chain(_ n: Int) -> Int {
    let total = Mutex(0)
    let c = (0..<n).publisher.map { $0 &* 2 }.filter { $0 % 3 == 0 }.sink { v in total.withLock { $0 &+= v } }
    c.cancel()
    return total.withLock { $0 }
}
@inline(never) func subject(_ n: Int) -> Int {
    let total = Mutex(0)
    let s = PassthroughSubject<Int, Never>()
    let c = s.map { $0 &* 2 }.filter { $0 % 3 == 0 }.sink { v in total.withLock { $0 &+= v } }
    for i in 0..<n { s.send(i) }
    c.cancel()
    return total.withLock { $0 }
}
@inline(never) func justs(_ n: Int) -> Int {
    var total = 0
    for i in 0..<n { _ = Just(i).map { $0 + 1 }.sink { total &+= $0 } }
    return total
}
func time(_ name: String, _ n: Int, _ f: (Int) -> Int) {
    _ = f(n / 10)
    let start = ContinuousClock.now
    let r = f(n)
    let d = ContinuousClock.now - start
    let ns = Double(d.components.attoseconds) / 1e9 + Double(d.components.seconds) * 1e9
    print(name, ns / Double(n), "ns/op", r)
}
let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "all" || which == "seq" { time("seq.map.filter.sink", 10_000_000, chain) }
if which == "all" || which == "subject" { time("subject.send.map.filter.sink", 5_000_000, subject) }
if which == "all" || which == "just" { time("Just.map.sink", 1_000_000, justs) }
@inline(never) func chainDirect(_ n: Int) -> Int {
    let total = Mutex(0)
    let s = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { v in total.withLock { $0 &+= v } })
    (0..<n).publisher.map { $0 &* 2 }.filter { $0 % 3 == 0 }.subscribe(s)
    return total.withLock { $0 }
}
@inline(never) func chainSeqOnly(_ n: Int) -> Int {
    let total = Mutex(0)
    let s = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { v in total.withLock { $0 &+= v } })
    (0..<n).publisher.receive(subscriber: s)
    return total.withLock { $0 }
}


// MARK: Call-site capture (issue 6; seed 002's exercise): the cost per subscription of
// remembering where `sink` was called, against plain `sink` and against capturing
// `Thread.callStackSymbols` as RxSwift's `Hooks.recordCallStackOnError` does.

/// Combine's `sink(receiveValue:)` as a function value: the overload that records no site.
@inline(never) func sinkPlain(_ n: Int) -> Int {
    var total = 0
    for i in 0..<n {
        let publisher = Just(i)
        let plainSink: (@escaping (Int) -> Void) -> AnyCancellable = publisher.sink(receiveValue:)
        _ = plainSink { total &+= $0 }
    }
    return total
}
/// `sink { }` as users write it: records `#fileID` and `#line`.
@inline(never) func sinkWithSite(_ n: Int) -> Int {
    var total = 0
    for i in 0..<n { _ = Just(i).sink { total &+= $0 } }
    return total
}
/// The same with `DebugHooks.tracksLiveSubscriptions` on: a registry insert and removal each.
@inline(never) func sinkTracked(_ n: Int) -> Int {
    DebugHooks.tracksLiveSubscriptions = true
    defer { DebugHooks.tracksLiveSubscriptions = false }
    return sinkWithSite(n)
}
/// Plain `sink` plus `Thread.callStackSymbols`, kept so it is not optimised away.
@inline(never) func sinkWithCallStack(_ n: Int) -> Int {
    var total = 0
    var kept = 0
    for i in 0..<n {
        let stack = Thread.callStackSymbols
        kept &+= stack.count
        let publisher = Just(i)
        let plainSink: (@escaping (Int) -> Void) -> AnyCancellable = publisher.sink(receiveValue:)
        _ = plainSink { total &+= $0 }
    }
    return total &+ kept
}
if which == "all" || which == "sites" {
    time("sink.plain (no site)", 1_000_000, sinkPlain)
    time("sink.site (#fileID/#line)", 1_000_000, sinkWithSite)
    time("sink.site+tracking", 1_000_000, sinkTracked)
    time("sink+callStackSymbols", 5_000, sinkWithCallStack)
}
