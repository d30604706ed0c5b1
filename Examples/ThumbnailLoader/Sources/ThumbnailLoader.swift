import Foundation
import Sluice
import SluiceSchedulers

/// Decodes image files on a serial background queue and delivers the
/// thumbnails on the main thread, holding them while the user scrolls.
///
/// - Decoding: each URL becomes a `Deferred` decode moved to the decode queue with
///   `subscribe(on:)`. A `Deferred` does its work when it is subscribed to, and
///   `subscribe(on:)` moves the subscription, so the decode runs on the decode queue, one at a
///   time because the queue is serial, in the order the URLs arrived.
/// - Delivery: `receive(on:)` moves the results to the main thread. While `isScrolling` is
///   true they go to `RunLoop.main`, which holds them while the run loop is in its tracking
///   mode; otherwise to `DispatchQueue.main`, which delivers during scrolling too (see
///   `ScrollAwareDelivery` for how the switch keeps them in order).
///
/// Both delivery schedulers are injected as `AnyScheduler`s, so a test can pass test
/// schedulers for all three. `DispatchQueue.main` and `RunLoop.main` have different time types
/// (`DispatchTime` and `Date`), so `AnySchedulerOf<DispatchQueue>` and `AnySchedulerOf<RunLoop>`
/// are different types, and a `receive(on:)` that switches between the two needs one scheduler
/// type that can forward to either. Each is injected in its own natural type (callers pass
/// `.main` for both, and nothing needs converting at the call site), and the loader adapts the
/// run-loop one to dispatch time with the closure-based `AnyScheduler` initialiser
/// (`AnyScheduler(runLoop:)`). Dispatch time is the common type because the main queue is the
/// normal path and the decode queue uses it too; the run loop is the exception, used only while
/// scrolling, and `receive(on:)` only ever schedules "now", for which the adapter converts
/// nothing but the type.
///
/// Why the `Deferred`: `subscribe(on:)` moves the subscription and the requests for demand,
/// nothing else. If the URLs came from a `PassthroughSubject` and were decoded in a plain
/// `map` (`urls.map(decode).subscribe(on: decodeQueue)`), the subject would produce each URL
/// on the thread that called `send` (the main thread, when the UI sends them), and `map` would
/// decode it right there, blocking the main thread: `subscribe(on:)` would only have moved the
/// one-time subscription to the subject, which does no work. Worse, that subscription is made
/// asynchronously on the decode queue, so a URL sent right after subscribing finds no
/// subscriber yet and is lost. Wrapping each decode in a `Deferred` inside `flatMap` turns it
/// into a cold publisher whose work happens at subscription, which is exactly what
/// `subscribe(on:)` moves; and the inner subscription is made per URL, after the URL exists,
/// so none is lost. (`ThumbnailLoaderTests.testWithoutTheDeferredSubscribeOnMovesNothing`
/// shows both failures.)
public final class ThumbnailLoader: Sendable {
    private let decode: @Sendable (URL) -> Thumbnail
    private let decodeScheduler: AnySchedulerOf<DispatchQueue>
    private let deliveryScheduler: AnySchedulerOf<DispatchQueue>
    private let scrollingScheduler: AnySchedulerOf<DispatchQueue>

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - decodeScheduler: a serial queue for decoding (a new one by default). A concurrent
    ///     queue would decode in parallel and deliver out of order.
    ///   - deliveryScheduler: where results are delivered normally: `DispatchQueue.main`.
    ///   - scrollingScheduler: where results are delivered while scrolling: `RunLoop.main`.
    ///   - decode: decodes one file; runs on the decode queue, so it is `@Sendable`.
    public init(
        decodeScheduler: AnySchedulerOf<DispatchQueue> = AnyScheduler(DispatchQueue(label: "ThumbnailLoader.decode")),
        deliveryScheduler: AnySchedulerOf<DispatchQueue> = .main,
        scrollingScheduler: AnySchedulerOf<RunLoop> = .main,
        decode: @escaping @Sendable (URL) -> Thumbnail = Thumbnail.decodePNGHeader
    ) {
        self.decode = decode
        self.decodeScheduler = decodeScheduler
        self.deliveryScheduler = deliveryScheduler
        self.scrollingScheduler = AnyScheduler(runLoop: scrollingScheduler)
    }

    /// The thumbnails of `urls`, decoded on the decode queue and delivered, in the order of
    /// `urls`, on the main thread, held while `isScrolling` is true.
    ///
    /// `urls` may be hot (a subject) or cold. `isScrolling` is read whenever it sends, on any
    /// thread, and counts as `false` until it first sends. Each subscription has its own
    /// delivery queue and its own subscription to `isScrolling`, which lasts as long as it
    /// does. Values arrive asynchronously, never inside the call that sent the URL.
    public func thumbnails<URLs: Publisher, Scrolling: Publisher>(for urls: URLs, isScrolling: Scrolling)
        -> AnyPublisher<Thumbnail, Never>
        where URLs.Output == URL, URLs.Failure == Never, Scrolling.Output == Bool, Scrolling.Failure == Never
    {
        let decode = self.decode
        let decodeScheduler = self.decodeScheduler
        let deliveryScheduler = self.deliveryScheduler
        let scrollingScheduler = self.scrollingScheduler
        return Deferred {
            let delivery = ScrollAwareDelivery(delivery: deliveryScheduler, held: scrollingScheduler)
            let scrolling = isScrolling.sink { delivery.setScrolling($0) }
            return urls
                .flatMap { url in
                    // `@Sendable` matters if this is ever moved into main-actor code: a closure
                    // written there would be main-actor isolated, and `subscribe(on:)` runs it
                    // on the decode queue, where the isolation check stops the process.
                    Deferred { @Sendable in Just(decode(url)) }
                        .subscribe(on: decodeScheduler)
                }
                .receive(on: delivery.scheduler)
                .handleEvents(receiveCompletion: { _ in scrolling.cancel() }, receiveCancel: { scrolling.cancel() })
        }
        .eraseToAnyPublisher()
    }
}
