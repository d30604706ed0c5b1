import Foundation
import Sluice
import SluiceTesting
import Testing
@testable import Hello

@Test func searchesOnlyOnceTheUserPauses() {
    let scheduler = DispatchQueue.test           // virtual time: moves only when told
    let search = Search(scheduler: scheduler.eraseToAnyScheduler())
    var results: [String] = []
    let cancellable = search.results.sink { results.append($0) }

    search.query.send("sw")
    search.query.send("swift")
    scheduler.advance(by: .milliseconds(299))
    #expect(results == [])
    scheduler.advance(by: .milliseconds(1))
    #expect(results == ["results for swift"])
    cancellable.cancel()
}
