import Foundation
import Sluice

/// The main-actor model of a grid of thumbnails: it appends each thumbnail a loader delivers.
///
/// Its sink closure is written in main-actor code, so it is main-actor isolated and Swift
/// checks at run time that it runs on the main thread. It sits after the loader's
/// `receive(on:)`, so it does: every closure before the hop (the decode) is `@Sendable`
/// nonisolated code in `ThumbnailLoader`.
@MainActor
public final class ThumbnailGridModel {
    /// The thumbnails delivered so far, in the order of the URLs.
    public private(set) var thumbnails: [Thumbnail] = []
    private var cancellables = Set<AnyCancellable>()

    /// A model showing the thumbnails `loader` makes of `urls`, held while `isScrolling` is
    /// true.
    public init<URLs: Publisher, Scrolling: Publisher>(urls: URLs, isScrolling: Scrolling, loader: ThumbnailLoader)
        where URLs.Output == URL, URLs.Failure == Never, Scrolling.Output == Bool, Scrolling.Failure == Never
    {
        loader.thumbnails(for: urls, isScrolling: isScrolling)
            .sink { [weak self] in self?.thumbnails.append($0) }
            .store(in: &cancellables)
    }
}
