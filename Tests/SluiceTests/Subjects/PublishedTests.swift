import Testing
import Foundation
import Sluice
import SluiceTesting

@Suite("Published and ObservableObject")
struct PublishedTests {
    final class Model: ObservableObject {
        @Published var count = 0
        @Published var name = "a"
    }

    class Base {
        @Published var inherited = 0
    }

    final class Derived: Base, ObservableObject {
        @Published var own = 0
    }

    final class Plain: ObservableObject {
        var value = 0
    }

    @Test func projectedPublisherDeliversTheCurrentValueThenChangesBeforeTheyAreStored() {
        let model = Model()
        var seen: [String] = []
        let cancellable = model.$count.sink { newValue in
            seen.append("new \(newValue), stored \(model.count)")
        }
        model.count = 1
        model.count = 2
        #expect(seen == ["new 0, stored 0", "new 1, stored 0", "new 2, stored 1"])
        #expect(model.count == 2)
        cancellable.cancel()
    }

    @Test func objectWillChangeIsSharedAndFiresBeforeTheChange() {
        let model = Model()
        #expect(model.objectWillChange === model.objectWillChange)
        var log: [String] = []
        let willChange = model.objectWillChange.sink { log.append("will change (count \(model.count))") }
        let values = model.$count.dropFirstValue().sink { log.append("value \($0)") }
        model.count = 5
        model.name = "b"
        #expect(log == ["will change (count 0)", "value 5", "will change (count 5)"])
        willChange.cancel()
        values.cancel()
    }

    @Test func superclassPropertiesNotifyTheSubclassObject() {
        let derived = Derived()
        var fired = 0
        let cancellable = derived.objectWillChange.sink { fired += 1 }
        derived.inherited = 1
        derived.own = 1
        #expect(fired == 2)
        cancellable.cancel()
    }

    @Test func objectsWithoutPublishedPropertiesStillHaveOnePublisher() {
        let plain = Plain()
        #expect(plain.objectWillChange === plain.objectWillChange)
    }

    @Test func publishedSubscriptionDescriptionAndLateDemand() {
        let model = Model()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        model.$count.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("PublishedSubject")])
        model.count = 3
        subscriber.request(.max(1))
        #expect(subscriber.values == [3])
    }

    @Test func assignToPublishedLivesAsLongAsTheObject() {
        let source = PassthroughSubject<Int, Never>()
        weak var weakModel: Model?
        do {
            let model = Model()
            weakModel = model
            source.assign(to: &model.$count)
            source.send(4)
            #expect(model.count == 4)
        }
        #expect(weakModel == nil, "assign(to:) does not keep the object alive")
        source.send(5)
    }

    @Test func observableObjectPublisherDeliversEverySendAfterAnyDemand() {
        let publisher = ObservableObjectPublisher()
        let subscriber = TestSubscriber<Void, Never>(initialDemand: .max(1))
        publisher.subscribe(subscriber)
        publisher.send()
        publisher.send()
        publisher.send()
        #expect(subscriber.values.count == 3)
        #expect(subscriber.subscriptionNames == ["ObservableObjectPublisher"])
    }
}

private extension Publisher {
    /// Skips the current value a `@Published` publisher starts with (without depending on
    /// `dropFirst`, which another suite tests).
    func dropFirstValue() -> AnyPublisher<Output, Failure> {
        var first = true
        return Publishers.Filter(upstream: self) { _ in
            defer { first = false }
            return !first
        }.eraseToAnyPublisher()
    }
}
