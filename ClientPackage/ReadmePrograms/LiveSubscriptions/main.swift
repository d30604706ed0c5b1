// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Sluice
import SluiceExtras

final class Player {
    var position = 0
    var cancellable: AnyCancellable?
}

DebugHooks.tracksLiveSubscriptions = true
let ticks = PassthroughSubject<Int, Never>()
var player: Player? = Player()
player?.cancellable = ticks.trackedAssign(to: \.position, on: player!)   // the player holds itself
weak let leaked = player
player = nil
if let leaked {
    print(DebugHooks.liveSubscriptions(retaining: leaked))   // [Assign Player. at App/Player.swift:12]
}

checkExample()   // Checks.swift beside this file: what the comments above say
