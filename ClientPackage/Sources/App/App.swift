// The README's cross-platform target: `import Combine` is Sluice on Linux and Apple's framework
// on Apple platforms; SluiceSchedulers is imported only where it is a dependency.
import Combine
import Foundation
#if !canImport(Darwin)
import SluiceSchedulers
#endif

/// A model written once for both platforms, its scheduler injected.
public final class Ticker {
    public let ticks = PassthroughSubject<Int, Never>()
    private var cancellable: AnyCancellable?

    #if !canImport(Darwin)
    public init(scheduler: AnySchedulerOf<DispatchQueue>) {
        cancellable = scheduler.timerPublisher(every: .seconds(1)).autoconnect()
            .scan(0) { count, _ in count + 1 }
            .sink { [ticks] in ticks.send($0) }
    }
    #endif
}
