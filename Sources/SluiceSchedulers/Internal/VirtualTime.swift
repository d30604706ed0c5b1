import Sluice

/// Converts between scheduler strides and `Duration`, for any scheduler's time type.
///
/// Strides only promise `Comparable`, `SignedNumeric` and the `.nanoseconds(_:)`-style
/// constructors, so a stride is measured by finding the nanosecond count whose stride is
/// nearest to it: exact for integer-nanosecond strides such as Dispatch's, and rounded to the
/// microsecond for `TimeInterval`-based ones such as RunLoop's, whose `Date` clocks cannot hold
/// nanoseconds.
package enum VirtualTime {
    package static func duration<S: Comparable & SignedNumeric & SchedulerTimeIntervalConvertible>(of stride: S) -> Duration {
        if stride < .zero { return .zero - duration(of: .zero - stride) }
        var high = 1
        while S.nanoseconds(high) <= stride && high < (1 << 62) { high <<= 1 }
        var low = 0                                    // invariant: .nanoseconds(low) <= stride
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if S.nanoseconds(middle) <= stride { low = middle } else { high = middle }
        }
        let below = stride - S.nanoseconds(low)
        let above = S.nanoseconds(low + 1) - stride
        let nanoseconds = above < below ? low + 1 : low
        // A floating-point stride (RunLoop's and OperationQueue's, whose clocks are Dates) loses
        // about a tenth of a microsecond at today's dates: round it to the microsecond.
        if isFloatingPoint(S.self) {
            return .microseconds((nanoseconds + 500) / 1_000)
        }
        return .nanoseconds(nanoseconds)
    }

    /// Whether the stride type rounds like floating point (0.1 s + 0.2 s ≠ 0.3 s).
    package static func isFloatingPoint<S: SignedNumeric & SchedulerTimeIntervalConvertible>(_: S.Type) -> Bool {
        S.milliseconds(100) + S.milliseconds(200) != S.milliseconds(300)
    }

    package static func stride<S: SchedulerTimeIntervalConvertible>(of duration: Duration) -> S {
        .nanoseconds(nanoseconds(duration))
    }

    package static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    /// `0`, `300 ms`, `1.5 s`, `250 µs`, `7 ns`: the largest unit the time reaches, with exact
    /// decimals.
    package static func format(_ duration: Duration) -> String {
        let ns = nanoseconds(duration)
        if ns == 0 { return "0" }
        let sign = ns < 0 ? "-" : ""
        let magnitude = ns.magnitude
        let units: [(UInt, String, Int)] = [(1_000_000_000, "s", 9), (1_000_000, "ms", 6), (1_000, "µs", 3), (1, "ns", 0)]
        let (unit, name, digits) = units.first { magnitude >= $0.0 }!
        var fraction = String(magnitude % unit)
        fraction = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let whole = "\(sign)\(magnitude / unit)"
        return fraction.isEmpty ? "\(whole) \(name)" : "\(whole).\(fraction) \(name)"
    }
}
