import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
import Synchronization

/// The Foundation schedulers as Combine defines them, where a program can tell the difference.
@Suite("Foundation schedulers as Combine's")
struct SchedulerFidelityTests {
    @Test func dispatchTimeDistanceSaturatesAtTheLargestStrideBothWays() {
        let early = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
        let late = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: UInt64(Int64.max) + 10))
        #expect(early.distance(to: late).magnitude == Int(Int64.max))
        #expect(late.distance(to: early).magnitude == Int(Int64.max))
        let near = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1_000))
        #expect(near.distance(to: early).magnitude == -999)
    }

    @Test func anOperationQueueRunsImmediateWorkAsABlockOperation() {
        let queue = OperationQueue()
        queue.isSuspended = true
        let ran = Mutex(false)
        queue.schedule { ran.withLock { $0 = true } }
        #expect(queue.operationCount == 1)
        #expect(queue.operations.first is BlockOperation)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        #expect(ran.withLock { $0 })
    }

    @Test func delayedWorkIsInTheQueueAtOnceAndWaitedFor() {
        let queue = OperationQueue()
        let ran = Mutex(false)
        queue.schedule(after: queue.now.advanced(by: .milliseconds(50))) { ran.withLock { $0 = true } }
        #expect(queue.operationCount == 1)
        #expect(!ran.withLock { $0 })
        queue.waitUntilAllOperationsAreFinished()
        #expect(ran.withLock { $0 })
        #expect(queue.operationCount == 0)
    }

    @Test func cancellingAllOperationsStopsDelayedWorkAndEmptiesTheQueue() {
        let queue = OperationQueue()
        let ran = Mutex(false)
        queue.schedule(after: queue.now.advanced(by: .seconds(30))) { ran.withLock { $0 = true } }
        #expect(queue.operationCount == 1)
        queue.cancelAllOperations()
        queue.waitUntilAllOperationsAreFinished()  // does not wait 30 s: the cancelled operation leaves at once
        #expect(queue.operationCount == 0)
        #expect(!ran.withLock { $0 })
    }

    @Test func repeatingWorkKeepsOneOperationWaitingUntilCancelled() {
        let queue = OperationQueue()
        let runs = Mutex(0)
        let cancellable = queue.schedule(after: queue.now, interval: .milliseconds(5)) {
            runs.withLock { $0 += 1 }
        }
        let deadline = Date().addingTimeInterval(10)
        while runs.withLock({ $0 }) < 3, Date() < deadline {
            usleep(1_000)
        }
        #expect(runs.withLock { $0 } >= 3)
        // The run that is executing adds the next one before it ends, so only the waiting
        // operations are counted.
        let waiting = queue.operations.filter { !$0.isExecuting && !$0.isFinished }
        #expect(waiting.count <= 1)
        cancellable.cancel()
        queue.waitUntilAllOperationsAreFinished()
        let stopped = runs.withLock { $0 }
        usleep(30_000)
        #expect(runs.withLock { $0 } == stopped)
        #expect(queue.operationCount == 0)
    }
}
