import Foundation
import XCTest
import Sluice
import SluiceSchedulers
import SluiceTesting
import ThumbnailLoaderExample

/// Where each decode ran, as the fake decoder saw it.
struct Decode: Equatable, Sendable, CustomStringConvertible {
    var file: String
    /// The test scheduler running it (see `Running`), `nil` for the test's own thread.
    var on: String?
    var description: String { "\(file) on \(on ?? "the sender's thread")" }
}

/// The loader and its model on two test schedulers: the decode queue and the main queue, with
/// `RunLoop.main` modelled on the main queue's clock (`VirtualMainRunLoop`).
@MainActor
final class Harness {
    let decodeQueue = DispatchQueue.test
    let mainQueue = DispatchQueue.test
    let runLoop: VirtualMainRunLoop
    let urls = PassthroughSubject<URL, Never>()
    let isScrolling = CurrentValueSubject<Bool, Never>(false)
    let decodes = Log<Decode>()
    let model: ThumbnailGridModel

    init() {
        let main = tagged(mainQueue, as: "main queue")
        runLoop = VirtualMainRunLoop(mainQueue: main)
        let decodes = self.decodes
        let loader = ThumbnailLoader(
            decodeScheduler: tagged(decodeQueue, as: "decode queue"),
            deliveryScheduler: main,
            scrollingScheduler: runLoop.scheduler,
            decode: { url in
                decodes.append(Decode(file: url.lastPathComponent, on: Running.on))
                return Thumbnail(url: url, pixelSize: .init(width: 64, height: 64))
            })
        model = ThumbnailGridModel(urls: urls, isScrolling: isScrolling, loader: loader)
    }

    func send(_ files: String...) {
        for file in files { urls.send(URL(fileURLWithPath: "/photos/\(file)")) }
    }

    /// The user starts or stops dragging: the scroll view reports it and the main run loop
    /// enters or leaves its tracking mode.
    func scroll(_ dragging: Bool) {
        isScrolling.send(dragging)
        runLoop.isTracking = dragging
    }

    var delivered: [String] { model.thumbnails.map(\.url.lastPathComponent) }
}

/// `ThumbnailLoader` in virtual time. XCTest, on the main thread, because the model's sink is
/// main-actor isolated and the test schedulers run their actions on the calling thread (see
/// SearchModelTests for why not Swift Testing).
final class ThumbnailLoaderTests: XCTestCase {
    func testDecodingRunsOnlyOnTheDecodeQueueAndDeliveryOnlyOnTheMainQueue() {
        MainActor.assumeIsolated {
            let h = Harness()
            h.send("a.png", "b.png", "c.png")
            XCTAssertEqual(h.decodes.all, [], "subscribe(on:) defers the decode: nothing decoded inside send")
            h.mainQueue.advance(by: .seconds(1))
            XCTAssertEqual(h.decodes.all, [], "the delivery scheduler never decodes")
            XCTAssertEqual(h.delivered, [])
            h.decodeQueue.advance()
            XCTAssertEqual(h.decodes.all, [Decode(file: "a.png", on: "decode queue"), Decode(file: "b.png", on: "decode queue"),
                                           Decode(file: "c.png", on: "decode queue")])
            XCTAssertEqual(h.delivered, [], "decoded, but not delivered from the decode queue")
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, ["a.png", "b.png", "c.png"])
            XCTAssertEqual(h.decodes.all.count, 3, "each URL decoded once")
        }
    }

    func testResultsArriveInInputOrderHoweverTheQueuesInterleave() {
        MainActor.assumeIsolated {
            let h = Harness()
            let files = (0..<40).map { "\($0).png" }
            for (index, file) in files.enumerated() {
                h.send(file)
                if index % 3 == 0 { h.decodeQueue.advance() }
                if index % 5 == 0 { h.mainQueue.advance() }
                if index % 7 == 0 { h.scroll(true) }
                if index % 7 == 3 { h.scroll(false) }
                if index % 11 == 0 { h.isScrolling.send(false) } // the flag leads the run loop's mode
                if index % 11 == 2 { h.runLoop.isTracking = false }
            }
            h.scroll(false)
            h.decodeQueue.advance()
            h.mainQueue.advance()
            XCTAssertEqual(h.decodes.all.map(\.file), files)
            XCTAssertEqual(h.delivered, files)
        }
    }

    func testNothingIsDeliveredWhileScrolling() {
        MainActor.assumeIsolated {
            let h = Harness()
            h.send("a.png")
            h.decodeQueue.advance()
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, ["a.png"])

            h.send("b.png")
            h.decodeQueue.advance()           // b's delivery is now queued on the main queue
            h.scroll(true)
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, ["a.png"], "queued before the drag began, but not delivered during it")

            h.send("c.png", "d.png")
            h.decodeQueue.advance()
            h.mainQueue.advance(by: .seconds(60))
            XCTAssertEqual(h.decodes.all.map(\.file), ["a.png", "b.png", "c.png", "d.png"], "decoding goes on")
            XCTAssertEqual(h.delivered, ["a.png"], "nothing delivered however long the drag lasts")
            XCTAssertEqual(h.runLoop.parkedCount, 1, "one drain, held by the run loop's tracking mode")

            h.scroll(false)
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, ["a.png", "b.png", "c.png", "d.png"], "delivered when the drag ends, in order")
        }
    }

    /// The scroll view may report the end of a drag before the run loop leaves its tracking
    /// mode. A result decoded in between must wait behind the held ones, not overtake them
    /// through the main queue.
    func testAResultAfterTheDragCannotOvertakeHeldResults() {
        MainActor.assumeIsolated {
            let h = Harness()
            h.scroll(true)
            h.send("a.png", "b.png")
            h.decodeQueue.advance()
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, [])

            h.isScrolling.send(false)         // the flag is false, the run loop still tracking
            h.send("c.png")
            h.decodeQueue.advance()
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, [], "c waits behind a and b")

            h.runLoop.isTracking = false
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, ["a.png", "b.png", "c.png"])
        }
    }

    /// Only `isScrolling` sends results to the run loop: when it is false they go through the
    /// main queue, which the run loop services in every common mode, tracking included.
    func testWhenNotScrollingResultsUseTheMainQueueEvenInATrackingMode() {
        MainActor.assumeIsolated {
            let h = Harness()
            h.runLoop.isTracking = true       // some other tracking: a menu, a slider
            h.send("a.png")
            h.decodeQueue.advance()
            h.mainQueue.advance()
            XCTAssertEqual(h.delivered, ["a.png"])
            XCTAssertEqual(h.runLoop.parkedCount, 0)
        }
    }

    /// The claim in `ThumbnailLoader`'s comment: with the URLs from a `PassthroughSubject` and
    /// the decode in a plain `map`, `subscribe(on:)` loses the URL sent right after
    /// subscribing and does not move the decode off the sender's thread.
    func testWithoutTheDeferredSubscribeOnMovesNothing() {
        let decodeQueue = DispatchQueue.test
        let urls = PassthroughSubject<URL, Never>()
        let decodes = Log<Decode>()
        let received = Log<String>()
        let handle = urls
            .map { url -> Thumbnail in
                decodes.append(Decode(file: url.lastPathComponent, on: Running.on))
                return Thumbnail(url: url, pixelSize: nil)
            }
            .subscribe(on: tagged(decodeQueue, as: "decode queue"))
            .sink { received.append($0.url.lastPathComponent) }
        urls.send(URL(fileURLWithPath: "/photos/a.png"))    // the subscription is not made yet
        decodeQueue.advance()                                // now it is, on the decode queue
        urls.send(URL(fileURLWithPath: "/photos/b.png"))
        XCTAssertEqual(received.all, ["b.png"], "a was lost")
        XCTAssertEqual(decodes.all, [Decode(file: "b.png", on: nil)], "b was decoded inside send, on the sender's thread")
        handle.cancel()
    }
}
