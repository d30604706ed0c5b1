// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Sluice
import SluiceExtras

let taps = PassthroughSubject<Void, Never>()
let text = CurrentValueSubject<String, Never>("")
var submitted: [String] = []
let cancellable = taps.withLatestFrom(text).sink { submitted.append($0) }
text.send("hel")
text.send("hello")
taps.send()          // submitted == ["hello"]
text.send("hello!")  // nothing: only a tap sends

checkExample()   // Checks.swift beside this file: what the comments above say
