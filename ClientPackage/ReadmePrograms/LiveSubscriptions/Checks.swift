import Sluice
import SluiceExtras

// What the comments of the README's example (main.swift) say, checked when CI runs the program.
@MainActor
func checkExample() {
    guard let alive = leaked else {
        preconditionFailure("the player was freed: there was no cycle to find")
    }
    let found = DebugHooks.liveSubscriptions(retaining: alive)
    precondition(found.map(\.subscriber) == ["Assign Player."], "live subscriptions: \(found)")
    precondition(found.first.map { "\($0)".hasPrefix("Assign Player. at ") } ?? false, "printed as: \(found)")
    alive.cancellable = nil
}
