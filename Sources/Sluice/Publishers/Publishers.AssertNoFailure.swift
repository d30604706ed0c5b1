extension Publishers {
    /// A publisher that raises a fatal error upon receiving any failure, and otherwise
    /// republishes all received input.
    ///
    /// Use it for internal integrity checks that are active during testing. It also lets a
    /// stream that cannot fail in practice be used where `Failure == Never` is required.
    public struct AssertNoFailure<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Never

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The string used at the beginning of the fatal error message.
        public let prefix: String

        /// The filename used in the error message.
        public let file: StaticString

        /// The line number used in the error message.
        public let line: UInt

        /// Creates a publisher that passes through elements from the upstream publisher, and
        /// stops the program if the upstream fails.
        @inlinable
        public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
            self.upstream = upstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.receive(subscriber: Inner(downstream: subscriber, prefix: prefix, file: file, line: line))
        }
    }
}

extension Publishers.AssertNoFailure {
    /// Passes the upstream's subscription, values and finish straight through; a failure stops
    /// the program with `"<prefix>: <error>"` (just the error when the prefix is empty).
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: PassThroughSubscriber
        where Downstream.Input == Upstream.Output, Downstream.Failure == Never
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let prefix: String
        @usableFromInline
        internal let file: StaticString
        @usableFromInline
        internal let line: UInt
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream, prefix: String, file: StaticString, line: UInt) {
            self.downstream = downstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            switch completion {
            case .finished:
                downstream.receive(completion: .finished)
            case .failure(let error):
                fatalError(prefix.isEmpty ? "\(error)" : "\(prefix): \(error)", file: file, line: line)
            }
        }

        @usableFromInline
        internal var description: String { "AssertNoFailure" }

        @usableFromInline
        internal var customMirror: Mirror {
            Mirror(self, children: ["file": file, "line": line, "prefix": prefix])
        }
    }
}

extension Publisher {
    /// Raises a fatal error when its upstream publisher fails, and otherwise republishes all
    /// received input.
    ///
    /// The message is `"<prefix>: <error>"`, or just the error when `prefix` is empty, reported
    /// at `file` and `line`.
    @inlinable
    public func assertNoFailure(
        _ prefix: String = "",
        file: StaticString = #file,
        line: UInt = #line
    ) -> Publishers.AssertNoFailure<Self> {
        Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
    }
}
