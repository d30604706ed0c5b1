import Foundation
import Sluice
import SluiceBenchSupport

// `sluice-bench --allocations`: how many heap allocations one value costs through each
// synchronous operator, sent through a subject into a sink, counted by the interposed `malloc`.
// Each line also gives what is expected; a chain that allocates more is marked and makes the
// command fail, so a per-value allocation slipping in (such as a closure re-abstracted on its
// way out of `locked`) shows up here.

private struct SweepFailure: Error {}

private final class AssignTarget { var value = 0 }

private struct NullStream: TextOutputStream { mutating func write(_ string: String) {} }

private struct SweepCase {
    let name: String
    /// Allocations per value expected, and why, when it is not zero.
    let expected: Double
    let why: String
    let build: (PassthroughSubject<Int, Never>, @escaping (Int) -> Void) -> AnyCancellable

    init(_ name: String, expected: Double = 0, why: String = "",
         _ build: @escaping (PassthroughSubject<Int, Never>, @escaping (Int) -> Void) -> AnyCancellable) {
        self.name = name
        self.expected = expected
        self.why = why
        self.build = build
    }
}

private func makeSweepCases() -> [SweepCase] { [
    SweepCase("map") { $0.map { $0 &+ 1 }.sink(receiveValue: $1) },
    SweepCase("filter") { $0.filter { $0 >= 0 }.sink(receiveValue: $1) },
    SweepCase("compactMap") { $0.compactMap { $0 }.sink(receiveValue: $1) },
    SweepCase("tryMap") { s, f in s.tryMap { $0 }.sink(receiveCompletion: { _ in }, receiveValue: f) },
    SweepCase("tryFilter") { s, f in s.tryFilter { _ in true }.sink(receiveCompletion: { _ in }, receiveValue: f) },
    SweepCase("tryCompactMap") { s, f in s.tryCompactMap { $0 }.sink(receiveCompletion: { _ in }, receiveValue: f) },
    SweepCase("scan") { $0.scan(0, &+).sink(receiveValue: $1) },
    SweepCase("tryScan") { s, f in s.tryScan(0, &+).sink(receiveCompletion: { _ in }, receiveValue: f) },
    SweepCase("removeDuplicates") { $0.removeDuplicates().sink(receiveValue: $1) },
    SweepCase("removeDuplicates(by:)") { $0.removeDuplicates(by: ==).sink(receiveValue: $1) },
    SweepCase("handleEvents") { $0.handleEvents(receiveOutput: { _ in }).sink(receiveValue: $1) },
    SweepCase("prefix(_:)") { $0.prefix(Int.max).sink(receiveValue: $1) },
    SweepCase("dropFirst(_:)") { $0.dropFirst(2).sink(receiveValue: $1) },
    SweepCase("drop(while:)") { $0.drop(while: { $0 < 0 }).sink(receiveValue: $1) },
    SweepCase("prefix(while:)") { $0.prefix(while: { $0 >= 0 }).sink(receiveValue: $1) },
    SweepCase("tryDrop(while:)") { s, f in s.tryDrop(while: { $0 < 0 }).sink(receiveCompletion: { _ in }, receiveValue: f) },
    SweepCase("tryPrefix(while:)") { s, f in s.tryPrefix(while: { $0 >= 0 }).sink(receiveCompletion: { _ in }, receiveValue: f) },
    SweepCase("output(in:)") { $0.output(in: 0..<Int.max).sink(receiveValue: $1) },
    SweepCase("replaceNil(with:)") { s, f in s.map { Optional($0) }.replaceNil(with: 0).sink(receiveValue: f) },
    SweepCase("map(keyPath)") { s, f in s.map(\.self).sink(receiveValue: f) },
    SweepCase("mapError") { s, f in
        s.setFailureType(to: SweepFailure.self).mapError { $0 }.sink(receiveCompletion: { _ in }, receiveValue: f)
    },
    SweepCase("replaceError(with:)") { s, f in s.setFailureType(to: SweepFailure.self).replaceError(with: 0).sink(receiveValue: f) },
    SweepCase("catch") { s, f in s.setFailureType(to: SweepFailure.self).catch { _ in Just(0) }.sink(receiveValue: f) },
    SweepCase("retry") { s, f in s.setFailureType(to: SweepFailure.self).retry(2).sink(receiveCompletion: { _ in }, receiveValue: f) },
    SweepCase("assertNoFailure") { s, f in s.setFailureType(to: SweepFailure.self).assertNoFailure().sink(receiveValue: f) },
    SweepCase("breakpoint") { $0.breakpoint().sink(receiveValue: $1) },
    SweepCase("eraseToAnyPublisher") { $0.eraseToAnyPublisher().sink(receiveValue: $1) },
    SweepCase("ignoreOutput") { s, _ in s.ignoreOutput().sink(receiveValue: { _ in }) },
    SweepCase("reduce") { s, f in s.reduce(0, &+).sink(receiveValue: f) },
    SweepCase("count") { s, f in s.count().sink(receiveValue: f) },
    SweepCase("min") { s, f in s.min().sink(receiveValue: f) },
    SweepCase("last") { s, f in s.last().sink(receiveValue: f) },
    SweepCase("last(where:)") { s, f in s.last(where: { $0 < 0 }).sink(receiveValue: f) },
    SweepCase("first(where:), never matching") { s, f in s.first(where: { $0 < 0 }).sink(receiveValue: f) },
    SweepCase("contains") { s, f in s.contains(-1).sink(receiveValue: { f($0 ? 1 : 0) }) },
    SweepCase("allSatisfy") { s, f in s.allSatisfy { $0 >= 0 }.sink(receiveValue: { f($0 ? 1 : 0) }) },
    SweepCase("prepend/append") { s, f in s.prepend(1).append(2).sink(receiveValue: f) },
    SweepCase("merge(with:)") { s, f in s.merge(with: PassthroughSubject<Int, Never>()).sink(receiveValue: f) },
    SweepCase("combineLatest") { s, f in s.combineLatest(Just(1)).sink(receiveValue: { f($0.0) }) },
    SweepCase("zip") { s, f in s.zip(s).sink(receiveValue: { f($0.0) }) },
    SweepCase("share") { $0.share().sink(receiveValue: $1) },
    SweepCase("multicast + autoconnect") { s, f in
        s.multicast(subject: PassthroughSubject<Int, Never>()).autoconnect().sink(receiveValue: f)
    },
    SweepCase("buffer") { s, f in s.buffer(size: 10, prefetch: .byRequest, whenFull: .dropOldest).sink(receiveValue: f) },
    SweepCase("receive(on: ImmediateScheduler)") { $0.receive(on: ImmediateScheduler.shared).sink(receiveValue: $1) },
    SweepCase("subscribe(on: ImmediateScheduler)") { $0.subscribe(on: ImmediateScheduler.shared).sink(receiveValue: $1) },
    SweepCase("measureInterval(ImmediateScheduler)") { s, f in
        s.measureInterval(using: ImmediateScheduler.shared).sink(receiveValue: { _ in f(1) })
    },
    SweepCase("CurrentValueSubject.send") { s, f in
        let current = CurrentValueSubject<Int, Never>(0)
        let inner = current.sink(receiveValue: f)
        return s.sink { current.send($0); withExtendedLifetime(inner) {} }
    },
    SweepCase("AnySubscriber") { s, f in
        s.subscribe(AnySubscriber<Int, Never>(receiveSubscription: { $0.request(.unlimited) },
                                              receiveValue: { f($0); return .none }, receiveCompletion: { _ in }))
        return AnyCancellable {}
    },
    SweepCase("collect(3)", expected: 1.0 / 3, why: "each batch is a new array") { s, f in
        s.collect(3).sink(receiveValue: { f($0.count) })
    },
    SweepCase("flatMap { Just($0) }", expected: 1, why: "each inner publisher's subscription") {
        $0.flatMap { Just($0) }.sink(receiveValue: $1)
    },
    SweepCase("map { Just($0) }.switchToLatest()", expected: 1, why: "each inner publisher's subscription") { s, f in
        s.map { Just($0) }.switchToLatest().sink(receiveValue: f)
    },
    SweepCase("assign(to:on:)", expected: 1, why: "the Swift runtime's key-path write allocates a holder") { s, _ in
        s.assign(to: \.value, on: AssignTarget())
    },
    SweepCase("print(to:)", expected: 4, why: "the strings it prints") { s, f in
        s.print("sweep", to: NullStream()).sink(receiveValue: f)
    },
] }

/// Prints each chain's allocations per value; returns whether every chain was within what it
/// is expected to cost.
func runAllocationSweep() -> Bool {
    var withinExpectations = true
    for sweepCase in makeSweepCases() {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let cancellable = sweepCase.build(subject) { total &+= $0 }
        for value in 0..<100 { subject.send(value) }  // warm up: lazy metadata, buffers
        let values = 10_000
        let before = sluice_allocation_count()
        for value in 0..<values { subject.send(value) }
        let perValue = Double(sluice_allocation_count() - before) / Double(values)
        cancellable.cancel()
        withExtendedLifetime(total) {}
        let over = perValue > sweepCase.expected + 0.01
        if over { withinExpectations = false }
        var line = sweepCase.name.padding(toLength: 40, withPad: " ", startingAt: 0)
            + String(format: "%5.2f allocs/value", perValue)
        if over {
            line += String(format: "   MORE THAN EXPECTED (%.2f)", sweepCase.expected)
        } else if !sweepCase.why.isEmpty {
            line += "   (\(sweepCase.why))"
        }
        print(line)
    }
    return withinExpectations
}
