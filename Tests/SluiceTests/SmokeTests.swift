import Testing
import Sluice

@Test func mapFilterSink() {
    var received: [Int] = []
    let c = (0..<10).publisher.map { $0 * 2 }.filter { $0 % 3 == 0 }.sink { received.append($0) }
    #expect(received == [0, 6, 12, 18])
    c.cancel()
}
