import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Filter and TryFilter")
struct FilterTests {
    // MARK: Filter

    @Test func publishesIncludedValuesAndAsksForOneMoreInPlaceOfEachDroppedOne() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        upstream.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(upstream.send(2) == .max(4))
        #expect(upstream.send(3) == .max(1))
        #expect(upstream.send(4) == .max(4))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(2), .value(4), .completion(.finished)])
        #expect(upstream.demandLog == [.requested(.max(2))])
    }

    @Test func forwardsFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        upstream.filter { _ in true }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 3)))
        #expect(subscriber.events == [.subscription("TestSubscription"), .completion(.failure(TestError(code: 3)))])
    }

    @Test func limitedDemandThenMore() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().filter { $0.isMultiple(of: 3) }.subscribe(subscriber)
        #expect(subscriber.values == [3])
        subscriber.request(.max(1))
        #expect(subscriber.values == [3, 6])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [3, 6, 9])
        #expect(subscriber.events.last == .completion(.finished))
    }

    @Test func demandArrivingAfterValuesAreReady() {
        let subject = CurrentValueSubject<Int, Never>(4)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.filter { $0 > 0 }.subscribe(subscriber)
        #expect(subscriber.values == [])
        subscriber.request(.max(1))
        #expect(subscriber.values == [4])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { value in
                if value == 4 { subscription?.cancel() }
                return .none
            })
        (1...100).publisher.eraseToAnyPublisher().filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(subscriber.values == [2, 4])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func sendFromInsideTheSinkIsDeliveredNested() {
        let subject = PassthroughSubject<Int, Never>()
        var seen: [Int] = []
        let cancellable = subject.filter { $0 != 0 }.sink { value in
            seen.append(value)
            if value == 1 { subject.send(2) }
        }
        subject.send(1)
        subject.send(0)
        subject.send(3)
        #expect(seen == [1, 2, 3])
        cancellable.cancel()
    }

    @Test func filterOfFilterFusesIntoOne() {
        let subject = PassthroughSubject<Int, Never>()
        let fused: Publishers.Filter<PassthroughSubject<Int, Never>> =
            subject.filter { $0.isMultiple(of: 2) }.filter { $0.isMultiple(of: 3) }
        #expect(fused.upstream === subject)
        let subscriber = TestSubscriber<Int, Never>()
        fused.subscribe(subscriber)
        for value in 0...12 { subject.send(value) }
        #expect(subscriber.values == [0, 6, 12])
    }

    @Test func tryFilterAfterFilterFusesIntoATryFilter() {
        let subject = PassthroughSubject<Int, Never>()
        let fused: Publishers.TryFilter<PassthroughSubject<Int, Never>> =
            subject.filter { $0 > 0 }.tryFilter { value in
                if value == 5 { throw TestError(code: 5) }
                return value.isMultiple(of: 2)
            }
        #expect(fused.upstream === subject)
        let subscriber = TestSubscriber<Int, Error>()
        fused.subscribe(subscriber)
        for value in [-2, 2, 3, 4, 5, 6] { subject.send(value) }
        #expect(subscriber.values == [2, 4])
        #expect((subscriber.completion.flatMap { if case .failure(let e) = $0 { e as? TestError } else { nil } })
                    == TestError(code: 5))
    }

    @Test func innerDescriptionIsFilter() {
        let upstream = InnerProbe<Int, Never>()
        upstream.filter { _ in true }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.innerDescription == "Filter")
        #expect(upstream.innerPlaygroundDescription == "Filter")
        #expect(upstream.innerMirrorLabels.isEmpty)
        #expect(!upstream.innerIsSubscription)
    }

    @Test func releasesTheDownstreamAndTheClosureAfterCancelAndAfterFinish() {
        for finish in [false, true] {
            weak var weakSubscriber: TestSubscriber<Int, Never>?
            weak var weakCanary: Canary?
            let subject = PassthroughSubject<Int, Never>()
            do {
                let canary = Canary()
                weakCanary = canary
                let subscriber = TestSubscriber<Int, Never>()
                weakSubscriber = subscriber
                subject.filter { _ in withExtendedLifetime(canary) { true } }.subscribe(subscriber)
                if finish { subject.send(completion: .finished) } else { subscriber.cancel() }
                subscriber.releaseSubscriptions()
            }
            #expect(weakSubscriber == nil)
            #expect(weakCanary == nil)
        }
    }

    @Test func concurrentSendsFromEightThreadsLoseNothing() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
        }
        #expect(Set(subscriber.values) == Set((0..<8_000).filter { $0.isMultiple(of: 2) }))
        #expect(subscriber.values.count == 4_000)
        #expect(!subscriber.sawConcurrentSignals)
    }

    // MARK: TryFilter

    @Test func tryFilterHasItsOwnSubscriptionAndAsksForOneMoreInPlaceOfADroppedValue() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(2), onValue: { _ in .max(4) })
        upstream.tryFilter { $0 > 0 }.subscribe(subscriber)
        #expect(subscriber.subscriptionNames == ["TryFilter"])
        #expect(upstream.send(1) == .max(4))
        #expect(upstream.send(-1) == .max(1))
        upstream.send(completion: .finished)
        #expect(upstream.send(2) == .none, "nothing after the completion")
        #expect(subscriber.values == [1])
        #expect(subscriber.completions.count == 1)
    }

    @Test func tryFilterFailsWithTheThrownErrorAndCancelsTheUpstream() {
        var calls = 0
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>(initialDemand: .max(3))
        upstream.tryFilter { value in
            calls += 1
            if value == 0 { throw TestError(code: 8) }
            return true
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(0)
        upstream.send(2)
        #expect(subscriber.values == [1])
        #expect(calls == 2)
        #expect(upstream.demandLog == [.requested(.max(3)), .cancelled])
        #expect((subscriber.completion.flatMap { if case .failure(let e) = $0 { e as? TestError } else { nil } })
                    == TestError(code: 8))
    }

    @Test func tryFilterForwardsAnUpstreamFailureAsAnError() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryFilter { _ in true }.subscribe(subscriber)
        upstream.send(completion: .failure(TestError(code: 2)))
        #expect((subscriber.completion.flatMap { if case .failure(let e) = $0 { e as? TestError } else { nil } })
                    == TestError(code: 2))
    }

    @Test func tryFilterCancelIsForwardedOnceAndLaterRequestsDoNothing() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Error>()
        upstream.tryFilter { _ in true }.subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(upstream.send(1) == .none)
        #expect(subscriber.values.isEmpty)
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled])
    }

    @Test func tryFilterOfTryFilterFuses() {
        let subject = PassthroughSubject<Int, Never>()
        let fused: Publishers.TryFilter<PassthroughSubject<Int, Never>> =
            subject.tryFilter { $0 > 0 }.tryFilter { $0 < 10 }
        #expect(fused.upstream === subject)
        let subscriber = TestSubscriber<Int, Error>()
        fused.subscribe(subscriber)
        for value in [-1, 1, 5, 10, 9] { subject.send(value) }
        #expect(subscriber.values == [1, 5, 9])
    }

    @Test func tryFilterReleasesTheDownstreamAfterFinishing() {
        weak var weakSubscriber: TestSubscriber<Int, Error>?
        let upstream = TestPublisher<Int, Never>()
        do {
            let subscriber = TestSubscriber<Int, Error>()
            weakSubscriber = subscriber
            upstream.tryFilter { _ in true }.subscribe(subscriber)
            upstream.send(completion: .finished)
            subscriber.releaseSubscriptions()
        }
        #expect(weakSubscriber == nil)
    }
}
