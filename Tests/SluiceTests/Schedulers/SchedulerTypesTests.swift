import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Scheduler time types")
struct SchedulerTypesTests {
    typealias DispatchStride = DispatchQueue.SchedulerTimeType.Stride
    typealias LoopStride = RunLoop.SchedulerTimeType.Stride

    @Test func dispatchStrideUnitsLiteralsAndArithmetic() {
        #expect(DispatchStride.seconds(2).magnitude == 2_000_000_000)
        #expect(DispatchStride.seconds(1.5).magnitude == 1_500_000_000)
        #expect(DispatchStride.milliseconds(3).magnitude == 3_000_000)
        #expect(DispatchStride.microseconds(4).magnitude == 4_000)
        #expect(DispatchStride.nanoseconds(5).magnitude == 5)
        #expect((2 as DispatchStride).magnitude == 2_000_000_000, "an integer literal counts seconds")
        #expect((1.2 as DispatchStride).magnitude == 1_200_000_000)
        #expect(DispatchStride.seconds(Int.max).magnitude == Int.max, "saturates")
        #expect((DispatchStride.nanoseconds(7) + .nanoseconds(12)).magnitude == 19)
        #expect((DispatchStride.nanoseconds(0) - .microseconds(2)).magnitude == -2_000)
        #expect(DispatchStride.nanoseconds(1) < .nanoseconds(2))
        #expect(DispatchStride(exactly: 871 as UInt64)?.magnitude == 871, "init(exactly:) takes nanoseconds, as Combine's")
        #expect(DispatchStride(exactly: UInt64.max) == nil)
        #expect(DispatchStride(.milliseconds(5)).magnitude == 5_000_000)
        #expect(DispatchStride(.never).magnitude == Int.max)
        if case .nanoseconds(let ns) = DispatchStride.seconds(2).timeInterval {
            #expect(ns == 2_000_000_000)
        } else {
            Issue.record("timeInterval should be in nanoseconds")
        }
    }

    @Test func dispatchTimeDistanceAndAdvance() {
        let start = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 10_000))
        let end = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 10_431))
        #expect(start.distance(to: end) == .nanoseconds(431))
        #expect(end.distance(to: start) == .nanoseconds(-431))
        #expect(start.advanced(by: .nanoseconds(431)) == end)
        let early = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
        #expect(early.advanced(by: .nanoseconds(-1_000)).dispatchTime.uptimeNanoseconds == 1, "time does not go below its start")
        #expect(start < end)
    }

    @Test func dispatchTimeCoding() throws {
        struct Wrapper: Codable { var value: DispatchQueue.SchedulerTimeType }
        let data = try JSONEncoder().encode(Wrapper(value: .init(DispatchTime(uptimeNanoseconds: 42))))
        #expect(String(decoding: data, as: UTF8.self) == #"{"value":42}"#)
        let stride = try JSONEncoder().encode(DispatchStride.nanoseconds(419_872))
        #expect(String(decoding: stride, as: UTF8.self) == #"{"magnitude":419872}"#, "Combine's key")
        #expect(try JSONDecoder().decode(DispatchStride.self, from: stride) == .nanoseconds(419_872))
    }

    @Test func dispatchOptionsDefaults() {
        let options = DispatchQueue.SchedulerOptions()
        #expect(options.qos == .unspecified)
        #expect(options.flags == [])
        #expect(options.group == nil)
    }

    @Test func runLoopAndOperationQueueStridesCountSeconds() {
        #expect(LoopStride.milliseconds(500).timeInterval == 0.5)
        #expect(LoopStride.seconds(2).magnitude == 2)
        #expect(LoopStride.nanoseconds(1_000_000_000).timeInterval == 1)
        #expect((1.5 as LoopStride).timeInterval == 1.5)
        #expect((LoopStride(2) * LoopStride(3)).timeInterval == 6)
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        let time = RunLoop.SchedulerTimeType(date)
        #expect(time.advanced(by: .seconds(24.75)).date == Date(timeIntervalSinceReferenceDate: 1_024.75))
        #expect(time.distance(to: time.advanced(by: 3)) == 3)
        let queueTime = OperationQueue.SchedulerTimeType(date)
        #expect(queueTime.advanced(by: .milliseconds(250)).date == Date(timeIntervalSinceReferenceDate: 1_000.25))
    }

    @Test func immediateSchedulerRunsEverythingAtOnce() {
        var log: [Int] = []
        let scheduler = ImmediateScheduler.shared
        scheduler.schedule { log.append(1) }
        scheduler.schedule(after: scheduler.now.advanced(by: 100)) { log.append(2) }
        let token = scheduler.schedule(after: scheduler.now, interval: 10) { log.append(3) }
        #expect(log == [1, 2, 3], "a repeating action runs once")
        #expect(String(describing: token) == "Empty")
        #expect(scheduler.now == scheduler.now.advanced(by: 100))
        #expect(scheduler.now.distance(to: scheduler.now) == 0)
        #expect(ImmediateScheduler.SchedulerTimeType.Stride.seconds(5) == 0)
        #expect(ImmediateScheduler.SchedulerTimeType.Stride(floatLiteral: 14.6) == 14)
    }

    @Test func instantSchedulersStandInForTheirTimeTypes() {
        let scheduler: AnySchedulerOf<DispatchQueue> = AnyScheduler(DispatchQueue.immediate)
        var log: [String] = []
        let before = scheduler.now
        scheduler.schedule { log.append("now") }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(10))) { log.append("later") }
        #expect(log == ["now", "later"])
        #expect(scheduler.now == before)
        _ = AnySchedulerOf<RunLoop>.immediate
        _ = AnySchedulerOf<OperationQueue>.immediate
    }

    @Test func anySchedulerForwardsOptionsAndCanDecorate() {
        final class Recorder: @unchecked Sendable {
            var calls: [String] = []
        }
        let recorder = Recorder()
        let test = DispatchQueue.test
        let logged = AnySchedulerOf<DispatchQueue>(
            minimumTolerance: { test.minimumTolerance },
            now: { test.now },
            scheduleImmediately: { options, action in
                recorder.calls.append("now qos \(options?.qos.qosClass == .userInitiated)")
                test.schedule(options: options, action)
            },
            delayed: { date, tolerance, options, action in
                recorder.calls.append("after \(test.now.distance(to: date).magnitude)")
                test.schedule(after: date, tolerance: tolerance, options: options, action)
            },
            interval: { date, interval, tolerance, options, action in
                recorder.calls.append("every \(interval.magnitude)")
                return test.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
            })
        var ran = 0
        logged.schedule(options: .init(qos: .userInitiated)) { ran += 1 }
        logged.schedule(after: logged.now.advanced(by: .nanoseconds(5))) { ran += 1 }
        let timer = logged.schedule(after: logged.now, interval: .nanoseconds(3)) { ran += 1 }
        test.advance(by: .nanoseconds(5))
        timer.cancel()
        #expect(recorder.calls == ["now qos true", "after 5", "every 3"])
        #expect(ran == 4, "immediate, delayed, and the timer at 0 and 3")
        let erased = test.eraseToAnyScheduler()
        #expect(AnyScheduler(erased).now == test.now)
    }
}
