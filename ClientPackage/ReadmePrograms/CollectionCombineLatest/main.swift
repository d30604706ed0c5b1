// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Sluice
import SluiceExtras

let sensors = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
var totals: [Int] = []
let cancellable = sensors.combineLatest().map { $0.reduce(0, +) }.sink { totals.append($0) }
sensors[0].send(1)
sensors[1].send(2)
sensors[2].send(3)   // every sensor has a value: totals == [6]
sensors[0].send(10)  // totals == [6, 15]

checkExample()   // Checks.swift beside this file: what the comments above say
