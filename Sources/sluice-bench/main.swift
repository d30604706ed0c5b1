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

