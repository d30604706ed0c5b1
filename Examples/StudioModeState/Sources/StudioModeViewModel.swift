import Foundation
import Sluice
import SluiceSchedulers

/// A page's view of the studio-mode state: the UI subscription, on the main queue.
///
/// The session's values arrive on its session queue, including the current value, which the
/// state subject replays inside the subscribe call itself; so the hop to the main queue comes
/// after the session's publisher, right before the UI, not
/// inside the session. The sink closures are written in main-actor code, so they are
/// main-actor isolated, and Swift checks at run time that the hop happened.
@MainActor
public final class StudioModeViewModel {
    /// Whether studio mode is on; `nil` while the session does not know.
    public private(set) var isStudioModeEnabled: Bool?
    /// Whether the session has been closed (or failed).
    public private(set) var hasEnded = false
    private var cancellables = Set<AnyCancellable>()

    /// A model following `session`'s studio-mode state, delivered on `scheduler`
    /// (`DispatchQueue.main`; a test scheduler in tests).
    public init(session: StudioModeSession, scheduler: AnySchedulerOf<DispatchQueue> = .main) {
        session.studioModeState()
            .receive(on: scheduler)
            .sink(receiveCompletion: { [weak self] _ in self?.hasEnded = true },
                  receiveValue: { [weak self] in self?.isStudioModeEnabled = $0 })
            .store(in: &cancellables)
    }

    /// What the page shows: `Studio mode: on`, `off`, or `unknown`.
    public var label: String {
        switch isStudioModeEnabled {
        case .some(true): return "Studio mode: on"
        case .some(false): return "Studio mode: off"
        case .none: return "Studio mode: unknown"
        }
    }
}
