import Combine

/// A main-actor model as Swift 6 code written against Apple's Combine writes it: Combine's
/// `ObservableObjectPublisher` is not `Sendable`, so the publisher is kept `nonisolated(unsafe)`
/// for the nonisolated `objectWillChange` requirement to read. CI builds this package with
/// warnings as errors, so this file fails to build if Sluice's publisher claims `Sendable`
/// (Swift then calls the attribute unnecessary).
@MainActor
public final class MainActorSettingsModel: ObservableObject {
    public nonisolated(unsafe) let objectWillChange = ObservableObjectPublisher()
    public var name = "" {
        willSet { objectWillChange.send() }
    }

    public init() {}
}
