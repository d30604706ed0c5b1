import Foundation

// sluice-bench: each case runs beside a hand-written baseline in the same process; the ratio
// is what to read on a shared, noisy machine.
//
//   swift run -c release sluice-bench [--filter NAME]... [--json FILE] [--markdown] [--list] [--budget SECONDS]
//   swift run -c release sluice-bench --allocations
//
// --markdown also prints the results as the table the README shows. --allocations counts the
// allocations per value through each synchronous operator instead (AllocationSweep.swift).

var filters: [String] = []
var jsonPath: String?
var budget: TimeInterval = 2
var listOnly = false
var markdown = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--filter": if let value = arguments.next() { filters.append(value.lowercased()) }
    case "--json": jsonPath = arguments.next()
    case "--budget": budget = arguments.next().flatMap(TimeInterval.init) ?? budget
    case "--list": listOnly = true
    case "--markdown": markdown = true
    case "--allocations": exit(runAllocationSweep() ? 0 : 1)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

let selected = allCases().filter { benchCase in
    filters.isEmpty || filters.contains { benchCase.name.lowercased().contains($0) }
}
if listOnly {
    selected.forEach { print($0.name) }
    exit(0)
}

#if DEBUG
print("warning: a debug build; measure with `swift run -c release sluice-bench`")
#endif
print("case".padding(toLength: 50, withPad: " ", startingAt: 0) + "median".padding(toLength: 24, withPad: " ", startingAt: 0)
      + "[min–max]".padding(toLength: 18, withPad: " ", startingAt: 0) + "ratio to baseline")
var results: [Measurement] = []
for benchCase in selected {
    let measurement = Harness.measure(benchCase, budget: budget)
    results.append(measurement)
    print(Harness.format(measurement))
}
if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(results).write(to: URL(fileURLWithPath: jsonPath))
}
if markdown {
    print()
    print(Harness.markdownTable(results))
}
