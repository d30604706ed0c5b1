import Foundation
import SluiceTesting

// What the comments of the README's example (main.swift) say, checked when CI runs the program.
@MainActor
func checkExample() {
    precondition(targets == [20], "before the main queue runs, targets: \(targets)")
    _ = RunLoop.main.run(timeout: 10) { targets.count == 2 }
    precondition(targets == [20, 22], "once the main queue has run, targets: \(targets)")
}
