import Synchronization

/// A unique identifier for identifying publisher streams.
///
/// To conform to ``CustomCombineIdentifierConvertible`` in a subscription or subscriber that you
/// implement as a structure, create an instance of `CombineIdentifier` as follows:
///
///     let combineIdentifier = CombineIdentifier()
public struct CombineIdentifier: Hashable, CustomStringConvertible {
    @usableFromInline
    internal let rawValue: UInt64

    /// Creates a unique Combine identifier.
    @inlinable
    public init() {
        rawValue = combineIdentifierCounter.add(1, ordering: .relaxed).newValue
    }

    /// Creates a Combine identifier, using the bit pattern of the provided object.
    @inlinable
    public init(_ obj: AnyObject) {
        rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj)))
    }

    public var description: String {
        "0x" + String(rawValue, radix: 16)
    }

    @inlinable
    public static func == (lhs: CombineIdentifier, rhs: CombineIdentifier) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }
}

/// Identifiers made by `CombineIdentifier()` count up from here. Object identifiers are addresses,
/// which on every platform Sluice supports are far above this range, so the two never collide.
@usableFromInline
internal let combineIdentifierCounter = Atomic<UInt64>(0)

/// A protocol for uniquely identifying publisher streams.
public protocol CustomCombineIdentifierConvertible {
    /// A unique identifier for identifying publisher streams.
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    /// The identity of the object, as a Combine identifier.
    @inlinable
    public var combineIdentifier: CombineIdentifier {
        CombineIdentifier(self)
    }
}
