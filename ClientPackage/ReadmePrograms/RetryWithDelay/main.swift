// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.
@testable import ReadmeSnippets

import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers

struct Unreachable: Error {}

let scheduler = DispatchQueue.test
var subscriptions = 0
var completion: Subscribers.Completion<Unreachable>?
let cancellable = Deferred { () -> Fail<String, Unreachable> in
    subscriptions += 1
    return Fail(error: Unreachable())
}
.retry(3, delay: { attempt in .seconds(1 << (attempt - 1)) }, scheduler: scheduler)   // 1 s, 2 s, then 4 s
.sink(receiveCompletion: { completion = $0 }, receiveValue: { _ in })
scheduler.advance(by: .seconds(1))   // subscriptions == 2
scheduler.advance(by: .seconds(2))   // subscriptions == 3
scheduler.advance(by: .seconds(4))   // subscriptions == 4, and completion is the failure

checkExample()   // Checks.swift beside this file: what the comments above say
