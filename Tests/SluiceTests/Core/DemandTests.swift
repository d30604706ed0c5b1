import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers

@Suite("Subscribers.Demand")
struct DemandTests {
    typealias Demand = Subscribers.Demand

    @Test func descriptionsAndMax() {
        #expect(Demand.none.description == "max(0)")
        #expect(Demand.max(42).description == "max(42)")
        #expect(Demand.unlimited.description == "unlimited")
        #expect(Demand.none.max == 0)
        #expect(Demand.max(42).max == 42)
        #expect(Demand.unlimited.max == nil)
        #expect(Demand.none == .max(0))
        #expect(Demand.max(Int.max) != .unlimited)
    }

    /// Combine stops the program for a negative `.max`, and for a zero request; the message
    /// says what was wrong.
    @Test func negativeMaxAndZeroRequestsStopTheProgramWithAClearMessage() async throws {
        let negative = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Subscribers.Demand.max(-1)
        }
        #expect(String(decoding: negative.standardErrorContent, as: UTF8.self)
                    .contains("Subscribers.Demand.max(_:) requires a non-negative value, got -1"))
        let zero = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subject = PassthroughSubject<Int, Never>()
            final class Once: Subscriber, @unchecked Sendable {
                func receive(subscription: Subscription) { subscription.request(.none) }
                func receive(_ input: Int) -> Subscribers.Demand { .none }
                func receive(completion: Subscribers.Completion<Never>) {}
            }
            subject.subscribe(Once())
        }
        #expect(String(decoding: zero.standardErrorContent, as: UTF8.self)
                    .contains("API Violation: demand must not be zero"))
    }

    /// Apple's documentation: a negative demand is impossible; a subtraction whose result would
    /// be negative gives `.max(0)` (Sluice clamps an addition of a negative number the same way).
    @Test func integerAdditionAndSubtractionNeverGoNegative() {
        #expect(Demand.max(2) + (-5) == .none)
        #expect(Demand.max(1) + (-1) == .none)
        #expect(Demand.max(2) - 5 == .none)
        #expect(Demand.unlimited + (-5) == .unlimited)
    }

    /// Multiplication does not clamp: a negative product stops the program, as `.max` of a
    /// negative number does (a suite run against Apple's Combine stops at `.max(1) * -1`).
    /// Overflow, whatever the sign, gives `.unlimited`, and `.unlimited` times anything stays so.
    @Test func aNegativeProductStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Subscribers.Demand.max(1) * -1
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                    .contains("Subscribers.Demand.max(_:) requires a non-negative value, got -1"))
        #expect(Demand.max(0) * -3 == .none)
        #expect(Demand.max(Int.max) * -2 == .unlimited)
        #expect(Demand.unlimited * -1 == .unlimited)
        #expect(Demand.unlimited * 0 == .unlimited)
        #expect(Demand.max(5) * 0 == .none)
    }

    @Test func additionSaturatesAtUnlimited() {
        #expect(Demand.max(100) + .max(42) == .max(142))
        #expect(Demand.max(42) + .unlimited == .unlimited)
        #expect(Demand.unlimited + .unlimited == .unlimited)
        #expect(Demand.max(81) + 42 == .max(123))
        #expect(Demand.unlimited + 42 == .unlimited)
        #expect(Demand.max(Int.max) + 10 == .unlimited)
        var demand = Demand.none
        demand += .max(1)
        #expect(demand == .max(1))
        demand += 21
        #expect(demand == .max(22))
        demand += .unlimited
        #expect(demand == .unlimited)
        demand += Int.min
        #expect(demand == .unlimited)
    }

    @Test func subtractionNeverGoesBelowNone() {
        #expect(Demand.max(100) - .max(42) == .max(58))
        #expect(Demand.max(42) - .unlimited == .none)
        #expect(Demand.unlimited - .unlimited == .unlimited)
        #expect(Demand.unlimited - .max(42) == .unlimited)
        #expect(Demand.max(81) - 42 == .max(39))
        #expect(Demand.unlimited - 42 == .unlimited)
        #expect(Demand.max(Int.max) - (-1) == .none)
        #expect(Demand.max(1) - .max(2) == .none)
        var demand = Demand.max(100)
        demand -= .max(1)
        #expect(demand == .max(99))
        demand -= 21
        #expect(demand == .max(78))
        demand -= .unlimited
        #expect(demand == .none)
    }

    @Test func multiplication() {
        #expect(Demand.max(42) * 2 == .max(84))
        #expect(Demand.unlimited * Int.max == .unlimited)
        #expect(Demand.max(Int.max) * 2 == .unlimited)
        var demand = Demand.max(20)
        demand *= 2
        #expect(demand == .max(40))
        var none = Demand.none
        none *= 10
        #expect(none == .none)
    }

    @Test func comparisonsTreatUnlimitedAsGreaterThanEveryInteger() {
        #expect(Demand.unlimited > 1_000_000)
        #expect(Demand.unlimited >= 0)
        #expect(!(Demand.unlimited < 5))
        #expect(!(Demand.unlimited <= 5))
        #expect(Demand.unlimited != 5)
        #expect(!(Demand.unlimited == 5))
        #expect(5 < Demand.unlimited)
        #expect(5 <= Demand.unlimited)
        #expect(!(5 > Demand.unlimited))
        #expect(!(5 >= Demand.unlimited))
        #expect(Demand.max(100) == 100)
        #expect(100 == Demand.max(100))
        #expect(Demand.max(3) < 4)
        #expect(Demand.max(3) <= 3)
        #expect(Demand.max(3) > 2)
        #expect(Demand.max(3) >= 3)
        #expect(Demand.max(3) < Demand.unlimited)
        #expect(!(Demand.unlimited < Demand.unlimited))
        #expect(Demand.unlimited <= Demand.unlimited)
        #expect(Demand.max(2) < Demand.max(3))
    }

    @Test func codableAsOneUnsignedInteger() throws {
        struct Wrapper: Codable, Equatable { var value: Subscribers.Demand }
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(Wrapper(value: .max(42))), as: UTF8.self) == #"{"value":42}"#)
        #expect(String(decoding: try encoder.encode(Wrapper(value: .unlimited)), as: UTF8.self) == #"{"value":9223372036854775808}"#)
        let decoded = try JSONDecoder().decode(Wrapper.self, from: Data(#"{"value":9223372036854775809}"#.utf8))
        #expect(decoded.value == .unlimited)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Wrapper.self, from: Data(#"{"value":-1}"#.utf8)) }
    }

    @Test func hashable() {
        #expect(Set([Demand.max(1), .max(1), .unlimited]).count == 2)
    }
}

@Suite("Subscribers.Completion")
struct CompletionTests {
    struct CodableError: Error, Codable, Equatable { var reason: String }

    @Test func equatableAndHashable() {
        #expect(Subscribers.Completion<TestError>.finished == .finished)
        #expect(Subscribers.Completion<TestError>.failure(TestError()) != .finished)
        #expect(Set([Subscribers.Completion<Never>.finished, .finished]).count == 1)
    }

    @Test func codableWithSuccessAndErrorKeys() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let finished = try encoder.encode(Subscribers.Completion<CodableError>.finished)
        #expect(String(decoding: finished, as: UTF8.self) == #"{"success":true}"#)
        let failure = try encoder.encode(Subscribers.Completion<CodableError>.failure(CodableError(reason: "x")))
        #expect(String(decoding: failure, as: UTF8.self) == #"{"error":{"reason":"x"},"success":false}"#)
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Subscribers.Completion<CodableError>.self, from: finished) == .finished)
        #expect(try decoder.decode(Subscribers.Completion<CodableError>.self, from: failure) == .failure(CodableError(reason: "x")))
        #expect(throws: DecodingError.self) {
            try decoder.decode(Subscribers.Completion<CodableError>.self, from: Data(#"{"success":false}"#.utf8))
        }
    }
}

@Suite("CombineIdentifier")
struct CombineIdentifierTests {
    final class Object {}

    @Test func uniqueOrObjectBased() {
        #expect(CombineIdentifier() != CombineIdentifier())
        let object = Object()
        #expect(CombineIdentifier(object) == CombineIdentifier(object))
        #expect(CombineIdentifier(object) != CombineIdentifier(Object()))
        #expect(CombineIdentifier(object).description == "0x" + String(UInt(bitPattern: ObjectIdentifier(object)), radix: 16))
    }

    @Test func classesGetTheirIdentityByDefault() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(sink.combineIdentifier == CombineIdentifier(sink))
    }
}

@Suite("AnyCancellable")
struct AnyCancellableTests {
    final class CombiningTestCounter: Cancellable, @unchecked Sendable {
        var count = 0
        func cancel() { count += 1 }
    }

    @Test func cancelsOnceExplicitlyOrOnDeinit() {
        let counter = CombiningTestCounter()
        do {
            let cancellable = AnyCancellable(counter)
            cancellable.cancel()
            cancellable.cancel()
        }
        #expect(counter.count == 1)
        do {
            _ = AnyCancellable(counter)
        }
        #expect(counter.count == 2)
        var closureRuns = 0
        do {
            let cancellable = AnyCancellable { closureRuns += 1 }
            _ = cancellable
        }
        #expect(closureRuns == 1)
    }

    @Test func wrappedCancellableIsCancelledOnce() {
        let counter = CombiningTestCounter()
        let inner = AnyCancellable(counter)
        let outer = AnyCancellable(inner)
        outer.cancel()
        inner.cancel()
        #expect(counter.count == 1)
    }

    @Test func hashableByIdentityAndStorable() {
        let a = AnyCancellable {}
        let b = AnyCancellable {}
        #expect(a == a)
        #expect(a != b)
        var set = Set<AnyCancellable>()
        a.store(in: &set)
        a.store(in: &set)
        b.store(in: &set)
        #expect(set.count == 2)
        var array: [AnyCancellable] = []
        a.store(in: &array)
        #expect(array.count == 1 && array[0] === a)
        // Through the protocol, `store(in:)` wraps in a new AnyCancellable.
        let counter = CombiningTestCounter()
        counter.store(in: &array)
        #expect(array.count == 2)
        array.removeAll()
        #expect(counter.count == 1)
    }

    @Test func concurrentCancelRunsTheClosureOnce() async {
        let counter = CombiningTestCounter()
        let lock = NSLock()
        let cancellable = AnyCancellable { lock.lock(); counter.count += 1; lock.unlock() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { cancellable.cancel() } }
        }
        #expect(counter.count == 1)
    }
}
