import Sluice

// What the comments of the README's example (main.swift) say, checked when CI runs the program.
// (The program advances the clock to each retry; at each of them the count is one more, and
// only the last advance fails the stream.)
@MainActor
func checkExample() {
    precondition(subscriptions == 4, "subscriptions: \(subscriptions)")
    guard case .failure? = completion else {
        preconditionFailure("completion: \(String(describing: completion))")
    }
}
