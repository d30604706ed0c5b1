import Testing
import Sluice
import SluiceExtras
import SluiceSchedulers

/// An operator's closure that sends into the operator's own upstream subject re-enters the
/// operator while the closure is still running. Combine delivers the nested value at once and
/// then finishes the outer one; it must not stop the program with Swift's exclusivity check
/// (the operators that keep their per-value state in a struct once did).
@Suite("Closures that send into their own upstream")
struct ReentrantClosureTests {
    /// Subscribes `make(subject)`, sends 1 (whose closure call sends 2, once), 3 and finished,
    /// and returns what the sink saw.
    static func run<P: Publisher>(_ make: (PassthroughSubject<Int, Never>, @escaping (Int) -> Void) -> P) -> [String]
        where P.Output: CustomStringConvertible
    {
        let subject = PassthroughSubject<Int, Never>()
        var reentered = false
        let reenter: (Int) -> Void = { value in
            if value == 1 && !reentered {
                reentered = true
                subject.send(2)
            }
        }
        var seen: [String] = []
        let cancellable = make(subject, reenter).sink(receiveCompletion: { seen.append("\($0)") },
                                                       receiveValue: { seen.append($0.description) })
        subject.send(1)
        subject.send(3)
        subject.send(completion: .finished)
        withExtendedLifetime(cancellable) {}
        return seen
    }

    static let nestedFirst = ["2", "1", "3", "finished"]

    @Test func valueByValueOperators() {
        #expect(Self.run { s, r in s.map { r($0); return $0 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.tryMap { r($0); return $0 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.compactMap { r($0); return $0 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.tryCompactMap { r($0); return $0 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.filter { r($0); return true } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.tryFilter { r($0); return true } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.drop { r($0); return $0 < 0 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.tryDrop { r($0); return $0 < 0 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.prefix { r($0); return $0 < 10 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.tryPrefix { r($0); return $0 < 10 } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r) } == Self.nestedFirst)
        #expect(Self.run { s, r in s.removeDuplicates { r($1); return $0 == $1 } } == ["1", "3", "finished"])
        #expect(Self.run { s, r in s.tryRemoveDuplicates { r($1); return $0 == $1 } } == ["1", "3", "finished"])
    }

    /// The outer call read the accumulator before its closure ran, so its result replaces the
    /// nested one, as Combine's `result = nextPartialResult(result, input)` does.
    @Test func accumulatingOperators() {
        #expect(Self.run { s, r in s.scan(0) { r($1); return $0 + $1 } } == ["2", "1", "4", "finished"])
        #expect(Self.run { s, r in s.tryScan(0) { r($1); return $0 + $1 } } == ["2", "1", "4", "finished"])
        #expect(Self.run { s, r in s.reduce(0) { r($1); return $0 + $1 } } == ["4", "finished"])
        #expect(Self.run { s, r in s.tryReduce(0) { r($1); return $0 + $1 } } == ["4", "finished"])
    }

    @Test func reducingOperators() {
        #expect(Self.run { s, r in s.contains { r($0); return $0 == 3 } } == ["true", "finished"])
        #expect(Self.run { s, r in s.tryContains { r($0); return $0 == 3 } } == ["true", "finished"])
        #expect(Self.run { s, r in s.allSatisfy { r($0); return $0 > 0 } } == ["true", "finished"])
        #expect(Self.run { s, r in s.tryAllSatisfy { r($0); return $0 > 0 } } == ["true", "finished"])
        #expect(Self.run { s, r in s.first { r($0); return $0 == 3 } } == ["3", "finished"])
        #expect(Self.run { s, r in s.tryFirst { r($0); return $0 == 3 } } == ["3", "finished"])
        #expect(Self.run { s, r in s.last { r($0); return $0 > 0 } } == ["3", "finished"])
        #expect(Self.run { s, r in s.tryLast { r($0); return $0 > 0 } } == ["3", "finished"])
        #expect(Self.run { s, r in s.max { r($1); return $0 < $1 } } == ["3", "finished"])
        #expect(Self.run { s, r in s.tryMin { r($1); return $0 < $1 } } == ["1", "finished"])
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r).count() } == ["3", "finished"])
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r).collect().map { $0.description } }
                    == ["[2, 1, 3]", "finished"])
    }

    @Test func combiningOperators() {
        #expect(Self.run { s, r in s.flatMap { v -> Just<Int> in r(v); return Just(v) } } == Self.nestedFirst)
        #expect(Self.run { s, r in s.map { v -> Just<Int> in r(v); return Just(v) }.switchToLatest() } == Self.nestedFirst)
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r).merge(with: Empty<Int, Never>()) } == Self.nestedFirst)
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r).combineLatest(Just(0)).map { "\($0.0)" } }
                    == Self.nestedFirst)
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r).share() } == Self.nestedFirst)
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r).share(replay: 1) } == Self.nestedFirst)
        #expect(Self.run { s, r in s.handleEvents(receiveOutput: r).receive(on: ImmediateScheduler.shared) }
                    == Self.nestedFirst)
    }

    /// The same with values that are references (strings and arrays): the nested call replaces
    /// state the outer closure was handed, which must stay alive (and unchanged) for it.
    @Test func referencePayloadsSurviveANestedCall() {
        let subject = PassthroughSubject<String, Never>()
        var nested = false
        func reenter(_ value: String) {
            if value == "b", !nested {
                nested = true
                subject.send("c")
            }
        }
        var scans: [[String]] = []
        let scan = subject.scan([String]()) { history, value in
            reenter(value)
            return history + [value]
        }.sink { scans.append($0) }
        subject.send("a")
        subject.send("b")
        #expect(scans == [["a"], ["a", "c"], ["a", "b"]])
        scan.cancel()

        nested = false
        var kept: [String] = []
        let unique = subject.removeDuplicates { previous, value in
            reenter(value)
            return previous == value
        }.sink { kept.append($0) }
        subject.send("a")
        subject.send("b")
        subject.send("b")
        #expect(kept == ["a", "c", "b"])
        unique.cancel()

        nested = false
        var reduced: [String] = []
        let reduce = subject.reduce("") { joined, value in
            reenter(value)
            return joined + value
        }.sink { reduced.append($0) }
        subject.send("a")
        subject.send("b")
        subject.send(completion: .finished)
        #expect(reduced == ["ab"], "the outer call's result, computed from the state it was handed, is stored last")
        reduce.cancel()
    }
}
