import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

extension Canary {
    /// What an operator's closure calls, so that it captures the canary.
    func touch() {}
}

/// Writes nowhere: `print(_:to:)` and `encode` cases stay quiet.
struct NullStream: TextOutputStream {
    mutating func write(_ string: String) {}
}

/// What the contract checks may assume of one operator.
struct OperatorTraits: OptionSet, Sendable {
    let rawValue: Int
    /// Stops the program on an upstream failure (`assertNoFailure`): the failure checks skip it.
    static let trapsOnFailure = OperatorTraits(rawValue: 1 << 0)
    /// Ignores its upstream (a publisher of its own, such as `Just`): checks that drive the
    /// upstream only look at what it does by itself.
    static let source = OperatorTraits(rawValue: 1 << 1)
    /// A pass-through whose subscriber is a struct handing the upstream's subscription straight
    /// down (`map`, `filter`, `scan`, `ignoreOutput`, ...): it forwards whatever its upstream
    /// sends, as Combine's does, so the checks against a misbehaving upstream do not apply.
    static let statelessForwarder = OperatorTraits(rawValue: 1 << 2)
    /// Asks its upstream for `.unlimited` whatever the downstream asked for, as Combine's does
    /// (`replaceEmpty`): the demand check does not apply to it.
    static let requestsUnlimitedAsCombineDoes = OperatorTraits(rawValue: 1 << 3)
}

/// One of Sluice's operators (or publishers), applied to an upstream of `Int`s that fails with
/// `TestError`. A check receives the pipeline through ``ContractCheck/run(_:_:)``, generic over
/// whatever publisher type the operator makes.
struct OperatorCase: Sendable, CustomStringConvertible {
    let name: String
    let traits: OperatorTraits
    let apply: @Sendable (any ContractCheck) -> Void

    var description: String { name }

    /// Time-based operators run on `scheduler` (virtual time); checks settle it before looking.
    /// The closures an operator takes capture `canary`.
    init<P: Publisher & SendableMetatype>(_ name: String, _ traits: OperatorTraits = [],
                       _ make: @escaping @Sendable (AnyPublisher<Int, TestError>, TestSchedulerOf<DispatchQueue>, Canary) -> P) {
        self.name = name
        self.traits = traits
        apply = { check in check.run(OperatorCase.Built(name: name, traits: traits, make: make)) }
    }

    struct Built<P: Publisher>: @unchecked Sendable {
        let name: String
        let traits: OperatorTraits
        let make: (AnyPublisher<Int, TestError>, TestSchedulerOf<DispatchQueue>, Canary) -> P

        /// Subscribes a ``TestSubscriber`` with `demand` to the operator over `upstream`, on a
        /// fresh test scheduler, and lets the scheduler settle (so `subscribe(on:)` has run).
        func subscribed<Upstream: Publisher>(to upstream: Upstream, demand: Subscribers.Demand = .unlimited)
            -> (TestSubscriber<P.Output, P.Failure>, TestSchedulerOf<DispatchQueue>)
            where Upstream.Output == Int, Upstream.Failure == TestError
        {
            let scheduler = DispatchQueue.test
            let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: demand)
            make(upstream.eraseToAnyPublisher(), scheduler, Canary()).subscribe(subscriber)
            settle(scheduler)
            return (subscriber, scheduler)
        }
    }
}

/// A rule of the contract, checked against any publisher.
protocol ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>)
}

/// Every publisher and operator Sluice ships that fits an `Int` upstream, by Combine's name.
enum OperatorCatalogue {
    static let all: [OperatorCase] = transforming + filtering + reducing + errorHandling + combining + subjects
        + sharing + timed + sources

    static let transforming: [OperatorCase] = [
        OperatorCase("map", .statelessForwarder) { up, _, c in up.map { c.touch(); return $0 * 2 } },
        OperatorCase("map(keyPath)", .statelessForwarder) { up, _, _ in up.map(\.self) },
        OperatorCase("tryMap") { up, _, c in up.tryMap { c.touch(); return $0 * 2 } },
        OperatorCase("compactMap", .statelessForwarder) { up, _, c in up.compactMap { c.touch(); return $0 } },
        OperatorCase("tryCompactMap") { up, _, c in up.tryCompactMap { c.touch(); return $0 } },
        OperatorCase("scan", .statelessForwarder) { up, _, c in up.scan(0) { c.touch(); return $0 + $1 } },
        OperatorCase("tryScan") { up, _, c in up.tryScan(0) { c.touch(); return $0 + $1 } },
        OperatorCase("mapError", .statelessForwarder) { up, _, c in up.mapError { c.touch(); return $0 } },
        OperatorCase("replaceNil", .statelessForwarder) { up, _, _ in up.map { Optional($0) }.replaceNil(with: 0) },
        OperatorCase("setFailureType") { up, _, _ in up.replaceError(with: 0).setFailureType(to: TestError.self) },
        OperatorCase("handleEvents") { up, _, c in
            up.handleEvents(receiveSubscription: { _ in c.touch() }, receiveOutput: { _ in c.touch() },
                            receiveCompletion: { _ in c.touch() }, receiveCancel: { c.touch() },
                            receiveRequest: { _ in c.touch() })
        },
        OperatorCase("print") { up, _, _ in up.print("contract", to: NullStream()) },
        OperatorCase("breakpoint", .statelessForwarder) { up, _, c in up.breakpoint(receiveOutput: { _ in c.touch(); return false }) },
        OperatorCase("eraseToAnyPublisher", .statelessForwarder) { up, _, _ in up.map { $0 }.eraseToAnyPublisher() },
        OperatorCase("encode.decode") { up, _, _ in up.encode(encoder: JSONEncoder()).decode(type: Int.self, decoder: JSONDecoder()) },
    ]

    static let filtering: [OperatorCase] = [
        OperatorCase("filter", .statelessForwarder) { up, _, c in up.filter { c.touch(); return $0 % 2 == 0 } },
        OperatorCase("tryFilter") { up, _, c in up.tryFilter { c.touch(); return $0 % 2 == 0 } },
        OperatorCase("removeDuplicates") { up, _, _ in up.removeDuplicates() },
        OperatorCase("removeDuplicates(by:)") { up, _, c in up.removeDuplicates { c.touch(); return $0 == $1 } },
        OperatorCase("tryRemoveDuplicates") { up, _, c in up.tryRemoveDuplicates { c.touch(); return $0 == $1 } },
        OperatorCase("replaceEmpty", .requestsUnlimitedAsCombineDoes) { up, _, _ in up.replaceEmpty(with: -1) },
        OperatorCase("dropFirst") { up, _, _ in up.dropFirst(2) },
        OperatorCase("drop(while:)") { up, _, c in up.drop { c.touch(); return $0 < 3 } },
        OperatorCase("tryDrop(while:)") { up, _, c in up.tryDrop { c.touch(); return $0 < 3 } },
        OperatorCase("drop(untilOutputFrom:)") { up, _, _ in up.drop(untilOutputFrom: Just(0).setFailureType(to: TestError.self)) },
        OperatorCase("prefix") { up, _, _ in up.prefix(5) },
        OperatorCase("prefix(while:)") { up, _, c in up.prefix { c.touch(); return $0 < 1_000_000 } },
        OperatorCase("tryPrefix(while:)") { up, _, c in up.tryPrefix { c.touch(); return $0 < 1_000_000 } },
        OperatorCase("prefix(untilOutputFrom:)") { up, _, _ in up.prefix(untilOutputFrom: Empty<Int, TestError>(completeImmediately: false)) },
        OperatorCase("output(at:)") { up, _, _ in up.output(at: 2) },
        OperatorCase("output(in:)") { up, _, _ in up.output(in: 1..<4) },
        OperatorCase("first") { up, _, _ in up.first() },
        OperatorCase("first(where:)") { up, _, c in up.first { c.touch(); return $0 > 2 } },
        OperatorCase("tryFirst(where:)") { up, _, c in up.tryFirst { c.touch(); return $0 > 2 } },
        OperatorCase("last") { up, _, _ in up.last() },
        OperatorCase("last(where:)") { up, _, c in up.last { c.touch(); return $0 > 2 } },
        OperatorCase("tryLast(where:)") { up, _, c in up.tryLast { c.touch(); return $0 > 2 } },
        OperatorCase("ignoreOutput", .statelessForwarder) { up, _, _ in up.ignoreOutput() },
    ]

    static let reducing: [OperatorCase] = [
        OperatorCase("collect") { up, _, _ in up.collect() },
        OperatorCase("collect(count)") { up, _, _ in up.collect(3) },
        OperatorCase("count") { up, _, _ in up.count() },
        OperatorCase("contains") { up, _, _ in up.contains(1_000_000) },
        OperatorCase("contains(where:)") { up, _, c in up.contains { c.touch(); return $0 < 0 } },
        OperatorCase("tryContains(where:)") { up, _, c in up.tryContains { c.touch(); return $0 < 0 } },
        OperatorCase("allSatisfy") { up, _, c in up.allSatisfy { c.touch(); return $0 >= 0 } },
        OperatorCase("tryAllSatisfy") { up, _, c in up.tryAllSatisfy { c.touch(); return $0 >= 0 } },
        OperatorCase("min") { up, _, _ in up.min() },
        OperatorCase("max(by:)") { up, _, c in up.max { c.touch(); return $0 < $1 } },
        OperatorCase("tryMin(by:)") { up, _, c in up.tryMin { c.touch(); return $0 < $1 } },
        OperatorCase("reduce") { up, _, c in up.reduce(0) { c.touch(); return $0 + $1 } },
        OperatorCase("tryReduce") { up, _, c in up.tryReduce(0) { c.touch(); return $0 + $1 } },
    ]

    static let errorHandling: [OperatorCase] = [
        OperatorCase("replaceError") { up, _, _ in up.replaceError(with: -1) },
        OperatorCase("catch") { up, _, c in up.catch { _ in c.touch(); return Just(-1) } },
        OperatorCase("tryCatch") { up, _, c in up.tryCatch { _ in c.touch(); return Just(-1) } },
        OperatorCase("retry") { up, _, _ in up.retry(1) },
        OperatorCase("retry(_:delay:scheduler:)") { up, s, c in up.retry(1, delay: { _ in c.touch(); return .milliseconds(5) }, scheduler: s) },
        OperatorCase("assertNoFailure", [.trapsOnFailure, .statelessForwarder]) { up, _, _ in up.assertNoFailure() },
    ]

    static let combining: [OperatorCase] = [
        OperatorCase("flatMap") { up, _, c in up.flatMap { value -> Just<Int> in c.touch(); return Just(value) } },
        OperatorCase("flatMap(maxPublishers: .max(1))") { up, _, c in
            up.flatMap(maxPublishers: .max(1)) { value -> Publishers.Sequence<[Int], TestError> in
                c.touch()
                return [value, value].publisher.setFailureType(to: TestError.self)
            }
        },
        OperatorCase("switchToLatest") { up, _, c in up.map { value -> Just<Int> in c.touch(); return Just(value) }.switchToLatest() },
        OperatorCase("flatMapLatest") { up, _, c in up.flatMapLatest { value -> Just<Int> in c.touch(); return Just(value) } },
        OperatorCase("merge") { up, _, _ in up.merge(with: Empty<Int, TestError>()) },
        OperatorCase("merge(with: Self)") { up, _, _ in up.merge(with: Empty<Int, TestError>().eraseToAnyPublisher()) },
        OperatorCase("MergeMany") { up, _, _ in Publishers.MergeMany([up, Empty().eraseToAnyPublisher()]) },
        OperatorCase("combineLatest") { up, _, _ in up.combineLatest(Just(0).setFailureType(to: TestError.self)) },
        OperatorCase("combineLatest(transform)") { up, _, c in
            up.combineLatest(Just(0).setFailureType(to: TestError.self)) { a, b in c.touch(); return a + b }
        },
        OperatorCase("zip") { up, _, _ in up.zip((0..<10_000).publisher.setFailureType(to: TestError.self)) },
        OperatorCase("zip3") { up, _, _ in
            up.zip((0..<10_000).publisher.setFailureType(to: TestError.self), (0..<10_000).publisher.setFailureType(to: TestError.self))
        },
        OperatorCase("withLatestFrom") { up, _, c in
            up.withLatestFrom(Just(0).setFailureType(to: TestError.self)) { value, latest in c.touch(); return value + latest }
        },
        OperatorCase("withLatestFrom(a, b)") { up, _, _ in
            up.withLatestFrom(Just(0).setFailureType(to: TestError.self), CurrentValueSubject<Int, TestError>(1)).map { $0.0 + $0.1 }
        },
        OperatorCase("append") { up, _, _ in up.append(7, 8) },
        OperatorCase("prepend") { up, _, _ in up.prepend(-2, -1) },
        OperatorCase("append(publisher)") { up, _, _ in up.append(Empty<Int, TestError>()) },
    ]

    /// Subjects, fed by the upstream (a subject as its subscriber, which keeps the subscription
    /// it is handed) and subscribed to.
    static let subjects: [OperatorCase] = [
        OperatorCase("PassthroughSubject") { up, _, _ in
            let subject = PassthroughSubject<Int, TestError>()
            up.subscribe(AnySubscriber(subject))
            return subject
        },
        OperatorCase("CurrentValueSubject") { up, _, _ in
            let subject = CurrentValueSubject<Int, TestError>(-1)
            up.subscribe(AnySubscriber(subject))
            return subject
        },
        OperatorCase("ReplaySubject") { up, _, _ in
            let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
            up.subscribe(AnySubscriber(subject))
            return subject
        },
    ]

    static let sharing: [OperatorCase] = [
        OperatorCase("share") { up, _, _ in up.share() },
        OperatorCase("share(replay:)") { up, _, _ in up.share(replay: 2) },
        OperatorCase("multicast.autoconnect") { up, _, _ in up.multicast { PassthroughSubject<Int, TestError>() }.autoconnect() },
        OperatorCase("makeConnectable.autoconnect") { up, _, _ in up.replaceError(with: 0).makeConnectable().autoconnect() },
        OperatorCase("buffer(byRequest, dropNewest)") { up, _, _ in up.buffer(size: 4, prefetch: .byRequest, whenFull: .dropNewest) },
        OperatorCase("buffer(keepFull, dropOldest)") { up, _, _ in up.buffer(size: 4, prefetch: .keepFull, whenFull: .dropOldest) },
    ]

    static let timed: [OperatorCase] = [
        OperatorCase("receive(on:)") { up, s, _ in up.receive(on: s) },
        OperatorCase("subscribe(on:)") { up, s, _ in up.subscribe(on: s) },
        OperatorCase("delay") { up, s, _ in up.delay(for: .milliseconds(5), scheduler: s) },
        OperatorCase("debounce") { up, s, _ in up.debounce(for: .milliseconds(5), scheduler: s) },
        OperatorCase("throttle(latest: true)") { up, s, _ in up.throttle(for: .milliseconds(5), scheduler: s, latest: true) },
        OperatorCase("throttle(latest: false)") { up, s, _ in up.throttle(for: .milliseconds(5), scheduler: s, latest: false) },
        OperatorCase("timeout") { up, s, _ in up.timeout(.seconds(5), scheduler: s) },
        OperatorCase("collect(byTime)") { up, s, _ in up.collect(.byTime(s, .milliseconds(5))) },
        OperatorCase("collect(byTimeOrCount)") { up, s, _ in up.collect(.byTimeOrCount(s, .milliseconds(5), 3)) },
        OperatorCase("measureInterval") { up, s, _ in up.measureInterval(using: s) },
        OperatorCase("assertQueue(enabled: false)", .statelessForwarder) { up, _, _ in up.assertQueue("contract", enabled: false) },
        OperatorCase("trace") { up, _, _ in up.trace("contract", to: TraceLog()) },
    ]

    /// Publishers of their own: they ignore the upstream the checks hand them.
    static let sources: [OperatorCase] = [
        OperatorCase("Just", .source) { _, _, _ in Just(1) },
        OperatorCase("Empty", .source) { _, _, _ in Empty<Int, TestError>() },
        OperatorCase("Fail", .source) { _, _, _ in Fail<Int, TestError>(error: TestError(code: 1)) },
        OperatorCase("Deferred", .source) { _, _, c in Deferred { c.touch(); return [1, 2, 3].publisher } },
        OperatorCase("Future", .source) { _, _, _ in Future<Int, TestError> { promise in promise(.success(1)) } },
        OperatorCase("Record", .source) { _, _, _ in Record<Int, TestError>(output: [1, 2], completion: .finished) },
        OperatorCase("Sequence", .source) { _, _, _ in (0..<20).publisher },
        OperatorCase("Optional.Publisher", .source) { _, _, _ in Optional(1).publisher },
        OperatorCase("Result.Publisher", .source) { _, _, _ in Result<Int, TestError>.success(1).publisher },
        OperatorCase("Timer on TestScheduler", .source) { _, s, _ in s.timerPublisher(every: .milliseconds(5)).autoconnect().prefix(3) },
    ]
}
