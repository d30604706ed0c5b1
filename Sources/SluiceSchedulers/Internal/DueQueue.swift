import Sluice
/// The test scheduler's queue: entries ordered by due time and, among entries due at the same
/// instant, by sequence number (the order they were scheduled in).
///
/// Tests schedule many actions at few instants, and mostly later than what is already queued
/// (time moves forward). So entries are kept in buckets, one per distinct due instant, each in
/// scheduling order, and the buckets in an index sorted by instant: a schedule is a binary
/// search among the distinct instants (or an append, for an instant later than all of them)
/// and an append to a bucket; taking the next entry takes the front of the earliest bucket. A
/// heap of single entries, which this replaces, was memory-bound with a million entries: each
/// removal walked ten levels of cache misses.
///
/// A new instant goes into the sorted index by moving the later ones along, so the index is
/// capped at `maximumBuckets` instants; past that, new instants go to a 4-ary heap of single
/// entries, as do repeating actions coming round again (they keep their first sequence number,
/// which would break a bucket's order) and an entry that finds the queue empty. The next entry
/// is the earlier of the two fronts.
@usableFromInline
package struct DueQueue<Time: Comparable> {
    @usableFromInline
    package struct Entry {
        @usableFromInline var due: Time
        @usableFromInline var sequence: UInt64
        @usableFromInline var slot: Int

        @inlinable
        init(due: Time, sequence: UInt64, slot: Int) {
            self.due = due
            self.sequence = sequence
            self.slot = slot
        }

        @inlinable
        func precedes(_ other: Entry) -> Bool {
            due < other.due || (due == other.due && sequence < other.sequence)
        }
    }

    /// The entries due at one instant, in sequence order; those before `head` have been taken.
    @usableFromInline
    package struct Bucket {
        @usableFromInline var entries: [Entry] = []
        @usableFromInline var head = 0

        @inlinable
        init() {}
    }

    @inlinable
    package static var maximumBuckets: Int { 1024 }

    /// The instants that have a bucket, ascending, from `indexHead` on (the slots before it are
    /// spent, and reused by an instant earlier than all the others); `bucketOf[i]` is the bucket
    /// of `dues[i]`.
    @usableFromInline var dues: [Time] = []
    @usableFromInline var bucketOf: [Int] = []
    @usableFromInline var indexHead = 0
    /// Buckets by number; the numbers in `freeBuckets` are unused, their arrays empty.
    @usableFromInline var buckets: [Bucket] = []
    @usableFromInline var freeBuckets: [Int] = []
    /// The entries that are not in a bucket, as a 4-ary heap.
    @usableFromInline var heap: [Entry] = []
    /// How many entries are queued, in buckets and heap.
    @usableFromInline var count = 0

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { count == 0 }

    /// Queues an entry. `scheduledLast`: its sequence number is later than every queued
    /// entry's, so it may join the end of its instant's bucket.
    @inlinable
    mutating func insert(_ entry: Entry, scheduledLast: Bool) {
        count += 1
        // Alone in the queue (a debounce's timer, a test's single action), an entry goes to the
        // heap, where it is one append and one removal, not a bucket and an index slot.
        guard scheduledLast, count > 1 else {
            heapPush(entry)
            return
        }
        let end = dues.count
        // Usually the instant is the latest one queued, or later still.
        if indexHead < end, !(dues[end - 1] < entry.due) {
            if !(entry.due < dues[end - 1]) {
                buckets[bucketOf[end - 1]].entries.append(entry)
                return
            }
            var low = indexHead
            var high = end - 1
            while low < high {
                let middle = low + (high - low) / 2
                if dues[middle] < entry.due { low = middle + 1 } else { high = middle }
            }
            if !(entry.due < dues[low]) {
                buckets[bucketOf[low]].entries.append(entry)
                return
            }
            guard end - indexHead < Self.maximumBuckets else {
                heapPush(entry)
                return
            }
            let bucket = newBucket(holding: entry)
            if low == indexHead, indexHead > 0 {
                // Earlier than every instant: the spent slot before the front takes it.
                indexHead -= 1
                dues[indexHead] = entry.due
                bucketOf[indexHead] = bucket
            } else {
                dues.insert(entry.due, at: low)
                bucketOf.insert(bucket, at: low)
            }
            return
        }
        guard end - indexHead < Self.maximumBuckets else {
            heapPush(entry)
            return
        }
        dues.append(entry.due)
        bucketOf.append(newBucket(holding: entry))
    }

    @inlinable
    mutating func newBucket(holding entry: Entry) -> Int {
        if let reused = freeBuckets.popLast() {
            buckets[reused].entries.append(entry)
            return reused
        }
        var bucket = Bucket()
        bucket.entries.append(entry)
        buckets.append(bucket)
        return buckets.count - 1
    }

    /// The next entry: the earliest due, and the first scheduled among those due then.
    @inlinable
    var first: Entry? {
        guard indexHead < dues.count else { return heap.first }
        let bucket = bucketOf[indexHead]
        let front = buckets[bucket].entries[buckets[bucket].head]
        if let top = heap.first, top.precedes(front) { return top }
        return front
    }

    /// Removes the entry `first` returns. The queue must not be empty.
    @inlinable
    @discardableResult
    mutating func removeFirst() -> Entry {
        count -= 1
        guard indexHead < dues.count else { return heapPop() }
        let bucket = bucketOf[indexHead]
        let front = buckets[bucket].entries[buckets[bucket].head]
        if let top = heap.first, top.precedes(front) { return heapPop() }
        buckets[bucket].head += 1
        let head = buckets[bucket].head
        if head == buckets[bucket].entries.count {
            retire(bucket)
        } else if head >= 4096, head * 2 >= buckets[bucket].entries.count {
            // An instant that keeps receiving entries while it runs: drop the taken ones.
            buckets[bucket].entries.removeFirst(head)
            buckets[bucket].head = 0
        }
        return front
    }

    /// Frees the front bucket, now empty, and moves the index past it.
    @inlinable
    mutating func retire(_ bucket: Int) {
        if buckets[bucket].entries.capacity > 256 {
            buckets[bucket].entries = []   // a large bucket gives its memory back
        } else if buckets[bucket].entries.count == 1 {
            // The usual bucket, one action at its instant: `removeAll(keepingCapacity:)` goes
            // through the general `replaceSubrange`, several times the cost.
            buckets[bucket].entries.removeLast()
        } else {
            buckets[bucket].entries.removeAll(keepingCapacity: true)
        }
        buckets[bucket].head = 0
        freeBuckets.append(bucket)
        indexHead += 1
        if indexHead == dues.count {
            if indexHead == 1 {
                dues.removeLast()
                bucketOf.removeLast()
            } else {
                dues.removeAll(keepingCapacity: true)
                bucketOf.removeAll(keepingCapacity: true)
            }
            indexHead = 0
        } else if indexHead >= Self.maximumBuckets, indexHead * 2 >= dues.count {
            dues.removeFirst(indexHead)
            bucketOf.removeFirst(indexHead)
            indexHead = 0
        }
    }

    /// Calls `body` with every queued entry, in no particular order.
    @inlinable
    func forEach(_ body: (Entry) -> Void) {
        for index in indexHead..<dues.count {
            let bucket = buckets[bucketOf[index]]
            for entry in bucket.entries[bucket.head...] { body(entry) }
        }
        heap.forEach(body)
    }

    // MARK: The 4-ary heap: half the depth of a binary heap, and the four children share a
    // cache line or two. Sifting moves a hole through an unsafe buffer taken once (`swapAt` on
    // the array checks uniqueness and bounds, and writes both elements, at every level).

    @inlinable
    mutating func heapPush(_ entry: Entry) {
        heap.append(entry)
        heap.withUnsafeMutableBufferPointer { buffer in
            Self.rise(entry, from: buffer.count - 1, in: buffer)
        }
    }

    /// Puts `entry` into the heap's hole at `hole`, moving it up past the parents it precedes.
    @inlinable
    static func rise(_ entry: Entry, from hole: Int, in buffer: UnsafeMutableBufferPointer<Entry>) {
        var hole = hole
        while hole > 0 {
            let parent = (hole - 1) / 4
            guard entry.precedes(buffer[parent]) else { break }
            buffer[hole] = buffer[parent]
            hole = parent
        }
        buffer[hole] = entry
    }

    @inlinable
    mutating func heapPop() -> Entry {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return last }
        return heap.withUnsafeMutableBufferPointer { buffer in
            let top = buffer[0]
            let count = buffer.count
            // Floyd's way: the hole left by the top goes down along the smallest children to
            // the bottom, where the last entry, which belongs near the bottom, then rises to its
            // place: one comparison fewer per level than comparing it on the way down.
            var hole = 0
            while true {
                let firstChild = 4 * hole + 1
                if firstChild >= count { break }
                var smallest = firstChild
                var child = firstChild + 1
                let end = Swift.min(firstChild + 4, count)
                while child < end {
                    if buffer[child].precedes(buffer[smallest]) { smallest = child }
                    child += 1
                }
                buffer[hole] = buffer[smallest]
                hole = smallest
            }
            Self.rise(last, from: hole, in: buffer)
            return top
        }
    }
}
