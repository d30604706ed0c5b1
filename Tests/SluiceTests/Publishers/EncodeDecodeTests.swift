import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

private struct Point: Codable, Equatable {
    var x: Int
    var y: Double
    var name: String
}

/// A coder pair over `String`, to check that the protocols accept any output type.
private struct DescribingEncoder: TopLevelEncoder {
    func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

private struct DescribingDecoder: TopLevelDecoder {
    func decode<T: Decodable>(_ type: T.Type, from input: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(input.utf8))
    }
}

@Suite("Encode and Decode")
struct EncodeDecodeTests {
    private let points = [Point(x: 1, y: 2.5, name: "a"), Point(x: -3, y: 0, name: "b")]

    @Test func jsonRoundTrip() {
        let subscriber = TestSubscriber<Point, Error>()
        points.publisher
            .encode(encoder: JSONEncoder())
            .decode(type: Point.self, decoder: JSONDecoder())
            .subscribe(subscriber)
        #expect(subscriber.values == points)
        #expect(subscriber.completions.count == 1)
        if case .finished? = subscriber.completion {} else { Issue.record("expected finished") }
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func propertyListRoundTrip(format: PropertyListSerialization.PropertyListFormat) {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        let subscriber = TestSubscriber<Point, Error>()
        points.publisher
            .encode(encoder: encoder)
            .decode(type: Point.self, decoder: PropertyListDecoder())
            .subscribe(subscriber)
        #expect(subscriber.values == points)
        #expect(subscriber.completions.count == 1)
    }

    @Test func encodesWithTheEncodersOutput() throws {
        let subscriber = TestSubscriber<Data, Error>()
        Just(points[0]).encode(encoder: JSONEncoder()).subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["Encode"])
        let data = try #require(subscriber.values.first)
        #expect(try JSONDecoder().decode(Point.self, from: data) == points[0])
    }

    @Test func anyTopLevelCoderWorks() {
        let subscriber = TestSubscriber<[Int], Error>()
        Just([1, 2, 3])
            .encode(encoder: DescribingEncoder())
            .handleEvents(receiveOutput: { #expect($0 == "[1,2,3]") })
            .decode(type: [Int].self, decoder: DescribingDecoder())
            .subscribe(subscriber)
        #expect(subscriber.values == [[1, 2, 3]])
    }

    @Test(arguments: ["garbage", "{\"x\": 1}", "{\"x\": \"one\", \"y\": 1, \"name\": \"n\"}", ""])
    func decodingGarbageFailsWithADecodingError(input: String) {
        let subscriber = TestSubscriber<Point, Error>()
        Just(Data(input.utf8)).decode(type: Point.self, decoder: JSONDecoder()).subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error is DecodingError)
        } else {
            Issue.record("expected a failure")
        }
    }

    @Test func decodingGarbagePropertyListFailsWithADecodingError() {
        let subscriber = TestSubscriber<Point, Error>()
        Just(Data([0xff, 0x00, 0x13])).decode(type: Point.self, decoder: PropertyListDecoder()).subscribe(subscriber)
        if case .failure(let error)? = subscriber.completion {
            #expect(error is DecodingError)
        } else {
            Issue.record("expected a failure")
        }
    }

    @Test func aDecodingErrorCancelsTheUpstreamBeforeTheFailureIsDelivered() {
        let upstream = TestPublisher<Data, Never>()
        var cancelledBeforeFailure: Bool?
        let subscriber = TestSubscriber<Point, Error>(onCompletion: { _ in
            cancelledBeforeFailure = upstream.isCancelled
        })
        upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["Decode"])
        #expect(upstream.send(Data("{".utf8)) == .none)
        #expect(cancelledBeforeFailure == true)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        // Later values and completions are ignored.
        #expect(upstream.send(try! JSONEncoder().encode(points[0])) == .none)
        upstream.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.count == 1)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func anEncodingErrorCancelsTheUpstreamAndFails() {
        let upstream = TestPublisher<Double, Never>()
        let subscriber = TestSubscriber<Data, Error>()
        upstream.encode(encoder: JSONEncoder()).subscribe(subscriber)
        #expect(upstream.send(1.5) == .none)
        // JSON cannot represent NaN with the default strategy.
        #expect(upstream.send(.nan) == .none)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.values == [Data("1.5".utf8)])
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
        if case .failure(let error)? = subscriber.completion {
            #expect(error is EncodingError)
        } else {
            Issue.record("expected a failure")
        }
        #expect(subscriber.completions.count == 1)
    }

    @Test func forwardsRequestsAndReturnsTheDownstreamsDemand() throws {
        let upstream = TestPublisher<Int, Error>()
        let subscriber = TestSubscriber<Data, Error>(initialDemand: .max(37), onValue: { _ in .max(2) })
        upstream.encode(encoder: JSONEncoder()).subscribe(subscriber)
        #expect(upstream.send(37) == .max(2))
        subscriber.request(.max(5))
        #expect(upstream.demandLog == [.requested(.max(37)), .requested(.max(5))])
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(upstream.send(42) == .none)
        #expect(upstream.demandLog == [.requested(.max(37)), .requested(.max(5)), .cancelled])
        #expect(subscriber.values == [Data("37".utf8)])
    }

    @Test func limitedDemandOverASequence() {
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(1))
        [1, 2, 3].publisher
            .encode(encoder: JSONEncoder())
            .decode(type: Int.self, decoder: JSONDecoder())
            .subscribe(subscriber)
        #expect(subscriber.values == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2])
        subscriber.request(.max(3))
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completions.count == 1)
    }

    @Test func upstreamFailureIsForwardedAndLaterEventsIgnored() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Data, Error>()
        upstream.encode(encoder: JSONEncoder()).subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 3)))
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.count == 1)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == TestError(code: 3))
        } else {
            Issue.record("expected a failure")
        }
    }

    @Test func afterFinishedValuesAreIgnored() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Data, Error>()
        upstream.encode(encoder: JSONEncoder()).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.values == [Data("1".utf8)])
        #expect(subscriber.completions.count == 1)
    }

    @Test func aValueBeforeTheSubscriptionIsCodedAsCombineDoes() {
        let upstream = TestPublisher<Int, Never>(sendsSubscriptionOnSubscribe: false)
        let subscriber = TestSubscriber<Data, Error>(onValue: { _ in .max(42) })
        upstream.encode(encoder: JSONEncoder()).subscribe(subscriber)
        #expect(upstream.send(0) == .max(42))
        #expect(subscriber.values == [Data("0".utf8)])
        #expect(subscriber.subscriptionNames == [])
    }

    @Test func extraSubscriptionsAreCancelled() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .none)
        upstream.map { Data("\($0)".utf8) }.decode(type: Int.self, decoder: JSONDecoder()).subscribe(subscriber)
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled])
        subscriber.cancel()
        upstream.sendSubscription()
        #expect(upstream.demandLog == [.cancelled, .cancelled, .cancelled])
        #expect(subscriber.subscriptionNames == ["Decode"])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Data, Error>(
            onSubscription: { subscription = $0 },
            onValue: { _ in
                subscription?.cancel()
                return .none
            })
        (1...10).publisher.encode(encoder: JSONEncoder()).subscribe(subscriber)
        #expect(subscriber.values == [Data("1".utf8)])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func reflectsLikeCombine() throws {
        for (name, subscription) in try subscriptions() {
            #expect(String(describing: subscription) == name)
            let mirror = Mirror(reflecting: subscription)
            #expect(mirror.children.map(\.label) == ["downstream", "finished", "upstreamSubscription"])
            #expect(mirror.children.dropFirst().first.map { String(describing: $0.value) } == "false")
            #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == name)
        }
    }

    private func subscriptions() throws -> [(String, Subscription)] {
        let encoded = TestSubscriber<Data, Error>(initialDemand: .none)
        TestPublisher<Int, Never>().encode(encoder: JSONEncoder()).subscribe(encoded)
        let decoded = TestSubscriber<Int, Error>(initialDemand: .none)
        TestPublisher<Data, Never>().decode(type: Int.self, decoder: JSONDecoder()).subscribe(decoded)
        return [("Encode", try #require(encoded.subscription)), ("Decode", try #require(decoded.subscription))]
    }

    @Test func keepsItsUpstream() {
        let encode = Just(1).encode(encoder: JSONEncoder())
        #expect(encode.upstream == Just(1))
        let decode = Just(Data()).decode(type: Int.self, decoder: JSONDecoder())
        #expect(decode.upstream == Just(Data()))
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterFinish() {
        weak var cancelled: TestSubscriber<Data, Error>?
        weak var finished: TestSubscriber<Data, Error>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Data, Error>()
            cancelled = subscriber
            upstream.encode(encoder: JSONEncoder()).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        #expect(cancelled == nil)
        do {
            let subscriber = TestSubscriber<Data, Error>()
            finished = subscriber
            upstream.encode(encoder: JSONEncoder()).subscribe(subscriber)
            upstream.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(finished == nil)
    }

    @Test func concurrentSendsThroughASubjectLoseNothing() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>()
        subject.encode(encoder: JSONEncoder()).decode(type: Int.self, decoder: JSONDecoder()).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<250 { subject.send(thread * 250 + i) }
                }
            }
        }
        #expect(Set(subscriber.values) == Set(0..<2_000))
        #expect(!subscriber.sawConcurrentSignals)
    }
}
