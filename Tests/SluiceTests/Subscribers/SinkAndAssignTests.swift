import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Sink and Assign")
struct SinkAndAssignTests {
    @Test func sinkRequestsUnlimitedAndCancelsSecondSubscriptions() {
        let first = TestPublisher<Int, TestError>()
        let second = TestPublisher<Int, TestError>()
        let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { _ in }, receiveValue: { _ in })
        first.subscribe(sink)
        second.subscribe(sink)
        #expect(first.demandLog == [.requested(.unlimited)])
        #expect(second.demandLog == [.cancelled])
        #expect(sink.description == "Sink")
        #expect(String(describing: sink.playgroundDescription) == "Sink")
    }

    @Test func sinkReleasesClosuresOnCompletionAndOnCancel() {
        final class Owner {}
        weak var weakOwner: Owner?
        let subject = PassthroughSubject<Int, Never>()
        var cancellable: AnyCancellable?
        do {
            let owner = Owner()
            weakOwner = owner
            cancellable = subject.sink { _ in _ = owner }
        }
        #expect(weakOwner != nil)
        cancellable?.cancel()
        #expect(weakOwner == nil)

        weak var weakSecond: Owner?
        var kept: Subscribers.Sink<Int, Never>?
        do {
            let owner = Owner()
            weakSecond = owner
            kept = Subscribers.Sink(receiveCompletion: { _ in _ = owner }, receiveValue: { _ in })
            subject.subscribe(kept!)
        }
        subject.send(completion: .finished)
        #expect(weakSecond == nil, "the sink still exists but released its closures")
        _ = kept
    }

    @Test func sinkDeliversCompletionOnce() {
        var completions = 0
        let subject = PassthroughSubject<Int, TestError>()
        let cancellable = subject.sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { _ in })
        subject.send(completion: .failure(TestError()))
        subject.send(completion: .finished)
        #expect(completions == 1)
        cancellable.cancel()
    }

    @Test func droppingTheCancellableCancels() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        _ = subject.sink { received.append($0) }
        subject.send(1)
        #expect(received == [])
    }

    @Test func assignWritesAndReleasesTheObject() {
        final class Model { var value = 0 }
        let subject = PassthroughSubject<Int, Never>()
        weak var weakModel: Model?
        var cancellable: AnyCancellable?
        do {
            let model = Model()
            weakModel = model
            cancellable = subject.assign(to: \.value, on: model)
            subject.send(3)
            #expect(model.value == 3)
        }
        #expect(weakModel != nil, "Assign holds the object strongly until the end")
        cancellable?.cancel()
        #expect(weakModel == nil)
    }

    /// Combine's `Assign` ignores a completion that comes before any subscription: it keeps its
    /// object, and a subscription that comes later still assigns to it.
    @Test func assignIgnoresACompletionBeforeItsSubscription() {
        final class Model { var value = 0 }
        var model: Model? = Model()
        weak let watched = model
        let assign = Subscribers.Assign(object: model!, keyPath: \Model.value)
        model = nil
        assign.receive(completion: .finished)
        #expect(watched != nil, "the object is still held")
        let subject = PassthroughSubject<Int, Never>()
        subject.subscribe(assign)
        subject.send(7)
        #expect(watched?.value == 7)
        assign.cancel()
        #expect(watched == nil)
    }

    @Test func assignDescription() {
        final class Model { var value = 0 }
        let assign = Subscribers.Assign(object: Model(), keyPath: \Model.value)
        #expect(assign.description == "Assign Model.")
        let values = TestPublisher<Int, Never>()
        values.send(1)
        values.subscribe(assign)
        #expect(values.demandLog == [.requested(.unlimited)])
        values.send(completion: .finished)
        #expect(assign.object == nil)
    }
}

@Suite("AnyPublisher and AnySubscriber")
struct TypeErasureTests {
    @Test func anyPublisherForwards() {
        let erased: AnyPublisher<Int, Never> = [1, 2, 3].publisher.map { $0 * 2 }.eraseToAnyPublisher()
        var received: [Int] = []
        let cancellable = erased.sink { received.append($0) }
        #expect(received == [2, 4, 6])
        #expect(erased.description == "AnyPublisher")
        cancellable.cancel()
    }

    @Test func anySubscriberWrapsKeepingIdentityAndDescription() {
        let subscriber = TestSubscriber<Int, Never>()
        let erased = AnySubscriber(subscriber)
        #expect(erased.combineIdentifier == subscriber.combineIdentifier)
        #expect(AnySubscriber(erased).combineIdentifier == subscriber.combineIdentifier)
        [1, 2].publisher.subscribe(erased)
        #expect(subscriber.values == [1, 2])
        let sink = AnySubscriber(Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in }))
        #expect(sink.description == "Sink")
    }

    @Test func anySubscriberFromClosures() {
        var log: [String] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { log.append("subscription"); $0.request(.max(2)) },
            receiveValue: { log.append("value \($0)"); return .none },
            receiveCompletion: { _ in log.append("completion") })
        (1...5).publisher.subscribe(subscriber)
        #expect(log == ["subscription", "value 1", "value 2"])
        #expect(subscriber.description == "Anonymous AnySubscriber")
        let empty = AnySubscriber<Int, Never>()
        #expect(empty.combineIdentifier == empty.combineIdentifier)
    }

    @Test func anySubscriberFromASubjectForwardsToIt() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        let erased = AnySubscriber(subject)
        #expect(erased.description == "Subject")
        [1, 2].publisher.subscribe(erased)
        #expect(subscriber.events == [.subscription("PassthroughSubject"), .value(1), .value(2), .completion(.finished)])
    }

    @Test func subscribingASubjectForwardsValuesAndCompletion() {
        let source = PassthroughSubject<Int, Never>()
        let target = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        target.subscribe(subscriber)
        let cancellable = source.subscribe(target)
        source.send(1)
        cancellable.cancel()
        source.send(2)
        #expect(subscriber.values == [1])
    }
}

@Suite("Empty, Fail, Deferred")
struct SimplePublisherTests {
    @Test func emptyCompletesImmediatelyOrNever() {
        let finishing = TestSubscriber<Int, Never>(initialDemand: .none)
        Empty<Int, Never>().subscribe(finishing)
        #expect(finishing.events == [.subscription("Empty"), .completion(.finished)])
        let never = TestSubscriber<Int, Never>()
        Empty<Int, Never>(completeImmediately: false).subscribe(never)
        #expect(never.events == [.subscription("Empty")])
        #expect(Empty<Int, Never>() == Empty(completeImmediately: true))
        #expect(Empty<Int, Never>() != Empty(completeImmediately: false))
    }

    @Test func failFailsWithoutDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .none)
        Fail<Int, TestError>(error: TestError()).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .completion(.failure(TestError()))])
        #expect(Fail<Int, TestError>(error: TestError()) == Fail(outputType: Int.self, failure: TestError()))
    }

    @Test func deferredRunsItsClosureOncePerSubscriber() {
        var runs = 0
        let deferred = Deferred { () -> Publishers.Sequence<[Int], Never> in
            runs += 1
            return [runs].publisher
        }
        #expect(runs == 0)
        var received: [Int] = []
        let first = deferred.sink { received.append($0) }
        let second = deferred.sink { received.append($0) }
        #expect(runs == 2)
        #expect(received == [1, 2])
        first.cancel()
        second.cancel()
    }
}
