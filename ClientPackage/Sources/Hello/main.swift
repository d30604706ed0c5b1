import Foundation
import Sluice
import SluiceSchedulers

let search = Search(scheduler: DispatchQueue.main.eraseToAnyScheduler())
let cancellable = search.results.sink { results in
    print(results)
    exit(0)
}

// Typed quickly: one search, for the last word.
for (milliseconds, text) in [(0, "s"), (50, "sw"), (100, "swift")] {
    DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
        search.query.send(text)
    }
}

// Serve the main queue until exit(0). Without this, main.swift ends and so does the program.
dispatchMain()
