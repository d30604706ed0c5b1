import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

/// An upstream that breaks the contract on purpose (``TestPublisher``): it sends after its
/// completion, completes twice, and hands over a second subscription. Every operator with a
/// subscription of its own ignores the excess (Combine's operators either ignore it or stop the
/// program; Sluice's ignore it) and never forwards it downstream. The stateless forwarders
/// (`map`, `filter`, ...) pass everything on, as Combine's do, so they are left out.
@Suite("Misbehaving upstreams, for every operator")
struct MisbehavingUpstreamTests {
    static let cases = OperatorCatalogue.all.filter {
        $0.traits.isDisjoint(with: [.source, .statelessForwarder])
    }

    @Test(arguments: cases)
    func valuesAndCompletionsAfterTheCompletionGoNowhere(_ operatorCase: OperatorCase) {
        operatorCase.apply(SignalsAfterCompletion())
    }

    @Test(arguments: cases)
    func aSecondSubscriptionIsCancelledAndNotPassedOn(_ operatorCase: OperatorCase) {
        operatorCase.apply(SecondSubscription())
    }

    /// The operators that keep values for their downstream (buffers, joins, hops that count)
    /// never exceed its demand, even when the upstream sends without any.
    @Test(arguments: cases.filter { boundsDemand.contains($0.name) })
    func valuesSentWithoutDemandNeverExceedTheDownstreamsDemand(_ operatorCase: OperatorCase) {
        operatorCase.apply(ValuesBeyondDemand())
    }

    static let boundsDemand: Set<String> = [
        "flatMap", "flatMap(maxPublishers: .max(1))", "buffer(byRequest, dropNewest)", "buffer(keepFull, dropOldest)",
        "collect(byTime)", "collect(byTimeOrCount)", "zip", "zip3", "combineLatest", "combineLatest(transform)",
        "merge", "merge(with: Self)", "MergeMany", "share", "share(replay:)", "multicast.autoconnect",
    ]
}

struct SignalsAfterCompletion: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let upstream = TestPublisher<Int, TestError>()
        let (subscriber, scheduler) = operatorCase.subscribed(to: upstream)
        upstream.send(1)
        upstream.send(completion: .finished)
        settle(scheduler)
        let atCompletion = subscriber.events.count
        upstream.send(2)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError(code: 5)))
        upstream.send(3)
        settle(scheduler)
        if subscriber.completion != nil {
            #expect(subscriber.events.count == atCompletion,
                    "\(operatorCase.name): forwarded \(subscriber.events.dropFirst(atCompletion)) after the completion")
        }
        expectWellFormed(subscriber, operatorCase.name)
    }
}

struct SecondSubscription: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let upstream = TestPublisher<Int, TestError>()
        let (subscriber, scheduler) = operatorCase.subscribed(to: upstream)
        guard upstream.subscriptionCount == 1 else { return }   // a source that never subscribed
        upstream.sendSubscription()
        settle(scheduler)
        #expect(subscriber.subscriptionNames.count <= 1,
                "\(operatorCase.name): passed on \(subscriber.subscriptionNames.count) subscriptions")
        #expect(upstream.demandLog.contains(.cancelled),
                "\(operatorCase.name): the second subscription was not cancelled: \(upstream.demandLog)")
        expectWellFormed(subscriber, operatorCase.name)
    }
}

struct ValuesBeyondDemand: ContractCheck {
    func run<P: Publisher>(_ operatorCase: OperatorCase.Built<P>) {
        let upstream = TestPublisher<Int, TestError>()
        let (subscriber, scheduler) = operatorCase.subscribed(to: upstream, demand: .max(2))
        for value in 0..<20 { upstream.send(value) }
        settle(scheduler)
        #expect(subscriber.values.count <= 2, "\(operatorCase.name): \(subscriber.values.count) values for a demand of 2")
        subscriber.request(.max(1))
        settle(scheduler)
        #expect(subscriber.values.count <= 3, "\(operatorCase.name): \(subscriber.values.count) values for a demand of 3")
        expectWellFormed(subscriber, operatorCase.name)
    }
}
