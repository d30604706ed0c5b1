import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// `Just`, and `Optional.Publisher` and `Result.Publisher` with a value, hand a `Sink` its value
/// and `finished` directly, without a subscription object. These tests pin down that a sink
/// reached that way behaves as one given a subscription would: the same events, nothing for a
/// sink that already has a subscription, and no `finished` after a cancel. Each publisher is
/// also subscribed through `AnyPublisher`, where the library's generic code takes the same path.
@Suite("Sink subscribed to a value at hand")
struct SinkValueAtHandTests {
    typealias Event = String

    /// The three value publishers, each as itself and erased.
    static func publishers(of value: Int) -> [(name: String, publisher: AnyPublisher<Int, Never>)] {
        [("Just", Just(value).eraseToAnyPublisher()),
         ("Optional", Optional(value).publisher.eraseToAnyPublisher()),
         ("Result", Result<Int, Never>.success(value).publisher.eraseToAnyPublisher())]
    }

    /// Subscribes `sink` to each publisher with its concrete type, then erased.
    static func subscribeEach(_ value: Int, _ sink: Subscribers.Sink<Int, Never>, erased: Bool) {
        if erased {
            for (_, publisher) in publishers(of: value) { publisher.subscribe(sink) }
        } else {
            Just(value).subscribe(sink)
            Optional(value).publisher.subscribe(sink)
            Result<Int, Never>.success(value).publisher.subscribe(sink)
        }
    }

    @Test(arguments: [false, true])
    func eachPublisherDeliversItsValueThenFinished(erased: Bool) {
        for (name, publisher) in Self.publishers(of: 7) {
            var events: [Event] = []
            let sink = Subscribers.Sink<Int, Never>(
                receiveCompletion: { events.append("\($0)") }, receiveValue: { events.append("\($0)") })
            if erased {
                publisher.subscribe(sink)
            } else {
                switch name {
                case "Just": Just(7).subscribe(sink)
                case "Optional": Optional(7).publisher.subscribe(sink)
                default: Result<Int, Never>.success(7).publisher.subscribe(sink)
                }
            }
            #expect(events == ["7", "finished"], "\(name)")
        }
        var values: [Int] = []
        var finished = 0
        let cancellable = Result<Int, TestError>.success(3).publisher.sink(
            receiveCompletion: { if case .finished = $0 { finished += 1 } }, receiveValue: { values.append($0) })
        #expect(values == [3] && finished == 1)
        _ = cancellable
    }

    @Test(arguments: [false, true])
    func aSinkThatAlreadyHasASubscriptionTakesNothing(erased: Bool) {
        let upstream = TestPublisher<Int, Never>()
        var events: [Event] = []
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { events.append("\($0)") }, receiveValue: { events.append("\($0)") })
        upstream.subscribe(sink)
        Self.subscribeEach(1, sink, erased: erased)
        #expect(events.isEmpty)
        _ = upstream.send(2)
        upstream.send(completion: .finished)
        #expect(events == ["2", "finished"], "the first subscription still delivers")
    }

    @Test(arguments: [false, true])
    func aSinkThatHasFinishedTakesNothingMore(erased: Bool) {
        var events: [Event] = []
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { events.append("\($0)") }, receiveValue: { events.append("\($0)") })
        Just(1).subscribe(sink)
        Self.subscribeEach(2, sink, erased: erased)
        let later = TestPublisher<Int, Never>()
        later.subscribe(sink)
        #expect(events == ["1", "finished"])
        #expect(later.demandLog == [.cancelled], "a subscription after the end is cancelled")
    }

    @Test(arguments: [false, true])
    func cancellingDuringTheValueStopsTheFinished(erased: Bool) {
        for (name, publisher) in Self.publishers(of: 5) {
            var events: [Event] = []
            var sink: Subscribers.Sink<Int, Never>?
            sink = Subscribers.Sink<Int, Never>(
                receiveCompletion: { events.append("\($0)") },
                receiveValue: { events.append("\($0)"); sink?.cancel() })
            if erased {
                publisher.subscribe(sink!)
            } else {
                switch name {
                case "Just": Just(5).subscribe(sink!)
                case "Optional": Optional(5).publisher.subscribe(sink!)
                default: Result<Int, Never>.success(5).publisher.subscribe(sink!)
                }
            }
            #expect(events == ["5"], "\(name)")
            sink?.cancel()
            let later = TestPublisher<Int, Never>()
            later.subscribe(sink!)
            #expect(later.demandLog == [.cancelled], "\(name): a cancelled sink takes no new subscription")
            sink = nil
        }
    }

    @Test func aSubscriptionArrivingDuringTheValueIsCancelled() {
        let other = TestPublisher<Int, Never>()
        var events: [Event] = []
        var sink: Subscribers.Sink<Int, Never>?
        sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { events.append("\($0)") },
            receiveValue: { events.append("\($0)"); other.subscribe(sink!) })
        Just(4).subscribe(sink!)
        #expect(other.demandLog == [.cancelled])
        #expect(events == ["4", "finished"])
        sink = nil
    }

    /// A sink shared between threads: one subscribes it to `Just` while the other cancels it,
    /// started together, many times. Whichever wins, the sink sees a prefix of the value and
    /// `finished` (all of it when the cancel comes before the subscription, which it does not
    /// stop), and its closures are released. Run under ThreadSanitizer by CI, which checks the
    /// races themselves. A run cannot show that the cancel landed inside the delivery; counted
    /// once, all three outcomes (nothing, the value, both) occurred in every run.
    @Test func aCancelRacingTheSubscriptionLeavesAPrefixAndReleasesTheClosures() async {
        final class Owner {}
        final class WeakOwner: @unchecked Sendable { weak var owner: Owner? }
        struct Trial: @unchecked Sendable {
            let sink: Subscribers.Sink<Int, Never>
            let events: StressBox<[String]>
            let weakOwner: WeakOwner
        }
        let trialCount = 2_000
        let trials = (0..<trialCount).map { _ -> Trial in
            let owner = Owner()
            let weakOwner = WeakOwner()
            weakOwner.owner = owner
            let events = StressBox<[String]>([])
            let sink = Subscribers.Sink<Int, Never>(
                receiveCompletion: { _ in withExtendedLifetime(owner) { events.withLock { $0.append("finished") } } },
                receiveValue: { value in events.withLock { $0.append("\(value)") } })
            return Trial(sink: sink, events: events, weakOwner: weakOwner)
        }
        let ran = await withWatchdog("sinks subscribed to Just while another thread cancels them") { () -> Bool in
            let rendezvous = StressRendezvous(parties: 2)
            Stress.runOnThreads(2) { index in
                for (number, trial) in trials.enumerated() {
                    rendezvous.arrive(round: number)
                    if index == 0 {
                        Just(number).subscribe(trial.sink)
                    } else {
                        trial.sink.cancel()
                    }
                }
            }
            return true
        }
        guard ran == true else { return }
        let malformed = trials.enumerated().filter { number, trial in
            !["\(number)", "finished"].starts(with: trial.events.value)
        }.map { "trial \($0.offset): \($0.element.events.value)" }
        #expect(malformed.isEmpty, "not a prefix of the value and finished: \(malformed.prefix(5))")
        let kept = trials.indices.filter { trials[$0].weakOwner.owner != nil }
        #expect(kept.isEmpty, "closures not released in trials \(kept.prefix(5))")
    }

    @Test func aCompletionSentFromInsideTheValueIsTheOnlyOne() {
        let logged = LoggedSink<TestError>(onValue: { sink, _ in sink.receive(completion: .failure(TestError())) })
        Result<Int, TestError>.success(1).publisher.subscribe(logged.sink)
        #expect(logged.events.count == 2 && logged.events.first == "1"
                && logged.events.last?.hasPrefix("failure") == true,
                "the value, then the one failure, and no finished: \(logged.events)")
        #expect(logged.closuresReleased, "released once the inner completion's call returns")
    }

    @Test func valuesAndGettersNestedInTheValueAreCalls() {
        let logged = LoggedSink<Never>(onValue: { sink, value in
            if value == 1 {
                _ = sink.receive(2)
                sink.receiveValue(3)
            }
        })
        Just(1).subscribe(logged.sink)
        #expect(logged.events == ["1", "2", "3", "finished"])
        #expect(logged.closuresReleased)
        #expect(logged.sink.receive(4) == Subscribers.Demand.none)
        #expect(logged.events == ["1", "2", "3", "finished"], "nothing after the end")
    }

    @Test func aCancelFromInsideTheFinishDoesNothing() {
        let logged = LoggedSink<Never>(onCompletion: { sink in
            sink.cancel()
            sink.cancel()
        })
        Just(1).subscribe(logged.sink)
        #expect(logged.events == ["1", "finished"])
        #expect(logged.closuresReleased)
    }

    @Test func theClosuresAreReleasedWhenTheValueHasBeenDelivered() {
        final class Owner {}
        weak var weakOwner: Owner?
        var kept: AnyCancellable?
        var delivered: [Int] = []
        do {
            let owner = Owner()
            weakOwner = owner
            kept = Just(9).sink { _ = owner; delivered.append($0) }
        }
        #expect(delivered == [9])
        #expect(weakOwner == nil, "finishing released the closure and its owner")
        _ = kept
    }
}

/// A sink whose closures log what they receive and keep an owner object alive, so a test can
/// see when the sink has released them. `onValue` and `onCompletion` run inside the closures,
/// after logging, with the sink.
private final class LoggedSink<Failure: Error> {
    final class Owner {}
    private(set) var events: [String] = []
    private weak var owner: Owner?
    private(set) var sink: Subscribers.Sink<Int, Failure>!

    init(onValue: @escaping (Subscribers.Sink<Int, Failure>, Int) -> Void = { _, _ in },
         onCompletion: @escaping (Subscribers.Sink<Int, Failure>) -> Void = { _ in }) {
        let owner = Owner()
        self.owner = owner
        sink = Subscribers.Sink<Int, Failure>(
            receiveCompletion: { [unowned self] completion in
                withExtendedLifetime(owner) {
                    self.events.append("\(completion)")
                    onCompletion(self.sink)
                }
            },
            receiveValue: { [unowned self] value in
                self.events.append("\(value)")
                onValue(self.sink, value)
            })
    }

    /// Whether the sink has let go of its closures (and so of the owner they keep).
    var closuresReleased: Bool { owner == nil }
}
