import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// API misuse stops the program with a message that says what was wrong, as Combine's
/// preconditions do; garbage input fails the stream instead of stopping anything.
@Suite("Bad input")
struct BadInputTests {
    /// Asking a subscription for nothing (`request(.none)`) is an API violation wherever Combine
    /// treats it as one. (Combine's `Publishers.Sequence`, `merge` and `buffer` ignore it, and so
    /// do Sluice's; their own tests pin that.)
    @Test func aZeroRequestStopsTheProgramWhateverTheSubscription() async throws {
        let results = [
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                BadInputTests.requestNothing(from: Just(1))
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                BadInputTests.requestNothing(from: Future<Int, Never> { $0(.success(1)) })
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                BadInputTests.requestNothing(from: Just(1).flatMap { Just($0) })
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                BadInputTests.requestNothing(from: Just(1).zip(Just(2)).map { $0 + $1 })
            },
        ]
        for result in results {
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("API Violation: demand must not be zero"))
        }
    }

    /// The same over the whole operator catalogue: every operator either stops the program with
    /// Combine's message or is one of those listed in `zeroRequestIgnored`, which ignore it.
    @Test(arguments: OperatorCatalogue.all.map(\.name))
    func aZeroRequestToAnyOperatorStopsTheProgramOrIsIgnoredWhereListed(_ name: String) async throws {
        let ignores = BadInputTests.zeroRequestIgnored.contains(name)
        let result = try await #require(processExitsWith: ignores ? .success : .failure,
                                        observing: [\.standardErrorContent]) { [name] in
            guard let operatorCase = OperatorCatalogue.all.first(where: { $0.name == name }) else { exit(3) }
            operatorCase.apply(RequestNothing())
        }
        if !ignores {
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("API Violation: demand must not be zero"))
        }
    }

    /// The operators that ignore `request(.none)`. Combine's `Publishers.Sequence`, `merge`,
    /// `buffer` and `Subscriptions.empty` (behind `Empty` and `Fail`) ignore it; so does whatever
    /// starts from them here (`Deferred` of a sequence, `prepend`). For the rest Combine's
    /// documentation says nothing, and Sluice ignores it rather than stopping a program that
    /// Apple's Combine might run: nothing is delivered for it either way. (`replaceError` is not
    /// among them: a suite run against Apple's Combine stops there; nor is `setFailureType`,
    /// which hands the request to the `replaceError` it is tried on here.)
    static let zeroRequestIgnored: Set<String> = [
        "Sequence", "Deferred", "Empty", "Fail", "Record", "prepend", "merge", "merge(with: Self)", "MergeMany",
        "buffer(byRequest, dropNewest)", "buffer(keepFull, dropOldest)",
        "drop(untilOutputFrom:)", "throttle(latest: false)", "throttle(latest: true)", "timeout",
    ]

    static func requestNothing<P: Publisher>(from publisher: P) where P.Output == Int, P.Failure == Never {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        publisher.subscribe(subscriber)
        subscriber.request(.none)
    }

    @Test func collectByTimeOrCountWithACountBelowOneStopsAtSubscription() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = DispatchQueue.test
            _ = PassthroughSubject<Int, Never>().collect(.byTimeOrCount(scheduler, .seconds(1), 0)).sink { _ in }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                    .contains("collect(.byTimeOrCount(_:_:count)) needs a count of at least 1, got 0"))
    }

    /// A dispatch queue stride of more seconds than `Int` nanoseconds can hold stops the program,
    /// as Combine's `Stride.seconds(_: Double)` does (the integer factories saturate instead).
    @Test func aDispatchStrideOfTooManySecondsStopsTheProgram() async throws {
        await #expect(processExitsWith: .failure) {
            _ = DispatchQueue.SchedulerTimeType.Stride.seconds(Double(Int.max) / 1_000_000_000)
        }
        await #expect(processExitsWith: .failure) {
            _ = DispatchQueue.SchedulerTimeType.Stride.seconds(-Double.infinity)
        }
        #expect(DispatchQueue.SchedulerTimeType.Stride.seconds(9_000_000_000.0).magnitude == 9_000_000_000_000_000_000)
    }

    /// Decoding garbage fails the stream with the decoder's error; nothing stops.
    @Test func decodingGarbageFailsWithTheDecodersError() {
        let subscriber = TestSubscriber<[Int], Error>()
        Just(Data("not json".utf8)).decode(type: [Int].self, decoder: JSONDecoder()).subscribe(subscriber)
        guard case .failure(let error)? = subscriber.completion else {
            Issue.record("expected a failure, got \(subscriber.events)")
            return
        }
        #expect(error is DecodingError)
        #expect(subscriber.values.isEmpty)
    }
}

/// Subscribes with no demand, lets the operator settle, then asks for nothing.
struct RequestNothing: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let (subscriber, scheduler) = operatorCase.subscribed(to: PassthroughSubject<Int, TestError>(), demand: .none)
        subscriber.request(.none)
        settle(scheduler)
    }
}
