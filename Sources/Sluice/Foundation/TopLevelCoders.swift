// FoundationEssentials where it exists (Linux, swift-foundation): it holds the coders without the
// rest of Foundation, and `Foundation` re-exports the very same classes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type that defines methods for encoding, used by `encode(encoder:)`.
///
/// `JSONEncoder` and `PropertyListEncoder` conform, as in Combine.
public protocol TopLevelEncoder {
    /// The type this encoder produces.
    associatedtype Output

    /// Encodes an instance of the indicated type.
    func encode<T: Encodable>(_ value: T) throws -> Output
}

/// A type that defines methods for decoding, used by `decode(type:decoder:)`.
///
/// `JSONDecoder` and `PropertyListDecoder` conform, as in Combine.
public protocol TopLevelDecoder {
    /// The type this decoder accepts.
    associatedtype Input

    /// Decodes an instance of the indicated type.
    func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}

extension JSONEncoder: TopLevelEncoder {}

extension JSONDecoder: TopLevelDecoder {}

extension PropertyListEncoder: TopLevelEncoder {}

extension PropertyListDecoder: TopLevelDecoder {}
