// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Sluice
import SluiceExtras

DebugHooks.signalViolationHandler = { violation in print(violation) }
DebugHooks.signalChecks = .brokenUpstreams   // checks the tracked subscribers made from now on
let prices = PassthroughSubject<Double, Never>()
let cancellable = prices.trackedSink { print($0) }
// An upstream calling this sink from two threads at once would print
// "Sink at App/Prices.swift:6: value 3.5 arrived while another thread was still delivering to the subscriber"

checkExample()   // Checks.swift beside this file: what the comments above say
