import Foundation

/// A decoded thumbnail: the image's file URL and its size in pixels.
public struct Thumbnail: Equatable, Sendable, CustomStringConvertible {
    /// A size in pixels.
    public struct PixelSize: Equatable, Sendable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int

        /// A size of `width` × `height` pixels.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// The image file.
    public var url: URL
    /// The image's size, or `nil` when the file could not be read as an image.
    public var pixelSize: PixelSize?

    /// A thumbnail for `url` of `pixelSize`.
    public init(url: URL, pixelSize: PixelSize?) {
        self.url = url
        self.pixelSize = pixelSize
    }

    /// `name.png 640×480`, or `name.png unreadable`.
    public var description: String {
        "\(url.lastPathComponent) " + (pixelSize.map { "\($0.width)×\($0.height)" } ?? "unreadable")
    }

    /// The default decoder: reads a PNG file's header for its size. Synchronous, blocking file
    /// I/O standing in for a full decode: the loader runs it on its decode queue, never on the
    /// main thread.
    @Sendable
    public static func decodePNGHeader(at url: URL) -> Thumbnail {
        // A PNG starts with an 8-byte signature and then the IHDR chunk: length (4), type (4),
        // width (4, big-endian), height (4, big-endian).
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard let handle = try? FileHandle(forReadingFrom: url) else { return Thumbnail(url: url, pixelSize: nil) }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 24), data.count == 24 else {
            return Thumbnail(url: url, pixelSize: nil)
        }
        let bytes = [UInt8](data)
        guard Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return Thumbnail(url: url, pixelSize: nil)
        }
        func bigEndian(at offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return Thumbnail(url: url, pixelSize: PixelSize(width: bigEndian(at: 16), height: bigEndian(at: 20)))
    }
}
