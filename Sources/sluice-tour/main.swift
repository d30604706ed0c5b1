import Foundation

// sluice-tour: every behaviour the seeds describe, run live on this machine, with a verdict.
//
//   swift run sluice-tour [--list] [--only NAME]... [--html FILE]

var only: [String] = []
var htmlPath: String?
var listOnly = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--only": if let name = arguments.next() { only.append(name) }
    case "--html": htmlPath = arguments.next()
    case "--list": listOnly = true
    case "--child":
        switch arguments.next() {
        case "isolation-crash": runIsolationCrash()
        case let name? where name.hasPrefix("rx-"): runRxChild(name)
        default: exit(64)
        }
    case "--help", "-h":
        print("usage: sluice-tour [--list] [--only NAME]... [--html FILE]")
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument); try --help\n".utf8))
        exit(64)
    }
}

let catalogue = seed000Scenarios() + seed001Scenarios() + seed003Scenarios() + seed004Scenarios()
    + seed002RxScenarios() + seed004RxScenarios()

if listOnly {
    for scenario in catalogue {
        print(scenario.id.padding(toLength: 28, withPad: " ", startingAt: 0) + "seed \(scenario.seed)  \(scenario.claim)")
    }
    exit(0)
}

let selected = only.isEmpty ? catalogue : catalogue.filter { only.contains($0.id) }
if selected.isEmpty {
    FileHandle.standardError.write(Data("no scenario named \(only); see --list\n".utf8))
    exit(64)
}

let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)"
print("Sluice scheduler tour: \(selected.count) claims from the seeds, run live (\(machine))\n")
var results: [Result] = []
for scenario in selected {
    let start = Date()
    let outcome = scenario.run()
    results.append(Result(scenario: scenario, outcome: outcome, seconds: Date().timeIntervalSince(start)))
}
print(Report.table(results))
let held = results.filter(\.outcome.holds).count
print("\n\(held) of \(results.count) claims hold.")
if let htmlPath {
    do {
        try Report.html(results, machine: machine).write(toFile: htmlPath, atomically: true, encoding: .utf8)
        print("wrote \(htmlPath)")
    } catch {
        FileHandle.standardError.write(Data("could not write \(htmlPath): \(error)\n".utf8))
        exit(1)
    }
}
exit(held == results.count ? 0 : 1)
