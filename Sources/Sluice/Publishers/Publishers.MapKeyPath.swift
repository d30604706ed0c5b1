extension Publishers {
    /// A publisher that publishes the value of a key path.
    ///
    /// The upstream's subscription is passed straight through to the downstream.
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath: KeyPath<Upstream.Output, Output>

        // Combine has no public initialiser; `map(_:)` builds it.
        @inlinable
        internal init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.upstream = upstream
            self.keyPath = keyPath
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: KeyPathsInner<_, Failure, S>(downstream: subscriber, reader: keyPath))
        }
    }

    /// A publisher that publishes the values of two key paths as a tuple.
    ///
    /// The upstream's subscription is passed straight through to the downstream.
    public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
        public typealias Output = (Output0, Output1)
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of a second property to publish.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        @inlinable
        internal init(
            upstream: Upstream,
            keyPath0: KeyPath<Upstream.Output, Output0>,
            keyPath1: KeyPath<Upstream.Output, Output1>
        ) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: KeyPathsInner<_, Failure, S>(
                downstream: subscriber, reader: KeyPathPair(keyPath0, keyPath1)))
        }
    }

    /// A publisher that publishes the values of three key paths as a tuple.
    ///
    /// The upstream's subscription is passed straight through to the downstream.
    public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
        public typealias Output = (Output0, Output1, Output2)
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property to publish.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of a second property to publish.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// The key path of a third property to publish.
        public let keyPath2: KeyPath<Upstream.Output, Output2>

        @inlinable
        internal init(
            upstream: Upstream,
            keyPath0: KeyPath<Upstream.Output, Output0>,
            keyPath1: KeyPath<Upstream.Output, Output1>,
            keyPath2: KeyPath<Upstream.Output, Output2>
        ) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
            self.keyPath2 = keyPath2
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: KeyPathsInner<_, Failure, S>(
                downstream: subscriber, reader: KeyPathTriple(keyPath0, keyPath1, keyPath2)))
        }
    }
}

/// What a `map` over key paths reads from each value: one key path, or two or three into a
/// tuple. One subscriber (``KeyPathsInner``) serves all three publishers.
@usableFromInline
internal protocol KeyPathReader {
    associatedtype Root
    associatedtype Value
    func read(_ root: Root) -> Value
    /// The subscriber's description, as Combine's.
    static var name: String { get }
    /// The subscriber's mirror, as Combine's.
    var mirrorChildren: KeyValuePairs<String, Any> { get }
}

extension KeyPath: KeyPathReader {
    @inlinable
    internal func read(_ root: Root) -> Value { root[keyPath: self] }

    @inlinable
    internal static var name: String { "ValueForKey" }

    @inlinable
    internal var mirrorChildren: KeyValuePairs<String, Any> { ["keyPath": self] }
}

/// `map(_:_:)`'s key paths.
@usableFromInline
internal struct KeyPathPair<Root, Value0, Value1>: KeyPathReader {
    @usableFromInline
    internal let keyPath0: KeyPath<Root, Value0>
    @usableFromInline
    internal let keyPath1: KeyPath<Root, Value1>

    @inlinable
    internal init(_ keyPath0: KeyPath<Root, Value0>, _ keyPath1: KeyPath<Root, Value1>) {
        self.keyPath0 = keyPath0
        self.keyPath1 = keyPath1
    }

    @inlinable
    internal func read(_ root: Root) -> (Value0, Value1) {
        (root[keyPath: keyPath0], root[keyPath: keyPath1])
    }

    @inlinable
    internal static var name: String { "ValueForKeys" }

    @inlinable
    internal var mirrorChildren: KeyValuePairs<String, Any> { ["keyPath0": keyPath0, "keyPath1": keyPath1] }
}

/// `map(_:_:_:)`'s key paths.
@usableFromInline
internal struct KeyPathTriple<Root, Value0, Value1, Value2>: KeyPathReader {
    @usableFromInline
    internal let pair: KeyPathPair<Root, Value0, Value1>
    @usableFromInline
    internal let keyPath2: KeyPath<Root, Value2>

    @inlinable
    internal init(_ keyPath0: KeyPath<Root, Value0>, _ keyPath1: KeyPath<Root, Value1>,
                  _ keyPath2: KeyPath<Root, Value2>) {
        pair = KeyPathPair(keyPath0, keyPath1)
        self.keyPath2 = keyPath2
    }

    @inlinable
    internal func read(_ root: Root) -> (Value0, Value1, Value2) {
        let (value0, value1) = pair.read(root)
        return (value0, value1, root[keyPath: keyPath2])
    }

    @inlinable
    internal static var name: String { "ValueForKeys" }

    @inlinable
    internal var mirrorChildren: KeyValuePairs<String, Any> {
        ["keyPath0": pair.keyPath0, "keyPath1": pair.keyPath1, "keyPath2": keyPath2]
    }
}

/// Reads the key paths from each value and passes the upstream's subscription straight through,
/// for `MapKeyPath`, `MapKeyPath2` and `MapKeyPath3`.
@usableFromInline
internal struct KeyPathsInner<Reader: KeyPathReader, Failure: Error, Downstream: Subscriber>: PassThroughSubscriber
    where Downstream.Input == Reader.Value, Downstream.Failure == Failure
{
    @usableFromInline
    internal typealias Input = Reader.Root

    @usableFromInline
    internal let downstream: Downstream
    @usableFromInline
    internal let reader: Reader
    @usableFromInline
    internal let combineIdentifier = CombineIdentifier()

    @inlinable
    internal init(downstream: Downstream, reader: Reader) {
        self.downstream = downstream
        self.reader = reader
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(reader.read(input))
    }

    @usableFromInline
    internal var description: String { Reader.name }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: reader.mirrorChildren) }
}

extension Publisher {
    /// Publishes the value of a key path.
    @inlinable
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
        Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
    }

    /// Publishes the values of two key paths as a tuple.
    @inlinable
    public func map<T0, T1>(
        _ keyPath0: KeyPath<Output, T0>,
        _ keyPath1: KeyPath<Output, T1>
    ) -> Publishers.MapKeyPath2<Self, T0, T1> {
        Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
    }

    /// Publishes the values of three key paths as a tuple.
    @inlinable
    public func map<T0, T1, T2>(
        _ keyPath0: KeyPath<Output, T0>,
        _ keyPath1: KeyPath<Output, T1>,
        _ keyPath2: KeyPath<Output, T2>
    ) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
        Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
    }
}
