import Sluice

/// A place in the source: the file and line a subscriber or a diagnostic operator was created
/// at, captured with `#fileID` and `#line` at the call.
///
/// Capturing it costs two stores (a static string and an integer), against the microseconds
/// that `Thread.callStackSymbols` takes (`sluice-bench sites` measures both).
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
    /// The file, as `#fileID` spells it (`Module/File.swift`).
    public let fileID: StaticString
    /// The line.
    public let line: UInt

    /// Captures the caller's site, or a given one.
    @inlinable
    public init(fileID: StaticString = #fileID, line: UInt = #line) {
        self.fileID = fileID
        self.line = line
    }

    /// The site a tracked subscriber recorded.
    @inlinable
    internal init(_ site: SubscriberSite) {
        self.init(fileID: site.fileID, line: site.line)
    }

    /// The form Sluice's subscribers record.
    @inlinable
    internal var subscriberSite: SubscriberSite { SubscriberSite(fileID: fileID, line: line) }

    /// `Module/File.swift:42`.
    public var description: String { "\(fileID):\(line)" }

    public static func == (lhs: CallSite, rhs: CallSite) -> Bool {
        lhs.line == rhs.line && lhs.fileID.description == rhs.fileID.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fileID.description)
        hasher.combine(line)
    }
}
