import Foundation
import Sluice
import SluiceExtras
import Testing
import ThirdPartyOverloads

/// SluiceExtras beside a library that has operators of the same names (as a widely used
/// operator library does): every call compiles, without ambiguity, and reaches the library's.
@Suite("SluiceExtras beside a library with the same operator names")
struct ExtrasBesideALibraryTests {
    let subject = PassthroughSubject<Int, Never>()

    @Test func shareReplayIsTheLibrarys() {
        #expect(subject.share(replay: 1).name == "share(replay:)")
    }

    @Test func withLatestFromIsTheLibrarys() {
        #expect(subject.withLatestFrom(Just(2)).name == "withLatestFrom")
    }

    @Test func flatMapLatestIsTheLibrarys() {
        #expect(subject.flatMapLatest { Just($0) }.name == "flatMapLatest")
    }

    @Test func retryWithADelayIsTheLibrarys() {
        let failing = Fail<Int, URLError>(error: URLError(.timedOut))
        #expect(failing.retry(2, delay: .seconds(1), scheduler: DispatchQueue.main).name == "retry(_:delay:scheduler:)")
    }

    @Test func collectionCombineLatestAndZipAreTheLibrarys() {
        let publishers = [Just(1), Just(2)]
        #expect(publishers.combineLatest().name == "combineLatest()")
        #expect(publishers.zip().name == "zip()")
    }
}
