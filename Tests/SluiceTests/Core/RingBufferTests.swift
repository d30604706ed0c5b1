import Testing
import Sluice

/// The queue under every fan-in gate, zip's per-upstream queues and flatMap's waiting values:
/// first in, first out across wrap-arounds and growth.
@Suite("RingBuffer")
struct RingBufferTests {
    @Test func keepsOrderAcrossWrapAroundsAndGrowth() {
        var ring = RingBuffer<Int>()
        var model: [Int] = []
        var next = 0
        // Appends and pops in uneven rounds, so that the ring grows while its head is in the
        // middle of the storage and wraps many times at each capacity.
        for round in 0..<200 {
            for _ in 0..<(round % 7 + 1) {
                ring.append(next)
                model.append(next)
                next += 1
            }
            for _ in 0..<(round % 5) {
                #expect(ring.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            }
            #expect(ring.count == model.count)
            #expect(ring.first == model.first)
            #expect(ring.elements == model)
        }
        while let value = ring.popFirst() {
            #expect(value == model.removeFirst())
        }
        #expect(model.isEmpty)
        #expect(ring.isEmpty)
    }

    @Test func prependPutsAnElementBackAtTheFrontAcrossTheStorageStart() {
        var ring = RingBuffer<Int>()
        for value in 0..<4 { ring.append(value) }
        #expect(ring.popFirst() == 0)
        ring.prepend(0)
        ring.prepend(-1)      // wraps to the end of the storage, then grows
        #expect(ring.elements == [-1, 0, 1, 2, 3])
        ring.append(4)
        #expect(ring.elements == [-1, 0, 1, 2, 3, 4])
    }

    @Test func aPoppedElementIsReleased() {
        final class Box {}
        weak var weakBox: Box?
        var ring = RingBuffer<Box>()
        do {
            let box = Box()
            weakBox = box
            ring.append(box)
        }
        _ = ring.popFirst()
        #expect(weakBox == nil)
        ring.removeAll()
        #expect(ring.isEmpty)
    }
}
