import Foundation

// sluice-tour: behaviours of Combine's API, its schedulers and RxSwift's spellings, each run
// live on this machine, shown with the code it runs, the result, a verdict and why.
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

let catalogue = threadsAndHopsScenarios() + timeScenarios() + sharingScenarios() + mainThreadScenarios()
    + rxSpellingScenarios()

if listOnly {
    for scenario in catalogue {
        print(scenario.id.padding(toLength: 27, withPad: " ", startingAt: 0)
              + scenario.topic.name.padding(toLength: 13, withPad: " ", startingAt: 0) + scenario.title)
    }
    exit(0)
}

let selected = only.isEmpty ? catalogue : catalogue.filter { only.contains($0.id) }
if selected.isEmpty {
    FileHandle.standardError.write(Data("no scenario named \(only); see --list\n".utf8))
    exit(64)
}

let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)"
print("Sluice tour: \(selected.count) \(selected.count == 1 ? "behaviour" : "behaviours"), run live on this machine (\(machine))")
print("Each shows the code it runs, the result here, the verdict and why. Run one alone: --only ID.")
var results: [Result] = []
var topic: Topic?
for scenario in selected {
    if scenario.topic != topic {
        topic = scenario.topic
        print(Report.heading(scenario.topic))
    }
    let start = Date()
    let outcome = scenario.run()
    let result = Result(scenario: scenario, outcome: outcome, seconds: Date().timeIntervalSince(start))
    results.append(result)
    print(Report.block(result))
}
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
