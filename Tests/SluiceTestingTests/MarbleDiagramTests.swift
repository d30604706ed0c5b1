import Testing
import Foundation
import Sluice
import SluiceExtras
import SluiceSchedulers
import SluiceTesting

struct Boom: Error, Equatable, CustomStringConvertible {
    var code = 1
    var description: String { "Boom(\(code))" }
}

@Suite("Marble diagram parsing")
struct MarbleDiagramTests {
    typealias Diagram = MarbleDiagram<Int, Boom>

    private func summary(_ diagram: Diagram) -> [String] {
        diagram.events.map { event in
            switch event.kind {
            case .value(let value): return "\(event.tick):\(value)"
            case .finished: return "\(event.tick):|"
            case .failure(let error): return "\(event.tick):#\(error.code)"
            }
        }
    }

    @Test func dashesLettersAndCompletion() throws {
        let diagram = try Diagram("-a-b--c|", values: ["a": 1, "b": 2, "c": 3])
        #expect(summary(diagram) == ["1:1", "3:2", "6:3", "7:|"])
        #expect(diagram.endTick == 8)
        #expect(diagram.startTick == 0)
        #expect(diagram.subscriptionTick == nil && diagram.cancellationTick == nil)
        #expect(diagram.completes)
    }

    @Test func failureTakesTheErrorFromTheDictionary() throws {
        #expect(summary(try Diagram("--a--#", values: ["a": 1], errors: ["#": Boom(code: 5)])) == ["2:1", "5:#5"])
        // The only error needs no key; named errors are picked with #x or #'word'.
        #expect(summary(try Diagram("#", errors: ["x": Boom(code: 6)])) == ["0:#6"])
        let named = ["x": Boom(code: 7), "timeout": Boom(code: 8)]
        #expect(summary(try Diagram("-#x", errors: named)) == ["1:#7"])
        #expect(summary(try Diagram("--#'timeout'", errors: named)) == ["2:#8"])
    }

    @Test func groupsHappenAtOneInstantAndKeepTheirWidth() throws {
        let diagram = try Diagram("-(ab)-|", values: ["a": 1, "b": 2])
        #expect(summary(diagram) == ["1:1", "1:2", "6:|"])
        #expect(summary(try Diagram("(a|)", values: ["a": 1])) == ["0:1", "0:|"])
    }

    @Test func quotedWordsAreOneValueAtTheOpeningQuote() throws {
        let diagram = try MarbleDiagram<String, Never>("-'sw'-'swift'|", values: ["sw": "s", "swift": "S"])
        #expect(diagram.events.map(\.tick) == [1, 6, 13])
        #expect(diagram.events.map(\.symbol) == ["'sw'", "'swift'", "|"])
    }

    @Test func spacesAreIgnoredForAlignment() throws {
        #expect(summary(try Diagram("- a - b |", values: ["a": 1, "b": 2])) == summary(try Diagram("-a-b|", values: ["a": 1, "b": 2])))
    }

    @Test func caretIsTimeZeroAndBangIsTheCancel() throws {
        let hot = try Diagram("-a-^-b-|", values: ["a": 1, "b": 2])
        #expect(summary(hot) == ["-2:1", "2:2", "4:|"])
        #expect(hot.subscriptionTick == 0)
        #expect(hot.startTick == -3)
        #expect(hot.endTick == 5)
        let cancelling = try Diagram("^-a--!", values: ["a": 1])
        #expect(summary(cancelling) == ["2:1"])
        #expect(cancelling.cancellationTick == 5)
        #expect(!cancelling.completes)
    }

    @Test func stringValuesStandForThemselves() throws {
        let diagram = try MarbleDiagram<String, Never>("-a-'hello'|")
        #expect(diagram.events.compactMap { if case .value(let v) = $0.kind { v } else { nil } } == ["a", "hello"])
    }

    @Test func mistakesAreReportedWithTheirPosition() {
        func error(_ text: String, values: [String: Int] = ["a": 1], errors: [String: Boom] = [:]) -> MarbleSyntaxError? {
            do {
                _ = try Diagram(text, values: values, errors: errors)
                return nil
            } catch {
                return error as? MarbleSyntaxError
            }
        }
        #expect(error("-a-x|")?.message == "no value for \"x\" in the values dictionary")
        #expect(error("-a-x|")?.offset == 3)
        #expect(error("-a-x|")?.description == "marble diagram: no value for \"x\" in the values dictionary\n  -a-x|\n     ^")
        #expect(error("--#")?.message == "\"#\" needs an error: pass errors: [\"#\": yourError]")
        #expect(error("--#", errors: ["x": Boom(), "y": Boom()])?.message.hasPrefix("\"#\" is ambiguous") == true)
        #expect(error("-#z", errors: ["x": Boom()])?.message == "no error for \"z\" in the errors dictionary")
        #expect(error("-a|-a")?.message == "nothing can happen after the diagram's completion")
        #expect(error("-(a(a))")?.message == "groups cannot nest")
        #expect(error("-(a")?.message == "unclosed group")
        #expect(error("-a)")?.message == "\")\" without \"(\"")
        #expect(error("-()")?.message == "empty group")
        #expect(error("-(a-a)")?.message == "\"-\" inside a group")
        #expect(error("^-^")?.message == "a second \"^\"")
        #expect(error("-!-!")?.message == "a second \"!\"")
        #expect(error("-|!")?.message == "\"!\" after the completion")
        #expect(error("-'abc")?.message == "unterminated quoted word")
        #expect(error("-''")?.message == "empty quoted word")
    }
}
