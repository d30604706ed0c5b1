/// A subscription that more than one upstream reports to: a concatenation's prefix and suffix,
/// a catch's replacement publisher, a flatMap's children, a switchToLatest's inner publishers.
/// Each of those upstreams is subscribed with a ``SideSubscriber`` carrying the key it stands
/// for, which hands everything it receives to the subscription with that key.
@usableFromInline
package protocol SideParent: AnyObject, CustomCombineIdentifierConvertible {
    /// What tells the sides apart (a child's index, whether it is the suffix, ...).
    associatedtype SideKey
    associatedtype SideInput
    associatedtype SideFailure: Error

    func receive(subscription: Subscription, from side: SideKey)
    func receive(_ input: SideInput, from side: SideKey) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<SideFailure>, from side: SideKey)

    /// The sides' description: the operator's name, as Combine's.
    var sideDescription: String { get }
    /// The children of a side's mirror (default: none).
    var sideMirrorChildren: [Mirror.Child] { get }
}

extension SideParent {
    @inlinable
    package var sideMirrorChildren: [Mirror.Child] { [] }
}

/// The subscriber for one upstream of a ``SideParent``.
///
/// `Role` only gives a side a type of its own where Combine's sides of one operator differ in
/// type (a concatenation's prefix and suffix, which share an identity); it is `Void` elsewhere.
@usableFromInline
package struct SideSubscriber<Parent: SideParent, Role>: Subscriber, DescribedByName {
    @usableFromInline
    package typealias Input = Parent.SideInput
    @usableFromInline
    package typealias Failure = Parent.SideFailure

    @usableFromInline
    package let parent: Parent
    @usableFromInline
    package let key: Parent.SideKey
    @usableFromInline
    package let combineIdentifier: CombineIdentifier

    /// A side with an identity of its own.
    @inlinable
    package init(parent: Parent, key: Parent.SideKey, role: Role.Type) {
        self.parent = parent
        self.key = key
        combineIdentifier = CombineIdentifier()
    }

    /// A side that shows its parent's identity (a concatenation's, a catch's).
    @inlinable
    package init(sharingIdentityOf parent: Parent, key: Parent.SideKey, role: Role.Type) {
        self.parent = parent
        self.key = key
        combineIdentifier = parent.combineIdentifier
    }

    @inlinable
    package func receive(subscription: Subscription) {
        parent.receive(subscription: subscription, from: key)
    }

    @inlinable
    package func receive(_ input: Input) -> Subscribers.Demand {
        parent.receive(input, from: key)
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
        parent.receive(completion: completion, from: key)
    }

    @usableFromInline
    package var description: String { parent.sideDescription }

    @usableFromInline
    package var customMirror: Mirror { Mirror(self, children: parent.sideMirrorChildren) }
}

extension SideSubscriber where Role == Void {
    /// A side with an identity of its own, of the operator's one side type.
    @inlinable
    package init(parent: Parent, key: Parent.SideKey) {
        self.init(parent: parent, key: key, role: Void.self)
    }

    /// A side that shows its parent's identity, of the operator's one side type.
    @inlinable
    package init(sharingIdentityOf parent: Parent, key: Parent.SideKey) {
        self.init(sharingIdentityOf: parent, key: key, role: Void.self)
    }
}
