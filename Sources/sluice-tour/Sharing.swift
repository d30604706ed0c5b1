import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

// Sharing: what share() and share(replay:) give a subscriber that comes late, and a cache of
// shared publishers that concurrent callers cannot fill twice.

func sharingScenarios() -> [Scenario] {
    [
        Scenario(id: "share-no-replay", topic: .sharing,
                 title: "share() does not replay to a late subscriber",
                 code: #"""
                 let shared = state.share()
                 shared.sink { a.append($0) }
                 state.send(true)
                 shared.subscribe(b)    // b: TestSubscriber(initialDemand: .none)
                 b.request(.max(1))
                 """#,
                 why: "share() multicasts through a PassthroughSubject: a subscriber gets only the values sent "
                     + "after it joined.") {
            let (a, b) = lateSubscriber { $0.share().eraseToAnyPublisher() }
            return Outcome("A received \(a); B, subscribed after that with no demand, then asking for one value, received \(b)",
                           holds: a == [true] && b.isEmpty)
        },
        Scenario(id: "share-replay", topic: .sharing,
                 title: "share(replay: 1) gives a late subscriber the current value",
                 code: #"""
                 let shared = state.share(replay: 1)
                 shared.sink { a.append($0) }
                 state.send(true)
                 shared.subscribe(b)    // b: TestSubscriber(initialDemand: .none)
                 b.request(.max(1))
                 """#,
                 why: "share(replay:) keeps the last values and sends them to each new subscriber when its "
                     + "demand arrives, so a subscriber that asks late still gets them.") {
            let scheduler = DispatchQueue.test
            let (a, b) = lateSubscriber { $0.share(replay: 1).eraseToAnyPublisher() }
            let state = PassthroughSubject<Bool, Never>()
            let shared = state.share(replay: 1)
            let first = shared.recordTimeline(on: scheduler)
            state.send(true)
            scheduler.advance(by: .seconds(2))
            let late = shared.recordTimeline(on: scheduler, demand: .none)
            scheduler.advance(by: .seconds(1))
            late.request(.max(1))
            scheduler.advance(by: .seconds(1))
            var chart = MarbleChart(tick: .seconds(1), title: "share(replay: 1): B asks for demand one tick after subscribing")
            chart.add("A", first.timeline, showsSubscription: true, until: .seconds(5))
            chart.add("B", late.timeline, showsSubscription: true, until: .seconds(5))
            return Outcome("A received \(a); B, subscribed after that with no demand, then asking for one value, received \(b)",
                           holds: a == [true] && b == [true], svg: chart.svg, marbles: chart.text)
        },
        Scenario(id: "serial-cache", topic: .sharing,
                 title: "A publisher cache on one serial queue creates exactly one",
                 code: #"""
                 Just(()).setFailureType(to: Error.self).receive(on: sessionQueue)
                     .flatMap { _ in self.cachedOrCreated() }    // look up, create, store: on sessionQueue
                 DispatchQueue.concurrentPerform(iterations: 200) { _ in
                     session.statePublisher().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
                 }
                 """#,
                 why: "The lookup, the creation and the store all run on one serial queue, so no two callers can "
                     + "both find the cache empty.") {
            let session = Session()
            let callers = 200
            let publishers = Mutex<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: callers) { _ in
                let cancellable = session.statePublisher().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
                _ = cancellable
                publishers.withLock { $0.append(session.lastHandedOut) }
            }
            let created = session.created.load(ordering: .sequentiallyConsistent)
            let distinct = Set(publishers.withLock { $0 }).count
            return Outcome("\(callers) first callers at once: \(created) shared publisher created, "
                           + "\(distinct) distinct instance handed out",
                           holds: created == 1 && distinct == 1)
        },
    ]
}

/// A subscribes and gets the initial state; B subscribes later with demand `.none`, then asks
/// for one value. Returns what each received.
private func lateSubscriber(_ share: (AnyPublisher<Bool, Never>) -> AnyPublisher<Bool, Never>) -> ([Bool], [Bool]) {
    let state = PassthroughSubject<Bool, Never>()
    let shared = share(state.eraseToAnyPublisher())
    var a: [Bool] = []
    let first = shared.sink { a.append($0) }
    state.send(true)
    let b = TestSubscriber<Bool, Never>(initialDemand: .none)
    shared.subscribe(b)
    b.request(.max(1))
    withExtendedLifetime(first) {}
    return (a, b.values)
}

/// A session object reduced to its cache of one shared publisher: lookup, create and store
/// happen on one serial queue, reached through `Just(()).receive(on:).flatMap`.
final class Session: @unchecked Sendable {
    let sessionQueue = DispatchQueue(label: "session")
    private var cached: AnyPublisher<Bool, Error>?
    private var cachedIdentity = ObjectIdentifier(Session.self)
    let created = Atomic<Int>(0)
    var lastHandedOut: ObjectIdentifier { sessionQueue.sync { cachedIdentity } }

    func statePublisher() -> AnyPublisher<Bool, Error> {
        Just(())
            .setFailureType(to: Error.self)
            .receive(on: sessionQueue)
            .flatMap { [weak self] _ -> AnyPublisher<Bool, Error> in
                guard let self else { return Empty<Bool, Error>().eraseToAnyPublisher() }
                return self.cachedOrCreated()
            }
            .eraseToAnyPublisher()
    }

    /// Returns the cached publisher, creating and storing it first if there is none.
    private func cachedOrCreated() -> AnyPublisher<Bool, Error> {
        dispatchPrecondition(condition: .onQueue(sessionQueue))
        if let cached { return cached }
        created.add(1, ordering: .sequentiallyConsistent)
        let shared = Publishers.Share(upstream: Just(true).setFailureType(to: Error.self).eraseToAnyPublisher())
        cachedIdentity = ObjectIdentifier(shared)
        let erased = shared.eraseToAnyPublisher()
        cached = erased
        return erased
    }
}
