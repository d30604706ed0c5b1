/// `request(_:)` and `cancel()` of a subscription, specialised for its concrete type.
///
/// A subscription is reached through the `Subscription` existential, whose witnesses are the
/// library's unspecialised code: every call there pays for generic metadata look-ups (measured:
/// about 1 µs to cancel a subject chain). A subscription class stores these two function values,
/// made in its `@inlinable` init where its generic arguments are concrete, and its witnesses do
/// nothing but call them. Both are typed on `AnyObject` so that the stored fields themselves need
/// no generic metadata.
@usableFromInline
package struct SpecializedEntryPoints: @unchecked Sendable {
    @usableFromInline
    package let request: (AnyObject, Subscribers.Demand) -> Void
    @usableFromInline
    package let cancel: (AnyObject) -> Void

    @inlinable
    package init(request: @escaping (AnyObject, Subscribers.Demand) -> Void, cancel: @escaping (AnyObject) -> Void) {
        self.request = request
        self.cancel = cancel
    }
}
