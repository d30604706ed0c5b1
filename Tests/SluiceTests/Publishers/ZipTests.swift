import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Zip, Zip3, Zip4")
struct ZipTests {
    typealias Sub = TestSubscriber<String, TestError>

    func pair(_ a: TestPublisher<Int, TestError>, _ b: TestPublisher<String, TestError>) -> Publishers.Map<Publishers.Zip<TestPublisher<Int, TestError>, TestPublisher<String, TestError>>, String> {
        a.zip(b) { "\($0)\($1)" }
    }

    @Test func pairsTheOldestUnconsumedValues() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<(Int, String), TestError>()
        a.zip(b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        a.send(3)
        b.send("x")
        b.send("y")
        #expect(subscriber.values.map { "\($0.0)\($0.1)" } == ["1x", "2y"])
        #expect(subscriber.subscriptionNames == ["Zip"])
        #expect(a.demandLog == [.requested(.unlimited)])
        #expect(b.demandLog == [.requested(.unlimited)])
    }

    @Test func downstreamGetsItsSubscriptionAfterEveryUpstreamSentOne() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>(sendsSubscriptionOnSubscribe: false)
        let subscriber = Sub(initialDemand: .max(2))
        pair(a, b).subscribe(subscriber)
        #expect(subscriber.events.isEmpty)
        b.sendSubscription()
        #expect(subscriber.subscriptionNames == ["Zip"])
        #expect(a.demandLog == [.requested(.max(2))])
        #expect(b.demandLog == [.requested(.max(2))])
    }

    @Test func finishesWhenAFinishedUpstreamHasNothingLeftToPair() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        a.send(completion: .finished)
        #expect(subscriber.completions.isEmpty)
        b.send("x")
        #expect(subscriber.completions.isEmpty)
        b.send("y")
        #expect(subscriber.events == [.subscription("Zip"), .value("1x"), .value("2y"), .completion(.finished)])
        // The upstream still running is cancelled before the completion goes out.
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
        #expect(a.demandLog == [.requested(.unlimited)])
    }

    @Test func finishesAtOnceWhenAnUpstreamFinishesWithNothingQueued() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        b.send("x")
        a.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Zip"), .completion(.finished)])
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func failureCancelsAndFails() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.send(1)
        b.send(completion: .failure(TestError(code: 2)))
        b.send("x")
        #expect(subscriber.events == [.subscription("Zip"), .completion(.failure(TestError(code: 2)))])
        #expect(a.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func limitedDemandIsForwardedAndReturnedDemandGoesToTheOthers() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub(initialDemand: .max(1), onValue: { _ in .max(1) })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        // b's value completes the pair: the downstream's answer is returned to b and requested from a.
        #expect(b.send("x") == .max(1))
        #expect(a.demandLog == [.requested(.max(1)), .requested(.max(1))])
        #expect(b.demandLog == [.requested(.max(1))])
        subscriber.request(.max(3))
        #expect(a.demandLog == [.requested(.max(1)), .requested(.max(1)), .requested(.max(3))])
        #expect(b.demandLog == [.requested(.max(1)), .requested(.max(3))])
    }

    @Test func maxOneReplenishedOneAtATime() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub(initialDemand: .max(1))
        pair(a, b).subscribe(subscriber)
        for i in 0..<3 {
            a.send(i)
            b.send("v")
            subscriber.request(.max(1))
        }
        #expect(subscriber.values == ["0v", "1v", "2v"])
        #expect(a.demandLog == Array(repeating: .requested(.max(1)), count: 4))
    }

    @Test func reentrantRequestIsAddedToTheAnswer() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        var subscription: Subscription?
        let subscriber = Sub(initialDemand: .max(1), onSubscription: { subscription = $0 }, onValue: { _ in
            subscription?.request(.max(5))
            return .max(1)
        })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        #expect(b.send("x") == .max(6))
        #expect(a.demandLog == [.requested(.max(1)), .requested(.max(6))])
        #expect(b.demandLog == [.requested(.max(1))])
    }

    @Test func reentrantValueIsDeliveredInTurn() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub(onValue: { value in
            if value == "1x" {
                a.send(2)
                b.send("y")
            }
            return .none
        })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        b.send("x")
        #expect(subscriber.values == ["1x", "2y"])
    }

    @Test func cancelMidStream() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        var subscription: Subscription?
        let subscriber = Sub(onSubscription: { subscription = $0 }, onValue: { _ in
            subscription?.cancel()
            return .none
        })
        pair(a, b).subscribe(subscriber)
        a.send(1)
        a.send(2)
        b.send("x")
        b.send("y")
        #expect(subscriber.events == [.subscription("Zip"), .value("1x")])
        #expect(a.demandLog == [.requested(.unlimited), .cancelled])
        #expect(b.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func secondSubscriptionIsCancelled() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.sendSubscription()
        #expect(a.demandLog == [.requested(.unlimited), .cancelled])
        #expect(subscriber.subscriptionNames == ["Zip"])
    }

    @Test func eventsAfterTheEndAreIgnored() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let subscriber = Sub()
        pair(a, b).subscribe(subscriber)
        a.send(completion: .finished)
        a.send(1)
        b.send("x")
        b.send(completion: .failure(TestError()))
        #expect(subscriber.events == [.subscription("Zip"), .completion(.finished)])
    }

    @Test func threeAndFourUpstreams() {
        var three: [String] = []
        var four: [Int] = []
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<String, Never>()
        let c = PassthroughSubject<Double, Never>()
        let d = PassthroughSubject<Int, Never>()
        let c1 = a.zip(b, c).sink { three.append("\($0)\($1)\($2)") }
        let c2 = a.zip(b, c, d) { n, _, _, m in n * m }.sink { four.append($0) }
        let c3 = a.zip(b, c) { n, s, x in "\(n)\(s)\(x)" }.sink { three.append($0) }
        a.send(1); a.send(2)
        b.send("x"); b.send("y")
        c.send(0.5)
        d.send(10); d.send(20)
        c.send(1.5)
        #expect(three == ["1x0.5", "1x0.5", "2y1.5", "2y1.5"])
        #expect(four == [10, 40])
        #expect(Publishers.Zip4(a, b, c, d).c === c)
        c1.cancel(); c2.cancel(); c3.cancel()
    }

    @Test func aThirdOrFourthUpstreamThatFinishesEndsTheZipOnceNothingOfItsIsLeft() {
        // Zip3: the third upstream finishes with a value queued; the zip finishes once it is paired.
        let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        var three: [String] = []
        let zip3 = a.zip(b, c).sink(receiveCompletion: { _ in three.append("finished") },
                                    receiveValue: { three.append("\($0)\($1)\($2)") })
        c.send(3)
        c.send(completion: .finished)
        a.send(1)
        #expect(three.isEmpty)
        b.send(2)
        #expect(three == ["123", "finished"])
        // Zip4: the fourth upstream finishes with nothing queued; the zip finishes at once, its
        // other upstreams' queued values dropped.
        let p = PassthroughSubject<Int, Never>(), q = PassthroughSubject<Int, Never>()
        let r = PassthroughSubject<Int, Never>(), t = PassthroughSubject<Int, Never>()
        var four: [String] = []
        let zip4 = p.zip(q, r, t).sink(receiveCompletion: { _ in four.append("finished") },
                                       receiveValue: { four.append("\($0)\($1)\($2)\($3)") })
        p.send(1); q.send(2); r.send(3); t.send(4)
        p.send(5); q.send(6); r.send(7)
        t.send(completion: .finished)
        #expect(four == ["1234", "finished"])
        zip3.cancel()
        zip4.cancel()
    }

    @Test func equatableWhereTheUpstreamsAre() {
        #expect(Just(1).zip(Just(2)) == Publishers.Zip(Just(1), Just(2)))
        #expect(Just(1).zip(Just(2), Just(3)) != Publishers.Zip3(Just(1), Just(2), Just(4)))
    }

    @Test func synchronousUpstreams() {
        var out: [String] = []
        let c = [1, 2, 3].publisher.zip(["a", "b"].publisher) { "\($0)\($1)" }.sink { out.append($0) }
        #expect(out == ["1a", "2b"])
        c.cancel()
        var completed = false
        let e = Empty<Int, Never>().zip([1].publisher).sink(receiveCompletion: { _ in completed = true }, receiveValue: { _ in })
        #expect(completed)
        e.cancel()
    }

    @Test func releasesTheDownstreamAfterCancelAndAfterFinish() {
        weak var weakSubscriber: Sub?
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        do {
            let subscriber = Sub()
            weakSubscriber = subscriber
            pair(a, b).subscribe(subscriber)
            subscriber.cancel()
            subscriber.releaseSubscriptions()
        }
        a.releaseSubscriber()
        b.releaseSubscriber()
        #expect(weakSubscriber == nil)

        weak var weakFinished: Sub?
        let c = TestPublisher<Int, TestError>()
        let d = TestPublisher<String, TestError>()
        do {
            let subscriber = Sub()
            weakFinished = subscriber
            pair(c, d).subscribe(subscriber)
            c.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakFinished == nil)
    }

    @Test func eightProducersOnDifferentThreadsLoseNothingAndNeverOverlap() async {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<(Int, Int, Int, Int), Never>()
        subjects[0].zip(subjects[1], subjects[2], subjects[3]).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                let subject = subjects[thread % 4]
                group.addTask {
                    for i in 0..<10_000 { subject.send(thread * 10_000 + i) }
                }
            }
        }
        let values = subscriber.values
        #expect(values.count == 20_000)
        #expect(!subscriber.sawConcurrentSignals)
        for slot in 0..<4 {
            let component: [Int] = values.map { [$0.0, $0.1, $0.2, $0.3][slot] }
            let expected = Set((0..<8).filter { $0 % 4 == slot }.flatMap { t in (0..<10_000).map { t * 10_000 + $0 } })
            #expect(Set(component) == expected)
            #expect(component.count == expected.count)
            for thread in (0..<8) where thread % 4 == slot {
                #expect(component.filter { $0 / 10_000 == thread } == Array(thread * 10_000..<(thread + 1) * 10_000))
            }
        }
    }
}
