import Combine
import Foundation

// Of Combine's own types only `Subscribers.Demand` and `Subscribers.Completion` are `Sendable`
// (Combine's interface declares no other), so Swift 6 code written for Combine declares the
// conformances it needs itself; several projects declare exactly these. CI builds this package
// with warnings as errors. If Sluice made one of these types `Sendable` itself, the declaration
// here would draw a warning (the conformance is "already stated in the type's module"). Where
// Sluice's conformance was conditional (the value publishers, `AsyncPublisher`), this
// unconditional one would be ignored, and `DraftValues` below would not compile.
extension PassthroughSubject: @retroactive @unchecked Sendable {}
extension CurrentValueSubject: @retroactive @unchecked Sendable {}
extension AnyCancellable: @retroactive @unchecked Sendable {}
extension AnyPublisher: @retroactive @unchecked Sendable {}
extension Future: @retroactive @unchecked Sendable {}
extension Published: @retroactive @unchecked Sendable {}
extension Published.Publisher: @retroactive @unchecked Sendable {}
extension Subscribers.Sink: @retroactive @unchecked Sendable {}
extension Subscribers.Assign: @retroactive @unchecked Sendable {}
extension Publishers.Multicast: @retroactive @unchecked Sendable {}
extension Publishers.Autoconnect: @retroactive @unchecked Sendable {}
extension Publishers.PrefetchStrategy: @retroactive @unchecked Sendable {}
extension Timer.TimerPublisher: @retroactive @unchecked Sendable {}
extension AsyncPublisher: @retroactive @unchecked Sendable {}
extension AsyncThrowingPublisher: @retroactive @unchecked Sendable {}
extension AsyncPublisher.Iterator: @retroactive @unchecked Sendable {}
extension AsyncThrowingPublisher.Iterator: @retroactive @unchecked Sendable {}
extension Just: @retroactive @unchecked Sendable {}
extension Empty: @retroactive @unchecked Sendable {}
extension Fail: @retroactive @unchecked Sendable {}
extension Record: @retroactive @unchecked Sendable {}
extension Record.Recording: @retroactive @unchecked Sendable {}
extension Optional.Publisher: @retroactive @unchecked Sendable {}
extension Result.Publisher: @retroactive @unchecked Sendable {}
extension Publishers.Sequence: @retroactive @unchecked Sendable {}
extension ImmediateScheduler: @retroactive @unchecked Sendable {}
extension ImmediateScheduler.SchedulerTimeType: @retroactive @unchecked Sendable {}
extension ImmediateScheduler.SchedulerTimeType.Stride: @retroactive @unchecked Sendable {}
extension CombineIdentifier: @retroactive @unchecked Sendable {}

// Foundation's strides of `RunLoop` and `OperationQueue` are not `Hashable` (Sluice's must not be
// either); a program that keeps them in a `Set` declares it.
extension RunLoop.SchedulerTimeType.Stride: @retroactive Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(timeInterval) }
}
extension OperationQueue.SchedulerTimeType.Stride: @retroactive Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(timeInterval) }
}

/// Something a draft editor hands across tasks: non-`Sendable` contents in publishers that the
/// declarations above make `Sendable`.
public final class Draft: ObservableObject {
    @Published public var text = ""
    public init() {}
}

public struct DraftValues: Sendable {
    public let lengths: AsyncPublisher<Publishers.Map<Published<String>.Publisher, Int>>
    public let placeholder: Just<Draft>
    public let pending: Publishers.Sequence<[Draft], Never>

    public init(_ draft: Draft) {
        lengths = draft.$text.map(\.count).values
        placeholder = Just(draft)
        pending = Publishers.Sequence(sequence: [draft])
    }
}
