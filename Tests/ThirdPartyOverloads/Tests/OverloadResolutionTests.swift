import Testing
import Sluice
import ThirdPartyOverloads

/// Calls written out with Combine's names resolve as they do against Apple's Combine when a
/// library in scope adds overloads with extra defaulted parameters.
@Suite("Overload resolution beside a third-party library")
struct OverloadResolutionTests {
    final class Box {
        var value = 0
    }

    @Test func aLibrarysAssignWithOwnershipReachesCombinesAssign() {
        let box = Box()
        let strong = Just(3).assign(to: \.value, on: box, ownership: .strong)
        #expect(box.value == 3)
        let weak = Just(4).assign(to: \.value, on: box, ownership: .weak)
        #expect(box.value == 4)
        _ = (strong, weak)
    }

    @Test func combinesAssignWrittenOutIsCombines() {
        let box = Box()
        let cancellable = Just(5).assign(to: \.value, on: box)
        #expect(box.value == 5)
        _ = cancellable
    }

    @Test func aLibrarysSinkOverloadReachesCombinesSink() {
        var received: [Int] = []
        let cancellable = [1, 2].publisher.sink(tag: "t") { received.append($0) }
        #expect(received == [1, 2])
        var plain: [Int] = []
        let other = [3].publisher.sink(receiveValue: { plain.append($0) })
        #expect(plain == [3])
        _ = (cancellable, other)
    }
}
