import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// Cycles a user builds without meaning to, and a long soak. Every operator's release after
/// finish, failure and cancel is checked for the whole catalogue by
/// `ContractTests.nothingIsHeldAfterTermination`; these are the cycles that go through objects
/// the user owns.
@Suite("Leaks and the long soak")
struct LeakTests {
    /// An object that owns a subject and the subscription to it, whose closure captures the
    /// object: a cycle (object → cancellable → sink → closure → object) that ends with the stream.
    final class Owner: @unchecked Sendable {
        let subject = PassthroughSubject<Int, TestError>()
        var cancellables = Set<AnyCancellable>()
        var seen: [Int] = []
        var value = 0

        func subscribe() {
            subject.map { $0 * 2 }.sink(receiveCompletion: { _ in self.seen.append(-1) },
                                        receiveValue: { self.seen.append($0) })
                .store(in: &cancellables)
        }
    }

    @Test(arguments: [Termination.finish, .failure])
    func aCycleThroughASubjectEndsWithTheStream(_ termination: Termination) {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            owner.subscribe()
            owner.subject.send(1)
            owner.subject.send(completion: termination == .finish ? .finished : .failure(TestError()))
            #expect(owner.seen == [2, -1])
        }
        #expect(weakOwner == nil, "the sink let go of its closures when the stream ended")
    }

    @Test func aCycleThroughASubjectEndsWithACancel() {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            owner.subscribe()
            owner.cancellables.forEach { $0.cancel() }
        }
        #expect(weakOwner == nil, "a cancelled sink holds no closures")
    }

    /// `assign(to:on:)` holds its object strongly, as Combine's does: an object that stores the
    /// cancellable of an assignment to itself is kept alive until the stream ends or is cancelled.
    @Test(arguments: [Termination.finish, .failure, .cancel])
    func assignToOnLetsGoOfItsObjectWhenTheStreamEnds(_ termination: Termination) {
        weak var weakOwner: Owner?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let owner = Owner()
            weakOwner = owner
            subject.assign(to: \.value, on: owner).store(in: &owner.cancellables)
            subject.send(5)
            #expect(owner.value == 5)
            switch termination {
            case .finish, .failure: subject.send(completion: .finished)
            case .cancel: owner.cancellables.forEach { $0.cancel() }
            }
        }
        #expect(weakOwner == nil)
        withExtendedLifetime(subject) {}
    }

    @Test func assignToOnKeepsItsObjectWhileTheStreamLives() {
        weak var weakOwner: Owner?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let owner = Owner()
            weakOwner = owner
            subject.assign(to: \.value, on: owner).store(in: &owner.cancellables)
        }
        #expect(weakOwner != nil, "the cycle Combine documents: the assignment holds its object")
        subject.send(completion: .finished)
        #expect(weakOwner == nil)
    }

    /// A `@Published` property assigned from its own object's pipeline (`assign(to: &$value)`)
    /// lives exactly as long as the object, with no cycle.
    @Test func assignToPublishedLivesAsLongAsTheObject() {
        final class Model: ObservableObject, @unchecked Sendable {
            @Published var doubled = 0
            let input = PassthroughSubject<Int, Never>()
            init() { input.map { $0 * 2 }.assign(to: &$doubled) }
        }
        weak var weakModel: Model?
        let input: PassthroughSubject<Int, Never>
        do {
            let model = Model()
            weakModel = model
            input = model.input
            input.send(4)
            #expect(model.doubled == 8)
        }
        #expect(weakModel == nil)
        input.send(5)
    }

    static let soakCycles = 1_000_000

    /// A million subscribe-and-cancel cycles through a subject and two operators: resident
    /// memory after them is what it was after the first ten thousand (a leak of the sink alone,
    /// about 100 bytes a cycle, would add about 100 MB). It runs in a child process of its own,
    /// so that other tests running meanwhile cannot move the figure.
    @Test func aMillionSubscribeAndCancelCyclesKeepResidentMemoryFlat() async throws {
        let result = try await #require(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let (before, after) = LeakTests.soak()
            print("soak: \(LeakTests.soakCycles) cycles, resident \(before >> 10) KiB before, \(after >> 10) KiB after")
            if after - before >= 4 << 20 { exit(1) }
        }
        let output = String(decoding: result.standardOutputContent, as: UTF8.self)
        #expect(output.contains("soak: 1000000 cycles"), "\(output)")
    }

    /// Runs the soak; returns resident memory after the warm-up and at the end.
    static func soak() -> (before: Int, after: Int) {
        let subject = PassthroughSubject<Int, Never>()
        var delivered = 0
        func cycle() {
            let cancellable = subject.map { $0 + 1 }.filter { $0 > 0 }.sink { delivered += $0 }
            subject.send(1)
            cancellable.cancel()
        }
        for _ in 0..<10_000 { cycle() }
        let before = residentBytes() ?? 0
        for _ in 10_000..<soakCycles { cycle() }
        let after = residentBytes() ?? Int.max
        precondition(delivered == soakCycles * 2, "every cycle delivered its value")
        return (before, after)
    }

    /// Resident set size from /proc/self/statm (Linux), in bytes.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
