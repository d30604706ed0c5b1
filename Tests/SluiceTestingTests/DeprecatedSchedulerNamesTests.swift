import Testing
import Foundation
import Sluice
import SluiceSchedulers
import SluiceTesting

// combine-schedulers' deprecated spellings still resolve to the schedulers they were renamed to.
// The calls below are meant to use deprecated names: their warnings are expected.
@Suite("combine-schedulers' deprecated names")
struct DeprecatedSchedulerNamesTests {
    @Test func testSchedulerIsAFreshVirtualClockOnEachSchedulerTime() {
        let dispatch = DispatchQueue.testScheduler
        #expect(dispatch.now.dispatchTime.uptimeNanoseconds == 1)
        var value: Int?
        let cancellable = Just(5).delay(for: 1, scheduler: dispatch).sink { value = $0 }
        dispatch.advance(by: .milliseconds(999))
        #expect(value == nil)
        dispatch.advance(by: .milliseconds(1))
        #expect(value == 5)
        cancellable.cancel()
        #expect(DispatchQueue.testScheduler !== dispatch, "each use makes a new scheduler, as .test does")

        #expect(RunLoop.testScheduler.now.date == Date(timeIntervalSince1970: 0))
        #expect(OperationQueue.testScheduler.now.date == Date(timeIntervalSince1970: 0))
    }

    @Test func immediateSchedulerRunsEverythingAtOnceWithAStoppedClock() {
        let scheduler = DispatchQueue.immediateScheduler
        var ran = 0
        scheduler.schedule { ran += 1 }
        scheduler.schedule(after: scheduler.now.advanced(by: 5)) { ran += 1 }
        #expect(ran == 2)
        #expect(scheduler.now.dispatchTime.uptimeNanoseconds == 1)
        #expect(RunLoop.immediateScheduler.now.date == Date(timeIntervalSince1970: 0))
        #expect(OperationQueue.immediateScheduler.now.date == Date(timeIntervalSince1970: 0))
    }

    @Test func failingIsTheUnimplementedSchedulerUnderItsOldName() {
        let named: FailingSchedulerOf<DispatchQueue> = DispatchQueue.failing("Search")
        let (_, failures) = TestFailure.capturingFailures {
            named.schedule {}
            _ = RunLoop.failing.now
            _ = AnySchedulerOf<OperationQueue>.failing("Queue").now
        }
        #expect(failures.count == 3)
        #expect(failures.first?.message.hasPrefix("Search (created at SluiceTestingTests/DeprecatedSchedulerNamesTests.swift:") == true)
        #expect(failures.dropFirst().first?.message.hasPrefix("RunLoop ") == true)
        #expect(failures.last?.message.hasPrefix("Queue (created at SluiceTestingTests/DeprecatedSchedulerNamesTests.swift:") == true)
    }
}
