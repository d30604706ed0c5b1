import Combine
import CombineStyleOperators
import Foundation
import XCTest

final class CombineStyleOperatorsTests: XCTestCase {
    func testCreateHoldsValuesUntilRequested() {
        let publisher = AnyPublisher<Int, Never>.create { emitter in
            (1...5).forEach(emitter.send)
            emitter.send(completion: .finished)
            return AnyCancellable {}
        }
        let subscriber = CollectingSubscriber<Int>()
        publisher.subscribe(subscriber)
        XCTAssertEqual(subscriber.values, [1, 2, 3, 4, 5])
        XCTAssertTrue(subscriber.finished)

        var received: [Int] = []
        let limited = AnySubscriber<Int, Never>(receiveSubscription: { $0.request(.max(2)) },
                                                receiveValue: { received.append($0); return .none },
                                                receiveCompletion: { _ in XCTFail("finished with values still owed") })
        publisher.subscribe(limited)
        XCTAssertEqual(received, [1, 2])
    }

    func testCreateCancelsItsSource() {
        var cancelled = false
        let cancellable = AnyPublisher<Int, Never>.create { _ in AnyCancellable { cancelled = true } }.sink { _ in }
        cancellable.cancel()
        XCTAssertTrue(cancelled)
    }

    func testItsOwnReplaySubjectAndShareReplayResolveWithoutAmbiguity() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 2)
        [1, 2, 3].forEach(subject.send)
        var late: [Int] = []
        let a = subject.sink { late.append($0) }
        XCTAssertEqual(late, [2, 3])

        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.share(replay: 1)
        var first: [Int] = [], second: [Int] = []
        let b = shared.sink { first.append($0) }
        upstream.send(7)
        let c = shared.sink { second.append($0) }
        upstream.send(8)
        XCTAssertEqual(first, [7, 8])
        XCTAssertEqual(second, [7, 8])
        _ = (a, b, c)
    }

    func testRelays() {
        let relay = CurrentValueRelay(1)
        var values: [Int] = []
        let a = relay.sink { values.append($0) }
        relay.accept(2)
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(relay.value, 2)

        let passthrough = PassthroughRelay<String>()
        var strings: [String] = []
        let b = passthrough.sink { strings.append($0) }
        passthrough.accept("x")
        XCTAssertEqual(strings, ["x"])
        _ = (a, b)
    }

    func testItsOwnTimerTicksOnItsScheduler() {
        let scheduler = SteppingScheduler()
        let timer = Publishers.Timer(every: 1, scheduler: scheduler)
        var ticks: [Int] = []
        let a = timer.autoconnect().sink { ticks.append($0.value) }
        scheduler.step(3)
        XCTAssertEqual(ticks, [1, 2, 3])
        a.cancel()
        scheduler.step(1)
        XCTAssertEqual(ticks, [1, 2, 3])
    }

    func testAssignWithOwnershipReachesCombinesAssign() {
        final class Box { var value = 0 }
        let box = Box()
        let subject = PassthroughSubject<Int, Never>()
        let strong = subject.assign(to: \.value, on: box, ownership: .strong)
        subject.send(3)
        XCTAssertEqual(box.value, 3)
        strong.cancel()
        let weak = subject.assign(to: \.value, on: box, ownership: .weak)
        subject.send(4)
        XCTAssertEqual(box.value, 4)
        // Combine's own signature still resolves to Combine's method beside the overload.
        let plain: AnyCancellable = subject.assign(to: \.value, on: box)
        subject.send(5)
        XCTAssertEqual(box.value, 5)
        _ = (weak, plain)
    }

    func testQualifiedNames() {
        let model = CounterModel()
        var changes = 0
        let a = model.objectWillChange.sink { changes += 1 }
        let subscriber = CollectingSubscriber<Int>()
        model.$count.subscribe(subscriber)
        model.count = 1
        model.count = 2
        XCTAssertEqual(changes, 2)
        XCTAssertEqual(subscriber.values, [0, 1, 2])
        let demand: Combine.Subscribers.Demand = .max(1)
        XCTAssertEqual(demand, .max(1))
        _ = a
    }
}

/// A scheduler whose time is an integer and moves one step per `step`: enough to drive the
/// library's timer without any scheduler library.
final class SteppingScheduler: Scheduler, @unchecked Sendable {
    struct Time: Strideable {
        var value: Int
        func distance(to other: Time) -> Stride { Stride(other.value - value) }
        func advanced(by n: Stride) -> Time { Time(value: value + n.magnitude) }
    }

    struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByIntegerLiteral {
        var magnitude: Int
        init(_ value: Int) { magnitude = value }
        init(integerLiteral value: Int) { magnitude = value }
        init?<T: BinaryInteger>(exactly source: T) { magnitude = Int(source) }
        static func seconds(_ s: Int) -> Stride { Stride(s) }
        static func seconds(_ s: Double) -> Stride { Stride(Int(s)) }
        static func milliseconds(_ ms: Int) -> Stride { Stride(ms / 1000) }
        static func microseconds(_ us: Int) -> Stride { Stride(us / 1_000_000) }
        static func nanoseconds(_ ns: Int) -> Stride { Stride(ns / 1_000_000_000) }
        static func < (a: Stride, b: Stride) -> Bool { a.magnitude < b.magnitude }
        static func + (a: Stride, b: Stride) -> Stride { Stride(a.magnitude + b.magnitude) }
        static func - (a: Stride, b: Stride) -> Stride { Stride(a.magnitude - b.magnitude) }
        static func * (a: Stride, b: Stride) -> Stride { Stride(a.magnitude * b.magnitude) }
        static func += (a: inout Stride, b: Stride) { a = a + b }
        static func -= (a: inout Stride, b: Stride) { a = a - b }
        static func *= (a: inout Stride, b: Stride) { a = a * b }
    }

    typealias SchedulerTimeType = Time
    typealias SchedulerOptions = Never

    private(set) var now = Time(value: 0)
    var minimumTolerance: Stride { 0 }
    private var repeating: [(id: Int, next: Int, interval: Int, action: () -> Void)] = []
    private var nextID = 0

    func schedule(options: Never?, _ action: @escaping () -> Void) { action() }
    func schedule(after date: Time, tolerance: Stride, options: Never?, _ action: @escaping () -> Void) {
        _ = schedule(after: date, interval: Stride(Int.max / 2), tolerance: tolerance, options: options, action)
    }
    func schedule(after date: Time, interval: Stride, tolerance: Stride, options: Never?,
                  _ action: @escaping () -> Void) -> Combine.Cancellable {
        nextID += 1
        let id = nextID
        repeating.append((id, date.value, interval.magnitude, action))
        return AnyCancellable { [weak self] in self?.repeating.removeAll { $0.id == id } }
    }

    func step(_ count: Int) {
        for _ in 0..<count {
            now.value += 1
            for index in repeating.indices where index < repeating.count && repeating[index].next == now.value {
                repeating[index].next += repeating[index].interval
                repeating[index].action()
            }
        }
    }
}
