import Sluice

// MARK: - flatMapLatest (beyond Combine)

extension Publisher {
    /// Transforms each element into a publisher and republishes the elements of the most
    /// recent one only: `map(transform).switchToLatest()`, RxSwift's `flatMapLatest`.
    ///
    /// Each new element cancels the subscription to the publisher made from the previous one.
    @inlinable @_disfavoredOverload
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<P, Publishers.Map<Self, P>> where P.Failure == Failure
    {
        Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: self, transform: transform))
    }

    /// `flatMapLatest` for inner publishers that cannot fail: they are given this publisher's
    /// failure type.
    @inlinable @_disfavoredOverload
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<Publishers.SetFailureType<P, Failure>,
                                     Publishers.Map<Self, Publishers.SetFailureType<P, Failure>>>
        where P.Failure == Never
    {
        Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: self) {
            Publishers.SetFailureType(upstream: transform($0))
        })
    }
}

extension Publisher where Failure == Never {
    /// `flatMapLatest` for an upstream that cannot fail and inner publishers that can: the
    /// upstream is given their failure type.
    @inlinable @_disfavoredOverload
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<P, Publishers.Map<Publishers.SetFailureType<Self, P.Failure>, P>>
    {
        Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: Publishers.SetFailureType(upstream: self),
                                                           transform: transform))
    }

    /// `flatMapLatest` where neither the upstream nor the inner publishers can fail.
    @inlinable @_disfavoredOverload
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<P, Publishers.Map<Self, P>> where P.Failure == Never
    {
        Publishers.SwitchToLatest(upstream: Publishers.Map(upstream: self, transform: transform))
    }
}
