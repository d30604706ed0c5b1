import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

@Suite("Published and ObservableObject")
struct PublishedTests {
    /// A deliberate difference: Combine's `@Published` compiles only in a class; Sluice's works in
    /// a struct too, with no `objectWillChange` to notify.
    struct Settings {
        @Published var volume = 3
    }

    @Test func publishedInAStructPublishesItsValueAndEachChange() {
        let settings = Settings()
        var seen: [Int] = []
        let cancellable = settings.$volume.sink { seen.append($0) }
        settings.volume = 4
        settings.volume = 5
        #expect(seen == [3, 4, 5])
        #expect(settings.volume == 5)
        cancellable.cancel()
    }

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

    // MARK: Edge cases (issue 8)

    final class Child: ObservableObject {
        @Published var value = 0
    }

    final class Parent: ObservableObject {
        @Published var child = Child()
        let fixedChild = Child()
        @Published var title = "t"
    }

    final class Doubler: ObservableObject {
        @Published var count = 0
        @Published var double = 0

        init() {
            $count.map { $0 * 2 }.assign(to: &$double)
        }
    }

    @Test func objectWillChangeFiresBeforeEveryKindOfChangeWhileTheOldValuesAreStillStored() {
        let model = Model()
        let source = PassthroughSubject<Int, Never>()
        source.assign(to: &model.$count)
        var log: [String] = []
        let willChange = model.objectWillChange.sink { log.append("will change: count \(model.count), name \(model.name)") }
        let counts = model.$count.dropFirstValue().sink { log.append("$count \($0) (stored \(model.count))") }
        model.count = 1
        source.send(2)
        model.name = "b"
        #expect(log == [
            "will change: count 0, name a", "$count 1 (stored 0)",
            "will change: count 1, name a", "$count 2 (stored 1)",
            "will change: count 2, name a",
        ])
        #expect(model.count == 2 && model.name == "b")
        willChange.cancel()
        counts.cancel()
    }

    @Test func objectWillChangeFiresEvenWhenTheValueDoesNotChange() {
        let model = Model()
        var fired = 0
        let cancellable = model.objectWillChange.sink { fired += 1 }
        model.count = 0
        model.count = 0
        #expect(fired == 2, "@Published does not compare values")
        cancellable.cancel()
    }

    @Test func aNestedObservableObjectsChangesDoNotReachItsParent() {
        let parent = Parent()
        #expect(parent.objectWillChange !== parent.child.objectWillChange)
        var parentFired = 0
        let cancellable = parent.objectWillChange.sink { parentFired += 1 }
        parent.child.value = 1
        parent.fixedChild.value = 1
        #expect(parentFired == 0, "a change inside a child is the child's, not the parent's")
        parent.child = Child()
        #expect(parentFired == 1, "replacing the child is a change of the parent")
        cancellable.cancel()
    }

    @Test func aParentCanForwardItsChildrensChanges() {
        let parent = Parent()
        var forwarding: Set<AnyCancellable> = []
        parent.fixedChild.objectWillChange.sink { [weak parent] in parent?.objectWillChange.send() }.store(in: &forwarding)
        var log: [String] = []
        parent.objectWillChange.sink { log.append("parent will change (child \(parent.fixedChild.value))") }
            .store(in: &forwarding)
        parent.fixedChild.value = 5
        parent.title = "u"
        #expect(log == ["parent will change (child 0)", "parent will change (child 5)"])
    }

    @Test func assignToPublishedRequestsUnlimitedIgnoresCompletionAndEndsWithTheObject() {
        let upstream = TestPublisher<Int, Never>()
        var seen: [Int] = []
        var willChange = 0
        weak var weakModel: Model?
        var cancellables: Set<AnyCancellable> = []
        do {
            let model = Model()
            weakModel = model
            model.objectWillChange.sink { willChange += 1 }.store(in: &cancellables)
            model.$count.sink { seen.append($0) }.store(in: &cancellables)
            upstream.assign(to: &model.$count)
            #expect(upstream.demandLog == [.requested(.unlimited)])
            upstream.send(3)
            #expect(model.count == 3)
            upstream.send(completion: .finished)
            #expect(model.count == 3)
            cancellables.removeAll()
            #expect(upstream.demandLog == [.requested(.unlimited)], "cancelling $count's subscribers leaves the assignment")
        }
        #expect(weakModel == nil, "the assignment does not keep the object alive")
        #expect(upstream.demandLog == [.requested(.unlimited), .cancelled], "the object going away cancelled it")
        #expect(seen == [0, 3], "$count subscribers saw the assigned value and no completion")
        #expect(willChange == 1)
    }

    @Test func assigningFromTheObjectsOwnPublisherMakesNoRetainCycle() {
        weak var weakDoubler: Doubler?
        do {
            let doubler = Doubler()
            weakDoubler = doubler
            doubler.count = 4
            #expect(doubler.double == 8)
        }
        #expect(weakDoubler == nil)
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
