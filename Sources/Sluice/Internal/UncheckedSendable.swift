/// Carries a value across a `@Sendable` boundary that the type system cannot see is safe.
///
/// Used only where Sluice's own synchronisation makes the hand-over safe: a subscription object
/// that guards its state with a `Mutex`, or a scheduler action that the contract says runs once.
@usableFromInline
package struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline
    package var value: Value

    @inlinable
    package init(_ value: Value) {
        self.value = value
    }
}
