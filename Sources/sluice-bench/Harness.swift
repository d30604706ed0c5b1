import Foundation
import SluiceBenchSupport

/// One measured case: `run` performs `operations` operations; the harness times it repeatedly.
struct BenchCase {
    var name: String
    var unit: String
    var operations: Int
    var run: () -> Void
    /// The hand-written code doing the same work, run in the same process for the ratio.
    var baseline: Baseline?
    /// Count allocations per operation as well (single-threaded cases only).
    var countsAllocations = false
}

struct Baseline {
    var name: String
    var operations: Int
    var run: () -> Void
}

struct Measurement: Codable {
    var name: String
    var unit: String
    var medianNanoseconds: Double
    var minNanoseconds: Double
    var maxNanoseconds: Double
    var samples: Int
    var baseline: String?
    var baselineMedianNanoseconds: Double?
    var ratio: Double?
    var allocationsPerOperation: Double?
}

enum Harness {
    /// One timed run of `run`, in nanoseconds per operation.
    static func time(operations: Int, _ run: () -> Void) -> Double {
        let begin = DispatchTime.now().uptimeNanoseconds
        run()
        let end = DispatchTime.now().uptimeNanoseconds
        return Double(end - begin) / Double(operations)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// Times `run`, and `baseline` if there is one, in alternation: each round runs both, so
    /// that a slow phase of a shared machine slows both alike, and each round's ratio compares
    /// runs made moments apart. Stops once the median has been stable (within 3% over five
    /// consecutive rounds) or the time budget is spent.
    static func sample(operations: Int, baseline: Baseline?, budget: TimeInterval,
                       _ run: () -> Void) -> (samples: [Double], baselineSamples: [Double], ratios: [Double]) {
        run() // warm up: caches, lazy metadata, first allocations
        baseline?.run()
        var samples: [Double] = [], baselineSamples: [Double] = [], ratios: [Double] = []
        var medians: [Double] = []
        let start = Date()
        while samples.count < 41 {
            let sample = time(operations: operations, run)
            samples.append(sample)
            if let baseline {
                let baselineSample = time(operations: baseline.operations, baseline.run)
                baselineSamples.append(baselineSample)
                ratios.append(sample / baselineSample)
            }
            medians.append(median(samples))
            if samples.count >= 7 {
                let recent = medians.suffix(5)
                let spread = (recent.max()! - recent.min()!) / recent.min()!
                if spread < 0.03 { break }
            }
            if Date().timeIntervalSince(start) > budget && samples.count >= 5 { break }
        }
        return (samples, baselineSamples, ratios)
    }

    static func allocations(operations: Int, _ run: () -> Void) -> Double {
        run()
        let before = sluice_allocation_count()
        run()
        let after = sluice_allocation_count()
        return Double(after - before) / Double(operations)
    }

    static func measure(_ benchCase: BenchCase, budget: TimeInterval) -> Measurement {
        let result = sample(operations: benchCase.operations, baseline: benchCase.baseline, budget: budget, benchCase.run)
        var measurement = Measurement(name: benchCase.name, unit: benchCase.unit,
                                      medianNanoseconds: median(result.samples),
                                      minNanoseconds: result.samples.min()!, maxNanoseconds: result.samples.max()!,
                                      samples: result.samples.count)
        if let baseline = benchCase.baseline {
            measurement.baseline = baseline.name
            measurement.baselineMedianNanoseconds = median(result.baselineSamples)
            // The median of the rounds' ratios, each from two runs made moments apart.
            measurement.ratio = median(result.ratios)
        }
        if benchCase.countsAllocations {
            measurement.allocationsPerOperation = allocations(operations: benchCase.operations, benchCase.run)
        }
        return measurement
    }

    /// Nanoseconds to three significant figures or so.
    static func ns(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    static func format(_ m: Measurement) -> String {
        var line = m.name.padding(toLength: 50, withPad: " ", startingAt: 0)
        line += (ns(m.medianNanoseconds) + " ns/" + m.unit).padding(toLength: 24, withPad: " ", startingAt: 0)
        line += "[\(ns(m.minNanoseconds))–\(ns(m.maxNanoseconds))]".padding(toLength: 18, withPad: " ", startingAt: 0)
        if let ratio = m.ratio, let base = m.baselineMedianNanoseconds {
            line += String(format: "%5.1f× ", ratio) + "\(m.baseline ?? "") (\(ns(base)) ns)"
        }
        if let allocations = m.allocationsPerOperation {
            line += String(format: "  %.2f allocs/%@", allocations, m.unit)
        }
        return line
    }

    /// The results as a Markdown table, for the README.
    static func markdownTable(_ results: [Measurement]) -> String {
        var lines = ["| case | median | min–max | baseline | ratio | allocations |",
                     "| --- | ---: | ---: | --- | ---: | ---: |"]
        for m in results {
            let baseline = m.baselineMedianNanoseconds.map { "\(m.baseline ?? "") (\(ns($0)) ns)" } ?? ""
            let ratio = m.ratio.map { String(format: "%.1f×", $0) } ?? ""
            let allocations = m.allocationsPerOperation.map { String(format: "%.2f per %@", $0, m.unit) } ?? ""
            lines.append("| \(m.name) | \(ns(m.medianNanoseconds)) ns per \(m.unit) | \(ns(m.minNanoseconds))–\(ns(m.maxNanoseconds)) | \(baseline) | \(ratio) | \(allocations) |")
        }
        return lines.joined(separator: "\n")
    }
}
