import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// What debuggers, playgrounds and test helpers see of a subscription or an operator's
/// subscriber (`description`, `customMirror`, `playgroundDescription`), as Combine shows it.
@Suite("Reflection as Combine's")
struct ReflectionFidelityTests {
    static func labels(_ subject: Any) -> [String] {
        Mirror(reflecting: subject).children.map { $0.label ?? "" }
    }

    static func child(_ label: String, of subject: Any) -> String? {
        Mirror(reflecting: subject).children.first { $0.label == label }.map { String(describing: $0.value) }
    }

    @Test func mapFilterAndTryMapShowNoChildren() {
        let map = InnerProbe<Int, Never>()
        _ = map.map { $0 }.sink { _ in }
        #expect(map.innerDescription == "Map")
        #expect(map.inner! is CustomReflectable)
        #expect(map.innerMirrorLabels.isEmpty)

        let filter = InnerProbe<Int, Never>()
        _ = filter.filter { _ in true }.sink { _ in }
        #expect(filter.innerDescription == "Filter")
        #expect(filter.innerMirrorLabels.isEmpty)

        let tryMap = InnerProbe<Int, Never>()
        _ = tryMap.tryMap { $0 }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(tryMap.innerDescription == "TryMap")
        #expect(tryMap.innerPlaygroundDescription == "TryMap")
        #expect(tryMap.inner! is CustomReflectable)
        #expect(tryMap.innerMirrorLabels.isEmpty)
    }

    @Test func mapKeyPathNamesItsKeyPaths() {
        let probe = InnerProbe<Int, Never>()
        _ = probe.map(\.self).sink { _ in }
        #expect(probe.innerDescription == "ValueForKey")
        #expect(probe.innerPlaygroundDescription == "ValueForKey")
        #expect(probe.innerMirrorLabels == ["keyPath"])
        let pair = InnerProbe<Int, Never>()
        _ = pair.map(\.self, \.self).sink { _ in }
        #expect(pair.innerDescription == "ValueForKeys")
        #expect(pair.innerMirrorLabels == ["keyPath0", "keyPath1"])
    }

    /// A deliberate difference (README, "Where Sluice differs"): after the stream ends, the
    /// mirror keeps Combine's labels, but the `downstream` child reads `nil`, since the
    /// subscription let go of its subscriber at termination.
    @Test func aSubscriptionsMirrorAfterTerminationKeepsItsLabelsAndShowsNoDownstream() {
        let finished = InnerProbe<Int, Never>()
        _ = finished.tryScan(0) { $0 + $1 }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        finished.send(subscription: ProbeSubscription())
        #expect(finished.innerMirrorValue("downstream") != "nil")
        finished.send(completion: .finished)
        #expect(finished.innerMirrorLabels == ["downstream", "status", "result"])
        #expect(finished.innerMirrorValue("downstream") == "nil")

        let cancelled = InnerProbe<Int, Never>()
        let cancellable = cancelled.tryScan(0) { $0 + $1 }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        cancelled.send(subscription: ProbeSubscription())
        cancellable.cancel()
        #expect(cancelled.innerMirrorLabels == ["downstream", "status", "result"])
        #expect(cancelled.innerMirrorValue("downstream") == "nil")
    }

    /// A deliberate difference: Combine's `Timer.TimerPublisher` subscription has no description;
    /// Sluice's describes itself as `Timer`.
    @Test func aTimerPublishersSubscriptionDescribesItselfAsTimer() throws {
        let subscriber = TestSubscriber<Date, Never>(initialDemand: .none)
        let timer = Timer.publish(every: 60, on: .main, in: .default)
        timer.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Timer")
        subscription.cancel()
    }

    @Test func tryScanShowsItsStatusAsCombineNamesIt() {
        let probe = InnerProbe<Int, Never>()
        _ = probe.tryScan(0) { $0 + $1 }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(probe.innerMirrorLabels == ["downstream", "status", "result"])
        #expect(probe.innerMirrorValue("status") == "awaitingSubscription")
        probe.send(subscription: ProbeSubscription())
        #expect(probe.innerMirrorValue("status")?.hasPrefix("subscribed(") == true)
    }

    @Test func concatenateSidesAreReflectedWithNoChildren() {
        let prefix = InnerProbe<Int, Never>()
        _ = prefix.append(1).sink { _ in }
        #expect(prefix.innerDescription == "Concatenate")
        #expect(prefix.innerPlaygroundDescription == "Concatenate")
        #expect(prefix.inner! is CustomReflectable)
        #expect(prefix.innerMirrorLabels.isEmpty)
    }

    /// A connectable publisher that keeps the subscriber `autoconnect()` hands it.
    final class ConnectableProbe: ConnectablePublisher, @unchecked Sendable {
        typealias Output = Int
        typealias Failure = Never
        let probe = InnerProbe<Int, Never>()
        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            probe.receive(subscriber: subscriber)
        }
        func connect() -> Cancellable { AnyCancellable {} }
    }

    @Test func autoconnectShowsItsParentAndStandsInForTheUpstreamsSubscription() throws {
        let connectable = ConnectableProbe()
        let subscriber = TestSubscriber<Int, Never>()
        connectable.autoconnect().subscribe(subscriber)
        let probe = connectable.probe
        #expect(probe.innerDescription == "Autoconnect")
        #expect(probe.innerPlaygroundDescription == "Autoconnect")
        #expect(probe.innerMirrorLabels == ["parent", "downstream"])
        let upstream = ProbeSubscription()
        probe.send(subscription: upstream)
        let handed = try #require(subscriber.subscription)
        #expect(String(describing: handed) == String(describing: upstream))
        #expect((handed as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                    == String(describing: upstream))
        #expect(!(handed is CustomReflectable))
        #expect(handed.combineIdentifier == upstream.combineIdentifier)
    }

    final class Model: ObservableObject {
        @Published var count = 0
    }

    @Test func publishedAndObservableObjectSubscriptionsShowWhatCombinesDo() throws {
        let model = Model()
        let published = TestSubscriber<Int, Never>()
        model.$count.subscribe(published)
        let subscription = try #require(published.subscription)
        #expect(String(describing: subscription) == "PublishedSubject")
        #expect(Self.labels(subscription) == ["parent", "downstream", "demand", "subject"])
        #expect(Self.child("parent", of: subscription)?.contains("PublishedSubject") == true)
        #expect(Self.child("subject", of: subscription)?.contains("PublishedSubject") == true)

        let changes = TestSubscriber<Void, Never>()
        model.objectWillChange.subscribe(changes)
        let changeSubscription = try #require(changes.subscription)
        #expect(String(describing: changeSubscription) == "ObservableObjectPublisher")
        #expect(Self.labels(changeSubscription) == ["downstream"])
    }

    @Test func anAnonymousAnySubscriberReflectsAsItsName() {
        let anonymous = AnySubscriber<Int, Never>(receiveValue: { _ in .none })
        #expect(String(describing: anonymous) == "Anonymous AnySubscriber")
        let mirror = Mirror(reflecting: anonymous)
        #expect(ObjectIdentifier(mirror.subjectType) == ObjectIdentifier(String.self))
        #expect(mirror.children.isEmpty)
        #expect(anonymous.playgroundDescription as? String == "Anonymous AnySubscriber")
    }

    struct PlainSubscriber: Subscriber {
        typealias Input = Int
        typealias Failure = Never
        let combineIdentifier = CombineIdentifier()
        let tag = 7
        func receive(subscription: Subscription) {}
        func receive(_ input: Int) -> Subscribers.Demand { .none }
        func receive(completion: Subscribers.Completion<Never>) {}
    }

    @Test func anAnySubscriberOverAPlainSubscriberDescribesTheValue() {
        let erased = AnySubscriber(PlainSubscriber())
        #expect(String(describing: erased).hasPrefix("PlainSubscriber("))
        #expect(String(describing: erased).contains("tag: 7"))
        #expect(ObjectIdentifier(Mirror(reflecting: erased).subjectType) == ObjectIdentifier(PlainSubscriber.self))
    }

    @Test func aSubjectAsSubscriberShowsItsSubject() {
        let probe = InnerProbe<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = probe.subscribe(subject)
        #expect(probe.innerDescription == "Subject")
        #expect(probe.innerMirrorLabels == ["downstreamSubject", "upstreamSubscription", "subject"])
        #expect(probe.innerMirrorValue("subject")?.contains("PassthroughSubject") == true)
        cancellable.cancel()
    }

    @Test func combineLatestSidesHaveADescriptionOnly() {
        let probe = InnerProbe<Int, Never>()
        _ = probe.combineLatest(Just(1)).sink { _ in }
        #expect(probe.innerDescription == "CombineLatest")
        #expect(!(probe.inner! is CustomReflectable))
        #expect(!(probe.inner! is CustomPlaygroundDisplayConvertible))
    }

    /// Combine's `Future` subscription lets go of its downstream before delivering and of its
    /// future after: seen from inside the delivery, the mirror still shows the parent.
    @Test func futureKeepsItsParentUntilTheDeliveryIsOver() throws {
        let future = Future<Int, Never> { $0(.success(5)) }
        var parentDuringDelivery: String?
        var downstreamDuringDelivery: String?
        var subscription: Subscription?
        let subscriber = TestSubscriber<Int, Never>(
            onSubscription: { subscription = $0 },
            onValue: { _ in
                parentDuringDelivery = subscription.flatMap { Self.child("parent", of: $0) }
                downstreamDuringDelivery = subscription.flatMap { Self.child("downstream", of: $0) }
                return .none
            })
        future.subscribe(subscriber)
        #expect(subscriber.values == [5])
        #expect(parentDuringDelivery?.contains("Future") == true)
        #expect(downstreamDuringDelivery == "nil")
        let after = try #require(subscription)
        #expect(Self.child("parent", of: after) == "nil")
        #expect(Self.child("subject", of: after) == "nil")
    }
}
