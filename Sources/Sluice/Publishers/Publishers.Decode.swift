extension Publishers {
    /// A publisher that decodes elements received from an upstream publisher, using a given
    /// decoder.
    ///
    /// If decoding fails (malformed input, a missing key, a type mismatch), the upstream is
    /// cancelled and then the downstream receives the decoder's error.
    public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
        where Upstream.Output == Coder.Input
    {
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @usableFromInline
        internal let decoder: Coder

        /// Creates a publisher that decodes elements received from an upstream publisher, using
        /// the given decoder.
        @inlinable
        public init(upstream: Upstream, decoder: Coder) {
            self.upstream = upstream
            self.decoder = decoder
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Error {
            let decoder = self.decoder
            upstream.receive(subscriber: CodingSubscription<Upstream, S>(
                downstream: subscriber,
                name: "Decode",
                code: { try decoder.decode(Output.self, from: $0) }))
        }
    }
}

extension Publisher {
    /// Decodes the output from the upstream using a specified decoder.
    ///
    /// A decoding error cancels the upstream and fails the stream with that error.
    @inlinable
    public func decode<Item: Decodable, Coder: TopLevelDecoder>(
        type: Item.Type,
        decoder: Coder
    ) -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input {
        Publishers.Decode(upstream: self, decoder: decoder)
    }
}
