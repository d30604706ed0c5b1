import Foundation
import XCTest
import Sluice
import SluiceSchedulers
import SluiceTesting
import ThumbnailLoaderExample
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// `ThumbnailLoader` with its production schedulers (`DispatchQueue.main`, `RunLoop.main`) and
/// a real serial decode queue, on the real main run loop, decoding real PNG files. The user's
/// drag is a custom common run-loop mode, kept alive by a timer as UIKit's tracking mode is by
/// its event sources. Waits are generous bounds on conditions; the assertions are on results.
final class LiveThumbnailLoaderTests: XCTestCase {
    func testHoldsResultsWhileTheRunLoopTracksAndDeliversThemInOrderAfterwards() throws {
        let trackingMode = RunLoop.Mode("ThumbnailLoaderTrackingMode")
        let name = CFStringCreateWithCString(nil, trackingMode.rawValue, CFStringBuiltInEncodings.UTF8.rawValue)
        CFRunLoopAddCommonMode(CFRunLoopGetMain(), name)
        let keepModeAlive = Timer(timeInterval: 60, repeats: true) { _ in }
        RunLoop.main.add(keepModeAlive, forMode: trackingMode)
        defer { keepModeAlive.invalidate() }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnails-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try (1...6).map { index in
            try writePNGHeader(to: folder.appendingPathComponent("\(index).png"), width: index * 10, height: index * 20)
        }

        let decodeQueue = DispatchQueue(label: "LiveThumbnailLoaderTests.decode")
        let decodedOffMain = Log<Bool>()
        let isScrolling = CurrentValueSubject<Bool, Never>(false)
        let urls = PassthroughSubject<URL, Never>()
        let loader = ThumbnailLoader(decodeScheduler: AnyScheduler(decodeQueue)) { url in
            decodedOffMain.append(!Thread.isMainThread)
            return Thumbnail.decodePNGHeader(at: url)
        }

        MainActor.assumeIsolated {
            let model = ThumbnailGridModel(urls: urls, isScrolling: isScrolling, loader: loader)

            // The drag begins; five thumbnails are requested and decoded during it.
            isScrolling.send(true)
            for file in files.prefix(5) { urls.send(file) }
            RunLoop.main.run(mode: trackingMode, until: { decodedOffMain.all.count == 5 })
            decodeQueue.sync {}                      // the decode queue's remaining work (the
            decodeQueue.sync {}                      // emissions) has run: results are scheduled
            RunLoop.main.run(mode: trackingMode, for: 0.3) // turns of the main loop while dragging
            XCTAssertEqual(decodedOffMain.all, Array(repeating: true, count: 5), "decoded off the main thread")
            XCTAssertEqual(model.thumbnails, [], "nothing delivered while the run loop tracks")

            // The drag ends: the run loop returns to its default mode and performs the held work.
            isScrolling.send(false)
            RunLoop.main.run(until: { model.thumbnails.count == 5 })
            XCTAssertEqual(model.thumbnails.map(\.url), Array(files.prefix(5)))
            XCTAssertEqual(model.thumbnails.map(\.pixelSize), (1...5).map { Thumbnail.PixelSize(width: $0 * 10, height: $0 * 20) })

            // Not scrolling: results come through DispatchQueue.main, which the run loop
            // services in the tracking mode too.
            urls.send(files[5])
            RunLoop.main.run(mode: trackingMode, until: { model.thumbnails.count == 6 })
            XCTAssertEqual(model.thumbnails.last?.url, files[5])
            XCTAssertEqual(model.thumbnails.last?.pixelSize, Thumbnail.PixelSize(width: 60, height: 120))
        }
    }

    /// The first 24 bytes of a PNG file: its signature and the start of the IHDR chunk.
    private func writePNGHeader(to url: URL, width: Int, height: Int) throws -> URL {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13) + Array("IHDR".utf8)
            + bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        try Data(bytes).write(to: url)
        return url
    }
}
