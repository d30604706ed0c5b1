// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Observation
import Sluice
import SluiceExtras

@Observable final class Thermostat {
    var target = 20
}

let thermostat = Thermostat()
var targets: [Int] = []
let cancellable = Publishers.Observed(on: DispatchQueue.main) { thermostat.target }
    .sink { targets.append($0) }
// targets == [20] at once
thermostat.target = 22
// targets == [20] still; [20, 22] once the main queue has run the read the change scheduled

checkExample()   // Checks.swift beside this file: what the comments above say
