import Foundation
import Observation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceBenchSupport
import SluiceRx
import SluiceTesting

// `sluice-bench --allocations`: how many heap allocations one value costs through each
// synchronous operator (sent through a subject into a sink), one subscription to a value
// publisher, one TestScheduler action and one SluiceRx event, counted by the interposed
// `malloc`. Each case states what it is expected to cost; a count off by more than 0.01 either
// way is marked and makes the command fail. More means an allocation slipped in (such as a
// closure re-abstracted on its way out of `locked`); fewer means the expectation is out of
// date, or counting does not work on this platform (then the cases expected above zero fail).

private struct SweepFailure: Error {}

private final class AssignTarget { var value = 0 }

@Observable private final class SweepModel { var value = 0 }

private struct NullStream: TextOutputStream { mutating func write(_ string: String) {} }

private struct SweepCase {
    let name: String
    let unit: String
    /// Allocations per operation expected, and why, when it is not zero.
    let expected: Double
    let why: String
    /// Runs the case and returns its allocations per operation.
    let measure: () -> Double
}

/// How many operations each case measures, after a warm-up of a hundred (lazy metadata,
/// buffers grown once).
private let sweepOperations = 10_000

/// Counts the allocations of `run(sweepOperations)`, after `run(100)`.
private func allocations(perOperationOf run: (Int) -> Void) -> Double {
    run(100)
    let before = sluice_allocation_count()
    run(sweepOperations)
    return Double(sluice_allocation_count() - before) / Double(sweepOperations)
}

/// A chain built on a subject, with `deliver` at its end; measured per value sent.
private func chain(_ name: String, expected: Double = 0, why: String = "",
                       _ build: @escaping (PassthroughSubject<Int, Never>, @escaping (Int) -> Void) -> AnyCancellable)
    -> SweepCase
{
    SweepCase(name: name, unit: "value", expected: expected, why: why, measure: {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let cancellable = build(subject) { total &+= $0 }
        let perValue = allocations { count in for value in 0..<count { subject.send(value) } }
        cancellable.cancel()
        withExtendedLifetime(total) {}
        return perValue
    })
}

/// Anything else, measured per operation of `run(count)`.
private func operation(_ name: String, per unit: String, expected: Double, why: String = "",
                       _ run: @escaping (Int) -> Void) -> SweepCase
{
    SweepCase(name: name, unit: unit, expected: expected, why: why, measure: { allocations(perOperationOf: run) })
}

nonisolated(unsafe) private var erasedJust = Just(7).eraseToAnyPublisher()

private func makeSweepCases() -> [SweepCase] { [
    chain("map") { $0.map { $0 &+ 1 }.sink(receiveValue: $1) },
    chain("filter") { $0.filter { $0 >= 0 }.sink(receiveValue: $1) },
    chain("compactMap") { $0.compactMap { $0 }.sink(receiveValue: $1) },
    chain("tryMap") { s, f in s.tryMap { $0 }.sink(receiveCompletion: { _ in }, receiveValue: f) },
    chain("tryFilter") { s, f in s.tryFilter { _ in true }.sink(receiveCompletion: { _ in }, receiveValue: f) },
    chain("tryCompactMap") { s, f in s.tryCompactMap { $0 }.sink(receiveCompletion: { _ in }, receiveValue: f) },
    chain("scan") { $0.scan(0, &+).sink(receiveValue: $1) },
    chain("tryScan") { s, f in s.tryScan(0, &+).sink(receiveCompletion: { _ in }, receiveValue: f) },
    chain("removeDuplicates") { $0.removeDuplicates().sink(receiveValue: $1) },
    chain("removeDuplicates(by:)") { $0.removeDuplicates(by: ==).sink(receiveValue: $1) },
    chain("handleEvents") { $0.handleEvents(receiveOutput: { _ in }).sink(receiveValue: $1) },
    chain("prefix(_:)") { $0.prefix(Int.max).sink(receiveValue: $1) },
    chain("dropFirst(_:)") { $0.dropFirst(2).sink(receiveValue: $1) },
    chain("drop(while:)") { $0.drop(while: { $0 < 0 }).sink(receiveValue: $1) },
    chain("prefix(while:)") { $0.prefix(while: { $0 >= 0 }).sink(receiveValue: $1) },
    chain("tryDrop(while:)") { s, f in s.tryDrop(while: { $0 < 0 }).sink(receiveCompletion: { _ in }, receiveValue: f) },
    chain("tryPrefix(while:)") { s, f in s.tryPrefix(while: { $0 >= 0 }).sink(receiveCompletion: { _ in }, receiveValue: f) },
    chain("output(in:)") { $0.output(in: 0..<Int.max).sink(receiveValue: $1) },
    chain("replaceNil(with:)") { s, f in s.map { Optional($0) }.replaceNil(with: 0).sink(receiveValue: f) },
    chain("map(keyPath)") { s, f in s.map(\.self).sink(receiveValue: f) },
    chain("mapError") { s, f in
        s.setFailureType(to: SweepFailure.self).mapError { $0 }.sink(receiveCompletion: { _ in }, receiveValue: f)
    },
    chain("replaceError(with:)") { s, f in s.setFailureType(to: SweepFailure.self).replaceError(with: 0).sink(receiveValue: f) },
    chain("catch") { s, f in s.setFailureType(to: SweepFailure.self).catch { _ in Just(0) }.sink(receiveValue: f) },
    chain("retry") { s, f in s.setFailureType(to: SweepFailure.self).retry(2).sink(receiveCompletion: { _ in }, receiveValue: f) },
    chain("assertNoFailure") { s, f in s.setFailureType(to: SweepFailure.self).assertNoFailure().sink(receiveValue: f) },
    chain("breakpoint") { $0.breakpoint().sink(receiveValue: $1) },
    chain("eraseToAnyPublisher") { $0.eraseToAnyPublisher().sink(receiveValue: $1) },
    chain("ignoreOutput") { s, _ in s.ignoreOutput().sink(receiveValue: { _ in }) },
    chain("reduce") { s, f in s.reduce(0, &+).sink(receiveValue: f) },
    chain("count") { s, f in s.count().sink(receiveValue: f) },
    chain("min") { s, f in s.min().sink(receiveValue: f) },
    chain("last") { s, f in s.last().sink(receiveValue: f) },
    chain("last(where:)") { s, f in s.last(where: { $0 < 0 }).sink(receiveValue: f) },
    chain("first(where:), never matching") { s, f in s.first(where: { $0 < 0 }).sink(receiveValue: f) },
    chain("contains") { s, f in s.contains(-1).sink(receiveValue: { f($0 ? 1 : 0) }) },
    chain("allSatisfy") { s, f in s.allSatisfy { $0 >= 0 }.sink(receiveValue: { f($0 ? 1 : 0) }) },
    chain("prepend/append") { s, f in s.prepend(1).append(2).sink(receiveValue: f) },
    chain("merge(with:)") { s, f in s.merge(with: PassthroughSubject<Int, Never>()).sink(receiveValue: f) },
    chain("combineLatest") { s, f in s.combineLatest(Just(1)).sink(receiveValue: { f($0.0) }) },
    chain("zip") { s, f in s.zip(s).sink(receiveValue: { f($0.0) }) },
    chain("share") { $0.share().sink(receiveValue: $1) },
    chain("multicast + autoconnect") { s, f in
        s.multicast(subject: PassthroughSubject<Int, Never>()).autoconnect().sink(receiveValue: f)
    },
    chain("buffer") { s, f in s.buffer(size: 10, prefetch: .byRequest, whenFull: .dropOldest).sink(receiveValue: f) },
    chain("receive(on: ImmediateScheduler)") { $0.receive(on: ImmediateScheduler.shared).sink(receiveValue: $1) },
    chain("subscribe(on: ImmediateScheduler)") { $0.subscribe(on: ImmediateScheduler.shared).sink(receiveValue: $1) },
    chain("measureInterval(ImmediateScheduler)") { s, f in
        s.measureInterval(using: ImmediateScheduler.shared).sink(receiveValue: { _ in f(1) })
    },
    chain("CurrentValueSubject.send") { s, f in
        let current = CurrentValueSubject<Int, Never>(0)
        let inner = current.sink(receiveValue: f)
        return s.sink { current.send($0); withExtendedLifetime(inner) {} }
    },
    chain("AnySubscriber") { s, f in
        s.subscribe(AnySubscriber<Int, Never>(receiveSubscription: { $0.request(.unlimited) },
                                              receiveValue: { f($0); return .none }, receiveCompletion: { _ in }))
        return AnyCancellable {}
    },
    chain("collect(3)", expected: 1.0 / 3, why: "each batch is a new array") { s, f in
        s.collect(3).sink(receiveValue: { f($0.count) })
    },
    chain("flatMap { Just($0) }", expected: 1, why: "each inner publisher's subscription") {
        $0.flatMap { Just($0) }.sink(receiveValue: $1)
    },
    chain("map { Just($0) }.switchToLatest()", expected: 1, why: "each inner publisher's subscription") { s, f in
        s.map { Just($0) }.switchToLatest().sink(receiveValue: f)
    },
    chain("assign(to:on:)", expected: 1, why: "the Swift runtime's key-path write allocates a holder") { s, _ in
        s.assign(to: \.value, on: AssignTarget())
    },
    chain("print(to:)", expected: 4, why: "the strings it prints") { s, f in
        s.print("sweep", to: NullStream()).sink(receiveValue: f)
    },
    // SluiceExtras (issue 21).
    chain("withLatestFrom") { s, f in s.withLatestFrom(Just(1)) { $0 &+ $1 }.sink(receiveValue: f) },
    chain("withLatestFrom(a, b)") { s, f in
        s.withLatestFrom(Just(1), CurrentValueSubject<Int, Never>(2)) { $0 &+ $1.0 &+ $1.1 }.sink(receiveValue: f)
    },
    chain("retry(_:delay:scheduler:)") { s, f in
        s.setFailureType(to: SweepFailure.self).retry(2, delay: .zero, scheduler: ImmediateScheduler.shared)
            .sink(receiveCompletion: { _ in }, receiveValue: f)
    },
    chain("sinkOnMainActor, sent on the main actor") { s, f in
        // The sweep runs on the main thread, where the hop runs at once. (Its accumulator is
        // not main-actor state, hence the unchecked capture.)
        nonisolated(unsafe) let deliver = f
        return s.sinkOnMainActor(receiveValue: { deliver($0) })
    },
    chain("trackedSink, signalChecks off") { s, f in s.trackedSink(receiveValue: f) },
    chain("trackedSink, signalChecks .all") { s, f in
        DebugHooks.signalChecks = .all
        defer { DebugHooks.signalChecks = [] }
        return s.trackedSink(receiveValue: f)
    },
    operation("Publishers.Observed, per change", per: "change", expected: 12,
              why: "Observation's tracking of the read, the closures handed to it and to the scheduler") { count in
        let model = SweepModel()
        let scheduler = DispatchQueue.test
        var total = 0
        let cancellable = Publishers.Observed(on: scheduler) { model.value }.sink { total &+= $0 }
        for value in 0..<count {
            model.value = value
            scheduler.advance()
        }
        cancellable.cancel()
        withExtendedLifetime(total) {}
    },
    chain("handleEvents, demand .max(1) per value") { s, f in
        s.handleEvents(receiveRequest: { _ in }).subscribe(AnySubscriber<Int, Never>(
            receiveSubscription: { $0.request(.max(1)) }, receiveValue: { f($0); return .max(1) },
            receiveCompletion: { _ in }))
        return AnyCancellable {}
    },

    // Subscriptions to a value publisher: a sink gets the value without a subscription object.
    operation("Just(x).sink", per: "subscription", expected: 1, why: "the sink, which holds its closures") { count in
        var total = 0
        for value in 0..<count { _ = Just(value).sink { total &+= $0 } }
        withExtendedLifetime(total) {}
    },
    operation("Optional(x).publisher.sink", per: "subscription", expected: 1, why: "the sink, which holds its closures") { count in
        var total = 0
        for value in 0..<count { _ = Optional(value).publisher.sink { total &+= $0 } }
        withExtendedLifetime(total) {}
    },
    operation("Result.success(x).publisher.sink", per: "subscription", expected: 1,
              why: "the sink, which holds its closures") { count in
        var total = 0
        for value in 0..<count {
            _ = Result<Int, Never>.success(value).publisher.sink { total &+= $0 }
        }
        withExtendedLifetime(total) {}
    },
    operation("AnyPublisher(Just).sink", per: "subscription", expected: 1,
              why: "the sink, which holds its closures") { count in
        var total = 0
        for _ in 0..<count { _ = erasedJust.sink { total &+= $0 } }
        withExtendedLifetime(total) {}
    },
    operation("Just(x).handleEvents().sink", per: "subscription", expected: 3,
              why: "the sink, handleEvents' and Just's subscriptions") { count in
        var total = 0
        for value in 0..<count { _ = Just(value).handleEvents().sink { total &+= $0 } }
        withExtendedLifetime(total) {}
    },

    // A subject's subscriber: the subject's subscription is also its list entry.
    operation("PassthroughSubject.map.filter.sink subscribe and cancel", per: "subscription", expected: 2,
              why: "the sink and the subject's subscription") { count in
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        for _ in 0..<count {
            subject.map { $0 &* 2 }.filter { $0 % 3 == 0 }.sink { total &+= $0 }.cancel()
        }
        withExtendedLifetime(total) {}
    },

    // Virtual time and SluiceRx.
    operation("TestScheduler schedule and run", per: "action", expected: 0) { count in
        let scheduler = DispatchQueue.test
        var total = 0
        for _ in 0..<count { scheduler.schedule { total &+= 1 } }
        scheduler.run()
        withExtendedLifetime(total) {}
    },
    operation("debounce on TestScheduler", per: "value", expected: 2,
              why: "the timer's action and the AnyCancellable the scheduler returns") { count in
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let cancellable = subject.debounce(for: .milliseconds(10), scheduler: scheduler).sink { total &+= $0 }
        for value in 0..<count {
            subject.send(value)
            scheduler.advance(by: .milliseconds(10))
        }
        cancellable.cancel()
        withExtendedLifetime(total) {}
    },
    operation("Observable.from(array).subscribe(onNext:)", per: "value", expected: 1,
              why: "the erased sequence publisher's array iteration") { count in
        var total = 0
        _ = Observable.from(Array(0..<count)).subscribe(onNext: { total &+= $0 })
        withExtendedLifetime(total) {}
    },
] }

/// Prints each case's allocations per operation; returns whether every case cost what it is
/// expected to.
func runAllocationSweep() -> Bool {
    var asExpected = true
    for sweepCase in makeSweepCases() {
        let measured = sweepCase.measure()
        var line = sweepCase.name.padding(toLength: 44, withPad: " ", startingAt: 0)
            + String(format: "%5.2f allocs/%@", measured, sweepCase.unit)
        if measured > sweepCase.expected + 0.01 {
            asExpected = false
            line += String(format: "   MORE THAN EXPECTED (%.2f)", sweepCase.expected)
        } else if measured < sweepCase.expected - 0.01 {
            asExpected = false
            line += String(format: "   FEWER THAN EXPECTED (%.2f): update the expectation, or counting is broken",
                           sweepCase.expected)
        } else if !sweepCase.why.isEmpty {
            line += "   (\(sweepCase.why))"
        }
        print(line)
    }
    return asExpected
}
