/// An operator's subscription or subscriber as Combine shows one: its description is the
/// operator's name, a playground shows the same, and its mirror has no children unless the
/// type declares its own (most list the downstream and their state, as Combine's do).
@usableFromInline
package protocol DescribedByName: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {}

extension DescribedByName {
    @inlinable
    package var playgroundDescription: Any { description }

    @inlinable
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
