/// A first-in, first-out queue backed by a growable circular buffer: `append` and `popFirst`
/// are O(1), and an empty ring allocates nothing. The capacity is a power of two, so a position
/// wraps with a mask (a remainder was an integer division per call: a tenth of a value's time
/// through `zip`).
@usableFromInline
package struct RingBuffer<Element> {
    @usableFromInline
    package var storage: [Element?] = []
    @usableFromInline
    package var head = 0
    @usableFromInline
    package var count = 0

    @inlinable
    package init() {}

    @inlinable
    package var isEmpty: Bool { count == 0 }

    @inlinable
    package mutating func append(_ element: Element) {
        if count == storage.count {
            grow()
        }
        storage[(head &+ count) & (storage.count &- 1)] = element
        count += 1
    }

    @inlinable
    package mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        // One access that moves the element out and leaves `nil` (a read, then a write of
        // `nil`, checked the index twice and copied the element).
        let element = storage[head].take()
        head = (head &+ 1) & (storage.count &- 1)
        count -= 1
        return element
    }

    /// Puts an element back at the front (after a `popFirst`).
    @inlinable
    package mutating func prepend(_ element: Element) {
        if count == storage.count {
            grow()
        }
        head = (head &+ storage.count &- 1) & (storage.count &- 1)
        storage[head] = element
        count += 1
    }

    @inlinable
    package var first: Element? {
        count > 0 ? storage[head] : nil
    }

    @inlinable
    package mutating func removeAll() {
        storage = []
        head = 0
        count = 0
    }

    /// Doubles the capacity (4 at first), keeping it a power of two.
    @inlinable
    package mutating func grow() {
        let capacity = Swift.max(4, storage.count * 2)
        assert(capacity & (capacity - 1) == 0, "a ring's capacity is a power of two")
        var grown: [Element?] = []
        grown.reserveCapacity(capacity)
        for index in 0..<count {
            grown.append(storage[(head &+ index) & (storage.count &- 1)])
        }
        grown.append(contentsOf: repeatElement(nil, count: capacity - count))
        storage = grown
        head = 0
    }

    /// The elements, oldest first.
    @inlinable
    package var elements: [Element] {
        (0..<count).map { storage[(head &+ $0) & (storage.count &- 1)]! }
    }
}
