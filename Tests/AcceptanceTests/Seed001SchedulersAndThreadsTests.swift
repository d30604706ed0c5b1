// Seed 001, "Schedulers and threads": each code block as the seed writes it, inside the smallest
// scaffolding that gives its project types (an `api`, an `Event`, a `subject`) a body, with the
// seed's claims as expectations. Changes from the seed's text are marked `// Sluice:`; all of
// them are recording lines added inside closures, or `print` replaced by recording.
import XCTest
import Foundation
import Synchronization
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting
#if canImport(CoreFoundation)
import CoreFoundation
#endif

final class Seed001SchedulersAndThreadsTests: XCTestCase {

    // MARK: "A Scheduler in Combine answers two questions: when something runs, and where."

    /// The seed's `protocol Scheduler` lists `now`, `minimumTolerance` and both `schedule`
    /// forms; every scheduler of the seed's table provides them.
    func testEverySchedulerInTheTableIsAClockAndAnExecutor() {
        let done = XCTestExpectation(description: "every scheduler ran both actions")
        done.expectedFulfillmentCount = 2 * 5
        func exercise<S: Scheduler>(_ scheduler: S) {
            _ = scheduler.now
            _ = scheduler.minimumTolerance
            scheduler.schedule(options: nil) { done.fulfill() }
            scheduler.schedule(after: scheduler.now, tolerance: scheduler.minimumTolerance, options: nil) { done.fulfill() }
        }
        exercise(DispatchQueue.main)
        exercise(DispatchQueue.global(qos: .utility))
        exercise(RunLoop.main)
        exercise(OperationQueue())
        exercise(ImmediateScheduler.shared)
        wait(for: [done], timeout: 10)
    }

    /// "debounce does not read the system time; it asks its scheduler. Swap the scheduler for one
    /// whose clock you control, and a three-second debounce test runs instantly."
    func testAThreeSecondDebounceRunsInstantlyOnAClockYouControl() {
        let scheduler = DispatchQueue.test
        let searchText = PassthroughSubject<String, Never>()
        var results: [String] = []
        let handle = searchText
            .debounce(for: .seconds(3), scheduler: scheduler)
            .sink { results.append($0) }
        searchText.send("swift")
        scheduler.advance(by: .milliseconds(2_999))
        XCTAssertEqual(results, [])
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(results, ["swift"])
        withExtendedLifetime(handle) {}
    }

    // MARK: "The publisher runs where it was subscribed"

    /// "a map closure runs on the thread the upstream published from, and that thread might be
    /// [...] whatever called send(_:) on a subject."
    func testAMapClosureRunsOnTheThreadThatCalledSend() {
        nonisolated(unsafe) let subject = PassthroughSubject<Int, Never>()  // not Sendable, as in Combine
        let mapQueues = Log<String>()
        let handle = subject
            .map { value -> Int in mapQueues.append(ExecutionContext.current.description); return value * 2 }
            .sink { _ in }
        let sender = DispatchQueue(label: "sender")
        let sent = DispatchGroup()
        sender.async(group: sent) { subject.send(1) }
        sent.wait()
        subject.send(2)
        XCTAssertEqual(mapQueues.all, ["sender", "main"])
        withExtendedLifetime(handle) {}
    }

    /// The seed's pipeline: the filter stays on the API's queue, the sink runs on main.
    func testReceiveOnDecidesWhatRunsWhere() throws {
        let model = ItemsModel()
        let api = API()
        let mapQueue = Log<String>()
        let sinkOnMain = Log<Bool>()

        let handle = api.fetchItems()                     // URLSession's queue
            .map { items -> [Item] in
                mapQueue.append(ExecutionContext.currentQueueLabel)     // Sluice: records where it ran
                return items.filter(\.isVisible)
            }                                             // still URLSession's queue — good
            .receive(on: DispatchQueue.main)              // hop
            .sink { sinkOnMain.append(Thread.isMainThread); model.items = $0 }   // main — good

        XCTAssertTrue(RunLoop.main.run { model.items != nil })
        XCTAssertEqual(model.items?.map(\.name), ["visible"])
        XCTAssertEqual(mapQueue.all, [API.queueLabel])
        XCTAssertEqual(sinkOnMain.all, [true])
        withExtendedLifetime(handle) {}
    }

    /// "Move that receive(on:) to the top and the filtering happens on the main queue for no reason."
    func testReceiveOnAtTheTopMovesTheFilteringToMain() throws {
        let model = ItemsModel()
        let mapOnMain = Log<Bool>()
        let handle = API().fetchItems()
            .receive(on: DispatchQueue.main)
            .map { items -> [Item] in mapOnMain.append(Thread.isMainThread); return items.filter(\.isVisible) }
            .sink { model.items = $0 }
        XCTAssertTrue(RunLoop.main.run { model.items != nil })
        XCTAssertEqual(mapOnMain.all, [true])
        withExtendedLifetime(handle) {}
    }

    // MARK: "Thread confinement in practice"

    /// "If a subject is fed from several places, receive(on: myQueue) immediately after it makes
    /// every downstream operator run on one thread, which turns a class full of locks into one
    /// with none."
    func testAPrivateSerialQueueAfterASubjectConfinesEveryDownstreamStage() {
        let feed = EventFeed()
        let stageQueues = Log<String>()
        let done = XCTestExpectation(description: "the last event arrived")
        var unsynchronisedCount = 0    // touched only on the private queue, so it needs no lock
        let handle = feed.events
            .map { event -> Event in stageQueues.append(ExecutionContext.currentQueueLabel); return event }
            .filter { _ in stageQueues.append(ExecutionContext.currentQueueLabel); return true }
            .sink { event in
                stageQueues.append(ExecutionContext.currentQueueLabel)
                unsynchronisedCount += 1
                if event.id == -1 { done.fulfill() }
            }
        DispatchQueue.concurrentPerform(iterations: 4) { sender in
            for index in 0..<250 { feed.subject.send(Event(id: sender * 250 + index)) }
        }
        feed.subject.send(Event(id: -1))
        wait(for: [done], timeout: 10)
        XCTAssertEqual(Set(stageQueues.all), ["com.example.sync"])
        XCTAssertEqual(stageQueues.all.count, 3 * 1_001)
        XCTAssertEqual(feed.queue.sync { unsynchronisedCount }, 1_001)
        withExtendedLifetime(handle) {}
    }

    /// "@Published must be mutated on the main thread when a SwiftUI view observes it": rule 1's
    /// `receive(on: DispatchQueue.main)` right before the subscriber that writes it.
    func testRuleOneDeliversAPublishedPropertyOnMain() throws {
        let model = PublishedItemsModel()
        let writesOnMain = Log<Bool>()
        let observation = model.$count.dropFirst().sink { _ in writesOnMain.append(Thread.isMainThread) }
        API().fetchItems()
            .map(\.count)
            .receive(on: DispatchQueue.main)
            .assign(to: &model.$count)
        XCTAssertTrue(RunLoop.main.run { model.count == 2 })
        XCTAssertEqual(writesOnMain.all, [true])
        withExtendedLifetime(observation) {}
    }

    // MARK: "Choosing a scheduler"

    /// Every row of the seed's table, used as `receive(on:)`: all values arrive, and the serial
    /// ones (and an OperationQueue with `maxConcurrentOperationCount = 1`) keep their order.
    func testEverySchedulerInTheTableDelivers() throws {
        let serialOperations = OperationQueue()
        serialOperations.maxConcurrentOperationCount = 1
        let values = Array(0..<50)
        XCTAssertEqual(try values.publisher.receive(on: DispatchQueue.main).blocking().values(), values)
        XCTAssertEqual(try values.publisher.receive(on: DispatchQueue.global(qos: .userInitiated)).blocking().values(), values)
        XCTAssertEqual(try values.publisher.receive(on: DispatchQueue(label: "com.example.sync")).blocking().values(), values)
        XCTAssertEqual(try values.publisher.receive(on: RunLoop.main).blocking().values(), values)
        XCTAssertEqual(try values.publisher.receive(on: serialOperations).blocking().values(), values)
        XCTAssertEqual(try values.publisher.receive(on: ImmediateScheduler.shared).blocking().values(), values)
    }

    /// "ImmediateScheduler.shared — Tests, where no delay is wanted at all."
    func testImmediateSchedulerDeliversBeforeSinkReturns() {
        var received: [Int] = []
        let handle = [1, 2, 3].publisher.receive(on: ImmediateScheduler.shared).sink { received.append($0) }
        XCTAssertEqual(received, [1, 2, 3])
        withExtendedLifetime(handle) {}
    }

    // MARK: "Timers, and why Timer.publish needs connect"

    func testTheSeedsTimerStartsOnFirstSubscription() throws {
        let ticks = Log<Date>()
        let timer = Timer.publish(every: 1, on: .main, in: .common)
            .autoconnect()                                     // start on first subscription
            .sink { ticks.append($0) }                         // Sluice: records instead of print($0)
        XCTAssertTrue(RunLoop.main.run(timeout: 5) { !ticks.all.isEmpty })
        withExtendedLifetime(timer) {}
    }

    /// "Without .autoconnect() — or an explicit .connect() — the timer never fires."
    func testWithoutConnectTheTimerNeverFires() throws {
        let ticks = Log<Date>()
        let timer = Timer.publish(every: 0.05, on: .main, in: .common)   // Sluice: 0.05 s keeps the test short
        let subscription = timer.sink { ticks.append($0) }
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.4))
        XCTAssertEqual(ticks.all, [])
        let connection = timer.connect()
        XCTAssertTrue(RunLoop.main.run { ticks.all.count >= 2 })
        connection.cancel()
        withExtendedLifetime(subscription) {}
    }

    /// "Note also in: .common rather than .default: the default run loop mode pauses during
    /// scroll tracking." Scroll tracking is modelled by running the main run loop in a mode that
    /// belongs to the common modes, as UIKit's tracking mode does.
    func testACommonModeTimerFiresDuringTrackingAndADefaultModeOneDoesNot() {
        let tracking = RunLoop.Mode("Seed001Tracking")
        // Sluice: Linux Foundation has no `RunLoop.Mode.tracking`; CoreFoundation registers one.
        CFRunLoopAddCommonMode(CFRunLoopGetMain(), CFStringCreateWithCString(nil, "Seed001Tracking",
                                                                             CFStringBuiltInEncodings.UTF8.rawValue))
        let keepAlive = Timer(timeInterval: 60, repeats: true) { _ in }
        RunLoop.main.add(keepAlive, forMode: tracking)
        defer { keepAlive.invalidate() }

        let common = Log<Date>(), standard = Log<Date>()
        let a = Timer.publish(every: 0.02, on: .main, in: .common).autoconnect().sink { common.append($0) }
        let b = Timer.publish(every: 0.02, on: .main, in: .default).autoconnect().sink { standard.append($0) }
        // Until the .common timer has fired (bounded for a loaded machine), all in the tracking mode.
        RunLoop.main.run(mode: tracking, timeout: 10, until: { !common.all.isEmpty })
        XCTAssertFalse(common.all.isEmpty)
        XCTAssertEqual(standard.all, [])
        withExtendedLifetime((a, b)) {}
    }
}

// MARK: - The seed's project types, given a body

struct Item: Sendable {
    let name: String
    let isVisible: Bool
}

/// Stands in for the seed's `api`: like URLSession.dataTaskPublisher, it starts the request
/// when demand arrives and delivers the response on a background queue of its own.
struct API {
    static let queueLabel = "URLSession"
    private static let queue = DispatchQueue(label: queueLabel)

    func fetchItems() -> AnyPublisher<[Item], Never> {
        Just([Item(name: "visible", isVisible: true), Item(name: "hidden", isVisible: false)])
            .receive(on: API.queue)
            .eraseToAnyPublisher()
    }
}

final class ItemsModel {
    var items: [Item]?
}

final class PublishedItemsModel: ObservableObject {
    @Published var count = 0
}

struct Event: Sendable {
    let id: Int
}

/// The seed's `events` property on a type whose subject is fed from several places.
final class EventFeed: Sendable {
    nonisolated(unsafe) let subject = PassthroughSubject<Event, Never>()  // not Sendable, as in Combine
    let queue = DispatchQueue(label: "com.example.sync")

    var events: AnyPublisher<Event, Never> {
        subject.receive(on: queue).eraseToAnyPublisher()
    }
}

/// A thread-safe list for closures that record from several threads.
final class Log<Element: Sendable>: Sendable {
    private let entries = Mutex<[Element]>([])
    func append(_ entry: Element) { entries.withLock { $0.append(entry) } }
    var all: [Element] { entries.withLock { $0 } }
}
