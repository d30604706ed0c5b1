#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Publishers {
    /// A publisher that raises a debugger signal when a provided closure needs to stop the
    /// process in the debugger.
    ///
    /// When any of the provided closures returns `true`, this publisher raises `SIGTRAP` to stop
    /// the process in the debugger (without a debugger attached, the process terminates).
    /// Otherwise, it republishes all elements and completions unchanged, passing the upstream's
    /// subscription straight through.
    public struct Breakpoint<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that executes when the publisher receives a subscription, and can raise a
        /// debugger signal by returning `true`.
        public let receiveSubscription: ((Subscription) -> Bool)?

        /// A closure that executes when the publisher receives output from the upstream
        /// publisher, and can raise a debugger signal by returning `true`.
        public let receiveOutput: ((Upstream.Output) -> Bool)?

        /// A closure that executes when the publisher receives completion, and can raise a
        /// debugger signal by returning `true`.
        public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

        /// Creates a breakpoint publisher with the provided upstream publisher and breakpoint
        /// closures.
        @inlinable
        public init(
            upstream: Upstream,
            receiveSubscription: ((Subscription) -> Bool)? = nil,
            receiveOutput: ((Upstream.Output) -> Bool)? = nil,
            receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)? = nil
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, breakpoint: self))
        }
    }
}

extension Publishers.Breakpoint {
    /// Checks each signal against the breakpoint closures, then passes it straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: Subscriber, DescribedByName
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let receiveSubscription: ((Subscription) -> Bool)?
        @usableFromInline
        internal let receiveOutput: ((Upstream.Output) -> Bool)?
        @usableFromInline
        internal let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream, breakpoint: Publishers.Breakpoint<Upstream>) {
            self.downstream = downstream
            receiveSubscription = breakpoint.receiveSubscription
            receiveOutput = breakpoint.receiveOutput
            receiveCompletion = breakpoint.receiveCompletion
        }

        @inlinable
        internal func receive(subscription: Subscription) {
            if receiveSubscription?(subscription) == true {
                raiseBreakpointSignal()
            }
            downstream.receive(subscription: subscription)
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            if receiveOutput?(input) == true {
                raiseBreakpointSignal()
            }
            return downstream.receive(input)
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            if receiveCompletion?(completion) == true {
                raiseBreakpointSignal()
            }
            downstream.receive(completion: completion)
        }

        @usableFromInline
        internal var description: String { "Breakpoint" }

        @usableFromInline
        internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    }
}

/// Stops in the debugger, as Combine's breakpoint does: `SIGTRAP`; without a debugger the
/// process ends with that signal.
///
/// On Linux the Swift runtime's backtracer handles `SIGTRAP`: it prints its crash report and
/// returns, and the program would carry on. So unless a debugger is attached (it stopped at the
/// signal, and whoever continued chose to), the signal is raised again with its default action,
/// which ends the process as it ends on Apple platforms.
@usableFromInline
internal func raiseBreakpointSignal() {
    raise(SIGTRAP)
    #if os(Linux)
    if !debuggerIsAttached() {
        signal(SIGTRAP, SIG_DFL)
        raise(SIGTRAP)
    }
    #endif
}

#if os(Linux)
/// Whether a tracer (a debugger) is attached: `/proc/self/status` names its process id.
internal func debuggerIsAttached() -> Bool {
    guard let file = fopen("/proc/self/status", "r") else { return false }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(cString: line)
        if text.hasPrefix("TracerPid:") {
            let pid = text.dropFirst("TracerPid:".count).filter(\.isNumber)
            return (Int(pid) ?? 0) != 0
        }
    }
    return false
}
#endif

extension Publisher {
    /// Raises a debugger signal when a provided closure needs to stop the process in the
    /// debugger.
    ///
    /// When any of the provided closures returns `true`, this publisher raises `SIGTRAP`; without
    /// a debugger attached that terminates the process.
    @inlinable
    public func breakpoint(
        receiveSubscription: ((Subscription) -> Bool)? = nil,
        receiveOutput: ((Output) -> Bool)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
    ) -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(
            upstream: self,
            receiveSubscription: receiveSubscription,
            receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion)
    }

    /// Raises a debugger signal upon receiving a failure.
    ///
    /// A normal finish and all values pass through without stopping.
    @inlinable
    public func breakpointOnError() -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(upstream: self, receiveCompletion: { completion in
            if case .failure = completion { return true }
            return false
        })
    }
}
