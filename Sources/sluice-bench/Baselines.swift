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

/// The chain's head, built out of the caller's sight: built in place, the optimizer sees the
/// concrete classes, turns the protocol calls into direct ones and inlines the whole chain into
/// one loop (about 2 ns a value), which is no longer three classes calling each other through
/// a protocol.
@inline(never)
func makeBaselineChain(into sum: SumStage) -> IntStage {
    MapStage(next: FilterStage(next: sum))
}

/// Three final classes calling each other through a protocol, a `Mutex` in the last one: the
/// same work as `map → filter → sink` with a locked accumulator.
@inline(never)
func baselineChain(_ count: Int) -> Int {
    let sum = SumStage()
    let head = makeBaselineChain(into: sum)
    for value in 0..<count { head.receive(value) }
    return sum.total.withLock { $0 }
}

/// The chain plus one lock per value, which any thread-safe subject has to take.
@inline(never)
func baselineLockedChain(_ count: Int) -> Int {
    let sum = SumStage()
    let head = makeBaselineChain(into: sum)
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

/// Nested loops feeding a locked sum: the floor under flattening inner sequences.
@inline(never)
func baselineNested(outer: Int, inner: Int) -> Int {
    let total = Mutex(0)
    for base in 0..<outer {
        for offset in 0..<inner {
            let value = base &+ offset
            total.withLock { $0 &+= value }
        }
    }
    return total.withLock { $0 }
}

/// A lock around the latest value of each side, and the pair handed on each time either side
/// changes once both have one.
@inline(never)
func baselineLatestPair(_ count: Int) -> Int {
    let latest = Mutex<(Int?, Int?)>((nil, nil))
    let total = Mutex(0)
    func deliver(_ pair: (Int?, Int?)) {
        if let a = pair.0, let b = pair.1 { total.withLock { $0 &+= a &+ b } }
    }
    for value in stride(from: 0, to: count, by: 2) {
        deliver(latest.withLock { $0.0 = value; return $0 })
        deliver(latest.withLock { $0.1 = value &+ 1; return $0 })
    }
    return total.withLock { $0 }
}

/// Two queues (rings of 16, deeper than the benchmark's lead of 10) as the state of a lock, a
/// pair handed on when both have one, into a locked sum as the other fan-in baselines and the
/// measured sink do.
@inline(never)
func baselineZipQueues(_ pairs: Int) -> Int {
    struct Rings {
        var left = InlineArray<16, Int>(repeating: 0), right = InlineArray<16, Int>(repeating: 0)
        var leftHead = 0, leftCount = 0, rightHead = 0, rightCount = 0

        mutating func push(left value: Int?, right other: Int?) -> (Int, Int)? {
            if let value {
                precondition(leftCount < 16, "the benchmark leads by at most 10")
                left[(leftHead &+ leftCount) & 15] = value
                leftCount += 1
            }
            if let other {
                precondition(rightCount < 16, "the benchmark leads by at most 10")
                right[(rightHead &+ rightCount) & 15] = other
                rightCount += 1
            }
            guard leftCount > 0, rightCount > 0 else { return nil }
            let pair = (left[leftHead], right[rightHead])
            leftHead = (leftHead &+ 1) & 15
            rightHead = (rightHead &+ 1) & 15
            leftCount -= 1
            rightCount -= 1
            return pair
        }
    }
    let gate = Mutex(Rings())
    let total = Mutex(0)
    func push(left value: Int?, right other: Int?) {
        if let pair = gate.withLock({ $0.push(left: value, right: other) }) {
            total.withLock { $0 &+= pair.0 &+ pair.1 }
        }
    }
    for value in 0..<pairs {
        push(left: value, right: nil)
        if value >= 10 { push(left: nil, right: value &- 10) }
    }
    for value in max(0, pairs - 10)..<pairs { push(left: nil, right: value) }
    return total.withLock { $0 }
}
