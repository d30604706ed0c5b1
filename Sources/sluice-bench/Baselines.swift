import Foundation
import Synchronization

// Hand-written code doing the same work as each Sluice case, without a library: the floor each
// ratio is measured against.

protocol IntStage: AnyObject {
    func receive(_ value: Int)
}

final class MapStage: IntStage {
    let next: IntStage
    init(next: IntStage) { self.next = next }
    func receive(_ value: Int) { next.receive(value &* 2) }
}

final class FilterStage: IntStage {
    let next: IntStage
    init(next: IntStage) { self.next = next }
    func receive(_ value: Int) { if value % 3 == 0 { next.receive(value) } }
}

final class SumStage: IntStage {
    let total = Mutex(0)
    func receive(_ value: Int) { total.withLock { $0 &+= value } }
}

/// Three final classes calling each other through a protocol, a `Mutex` in the last one: the
/// same work as `map → filter → sink` with a locked accumulator.
@inline(never)
func baselineChain(_ count: Int) -> Int {
    let sum = SumStage()
    let head: IntStage = MapStage(next: FilterStage(next: sum))
    for value in 0..<count { head.receive(value) }
    return sum.total.withLock { $0 }
}

/// The chain plus one lock per value, which any thread-safe subject has to take.
@inline(never)
func baselineLockedChain(_ count: Int) -> Int {
    let sum = SumStage()
    let head: IntStage = MapStage(next: FilterStage(next: sum))
    let gate = Mutex(0)
    for value in 0..<count {
        gate.withLock { $0 &+= 1 }
        head.receive(value)
    }
    return sum.total.withLock { $0 }
}

/// A lock per send and a loop over `subscribers` closures.
@inline(never)
func baselineFanOut(subscribers: Int, sends: Int) -> Int {
    let total = Mutex(0)
    let closures: [(Int) -> Void] = (0..<subscribers).map { _ in { value in total.withLock { $0 &+= value } } }
    let gate = Mutex(0)
    for value in 0..<sends {
        gate.withLock { $0 &+= 1 }
        for closure in closures { closure(value) }
    }
    return total.withLock { $0 }
}

final class Node {
    var next: Node?
    var value = 0
}

/// What subscribing a three-stage chain has to do at least: allocate three objects, link them,
/// deliver one value, take a lock.
@inline(never)
func baselineSubscribe(_ count: Int) -> Int {
    var total = 0
    let gate = Mutex(0)
    for value in 0..<count {
        let a = Node(), b = Node(), c = Node()
        a.next = b
        b.next = c
        c.value = value
        gate.withLock { $0 &+= 1 }
        total &+= a.next!.next!.value
    }
    return total
}

/// One `DispatchQueue.async` per value to a serial queue, then waiting for the last.
@inline(never)
func baselineDispatch(_ count: Int) -> Int {
    let queue = DispatchQueue(label: "baseline.serial")
    let total = Mutex(0)
    let done = DispatchSemaphore(value: 0)
    for value in 0..<count {
        queue.async {
            total.withLock { $0 &+= value }
            if value == count - 1 { done.signal() }
        }
    }
    done.wait()
    return total.withLock { $0 }
}

/// Calling `count` closures from an array: the floor under running scheduled actions.
@inline(never)
func baselineClosures(_ count: Int) -> Int {
    var total = 0
    var actions: [() -> Void] = []
    actions.reserveCapacity(count)
    for _ in 0..<count { actions.append({ total &+= 1 }) }
    for action in actions { action() }
    return total
}
