import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// TestScheduler's order against a model written over a plain list: actions run by due time,
// and in scheduling order at one instant; a repeating action keeps its place among those due
// with it; an action scheduled in the past runs now; a cancelled one never runs again. Random
// programs (FuzzRandom, from DifferentialFuzzTests) schedule actions at few instants or at
// thousands (more than the queue keeps in buckets, so its overflow heap takes part), schedule
// more from inside actions, fire repeating actions, cancel them, and advance the clock in
// random steps; the order of what ran, and what is pending, must match the model's.

@Suite("TestScheduler order against a model")
struct TestSchedulerOrderTests {
    /// One action as a program describes it.
    struct Plan {
        var id: Int
        /// Nanoseconds after the scheduling instant (negative: in the past).
        var offset: Int
        /// Repeating every `interval` ns, cancelled by itself after `firings` runs.
        var interval: Int?
        var firings: Int
    }

    /// Draws the plan of the next action created.
    static func plan(id: Int, random: inout FuzzRandom, manyInstants: Bool) -> Plan {
        let offset: Int
        switch random.int(0...9) {
        case 0: offset = -random.int(1...50)
        case 1: offset = 0
        default: offset = manyInstants ? random.int(1...20_000) : 100 * random.int(1...20)
        }
        let repeats = random.chance(10)
        return Plan(id: id, offset: offset, interval: repeats ? random.int(1...300) : nil,
                    firings: repeats ? random.int(1...4) : 1)
    }

    /// What an action does when it runs, drawn in the order actions run: the ids of the
    /// actions it schedules, and whether it cancels a live repeating action (which one: an
    /// index into the live ones, sorted by id).
    struct Step {
        var children: Int
        var cancels: Int?
    }

    static func step(random: inout FuzzRandom) -> Step {
        Step(children: random.chance(30) ? random.int(1...2) : 0,
             cancels: random.chance(10) ? random.int(0...1_000) : nil)
    }

    /// Runs a program on the real scheduler; returns the ids in the order they ran, and the
    /// pending count after each advance.
    static func runScheduler(seed: UInt64, initial: Int, manyInstants: Bool) -> (ran: [Int], pending: [Int]) {
        var random = FuzzRandom(seed: seed)
        // Starting late enough that an instant in the past is still a valid dispatch time.
        let scheduler = TestSchedulerOf<DispatchQueue>(now: .init(DispatchTime(uptimeNanoseconds: 1_000_000)))
        var ran: [Int] = []
        var nextID = 0
        var repeating: [Int: Cancellable] = [:]
        var firings: [Int: Int] = [:]

        func schedule(_ plan: Plan) {
            let due = scheduler.now.advanced(by: .nanoseconds(plan.offset))
            guard let interval = plan.interval else {
                scheduler.schedule(after: due) { run(plan) }
                return
            }
            repeating[plan.id] = scheduler.schedule(after: due, interval: .nanoseconds(interval)) { run(plan) }
        }

        func run(_ plan: Plan) {
            ran.append(plan.id)
            let step = Self.step(random: &random)
            for _ in 0..<step.children {
                nextID += 1
                schedule(Self.plan(id: nextID, random: &random, manyInstants: manyInstants))
            }
            if plan.interval != nil {
                firings[plan.id, default: 0] += 1
                if firings[plan.id] == plan.firings {
                    repeating.removeValue(forKey: plan.id)?.cancel()
                }
            }
            if let cancels = step.cancels, !repeating.isEmpty {
                let live = repeating.keys.sorted()
                repeating.removeValue(forKey: live[cancels % live.count])?.cancel()
            }
        }

        for _ in 0..<initial {
            nextID += 1
            schedule(plan(id: nextID, random: &random, manyInstants: manyInstants))
        }
        var pending: [Int] = []
        while scheduler.pendingActionCount > 0 {
            scheduler.advance(by: .nanoseconds(random.int(0...2_000)))
            pending.append(scheduler.pendingActionCount)
        }
        return (ran, pending)
    }

    /// The same program on the model: a list of entries, the next one found by scanning.
    static func runModel(seed: UInt64, initial: Int, manyInstants: Bool) -> (ran: [Int], pending: [Int]) {
        struct Entry {
            var due: Int
            var sequence: Int
            var plan: Plan
        }
        var random = FuzzRandom(seed: seed)
        var now = 0
        var sequence = 0
        var queue: [Entry] = []
        var ran: [Int] = []
        var nextID = 0
        var firings: [Int: Int] = [:]

        func schedule(_ plan: Plan) {
            sequence += 1
            queue.append(Entry(due: max(now, now + plan.offset), sequence: sequence, plan: plan))
        }

        for _ in 0..<initial {
            nextID += 1
            schedule(plan(id: nextID, random: &random, manyInstants: manyInstants))
        }
        var pending: [Int] = []
        while !queue.isEmpty {
            let limit = now + random.int(0...2_000)
            while let index = queue.indices.min(by: {
                (queue[$0].due, queue[$0].sequence) < (queue[$1].due, queue[$1].sequence)
            }), queue[index].due <= limit {
                let entry = queue[index]
                now = max(now, entry.due)
                if let interval = entry.plan.interval {
                    queue[index].due = entry.due + interval
                } else {
                    queue.remove(at: index)
                }
                ran.append(entry.plan.id)
                let step = Self.step(random: &random)
                for _ in 0..<step.children {
                    nextID += 1
                    schedule(plan(id: nextID, random: &random, manyInstants: manyInstants))
                }
                if entry.plan.interval != nil {
                    firings[entry.plan.id, default: 0] += 1
                    if firings[entry.plan.id] == entry.plan.firings {
                        queue.removeAll { $0.plan.id == entry.plan.id }
                    }
                }
                let live = queue.filter { $0.plan.interval != nil }.map(\.plan.id).sorted()
                if let cancels = step.cancels, !live.isEmpty {
                    let cancelled = live[cancels % live.count]
                    queue.removeAll { $0.plan.id == cancelled }
                }
            }
            now = max(now, limit)
            pending.append(queue.count)
        }
        return (ran, pending)
    }

    @Test(arguments: [
        (1 as UInt64, 300, false), (2, 300, true), (3, 3_000, true), (4, 3_000, false), (5, 1_500, true),
    ])
    func actionsRunInTheModelsOrder(seed: UInt64, initial: Int, manyInstants: Bool) {
        let real = Self.runScheduler(seed: seed, initial: initial, manyInstants: manyInstants)
        let model = Self.runModel(seed: seed, initial: initial, manyInstants: manyInstants)
        #expect(real.ran.count > initial, "the program should fire repeats and children too")
        let common = min(real.ran.count, model.ran.count)
        let mismatch = (0..<common).first { real.ran[$0] != model.ran[$0] }
        if let index = mismatch ?? (real.ran.count == model.ran.count ? nil : common) {
            Issue.record("""
                seed \(seed): the \(index)th action to run differs; from there the scheduler ran \
                \(real.ran.dropFirst(index).prefix(8)), the model \(model.ran.dropFirst(index).prefix(8))
                """)
        }
        #expect(real.pending.prefix(20) == model.pending.prefix(20), "pending counts after each advance, seed \(seed)")
        #expect(real.pending == model.pending)
    }
}
