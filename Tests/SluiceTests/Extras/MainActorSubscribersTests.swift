import XCTest
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// A view model as Swift 6 code writes it: main-actor state, touched from the closures of
/// `sinkOnMainActor` and written by `assignOnMainActor` with no `MainActor.assumeIsolated` (this
/// file is compiled in Swift 6 mode: a closure that touched this state off the main actor would
/// not compile).
@MainActor
final class MainActorViewModel {
    var items: [Int] = []
    var title = ""
    var completion: Subscribers.Completion<TestError>?
    var deliveredOnMainThread: [Bool] = []
    var cancellables = Set<AnyCancellable>()

    func watch(_ feed: some Publisher<Int, TestError>) {
        feed.sinkOnMainActor(receiveCompletion: { [weak self] completion in
            self?.completion = completion
        }, receiveValue: { [weak self] value in
            self?.items.append(value)
            self?.deliveredOnMainThread.append(Thread.isMainThread)
        })
        .store(in: &cancellables)
    }

    func bindTitle(_ titles: some Publisher<String, Never>) {
        titles.assignOnMainActor(to: \.title, on: self).store(in: &cancellables)
    }
}

/// `sinkOnMainActor` and `assignOnMainActor`. XCTest, because the main queue is drained by the
/// main run loop, which Linux XCTest runs its test methods on (CONTRIBUTING, Tests).
final class MainActorSubscribersTests: XCTestCase {
    func testValuesSentOffTheMainThreadReachTheMainActorClosuresInOrder() {
        MainActor.assumeIsolated {
            let model = MainActorViewModel()
            let feed = PassthroughSubject<Int, TestError>()
            model.watch(feed)
            let queue = DispatchQueue(label: "feed")
            queue.sync {
                for value in 1...5 { feed.send(value) }
                feed.send(completion: .finished)
            }
            XCTAssertEqual(model.items, [], "sent off the main actor: delivered by the main queue, later")
            runMainLoop(until: { model.completion != nil })
            XCTAssertEqual(model.items, [1, 2, 3, 4, 5])
            XCTAssertEqual(model.deliveredOnMainThread, [true, true, true, true, true])
            XCTAssertEqual(model.completion, .finished)
        }
    }

    func testAValueSentOnTheMainActorIsDeliveredAtOnce() {
        MainActor.assumeIsolated {
            let model = MainActorViewModel()
            let feed = PassthroughSubject<Int, TestError>()
            model.watch(feed)
            feed.send(1)
            XCTAssertEqual(model.items, [1], "on the main actor with nothing queued: before send returns")
        }
    }

    func testAMainThreadSendWaitsBehindValuesStillQueued() {
        MainActor.assumeIsolated {
            let model = MainActorViewModel()
            let feed = PassthroughSubject<Int, TestError>()
            model.watch(feed)
            DispatchQueue(label: "feed").sync { feed.send(1) }
            feed.send(2)
            XCTAssertEqual(model.items, [], "2 waits behind 1, which is queued for the main queue")
            runMainLoop(until: { model.items.count == 2 })
            XCTAssertEqual(model.items, [1, 2])
        }
    }

    func testACancelOnTheMainActorStopsValuesAlreadyQueued() {
        MainActor.assumeIsolated {
            let model = MainActorViewModel()
            let feed = PassthroughSubject<Int, TestError>()
            model.watch(feed)
            DispatchQueue(label: "feed").sync {
                feed.send(1)
                feed.send(completion: .failure(TestError(code: 2)))
            }
            model.cancellables.removeAll()
            runMainLoop(for: 0.1)
            XCTAssertEqual(model.items, [])
            XCTAssertNil(model.completion)
        }
    }

    func testAFailureReachesTheMainActorCompletion() {
        MainActor.assumeIsolated {
            let model = MainActorViewModel()
            let feed = PassthroughSubject<Int, TestError>()
            model.watch(feed)
            DispatchQueue.global().async { feed.send(completion: .failure(TestError(code: 7))) }
            runMainLoop(until: { model.completion != nil })
            XCTAssertEqual(model.completion, .failure(TestError(code: 7)))
        }
    }

    func testAssignOnMainActorWritesOnTheMainActorAndHoldsTheObjectWeakly() {
        MainActor.assumeIsolated {
            let titles = PassthroughSubject<String, Never>()
            var model: MainActorViewModel? = MainActorViewModel()
            weak let watched = model
            model?.bindTitle(titles)
            titles.send("now")
            XCTAssertEqual(model?.title, "now")
            DispatchQueue(label: "titles").sync { titles.send("later") }
            runMainLoop(until: { model?.title == "later" })
            XCTAssertEqual(model?.title, "later")
            // The model keeps the cancellable; the subscription does not keep the model.
            model = nil
            XCTAssertNil(watched, "no cycle through the stored cancellable")
            titles.send("after")   // ignored: the object is gone
        }
    }

    func testTheyAreListedWithTheirCallSitesWhileTrackingIsOn() {
        MainActor.assumeIsolated {
            DebugHooks.tracksLiveSubscriptions = true
            defer { DebugHooks.tracksLiveSubscriptions = false }
            let feed = PassthroughSubject<Int, Never>()
            let sinkLine = #line + 1
            let a = feed.sinkOnMainActor { _ in }
            let model = MainActorViewModel()
            let assignLine = #line + 1
            let b = feed.map { "\($0)" }.assignOnMainActor(to: \.title, on: model)
            let here = DebugHooks.liveSubscriptions.filter { $0.site.fileID.description == #fileID }
            XCTAssertEqual(here.map(\.site.line), [UInt(sinkLine), UInt(assignLine)])
            XCTAssertEqual(here.map(\.retainedObject), [nil, nil], "neither holds an object strongly")
            a.cancel()
            b.cancel()
            XCTAssertTrue(DebugHooks.liveSubscriptions.filter { $0.site.fileID.description == #fileID }.isEmpty)
        }
    }

    func testAFailureIsReportedToTheFailureHandlerWithTheCallSite() {
        MainActor.assumeIsolated {
            let reports = Log<String>()
            DebugHooks.failureHandler = { failure in
                if failure.site?.fileID.description == #fileID { reports.append(failure.description) }
            }
            defer { DebugHooks.failureHandler = nil }
            let line = #line + 1
            let cancellable = Fail<Int, TestError>(error: TestError(code: 4)).sinkOnMainActor(receiveCompletion: { _ in }, receiveValue: { _ in })
            XCTAssertEqual(reports.all, ["Sink at SluiceTests/MainActorSubscribersTests.swift:\(line) failed: TestError(4)"])
            withExtendedLifetime(cancellable) {}
        }
    }

    func testTheClosuresAreReleasedWhenTheStreamEnds() {
        MainActor.assumeIsolated {
            final class Owner {}
            var owner: Owner? = Owner()
            weak let watched = owner
            let feed = PassthroughSubject<Int, Never>()
            let cancellable = feed.sinkOnMainActor { [owner] _ in withExtendedLifetime(owner) {} }
            owner = nil
            XCTAssertNotNil(watched)
            feed.send(completion: .finished)
            XCTAssertNil(watched)
            withExtendedLifetime(cancellable) {}
        }
    }
}
