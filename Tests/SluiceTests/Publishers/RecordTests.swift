import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// A failure that can be encoded, for the Codable tests.
private struct RecordError: Error, Equatable, Codable, CustomStringConvertible {
    var code = 1
    var description: String { "RecordError(\(code))" }
}

@Suite("Record")
struct RecordTests {
    private typealias Sut = Record<Int, RecordError>

    // MARK: Playback

    @Test func emptyRecordingsCompleteAtOnceWithTheEmptySubscription() {
        let unfinished = TestSubscriber<Int, RecordError>(initialDemand: .none)
        Sut { _ in }.subscribe(unfinished)
        #expect(unfinished.events == [.subscription("Empty"), .completion(.finished)])

        let failed = TestSubscriber<Int, RecordError>(initialDemand: .none)
        Sut { $0.receive(completion: .failure(RecordError(code: 4))) }.subscribe(failed)
        #expect(failed.events == [.subscription("Empty"), .completion(.failure(RecordError(code: 4)))])
    }

    @Test func playbackHonoursDemandAndCompletesRightAfterTheLastValue() throws {
        let subscriber = TestSubscriber<Int, RecordError>(initialDemand: .none)
        Sut(output: Array(1...9), completion: .finished).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[1, 2, 3, 4, 5, 6, 7, 8, 9]")])
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 3])
        subscriber.request(.max(5))
        #expect(subscriber.values == [1, 2, 3, 4, 5, 6, 7, 8])
        subscriber.request(.none) // ignored, as in Combine
        #expect(subscriber.values == [1, 2, 3, 4, 5, 6, 7, 8])
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("[1, 2, 3, 4, 5, 6, 7, 8, 9]")]
                + (1...9).map { .value($0) } + [.completion(.finished)])
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Cancelled Events")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["sequence", "completion"])
        #expect(mirror.children.first?.value as? [Int] == [])
        #expect(String(describing: mirror.children.dropFirst().first!.value).contains("finished"))
    }

    @Test func playsTheRecordedFailureAfterTheValues() {
        let subscriber = TestSubscriber<Int, RecordError>()
        Sut(output: [1, 2, 3], completion: .failure(RecordError(code: 2))).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3),
                                      .completion(.failure(RecordError(code: 2)))])
    }

    @Test func demandReturnedFromReceiveIsAdded() {
        let subscriber = TestSubscriber<Int, RecordError>(
            initialDemand: .max(1), onValue: { $0 > 4 || $0 == 1 ? .none : .max(2) })
        Sut(output: Array(1...9), completion: .finished).subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func reflectionWhilePlaying() throws {
        let subscriber = TestSubscriber<Int, RecordError>(initialDemand: .none)
        Sut(output: [1, 2], completion: .failure(RecordError(code: 1))).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "[1, 2]")
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "[1, 2]")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.first?.value as? [Int] == [1, 2])
        #expect(String(describing: mirror.children.dropFirst().first!.value) == "failure(RecordError(1))")
    }

    @Test func cancelStopsPlayback() throws {
        let subscriber = TestSubscriber<Int, RecordError>(
            initialDemand: .none,
            onSubscription: { subscription in
                subscription.request(.max(1))
                subscription.cancel()
            })
        Sut(output: Array(1...9), completion: .finished).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("[1, 2, 3, 4, 5, 6, 7, 8, 9]"), .value(1)])
        #expect(String(describing: try #require(subscriber.subscription)) == "Cancelled Events")
    }

    @Test func cancelFromInsideReceive() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, RecordError>(
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.cancel()
                return .unlimited
            })
        Sut(output: [1, 2, 3], completion: .finished).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[1, 2, 3]"), .value(1)])
    }

    @Test func requestsFromInsideReceiveAreQueuedNotRecursed() {
        var subscription: Subscription?
        var depth = 0
        var maxDepth = 0
        let subscriber = TestSubscriber<Int, RecordError>(
            initialDemand: .none,
            onSubscription: { subscription = $0; $0.request(.none); $0.request(.max(1)) },
            onValue: { _ in
                depth += 1
                maxDepth = max(maxDepth, depth)
                subscription?.request(.max(1))
                depth -= 1
                return .none
            })
        Sut(output: [1, 2, 3, 4, 5], completion: .finished).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("[1, 2, 3, 4, 5]"), .value(1), .value(2), .value(3),
                                      .value(4), .value(5), .completion(.finished)])
        #expect(maxDepth == 1)
    }

    @Test func eachSubscriberGetsTheWholeRecording() {
        let record = Sut(output: [1, 2], completion: .finished)
        let first = TestSubscriber<Int, RecordError>()
        let second = TestSubscriber<Int, RecordError>()
        record.subscribe(first)
        record.subscribe(second)
        #expect(first.values == [1, 2])
        #expect(second.values == [1, 2])
    }

    @Test func releasesTheSubscriberAfterFinishAndAfterCancel() {
        weak var finished: TestSubscriber<Int, RecordError>?
        weak var cancelled: TestSubscriber<Int, RecordError>?
        var kept: [Subscription] = []
        do {
            let subscriber = TestSubscriber<Int, RecordError>()
            finished = subscriber
            Sut(output: [1, 2], completion: .finished).subscribe(subscriber)
            kept += subscriber.subscription.map { [$0] } ?? []
            subscriber.releaseSubscriptions()
        }
        do {
            let subscriber = TestSubscriber<Int, RecordError>(initialDemand: .none)
            cancelled = subscriber
            Sut(output: [1, 2], completion: .finished).subscribe(subscriber)
            kept += subscriber.subscription.map { [$0] } ?? []
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(kept.count == 2)
        #expect(finished == nil)
        #expect(cancelled == nil)
    }

    @Test func concurrentRequestsPlayEveryValueOnceInOrder() {
        let subscriber = TestSubscriber<Int, RecordError>(initialDemand: .none)
        Sut(output: Array(0..<4_000), completion: .failure(RecordError())).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 { subscriber.request(.max(1)) }
        }
        #expect(subscriber.values == Array(0..<4_000))
        #expect(subscriber.completions == [.failure(RecordError())])
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: Initialisers and Recording

    @Test func recordClosureRunsAtOnceAndAnUnfinishedRecordingStaysOpen() {
        var ran = false
        let record = Sut { recording in
            ran = true
            recording.receive(1)
            recording.receive(2)
        }
        #expect(ran)
        #expect(record.recording.output == [1, 2])
        #expect(record.recording.completion == .finished)
        var copy = record.recording
        copy.receive(3) // still open: no trap
        copy.receive(completion: .failure(RecordError()))
        #expect(copy.output == [1, 2, 3])
        #expect(copy.completion == .failure(RecordError()))
        #expect(record.recording.output == [1, 2])
    }

    @Test func recordingBasics() {
        var recording = Sut.Recording()
        #expect(recording.output == [])
        #expect(recording.completion == .finished)
        recording.receive(1)
        recording.receive(2)
        recording.receive(1)
        recording.receive(10)
        #expect(recording.output == [1, 2, 1, 10])
        recording.receive(completion: .failure(RecordError()))
        #expect(recording.completion == .failure(RecordError()))
        let complete = Sut.Recording(output: [5])
        #expect(complete.completion == .finished)
        #expect(Sut(recording: complete).recording.output == [5])
    }

    @Test func recordingMisuseTraps() async {
        await #expect(processExitsWith: .failure) {
            var recording = Record<Int, Never>.Recording()
            recording.receive(completion: .finished)
            recording.receive(42)
        }
        await #expect(processExitsWith: .failure) {
            var recording = Record<Int, Never>.Recording()
            recording.receive(completion: .finished)
            recording.receive(completion: .finished)
        }
        await #expect(processExitsWith: .failure) {
            // A recording made complete by its initializer is closed too.
            var recording = Record<Int, Never>.Recording(output: [1], completion: .finished)
            recording.receive(2)
        }
        await #expect(processExitsWith: .failure) {
            var recording = try! JSONDecoder().decode(
                Record<Int, Never>.Recording.self, from: Data(#"{"completion":{"success":true},"output":[1]}"#.utf8))
            recording.receive(2)
        }
    }

    // MARK: Codable

    @Test func encodesAsCombineDoes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let finished = try encoder.encode(Sut(output: [1, 2], completion: .finished))
        #expect(String(decoding: finished, as: UTF8.self)
                == #"{"recording":{"completion":{"success":true},"output":[1,2]}}"#)
        let failed = try encoder.encode(Sut(output: [3], completion: .failure(RecordError(code: 7))))
        #expect(String(decoding: failed, as: UTF8.self)
                == #"{"recording":{"completion":{"error":{"code":7},"success":false},"output":[3]}}"#)
        let empty = try encoder.encode(Sut(recording: .init()))
        #expect(String(decoding: empty, as: UTF8.self) == #"{"recording":{"completion":{"success":true},"output":[]}}"#)
    }

    @Test func encodesOutputBeforeCompletion() throws {
        let encoder = KeyOrderEncoder()
        try Sut(output: [3], completion: .failure(RecordError(code: 2))).encode(to: encoder)
        #expect(encoder.log.keys == ["recording", "output", "completion", "success", "error", "code"])
    }

    @Test func encodeIntoMatchesEncodeTo() throws {
        let recording = Sut.Recording(output: [3, 2, 1], completion: .failure(RecordError(code: 1)))
        let viaEncodeTo = KeyOrderEncoder()
        try recording.encode(to: viaEncodeTo)
        let viaEncodeInto = KeyOrderEncoder()
        try recording.encode(into: viaEncodeInto)
        #expect(viaEncodeTo.log.keys == ["output", "completion", "success", "error", "code"])
        #expect(viaEncodeInto.log.keys == viaEncodeTo.log.keys)
        #expect(viaEncodeInto.log.values == viaEncodeTo.log.values)
        #expect(viaEncodeTo.log.values == ["3", "2", "1", "false", "1"])
    }

    @Test func decodes() throws {
        let record = try JSONDecoder().decode(
            Sut.self, from: Data(#"{"recording":{"completion":{"success":true},"output":[1,2]}}"#.utf8))
        #expect(record.recording.output == [1, 2])
        #expect(record.recording.completion == .finished)
        let failed = try JSONDecoder().decode(
            Sut.Recording.self, from: Data(#"{"completion":{"success":false,"error":{"code":3}},"output":[]}"#.utf8))
        #expect(failed.completion == .failure(RecordError(code: 3)))
    }

    @Test func decodingRequiresEveryKey() {
        func missingKey<T: Decodable>(_ type: T.Type, _ json: String) -> String? {
            do {
                _ = try JSONDecoder().decode(type, from: Data(json.utf8))
                return nil
            } catch DecodingError.keyNotFound(let key, _) {
                return key.stringValue
            } catch {
                return "unexpected \(error)"
            }
        }
        #expect(missingKey(Sut.self, "{}") == "recording")
        #expect(missingKey(Sut.Recording.self, #"{"completion":{"success":true}}"#) == "output")
        #expect(missingKey(Sut.Recording.self, #"{"output":[1,2]}"#) == "completion")
    }
}

/// An encoder that records, in order, the keys and the leaf values it is asked to encode.
private final class KeyOrderEncoder: Encoder {
    final class Log {
        var keys: [String] = []
        var values: [String] = []
    }

    let log: Log
    var codingPath: [CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    init(log: Log = Log()) {
        self.log = log
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Keyed<Key>(log: log))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer { Unkeyed(log: log) }

    func singleValueContainer() -> SingleValueEncodingContainer { Single(log: log) }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let log: Log
        var codingPath: [CodingKey] = []

        mutating func encodeNil(forKey key: Key) throws { log.keys.append(key.stringValue) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            log.keys.append(key.stringValue)
            try value.encode(to: KeyOrderEncoder(log: log))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            log.keys.append(key.stringValue)
            return KeyedEncodingContainer(Keyed<NestedKey>(log: log))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
            log.keys.append(key.stringValue)
            return Unkeyed(log: log)
        }

        mutating func superEncoder() -> Encoder { KeyOrderEncoder(log: log) }

        mutating func superEncoder(forKey key: Key) -> Encoder { KeyOrderEncoder(log: log) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let log: Log
        var codingPath: [CodingKey] = []
        var count = 0

        mutating func encodeNil() throws { count += 1 }

        mutating func encode<T: Encodable>(_ value: T) throws {
            count += 1
            try value.encode(to: KeyOrderEncoder(log: log))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Keyed<NestedKey>(log: log))
        }

        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer { Unkeyed(log: log) }

        mutating func superEncoder() -> Encoder { KeyOrderEncoder(log: log) }
    }

    struct Single: SingleValueEncodingContainer {
        let log: Log
        var codingPath: [CodingKey] = []

        mutating func encodeNil() throws { log.values.append("nil") }

        mutating func encode<T: Encodable>(_ value: T) throws {
            log.values.append("\(value)")
        }
    }
}
