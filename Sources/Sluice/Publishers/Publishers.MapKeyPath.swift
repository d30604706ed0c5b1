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
            upstream.receive(subscriber: Inner(downstream: subscriber, keyPath: keyPath))
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
            upstream.receive(subscriber: Inner(downstream: subscriber, keyPath0: keyPath0, keyPath1: keyPath1))
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
            upstream.receive(subscriber: Inner(
                downstream: subscriber, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2))
        }
    }
}

extension Publishers.MapKeyPath {
    /// Reads the key path and passes the upstream's subscription straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, DescribedByName
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let keyPath: KeyPath<Upstream.Output, Output>
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.downstream = downstream
            self.keyPath = keyPath
        }

        @inlinable
        internal func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(input[keyPath: keyPath])
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline
        internal var description: String { "ValueForKey" }

        @usableFromInline
        internal var customMirror: Mirror { Mirror(self, children: ["keyPath": keyPath]) }
    }
}

extension Publishers.MapKeyPath2 {
    /// Reads both key paths and passes the upstream's subscription straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, DescribedByName
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let keyPath0: KeyPath<Upstream.Output, Output0>
        @usableFromInline
        internal let keyPath1: KeyPath<Upstream.Output, Output1>
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(
            downstream: Downstream,
            keyPath0: KeyPath<Upstream.Output, Output0>,
            keyPath1: KeyPath<Upstream.Output, Output1>
        ) {
            self.downstream = downstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
        }

        @inlinable
        internal func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive((input[keyPath: keyPath0], input[keyPath: keyPath1]))
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline
        internal var description: String { "ValueForKeys" }

        @usableFromInline
        internal var customMirror: Mirror {
            Mirror(self, children: ["keyPath0": keyPath0, "keyPath1": keyPath1])
        }
    }
}

extension Publishers.MapKeyPath3 {
    /// Reads the three key paths and passes the upstream's subscription straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, DescribedByName
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let keyPath0: KeyPath<Upstream.Output, Output0>
        @usableFromInline
        internal let keyPath1: KeyPath<Upstream.Output, Output1>
        @usableFromInline
        internal let keyPath2: KeyPath<Upstream.Output, Output2>
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(
            downstream: Downstream,
            keyPath0: KeyPath<Upstream.Output, Output0>,
            keyPath1: KeyPath<Upstream.Output, Output1>,
            keyPath2: KeyPath<Upstream.Output, Output2>
        ) {
            self.downstream = downstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
            self.keyPath2 = keyPath2
        }

        @inlinable
        internal func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive((input[keyPath: keyPath0], input[keyPath: keyPath1], input[keyPath: keyPath2]))
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline
        internal var description: String { "ValueForKeys" }

        @usableFromInline
        internal var customMirror: Mirror {
            Mirror(self, children: ["keyPath0": keyPath0, "keyPath1": keyPath1, "keyPath2": keyPath2])
        }
    }
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
