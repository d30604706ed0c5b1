import XCTest
import Foundation

/// Runs each seed's code blocks, assembled as a program exactly as the seed says to paste them,
/// and turns every seed assertion that failed into a test failure at its line.
final class SeedProgramTests: XCTestCase {
    func testSeed000SchedulersReceiveOnAndSubscribeOn() throws {
        try runSeedProgram("seed-000")
    }

    /// Some of a seed's claims are races that Combine wins by timing too (a value sent right after
    /// `subscribe(on:)` is lost because the subscription has not been made yet); on a loaded
    /// two-core machine the other thread occasionally wins. A program gets three attempts, and
    /// the last attempt's failures are reported. The same claims are tested deterministically
    /// in the unit tests.
    private func runSeedProgram(_ name: String, attempts: Int = 3, file: StaticString = #filePath,
                                line: UInt = #line) throws {
        var outcome = try launch(name, file: file, line: line)
        var attempt = 1
        while outcome?.passed == false && attempt < attempts {
            attempt += 1
            outcome = try launch(name, file: file, line: line)
        }
        guard let outcome, !outcome.passed else { return }
        for failure in outcome.output.split(separator: "\n") where failure.hasPrefix("SEED ASSERTION FAILED") {
            XCTFail("\(name) (attempt \(attempt)): \(failure)", file: file, line: line)
        }
        XCTAssertTrue(outcome.output.contains("SEED PASSED"), "\(name) did not finish:\n\(outcome.output)", file: file, line: line)
        XCTAssertEqual(outcome.status, 0, "\(name) exited with \(outcome.status):\n\(outcome.output)",
                       file: file, line: line)
    }

    private func launch(_ name: String, file: StaticString, line: UInt) throws
        -> (passed: Bool, output: String, status: Int32)?
    {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory.appendingPathComponent(name),
                          directory.deletingLastPathComponent().appendingPathComponent(name)]
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            XCTFail("\(name) was not built next to the test bundle (\(directory.path))", file: file, line: line)
            return nil
        }
        let process = Process()
        process.executableURL = executable
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        var environment = ProcessInfo.processInfo.environment
        environment["SEED_TIME_SCALE"] = environment["SEED_TIME_SCALE"] ?? "3"
        process.environment = environment
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let passed = text.contains("SEED PASSED") && process.terminationStatus == 0
        return (passed, text, process.terminationStatus)
    }
}
