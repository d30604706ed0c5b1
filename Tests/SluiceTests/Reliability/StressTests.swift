import Testing
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// The stress suite (issue 9): Sluice under real concurrency, each test bounded in time and
/// count and asserting only what the contract guarantees whatever the interleaving:
///
/// - nothing accepted is lost, nothing is duplicated, each sending thread's values keep its
///   order;
/// - no delivery after `cancel()` has returned (beyond the one value already being delivered)
///   or after a completion, and at most one completion, last;
/// - no two signals to one subscriber at once (`TestSubscriber.sawConcurrentSignals`);
/// - values never exceed the demand granted;
/// - no deadlock: every body runs under ``withWatchdog(_:timeout:sourceLocation:_:)``, which
///   fails the test after ``watchdogTimeout`` seconds instead of hanging CI.
///
/// Concurrency comes from real threads started together behind a barrier
/// (``Stress/runOnThreads(_:_:)``), never from the main thread or a task group. The cases run
/// one at a time (`.serialized`) so that their threads do not compete with each other on a
/// two-core machine; the figures below are sized for a few seconds in a debug build there, and
/// ``iterations`` gathers them for the README.
@Suite("Stress: Sluice under concurrent load", .serialized)
struct StressTests {
    // MARK: - Figures

    /// Threads sending into one subject at once, values each, and the numbers of subscribers
    /// present throughout.
    static let senderThreads = 8
    static let valuesPerSender = 250
    static let subscriberCounts = [1, 4, 16]
    /// At most this many subscribers join (and most of them cancel) while the senders send.
    static let maxJoiners = 200
    static let replayBufferSize = 4
    static let initialValue = -1
    static let valueAfterCompletion = -2

    /// Request/cancel races: trials per publisher, threads requesting `.max(1)` and requests each.
    static let raceTrials = 12
    static let raceRequesters = 3
    static let requestsPerRequester = 40
    /// At most this many values a producer sends into a hot source during one trial.
    static let raceProducerCap = 5_000

    /// Completion racing values: trials per pipeline, producer threads and values each.
    static let completionTrials = 10
    static let completionProducers = 4
    static let valuesPerProducer = 250

    /// `Future`: trials, threads fulfilling at once, and subscribers per phase (attached
    /// before, during and after fulfilment).
    static let futureTrials = 100
    static let fulfillingThreads = 8
    static let futureSubscribersPerPhase = 8

    /// `AnyCancellable` deinit racing `cancel()`.
    static let cancellableTrials = 10_000

    /// How long a body may take before the watchdog calls it a deadlock.
    static let watchdogTimeout: TimeInterval = 30

    /// The figures the README cites, by what they count.
    static let iterations: [String: Int] = [
        "subject cases (3 subjects × 3 subscriber counts)": SubjectKind.allCases.count * subscriberCounts.count,
        "values sent per subject case (8 threads)": senderThreads * valuesPerSender,
        "request/cancel trials (all publishers)": raceCases.count * raceTrials,
        "publishers raced with request and cancel": raceCases.count,
        "completion-race trials (all pipelines)": (CompletionRaceCase.allCases.count + 5) * completionTrials,
        "values sent per completion-race trial": completionProducers * valuesPerProducer,
        "Future trials": futureTrials,
        "Future subscribers per trial": 3 * futureSubscribersPerPhase,
        "AnyCancellable trials": cancellableTrials,
    ]

    // MARK: - 1. Concurrent send into subjects

    enum SubjectKind: String, CaseIterable, Sendable, CustomStringConvertible {
        case passthrough = "PassthroughSubject"
        case currentValue = "CurrentValueSubject"
        case replay = "ReplaySubject"

        var description: String { rawValue }
    }

    /// A subscriber that joined while the senders were sending.
    struct Joiner: Sendable {
        let subscriber: TestSubscriber<Int, Never>
        let unlimited: Bool

        var cancelled: Bool {
            subscriber.history.contains { event -> Bool in
                if case .cancel = event { return true }
                return false
            }
        }
    }

    struct SubjectStress: Sendable {
        /// Subscribed, with unlimited demand, before the first send and never cancelled.
        let steady: [TestSubscriber<Int, Never>]
        let joiners: [Joiner]
    }

    /// 8 threads send 250 values each into the subject while another thread keeps subscribing
    /// (unlimited or `.max(16)` demand) and cancelling the oldest of its last four; then the
    /// subject finishes and two more threads send. Every subscriber present throughout gets
    /// every value once, each thread's in its order, then the completion, never two signals at
    /// once; a joiner gets each value at most once, in order, and the completion if it was
    /// still there with unlimited demand.
    @Test(arguments: StressTests.SubjectKind.allCases, StressTests.subscriberCounts)
    func eightThreadsSendWhileSubscribersJoinAndCancel(_ kind: SubjectKind, _ steadyCount: Int) async {
        let outcome = await withWatchdog("8 threads sending into a \(kind) with \(steadyCount) subscribers") { () -> SubjectStress in
            switch kind {
            case .passthrough:
                return Self.sendConcurrently(into: PassthroughSubject<Int, Never>(), steadyCount: steadyCount)
            case .currentValue:
                return Self.sendConcurrently(into: CurrentValueSubject<Int, Never>(Self.initialValue), steadyCount: steadyCount)
            case .replay:
                return Self.sendConcurrently(into: ReplaySubject<Int, Never>(bufferSize: Self.replayBufferSize),
                                             steadyCount: steadyCount)
            }
        }
        guard let outcome else { return }
        let threads = Self.senderThreads
        let perThread = Self.valuesPerSender
        let everything = Array(repeating: perThread, count: threads)

        #expect(outcome.steady.count == steadyCount)
        for (number, subscriber) in outcome.steady.enumerated() {
            var values = subscriber.values
            if kind == .currentValue {
                #expect(values.first == Self.initialValue, "steady subscriber \(number): the current value comes first")
                values = Array(values.dropFirst())
            }
            #expect(values.count == threads * perThread, "steady subscriber \(number): \(values.count) values")
            #expect(Stress.deliveryProblem(values, threads: threads, perThread: perThread, mustInclude: everything) == nil,
                    "steady subscriber \(number)")
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil, "steady subscriber \(number)")
            #expect(subscriber.completions == [.finished], "steady subscriber \(number)")
        }

        #expect(!outcome.joiners.isEmpty, "subscribers joined while the senders sent")
        for (number, joiner) in outcome.joiners.enumerated() {
            var values = joiner.subscriber.values
            if kind == .currentValue, !values.isEmpty {
                // The current value on first demand can be one that is also on its way live.
                values.removeFirst()
            }
            #expect(Stress.deliveryProblem(values, threads: threads, perThread: perThread) == nil, "joiner \(number)")
            #expect(Stress.terminationProblem(joiner.subscriber,
                                              mustComplete: joiner.unlimited && !joiner.cancelled) == nil,
                    "joiner \(number) (unlimited: \(joiner.unlimited), cancelled: \(joiner.cancelled))")
        }
    }

    static func sendConcurrently<S: Subject & Sendable>(into subject: S, steadyCount: Int) -> SubjectStress
        where S.Output == Int, S.Failure == Never
    {
        let steady = (0..<steadyCount).map { _ in TestSubscriber<Int, Never>() }
        for subscriber in steady {
            subject.subscribe(subscriber)
        }
        let senders = senderThreads
        let perThread = valuesPerSender
        let joinerLimit = maxJoiners
        let joiners = Log<Joiner>()
        let sendersLeft = StressCounter(senders)
        Stress.runOnThreads(senders + 1) { thread in
            if thread < senders {
                for index in 0..<perThread {
                    subject.send(Stress.tag(thread, index))
                }
                sendersLeft.decrement()
                return
            }
            // The churning thread: at least one join, then more while anyone is sending.
            var active: [TestSubscriber<Int, Never>] = []
            var joined = 0
            repeat {
                let unlimited = joined.isMultiple(of: 2)
                let joiner = TestSubscriber<Int, Never>(initialDemand: unlimited ? .unlimited : .max(16))
                subject.subscribe(joiner)
                joiners.append(Joiner(subscriber: joiner, unlimited: unlimited))
                active.append(joiner)
                joined += 1
                if active.count > 3 {
                    active.removeFirst().cancel()
                }
                Thread.sleep(forTimeInterval: 0.000_05)
            } while joined < joinerLimit && sendersLeft.value > 0
        }
        subject.send(completion: .finished)
        let late = valueAfterCompletion
        Stress.runOnThreads(2) { _ in
            subject.send(late)
        }
        return SubjectStress(steady: steady, joiners: joiners.all)
    }

    // MARK: - 2. Concurrent request and cancel on every kind of subscription

    /// A publisher to race requests against a cancel, and the hot source behind it, if any,
    /// that a producer thread sends into meanwhile.
    struct RaceSetup {
        let publisher: AnyPublisher<Int, Never>
        let feed: (@Sendable (Int) -> Void)?

        init<P: Publisher>(_ publisher: P, feed: (@Sendable (Int) -> Void)? = nil)
            where P.Output == Int, P.Failure == Never
        {
            self.publisher = publisher.eraseToAnyPublisher()
            self.feed = feed
        }
    }

    struct RaceCase: Sendable, CustomStringConvertible {
        let name: String
        /// How long to let scheduled work run out after the race, before looking.
        let settle: TimeInterval
        /// Builds the publisher; time-based and hopping operators use the queue given.
        let make: @Sendable (DispatchQueue) -> RaceSetup

        init(_ name: String, settle: TimeInterval = 0, _ make: @escaping @Sendable (DispatchQueue) -> RaceSetup) {
            self.name = name
            self.settle = settle
            self.make = make
        }

        var description: String { name }
    }

    static let raceCases: [RaceCase] = [
        RaceCase("PassthroughSubject") { _ in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject, feed: { subject.send($0) })
        },
        RaceCase("CurrentValueSubject") { _ in
            let subject = CurrentValueSubject<Int, Never>(0)
            return RaceSetup(subject, feed: { subject.send($0) })
        },
        RaceCase("ReplaySubject") { _ in
            let subject = ReplaySubject<Int, Never>(bufferSize: 4)
            return RaceSetup(subject, feed: { subject.send($0) })
        },
        RaceCase("Sequence") { _ in
            RaceSetup((0..<10_000).publisher)
        },
        RaceCase("Just") { _ in
            RaceSetup(Just(7))
        },
        RaceCase("Future", settle: 0.001) { queue in
            RaceSetup(Future<Int, Never> { promise in
                nonisolated(unsafe) let promise = promise  // not Sendable, as in Combine
                queue.asyncAfter(deadline: .now() + .microseconds(200)) { promise(.success(7)) }
            })
        },
        RaceCase("receive(on:)", settle: 0.001) { queue in
            RaceSetup((0..<10_000).publisher.receive(on: queue))
        },
        RaceCase("subscribe(on:)", settle: 0.001) { queue in
            RaceSetup((0..<10_000).publisher.subscribe(on: queue))
        },
        RaceCase("merge") { _ in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject.merge(with: (0..<10_000).publisher), feed: { subject.send($0) })
        },
        RaceCase("combineLatest") { _ in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject.combineLatest((0..<10_000).publisher) { $0 &+ $1 }, feed: { subject.send($0) })
        },
        RaceCase("zip") { _ in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject.zip((0..<10_000).publisher) { $0 &+ $1 }, feed: { subject.send($0) })
        },
        RaceCase("flatMap") { _ in
            RaceSetup((0..<10_000).publisher.flatMap(maxPublishers: .max(2)) { value -> Publishers.Sequence<[Int], Never> in
                [value, value].publisher
            })
        },
        RaceCase("switchToLatest") { _ in
            let subject = PassthroughSubject<Int, Never>()
            let latest = subject
                .map { value -> Publishers.Sequence<[Int], Never> in [value, value &+ 1].publisher }
                .switchToLatest()
            return RaceSetup(latest, feed: { subject.send($0) })
        },
        RaceCase("share") { _ in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject.share(), feed: { subject.send($0) })
        },
        RaceCase("buffer") { _ in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject.buffer(size: 8, prefetch: .keepFull, whenFull: .dropOldest), feed: { subject.send($0) })
        },
        RaceCase("debounce", settle: 0.001) { queue in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject.debounce(for: .microseconds(50), scheduler: queue), feed: { subject.send($0) })
        },
        RaceCase("delay", settle: 0.001) { queue in
            let subject = PassthroughSubject<Int, Never>()
            return RaceSetup(subject.delay(for: .microseconds(100), scheduler: queue), feed: { subject.send($0) })
        },
    ]

    struct RaceTrial: Sendable {
        let trial: Int
        let subscribed: Bool
        let tally: StressTally
        let problem: String?
    }

    /// A `TestSubscriber(initialDemand: .none)` behind a ``StressFence``; three threads request
    /// `.max(1)` 40 times each (pausing now and then) while a fourth cancels after 0, 1, 3, 10
    /// or 30 values, and, for a hot source, a fifth sends into it throughout. Requests go on
    /// after the cancel and must do nothing. No crash; no more than the one value already
    /// being delivered enters the subscriber after `cancel()` returned; never more values than
    /// requested; no overlapping signals, nothing after a completion.
    @Test(arguments: StressTests.raceCases)
    func requestsFromThreeThreadsRaceACancel(_ raceCase: RaceCase) async {
        let trials = await withWatchdog("request and cancel racing on \(raceCase)") {
            (0..<Self.raceTrials).map { Self.raceRequestsAgainstCancel(raceCase, trial: $0) }
        }
        guard let trials else { return }
        #expect(trials.count == Self.raceTrials)
        let unsubscribed = trials.filter { !$0.subscribed }.map(\.trial)
        #expect(unsubscribed.isEmpty, "\(raceCase): no subscription arrived in trials \(unsubscribed)")
        let late = trials.filter { $0.tally.lateValues > 1 }
            .map { "trial \($0.trial): \($0.tally.lateValues) values" }
        #expect(late.isEmpty, "\(raceCase): values entered the subscriber after cancel() had returned: \(late)")
        let greedy = trials.filter(\.tally.exceededDemand)
            .map { "trial \($0.trial): \($0.tally.delivered) values for \($0.tally.requested) requested" }
        #expect(greedy.isEmpty, "\(raceCase): more values than the demand granted: \(greedy)")
        let malformed = trials.compactMap { trial in trial.problem.map { "trial \(trial.trial): \($0)" } }
        #expect(malformed.isEmpty, "\(raceCase): \(malformed)")
    }

    static func raceRequestsAgainstCancel(_ raceCase: RaceCase, trial: Int) -> RaceTrial {
        let queue = DispatchQueue(label: "StressTests.race")
        let setup = raceCase.make(queue)
        let fence = StressFence(TestSubscriber<Int, Never>(initialDemand: .none))
        setup.publisher.subscribe(fence)
        // Cancelling before the subscription arrives (subscribe(on:) hands it over on the queue)
        // would cancel nothing.
        let subscribed = Stress.waitUntil { fence.subscriber.subscription != nil }
        let feed = setup.feed
        let requesters = raceRequesters
        let requests = requestsPerRequester
        let cap = raceProducerCap
        let target = [0, 1, 3, 10, 30][trial % 5]
        let requestersLeft = StressCounter(requesters)
        let cancelled = Flag()
        Stress.runOnThreads(requesters + (feed == nil ? 1 : 2)) { index in
            if index < requesters {
                for request in 0..<requests {
                    fence.request()
                    if request % 8 == 7 {
                        Thread.sleep(forTimeInterval: 0.000_05)
                    }
                }
                requestersLeft.decrement()
            } else if index == requesters {
                let deadline = DispatchTime.now() + .milliseconds(5)
                while fence.counts.delivered < target, requestersLeft.value > 0, DispatchTime.now() < deadline {
                    Thread.sleep(forTimeInterval: 0.000_02)
                }
                fence.cancel()
                cancelled.set()
            } else if let feed {
                var next = 0
                while next < cap, !(cancelled.isSet && requestersLeft.value == 0) {
                    feed(next)
                    next += 1
                    if next % 32 == 0 {
                        Thread.sleep(forTimeInterval: 0.000_1)
                    }
                }
            }
        }
        if raceCase.settle > 0 {
            Thread.sleep(forTimeInterval: raceCase.settle)
        }
        queue.sync {}
        return RaceTrial(trial: trial, subscribed: subscribed, tally: fence.counts,
                         problem: Stress.terminationProblem(fence.subscriber, mustComplete: false))
    }

    // MARK: - 3. A completion racing values

    /// Pipelines fed by one `PassthroughSubject` that four threads send into while one of them
    /// finishes it midway.
    enum CompletionRaceCase: String, CaseIterable, Sendable, CustomStringConvertible {
        case receiveOnSerialQueue = "receive(on: serial queue)"
        case receiveOnConcurrentQueue = "receive(on: concurrent queue)"
        case flatMap = "flatMap (children hop to a queue)"
        case share = "share (two subscribers)"

        var description: String { rawValue }

        /// Whether each thread's values must keep their order (children of a flatMap may
        /// interleave however they finish).
        var keepsOrder: Bool { self != .flatMap }
    }

    struct CompletionRace: Sendable {
        let trial: Int
        let subscribers: [TestSubscriber<Int, Never>]
        /// Per producer thread: how many of its values had been accepted (their `send` had
        /// returned) when the completion was sent.
        let accepted: [Int]
        let completed: Bool
    }

    /// Four threads send 250 values each into the subject; one of them (which one, and after
    /// how many, varies by trial) sends `.finished` midway and keeps sending. Downstream: one
    /// completion, last; every value accepted before it delivered once, before it; nothing
    /// refused delivered; each thread's values in order and without gaps.
    @Test(arguments: StressTests.CompletionRaceCase.allCases)
    func aCompletionRacingValuesComesOnceAfterEveryAcceptedValue(_ raceCase: CompletionRaceCase) async {
        let races = await withWatchdog("a completion racing values through \(raceCase)") {
            (0..<Self.completionTrials).map { Self.raceCompletion(raceCase, trial: $0) }
        }
        guard let races else { return }
        #expect(races.count == Self.completionTrials)
        for race in races {
            #expect(race.completed, "trial \(race.trial): a subscriber never received the completion")
            for (number, subscriber) in race.subscribers.enumerated() {
                let label = "trial \(race.trial), subscriber \(number), accepted \(race.accepted)"
                #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil, "\(label)")
                #expect(subscriber.completions == [.finished], "\(label)")
                #expect(Stress.deliveryProblem(subscriber.values, threads: Self.completionProducers,
                                               perThread: Self.valuesPerProducer, ordered: raceCase.keepsOrder,
                                               gapless: true, mustInclude: race.accepted) == nil, "\(label)")
            }
            if raceCase == .share, race.subscribers.count == 2 {
                #expect(race.subscribers[0].values == race.subscribers[1].values,
                        "trial \(race.trial): share delivers the same values in the same order to every subscriber")
            }
        }
    }

    static func raceCompletion(_ raceCase: CompletionRaceCase, trial: Int) -> CompletionRace {
        let serial = DispatchQueue(label: "StressTests.completion")
        let concurrent = DispatchQueue(label: "StressTests.completion.concurrent", attributes: .concurrent)
        switch raceCase {
        case .receiveOnSerialQueue:
            return raceCompletionThroughSubject(trial: trial, flush: { serial.sync {} }) {
                $0.receive(on: serial).eraseToAnyPublisher()
            }
        case .receiveOnConcurrentQueue:
            return raceCompletionThroughSubject(trial: trial, flush: { concurrent.sync(flags: .barrier) {} }) {
                $0.receive(on: concurrent).eraseToAnyPublisher()
            }
        case .flatMap:
            return raceCompletionThroughSubject(trial: trial, flush: { serial.sync {} }) { subject in
                subject
                    .flatMap { value -> Publishers.ReceiveOn<Just<Int>, DispatchQueue> in Just(value).receive(on: serial) }
                    .eraseToAnyPublisher()
            }
        case .share:
            return raceCompletionThroughSubject(trial: trial, subscribers: 2, flush: {}) {
                $0.share().eraseToAnyPublisher()
            }
        }
    }

    /// Subscribes `subscribers` unlimited `TestSubscriber`s to `build(subject)`, races the
    /// producers and the completion through it (``produceThenFinishMidway(into:trial:)``), and
    /// waits for every subscriber's completion; `flush` lets the pipeline's queue run out.
    static func raceCompletionThroughSubject(trial: Int, subscribers count: Int = 1, flush: () -> Void,
                                             _ build: (PassthroughSubject<Int, Never>) -> AnyPublisher<Int, Never>)
        -> CompletionRace
    {
        let subject = PassthroughSubject<Int, Never>()
        let pipeline = build(subject)
        let subscribers = (0..<count).map { _ in TestSubscriber<Int, Never>() }
        for subscriber in subscribers {
            pipeline.subscribe(subscriber)
        }
        // The demand must have reached the subject before anything is sent: a
        // PassthroughSubject drops what nobody asked for.
        Stress.waitUntil { subscribers.allSatisfy { $0.subscription != nil } }
        flush()
        let accepted = produceThenFinishMidway(into: subject, trial: trial)
        let completed = Stress.waitUntil { subscribers.allSatisfy { $0.completion != nil } }
        // Anything scheduled after the completion would land now.
        flush()
        Thread.sleep(forTimeInterval: 0.000_5)
        flush()
        return CompletionRace(trial: trial, subscribers: subscribers, accepted: accepted, completed: completed)
    }

    /// ``completionProducers`` threads send ``valuesPerProducer`` values each into `subject`;
    /// one of them, after some of its values (both vary with `trial`), sends `.finished` and
    /// carries on sending. Returns, per thread, how many of its values had been accepted (their
    /// `send` had returned) just before the completion was sent: a value sent by the
    /// completing thread before the completion, or whose `send` returned on another thread
    /// before it, must be delivered before the completion.
    static func produceThenFinishMidway(into subject: PassthroughSubject<Int, Never>, trial: Int) -> [Int] {
        let producers = completionProducers
        let perThread = valuesPerProducer
        let completer = trial % producers
        let completeAfter = (trial * 97 + 13) % perThread
        let progress = StressBox(Array(repeating: 0, count: producers))
        let accepted = StressBox(Array(repeating: 0, count: producers))
        Stress.runOnThreads(producers) { thread in
            for index in 0..<perThread {
                if thread == completer, index == completeAfter {
                    let snapshot = progress.value
                    accepted.withLock { $0 = snapshot }
                    subject.send(completion: .finished)
                }
                subject.send(Stress.tag(thread, index))
                progress.withLock { $0[thread] = index + 1 }
            }
        }
        return accepted.value
    }

    struct SwitchRace: Sendable {
        let race: CompletionRace
        /// The inner publishers' values in the order the subject passed them on.
        let dispatched: [Int]
    }

    /// The same race through `map { Just($0).receive(on: queue) }.switchToLatest()`: earlier
    /// inner publishers may be switched away, but the last one the subject passed on is never
    /// replaced, so its value is the last delivered, before the one completion.
    @Test func switchToLatestFinishesAfterTheLastInnerPublisherAccepted() async {
        let races = await withWatchdog("a completion racing values through switchToLatest") {
            (0..<Self.completionTrials).map { trial -> SwitchRace in
                let queue = DispatchQueue(label: "StressTests.switchToLatest")
                let dispatched = Log<Int>()
                let race = Self.raceCompletionThroughSubject(trial: trial, flush: { queue.sync {} }) { subject in
                    subject
                        .handleEvents(receiveOutput: { dispatched.append($0) })
                        .map { value -> Publishers.ReceiveOn<Just<Int>, DispatchQueue> in Just(value).receive(on: queue) }
                        .switchToLatest()
                        .eraseToAnyPublisher()
                }
                return SwitchRace(race: race, dispatched: dispatched.all)
            }
        }
        guard let races else { return }
        #expect(races.count == Self.completionTrials)
        for entry in races {
            let race = entry.race
            let label = "trial \(race.trial), accepted \(race.accepted)"
            #expect(race.completed, "\(label): no completion")
            guard let subscriber = race.subscribers.first else { continue }
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil, "\(label)")
            #expect(subscriber.completions == [.finished], "\(label)")
            #expect(Stress.deliveryProblem(entry.dispatched, threads: Self.completionProducers,
                                           perThread: Self.valuesPerProducer, gapless: true,
                                           mustInclude: race.accepted) == nil, "\(label): what the subject passed on")
            #expect(Stress.isSubsequence(subscriber.values, of: entry.dispatched),
                    "\(label): values delivered twice, out of order, or never sent")
            #expect(subscriber.values.last == entry.dispatched.last, "\(label): the last inner publisher's value")
        }
    }

    struct MergeRace: Sendable {
        let trial: Int
        let subscriber: TestSubscriber<Int, TestError>
        let accepted: [Int]
    }

    /// A hop on a scheduler that runs actions in place (`receive(on: ImmediateScheduler)`), sent
    /// into from four threads while its subscriber sends back into the same subject: every value
    /// and every value sent back is delivered once, each thread's in order, and no two threads
    /// are ever inside the subscriber at once (a nested delivery is on the delivering thread).
    @Test func aHopRunInPlaceWithReentrantSendsFromFourThreadsLosesNothing() async {
        let runs = await withWatchdog("re-entrant sends through receive(on: ImmediateScheduler)") {
            (0..<Self.completionTrials).map { _ in Self.raceThroughAnInPlaceHop() }
        }
        guard let runs else { return }
        let perThread = Self.valuesPerProducer
        for (values, overlaps) in runs {
            #expect(overlaps == 0, "two threads were inside the subscriber at once")
            let sent = values.filter { $0 >= 0 }
            let sentBack = values.filter { $0 < 0 }
            #expect(Stress.deliveryProblem(sent, threads: Self.completionProducers, perThread: perThread,
                                           gapless: true, mustInclude: Array(repeating: perThread, count: Self.completionProducers)) == nil)
            #expect(sentBack.sorted() == sent.filter { $0 % 10 == 3 }.map { -$0 }.sorted())
        }
    }

    static func raceThroughAnInPlaceHop() -> ([Int], Int) {
        let subject = PassthroughSubject<Int, Never>()
        let delivered = StressBox<[Int]>([])
        let overlaps = StressCounter()
        // Which thread is inside the subscriber, and how deep (nested deliveries).
        let inside = StressBox<(thread: pthread_t?, depth: Int)>((nil, 0))
        let cancellable = subject.receive(on: ImmediateScheduler.shared).sink { value in
            let me = pthread_self()
            inside.withLock { state in
                if let thread = state.thread, pthread_equal(thread, me) == 0 { overlaps.increment() }
                state = (me, state.depth + 1)
            }
            delivered.withLock { $0.append(value) }
            if value >= 0, value % 10 == 3 { subject.send(-value) }
            inside.withLock { state in state = state.depth == 1 ? (nil, 0) : (state.thread, state.depth - 1) }
        }
        Stress.runOnThreads(completionProducers) { thread in
            for index in 0..<valuesPerProducer { subject.send(Stress.tag(thread, index)) }
        }
        cancellable.cancel()
        return (delivered.value, overlaps.value)
    }

    /// `MergeMany` of four subjects, each sent into by its own thread, 250 values then
    /// `.finished`: the last upstream's finish races the others' last values. Every value is
    /// delivered once, each upstream's in order, then one `.finished`.
    @Test func mergeFinishesAfterEveryValueOfEveryUpstream() async {
        let races = await withWatchdog("merge's finish racing values") {
            (0..<Self.completionTrials).map { Self.raceThroughMerge(trial: $0, failing: false) }
        }
        guard let races else { return }
        let everything = Array(repeating: Self.valuesPerProducer, count: Self.completionProducers)
        for race in races {
            let subscriber = race.subscriber
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil, "trial \(race.trial)")
            #expect(subscriber.completions == [.finished], "trial \(race.trial)")
            #expect(subscriber.values.count == Self.completionProducers * Self.valuesPerProducer, "trial \(race.trial)")
            #expect(Stress.deliveryProblem(subscriber.values, threads: Self.completionProducers,
                                           perThread: Self.valuesPerProducer, gapless: true,
                                           mustInclude: everything) == nil, "trial \(race.trial)")
        }
    }

    /// The same, but one upstream fails midway while the others are still sending: the failure
    /// comes once and last, after every value accepted before it (those whose `send` had
    /// returned when it was sent), and each upstream's values are delivered in order, without
    /// gaps, up to where the merge stopped.
    @Test func mergeFailsAfterEveryValueAcceptedBeforeTheFailure() async {
        let races = await withWatchdog("merge's failure racing values") {
            (0..<Self.completionTrials).map { Self.raceThroughMerge(trial: $0, failing: true) }
        }
        guard let races else { return }
        for race in races {
            let subscriber = race.subscriber
            let label = "trial \(race.trial), accepted \(race.accepted)"
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil, "\(label)")
            #expect(subscriber.completions == [.failure(TestError(code: 99))], "\(label)")
            #expect(Stress.deliveryProblem(subscriber.values, threads: Self.completionProducers,
                                           perThread: Self.valuesPerProducer, gapless: true,
                                           mustInclude: race.accepted) == nil, "\(label)")
        }
    }

    static func raceThroughMerge(trial: Int, failing: Bool) -> MergeRace {
        let producers = completionProducers
        let perThread = valuesPerProducer
        let subjects = (0..<producers).map { _ in PassthroughSubject<Int, TestError>() }
        let subscriber = TestSubscriber<Int, TestError>()
        Publishers.MergeMany(subjects).subscribe(subscriber)
        let failer = trial % producers
        let failAfter = (trial * 97 + 13) % perThread
        let progress = StressBox(Array(repeating: 0, count: producers))
        let accepted = StressBox(Array(repeating: perThread, count: producers))
        Stress.runOnThreads(producers) { thread in
            let subject = subjects[thread]
            for index in 0..<perThread {
                if failing, thread == failer, index == failAfter {
                    let snapshot = progress.value
                    accepted.withLock { $0 = snapshot }
                    subject.send(completion: .failure(TestError(code: 99)))
                }
                subject.send(Stress.tag(thread, index))
                progress.withLock { $0[thread] = index + 1 }
            }
            subject.send(completion: .finished)
        }
        return MergeRace(trial: trial, subscriber: subscriber, accepted: accepted.value)
    }

    /// `zip` of three subjects, each sent into by its own thread, 250 values then `.finished`:
    /// exactly 250 triples, the `n`th of each upstream's `n`th values, then one `.finished`,
    /// however the finishes race the other upstreams' last values.
    @Test func zipFinishesAfterEveryCompleteTuple() async {
        let subscribers = await withWatchdog("zip's finish racing values") {
            (0..<Self.completionTrials).map { _ in Self.raceThroughZip() }
        }
        guard let subscribers else { return }
        let perThread = Self.valuesPerProducer
        let expected = (0..<perThread).map { (Stress.tag(0, $0), Stress.tag(1, $0), Stress.tag(2, $0)) }
        for (trial, subscriber) in subscribers.enumerated() {
            let values = subscriber.values
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil, "trial \(trial)")
            #expect(subscriber.completions == [.finished], "trial \(trial)")
            #expect(values.count == perThread, "trial \(trial): \(values.count) tuples")
            if let wrong = (0..<min(values.count, expected.count)).first(where: { values[$0] != expected[$0] }) {
                Issue.record("trial \(trial): tuple \(wrong) is \(values[wrong]), not \(expected[wrong])")
            }
        }
    }

    static func raceThroughZip() -> TestSubscriber<(Int, Int, Int), Never> {
        let perThread = valuesPerProducer
        let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<(Int, Int, Int), Never>()
        subjects[0].zip(subjects[1], subjects[2]).subscribe(subscriber)
        Stress.runOnThreads(3) { thread in
            for index in 0..<perThread {
                subjects[thread].send(Stress.tag(thread, index))
            }
            subjects[thread].send(completion: .finished)
        }
        return subscriber
    }

    /// `combineLatest` of two subjects, each sent into by its own thread, 250 values then
    /// `.finished`: under unlimited demand each value after both have one gives exactly one
    /// combination, in the order they were accepted, the last being both last values, then one
    /// `.finished`.
    @Test func combineLatestFinishesAfterTheLastCombination() async {
        let subscribers = await withWatchdog("combineLatest's finish racing values") {
            (0..<Self.completionTrials).map { _ in Self.raceThroughCombineLatest() }
        }
        guard let subscribers else { return }
        for (trial, subscriber) in subscribers.enumerated() {
            #expect(Stress.terminationProblem(subscriber, mustComplete: true) == nil, "trial \(trial)")
            #expect(subscriber.completions == [.finished], "trial \(trial)")
            #expect(Stress.combineLatestProblem(subscriber.values, perThread: Self.valuesPerProducer) == nil,
                    "trial \(trial)")
        }
    }

    static func raceThroughCombineLatest() -> TestSubscriber<(Int, Int), Never> {
        let perThread = valuesPerProducer
        let subjects = (0..<2).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<(Int, Int), Never>()
        subjects[0].combineLatest(subjects[1]).subscribe(subscriber)
        Stress.runOnThreads(2) { thread in
            for index in 0..<perThread {
                subjects[thread].send(Stress.tag(thread, index))
            }
            subjects[thread].send(completion: .finished)
        }
        return subscriber
    }

    // MARK: - 4. Future fulfilled from many threads

    /// Per trial: 8 subscribers attach from 4 threads; then 8 threads each fulfil the promise
    /// with their own number, half of them attaching a subscriber just before and half just
    /// after; then 8 more attach from 4 threads. A third of the subscribers start with no
    /// demand and ask for one value afterwards. Every subscriber receives the same single
    /// value, one of the 8, then `.finished`, and nothing else.
    @Test func aFutureFulfilledFromEightThreadsDeliversOneResultOnceToEverySubscriber() async {
        let problems = await withWatchdog("Future fulfilled from many threads") {
            (0..<Self.futureTrials).flatMap { Self.fulfilFromManyThreads(trial: $0) }
        }
        guard let problems else { return }
        #expect(problems.isEmpty, "\(problems.count) problems, the first: \(Array(problems.prefix(10)))")
    }

    static func fulfilFromManyThreads(trial: Int) -> [String] {
        var handedOver: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { handedOver = $0 }
        guard let handedOverPromise = handedOver else { return ["trial \(trial): the Future did not hand over its promise"] }
        nonisolated(unsafe) let promise = handedOverPromise  // not Sendable, as in Combine
        let perPhase = futureSubscribersPerPhase
        let fulfillers = fulfillingThreads
        let attachers = 4
        let subscribers = (0..<3 * perPhase).map { index in
            TestSubscriber<Int, Never>(initialDemand: index % 3 == 2 ? .none : .unlimited)
        }
        let before = Array(subscribers[0..<perPhase])
        let during = Array(subscribers[perPhase..<2 * perPhase])
        let after = Array(subscribers[2 * perPhase..<3 * perPhase])

        Stress.runOnThreads(attachers) { thread in
            for index in stride(from: thread, to: perPhase, by: attachers) {
                future.subscribe(before[index])
            }
        }
        Stress.runOnThreads(fulfillers) { thread in
            let mine = stride(from: thread, to: perPhase, by: fulfillers).map { during[$0] }
            if thread.isMultiple(of: 2) {
                for subscriber in mine { future.subscribe(subscriber) }
                promise(.success(thread))
            } else {
                promise(.success(thread))
                for subscriber in mine { future.subscribe(subscriber) }
            }
        }
        Stress.runOnThreads(attachers) { thread in
            for index in stride(from: thread, to: perPhase, by: attachers) {
                future.subscribe(after[index])
                if (2 * perPhase + index) % 3 == 2 {
                    after[index].request(.max(1))
                }
            }
            // The late demand of the subscribers attached before and during, from any thread.
            for index in stride(from: thread, to: 2 * perPhase, by: attachers) where index % 3 == 2 {
                subscribers[index].request(.max(1))
            }
        }

        var problems: [String] = []
        let results = Set(subscribers.flatMap(\.values))
        guard results.count == 1, let result = results.first else {
            return ["trial \(trial): results \(results.sorted()) instead of one"]
        }
        if !(0..<fulfillers).contains(result) {
            problems.append("trial \(trial): result \(result) was never promised")
        }
        let phases = ["before", "during", "after"]
        for (index, subscriber) in subscribers.enumerated() {
            let events = subscriber.events
            let startsWithSubscription: Bool
            if let first = events.first, case .subscription = first {
                startsWithSubscription = true
            } else {
                startsWithSubscription = false
            }
            let expectedRest: [TestSubscriber<Int, Never>.Event] = [.value(result), .completion(.finished)]
            let wellFormed = startsWithSubscription && events.count == 3 && Array(events.dropFirst()) == expectedRest
                && !subscriber.sawConcurrentSignals
            if !wellFormed {
                problems.append("trial \(trial): subscriber \(index) (attached \(phases[index / perPhase]) fulfilment, "
                    + "demand \(index % 3 == 2 ? "late" : "unlimited")): \(events), "
                    + "overlapping: \(subscriber.sawConcurrentSignals)")
            }
        }
        return problems
    }

    // MARK: - 5. AnyCancellable deinit racing cancel()

    /// One side of the race: its own references to the trials' cancellables, touched only by
    /// its own thread once the race starts.
    final class CancellableSlots: @unchecked Sendable {
        var items: [AnyCancellable?]

        init(count: Int) {
            items = Array(repeating: nil, count: count)
        }
    }

    /// A cancellable that counts its cancels, for `AnyCancellable(_: Cancellable)`.
    final class CountingCancellable: Cancellable, Sendable {
        let trial: Int
        let runs: StressBox<[Int]>

        init(trial: Int, runs: StressBox<[Int]>) {
            self.trial = trial
            self.runs = runs
        }

        func cancel() {
            runs.withLock { $0[trial] += 1 }
        }
    }

    /// 10,000 `AnyCancellable`s, each held by two threads that meet before every trial and then
    /// at once: cancel and drop it on one thread while the other drops it (so the deinit may
    /// run there), cancel and drop it on both, or just drop it on both; every fourth wraps a
    /// `Cancellable` instead of a closure. The cancel runs exactly once in every trial.
    @Test func anyCancellableCancelsExactlyOnceWhenItsDeinitRacesCancel() async {
        // 10,000 rendezvous of two threads: on a loaded machine each can wait out a time slice,
        // so the bound for a deadlock is longer than the suite's.
        let runs = await withWatchdog("AnyCancellable deinit racing cancel()", timeout: 120) {
            Self.raceCancellables()
        }
        guard let runs else { return }
        #expect(runs.count == Self.cancellableTrials)
        let wrong = runs.indices.filter { runs[$0] != 1 }
        let sample = wrong.prefix(10).map { "trial \($0): \(runs[$0]) runs" }
        #expect(wrong.isEmpty, "\(wrong.count) of \(runs.count) trials did not cancel exactly once: \(sample)")
    }

    static func raceCancellables() -> [Int] {
        let trials = cancellableTrials
        let runs = StressBox(Array(repeating: 0, count: trials))
        let sides = [CancellableSlots(count: trials), CancellableSlots(count: trials)]
        for trial in 0..<trials {
            let cancellable: AnyCancellable
            if trial % 4 == 3 {
                cancellable = AnyCancellable(CountingCancellable(trial: trial, runs: runs))
            } else {
                cancellable = AnyCancellable { runs.withLock { $0[trial] += 1 } }
            }
            sides[0].items[trial] = cancellable
            sides[1].items[trial] = cancellable
        }
        let rendezvous = StressRendezvous(parties: 2)
        Stress.runOnThreads(2) { thread in
            let mine = sides[thread]
            for trial in 0..<trials {
                let cancels: Bool
                switch trial % 4 {
                case 1: cancels = true              // cancel() on both threads at once
                case 2: cancels = false             // the deinit alone, on whichever thread lets go last
                default: cancels = thread == 0      // cancel() on one, the release (maybe the deinit) on the other
                }
                rendezvous.arrive(round: trial)
                if cancels {
                    mine.items[trial]?.cancel()
                }
                mine.items[trial] = nil
            }
        }
        return runs.value
    }
}
