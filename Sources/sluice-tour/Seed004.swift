import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// Seed 004, "Schedulers: observe(on:) and subscribe(on:)" (RxSwift), its claims in Sluice's idiom.

func seed004Scenarios() -> [Scenario] {
    [
        Scenario(id: "ui-scheduler", seed: "004", section: "MainScheduler.instance and asyncInstance",
                 claim: "UIScheduler.shared runs inline on the main thread (MainScheduler.instance); .asynchronous defers (asyncInstance)") {
            var immediate: [String] = []
            let a = Just("x").receive(on: UIScheduler.shared).sink { immediate.append($0) }
            let right = immediate
            var deferred: [String] = []
            let b = Just("x").receive(on: UIScheduler.asynchronous).sink { deferred.append($0) }
            let before = deferred
            runMainLoop(for: 1, until: { deferred == ["x"] })
            withExtendedLifetime((a, b)) {}
            return Outcome("shared: \(right) before subscribe returned; asynchronous: \(before) then \(deferred) after a turn of the main loop",
                           holds: right == ["x"] && before.isEmpty && deferred == ["x"])
        },
        Scenario(id: "hop-cost", seed: "004", section: "What a hop costs, and what it hides",
                 claim: "A hop costs a dispatch per delivery batch: receive(on:) a serial queue against no hop, 100,000 values") {
            let count = 100_000
            let (withoutHop, withHop) = quickestSeconds({
                let done = DispatchSemaphore(value: 0)
                let handle = (0..<count).publisher.sink(receiveCompletion: { _ in done.signal() }, receiveValue: { _ in })
                done.wait()
                handle.cancel()
            }, {
                let done = DispatchSemaphore(value: 0)
                let handle = (0..<count).publisher.receive(on: DispatchQueue(label: "hop"))
                    .sink(receiveCompletion: { _ in done.signal() }, receiveValue: { _ in })
                done.wait()
                handle.cancel()
            })
            return Outcome("without a hop \(formatNanoseconds(withoutHop, per: count)) per value, with one \(formatNanoseconds(withHop, per: count)) (a debug build; `-c release` is faster)",
                           holds: withHop > withoutHop)
        },
        Scenario(id: "backlog", seed: "004", section: "What a hop costs, and what it hides",
                 claim: "A fast producer behind a hop to a slow consumer leaves a backlog; demand through buffer bounds it") {
            let total = 20_000
            // Unbounded: a subject feeding receive(on:), the consumer sleeping 100 µs per value.
            let handled = Atomic<Int>(0)
            let allHandled = DispatchSemaphore(value: 0)
            let readings = PassthroughSubject<Int, Never>()
            let unbounded = readings.receive(on: DispatchQueue(label: "consumer")).sink { @Sendable _ in
                usleep(100)
                if handled.add(1, ordering: .relaxed).newValue == total { allHandled.signal() }
            }
            for value in 0..<total { readings.send(value) }
            let handledWhenDone = handled.load(ordering: .relaxed)
            unbounded.cancel()
            // Bounded: the consumer asks for one value at a time through a 100-slot buffer that
            // drops the oldest; the producer never queues more than the buffer holds.
            let bounded = PassthroughSubject<Int, Never>()
            let subscriber = BoundedConsumer()
            bounded.buffer(size: 100, prefetch: .byRequest, whenFull: .dropOldest)
                .receive(on: DispatchQueue(label: "bounded-consumer"))
                .subscribe(subscriber)
            for value in 0..<total { bounded.send(value) }
            bounded.send(completion: .finished)
            _ = subscriber.finished.wait(timeout: .now() + 30)
            let boundedCount = subscriber.consumed.load(ordering: .relaxed)
            return Outcome("unbounded: \(handledWhenDone) of \(total) handled when the producer finished, the rest queued in memory; bounded by buffer(size: 100) and demand of one: \(boundedCount) delivered, the rest dropped at the buffer",
                           holds: handledWhenDone < total / 2 && boundedCount < total / 10)
        },
    ]
}

/// Requests one value at a time, sleeping 100 µs per value: a slow consumer with demand.
final class BoundedConsumer: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never
    let consumed = Atomic<Int>(0)
    let finished = DispatchSemaphore(value: 0)
    private var subscription: Subscription?

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        usleep(100)
        consumed.add(1, ordering: .relaxed)
        return .max(1)
    }

    func receive(completion: Subscribers.Completion<Never>) {
        finished.signal()
    }
}
