// What the comments of the README's example (main.swift) say, checked when CI runs the program.
@MainActor
func checkExample() {
    precondition(submitted == ["hello"], "submitted: \(submitted)")
}
