import Sluice

/// Draws marble rows as a self-contained SVG document: one horizontal time axis per row, values
/// as coloured marbles (a pill when the label is long), a bar for the completion, a red cross
/// for a failure, a dashed stop for a cancel; faint guides join events at the same time across
/// rows, and the times of the events are written under the last row.
///
/// Time runs left to right at a fixed scale per tick, stretched between two events only where
/// their labels would otherwise overlap, so every label stays readable and order is kept.
enum MarbleSVG {
    // Layout, in pixels.
    static let fontSize = 13.0
    static let characterWidth = 7.6          // a generous average advance for 13 px sans-serif
    static let radius = 14.0
    static let pixelsPerTick = 48.0
    static let rowHeight = 64.0
    static let margin = 24.0
    static let groupGap = 3.0
    static let fontFamily = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"

    /// Fill and text colours, assigned to labels in order of appearance (Tableau 10).
    static let palette: [(fill: String, text: String)] = [
        ("#4E79A7", "#FFFFFF"), ("#F28E2B", "#FFFFFF"), ("#59A14F", "#FFFFFF"), ("#B07AA1", "#FFFFFF"),
        ("#76B7B2", "#1F2937"), ("#EDC948", "#1F2937"), ("#FF9DA7", "#1F2937"), ("#9C755F", "#FFFFFF"),
        ("#BAB0AC", "#1F2937"), ("#E15759", "#FFFFFF"),
    ]

    static func textWidth(_ text: String) -> Double { Double(text.count) * characterWidth }

    /// The width of a mark drawn alone.
    static func width(of mark: MarbleMark) -> Double {
        switch mark.kind {
        case .value(let label): return max(2 * radius, textWidth(label) + 16)
        case .finished: return 8
        case .failure: return 22
        case .subscription, .cancel: return 12
        }
    }

    static func render(rows: [MarbleRow], tick: Duration, title: String?, start: Duration = .zero) -> String {
        let tickNanoseconds = Double(max(1, VirtualTime.nanoseconds(tick)))
        let marks = rows.flatMap(\.marks)
        func nanoseconds(_ mark: MarbleMark) -> Int { VirtualTime.nanoseconds(mark.time) }

        // Widths needed at each distinct time, across rows (a group needs all its marks side by side).
        var needed: [Int: Double] = [:]
        for row in rows {
            let byTime = Dictionary(grouping: row.marks, by: nanoseconds)
            for (time, group) in byTime {
                let total = group.map(width(of:)).reduce(0, +) + groupGap * Double(group.count - 1) + (group.count > 1 ? 8 : 0)
                needed[time] = max(needed[time] ?? 0, total)
            }
        }
        let endNanoseconds = max(rows.map { Int(Double($0.endTick) * tickNanoseconds) }.max() ?? 0,
                                 (marks.map(nanoseconds).max() ?? 0) + Int(tickNanoseconds))
        let startNanoseconds = min(0, marks.map(nanoseconds).min() ?? 0)
        let times = Set(marks.map(nanoseconds) + [startNanoseconds, endNanoseconds]).sorted()

        // Piecewise-linear time → x, stretched where neighbouring labels need room.
        let nameWidth = rows.map { textWidth($0.name) }.max() ?? 0
        let axisStart = margin + (nameWidth > 0 ? nameWidth + 16 : 0) + 12
        var xs: [Int: Double] = [:]
        var x = axisStart + (needed[times[0]] ?? 0) / 2
        for (index, time) in times.enumerated() {
            xs[time] = x
            guard index + 1 < times.count else { break }
            let next = times[index + 1]
            let scaled = Double(next - time) / tickNanoseconds * pixelsPerTick
            let room = (needed[time] ?? 0) / 2 + (needed[next] ?? 0) / 2 + 8
            x += max(scaled, room)
        }
        func position(_ time: Int) -> Double {
            if let exact = xs[time] { return exact }
            guard let upper = times.firstIndex(where: { $0 > time }), upper > 0 else { return xs[times.last!]! }
            let a = times[upper - 1], b = times[upper]
            return xs[a]! + (xs[b]! - xs[a]!) * Double(time - a) / Double(b - a)
        }

        let axisEnd = xs[endNanoseconds]! + 16
        let top = margin + (title == nil ? 0 : 28)
        let canvasWidth = max(axisEnd + margin + 10, margin * 2 + Double(title?.count ?? 0) * 8.6)
        let timeLabelsY = top + Double(rows.count) * rowHeight + 6
        let canvasHeight = timeLabelsY + 14 + margin * 0.75

        var colours: [String: (fill: String, text: String)] = [:]
        func colour(for label: String) -> (fill: String, text: String) {
            if let known = colours[label] { return known }
            let assigned = palette[colours.count % palette.count]
            colours[label] = assigned
            return assigned
        }

        var svg: [String] = []
        svg.append("""
        <svg xmlns="http://www.w3.org/2000/svg" width="\(format(canvasWidth))" height="\(format(canvasHeight))" \
        viewBox="0 0 \(format(canvasWidth)) \(format(canvasHeight))" font-family="\(fontFamily)" font-size="\(format(fontSize))">
        """)
        svg.append("<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>")
        if let title {
            svg.append("<text class=\"title\" x=\"\(format(margin))\" y=\"\(format(margin + 8))\" font-size=\"15\" font-weight=\"600\" fill=\"#111827\">\(escape(title))</text>")
        }

        // Guides joining events at the same time across rows.
        let eventTimes = Set(marks.map(nanoseconds)).sorted()
        if rows.count > 1 {
            for time in eventTimes {
                let gx = format(position(time))
                svg.append("<line class=\"guide\" x1=\"\(gx)\" y1=\"\(format(top + 10))\" x2=\"\(gx)\" y2=\"\(format(timeLabelsY - 10))\" stroke=\"#E5E7EB\" stroke-width=\"1\" stroke-dasharray=\"3 3\"/>")
            }
        }

        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight + rowHeight / 2
            svg.append("<g class=\"row\" data-name=\"\(escape(row.name))\">")
            if !row.name.isEmpty {
                svg.append("<text class=\"row-name\" x=\"\(format(axisStart - 20))\" y=\"\(format(y + 4.5))\" text-anchor=\"end\" fill=\"#4B5563\" font-weight=\"600\">\(escape(row.name))</text>")
            }
            // The axis: up to the terminal event, or on to the end with an arrow.
            let terminal = row.marks.filter(\.isTerminal).map(nanoseconds).min()
            let axisTo = terminal.map(position) ?? axisEnd
            let axisFrom = position(startNanoseconds) - (needed[startNanoseconds] ?? 0) / 2 - 8
            svg.append("<line class=\"axis\" x1=\"\(format(axisFrom))\" y1=\"\(format(y))\" x2=\"\(format(axisTo))\" y2=\"\(format(y))\" stroke=\"#9CA3AF\" stroke-width=\"2\" stroke-linecap=\"round\"/>")
            if terminal == nil {
                svg.append("<path class=\"arrow\" d=\"M \(format(axisEnd - 8)) \(format(y - 5)) L \(format(axisEnd)) \(format(y)) L \(format(axisEnd - 8)) \(format(y + 5))\" fill=\"none\" stroke=\"#9CA3AF\" stroke-width=\"2\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>")
            }
            // Faint unit ticks along the axis.
            let lastTick = Int((Double(min(terminal ?? endNanoseconds, endNanoseconds)) / tickNanoseconds).rounded(.down))
            let firstTick = Int((Double(startNanoseconds) / tickNanoseconds).rounded(.up))
            if lastTick >= firstTick, lastTick - firstTick <= 400 {
                for unit in firstTick...lastTick {
                    let tx = format(position(Int(Double(unit) * tickNanoseconds)))
                    svg.append("<line class=\"tick\" x1=\"\(tx)\" y1=\"\(format(y - 3))\" x2=\"\(tx)\" y2=\"\(format(y + 3))\" stroke=\"#D1D5DB\" stroke-width=\"1\"/>")
                }
            }
            // Marks, grouped by instant.
            let groups = Dictionary(grouping: row.marks, by: nanoseconds).sorted { $0.key < $1.key }
            for (time, group) in groups {
                let total = group.map(width(of:)).reduce(0, +) + groupGap * Double(group.count - 1)
                var left = position(time) - total / 2
                if group.count > 1 {
                    svg.append("<rect class=\"group\" x=\"\(format(left - 4))\" y=\"\(format(y - radius - 4))\" width=\"\(format(total + 8))\" height=\"\(format(2 * radius + 8))\" rx=\"\(format(radius + 4))\" fill=\"#F3F4F6\" stroke=\"#D1D5DB\" stroke-width=\"1\"/>")
                }
                for mark in group {
                    let w = width(of: mark)
                    svg.append(draw(mark, centerX: left + w / 2, y: y, width: w, colour: colour(for:)))
                    left += w + groupGap
                }
            }
            svg.append("</g>")
        }

        // Times of the events, under the last row, skipping any that would overlap.
        var lastRight = -Double.infinity
        svg.append("<g class=\"times\" fill=\"#6B7280\" font-size=\"11\" text-anchor=\"middle\">")
        for time in eventTimes {
            let label = VirtualTime.format(.nanoseconds(time) + start)
            let half = Double(label.count) * 6.4 / 2
            let cx = position(time)
            guard cx - half >= lastRight + 6 else { continue }
            lastRight = cx + half
            svg.append("<text class=\"time\" x=\"\(format(cx))\" y=\"\(format(timeLabelsY + 8))\">\(escape(label))</text>")
        }
        svg.append("</g>")
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    static func draw(_ mark: MarbleMark, centerX cx: Double, y: Double, width w: Double,
                     colour: (String) -> (fill: String, text: String)) -> String {
        let time = escape(VirtualTime.format(mark.shownTime))
        switch mark.kind {
        case .value(let label):
            let (fill, text) = colour(label)
            let shape = w <= 2 * radius + 0.01
                ? "<circle cx=\"\(format(cx))\" cy=\"\(format(y))\" r=\"\(format(radius))\" fill=\"\(fill)\" stroke=\"#1F2937\" stroke-opacity=\"0.25\" stroke-width=\"1.5\"/>"
                : "<rect x=\"\(format(cx - w / 2))\" y=\"\(format(y - radius))\" width=\"\(format(w))\" height=\"\(format(2 * radius))\" rx=\"\(format(radius))\" fill=\"\(fill)\" stroke=\"#1F2937\" stroke-opacity=\"0.25\" stroke-width=\"1.5\"/>"
            return "<g class=\"marble\" data-time=\"\(time)\">\(shape)<text x=\"\(format(cx))\" y=\"\(format(y + 4.5))\" text-anchor=\"middle\" fill=\"\(text)\" font-weight=\"600\">\(escape(label))</text></g>"
        case .finished:
            return "<line class=\"completion\" data-time=\"\(time)\" x1=\"\(format(cx))\" y1=\"\(format(y - 15))\" x2=\"\(format(cx))\" y2=\"\(format(y + 15))\" stroke=\"#374151\" stroke-width=\"3\" stroke-linecap=\"round\"/>"
        case .failure(let label):
            let d = 8.0
            var out = "<g class=\"failure\" data-time=\"\(time)\" stroke=\"#DC2626\" stroke-width=\"3\" stroke-linecap=\"round\">"
            out += "<line x1=\"\(format(cx - d))\" y1=\"\(format(y - d))\" x2=\"\(format(cx + d))\" y2=\"\(format(y + d))\"/>"
            out += "<line x1=\"\(format(cx - d))\" y1=\"\(format(y + d))\" x2=\"\(format(cx + d))\" y2=\"\(format(y - d))\"/></g>"
            if !label.isEmpty {
                out += "<text class=\"failure-label\" x=\"\(format(cx))\" y=\"\(format(y + 26))\" text-anchor=\"middle\" fill=\"#DC2626\" font-size=\"11\">\(escape(label))</text>"
            }
            return out
        case .subscription:
            return "<path class=\"subscription\" data-time=\"\(time)\" d=\"M \(format(cx)) \(format(y + 6)) L \(format(cx + 6)) \(format(y + 14)) L \(format(cx - 6)) \(format(y + 14)) Z\" fill=\"#6B7280\"/>"
        case .cancel:
            return "<g class=\"cancel\" data-time=\"\(time)\"><line x1=\"\(format(cx))\" y1=\"\(format(y - 14))\" x2=\"\(format(cx))\" y2=\"\(format(y + 14))\" stroke=\"#6B7280\" stroke-width=\"2\" stroke-dasharray=\"3 3\"/><text x=\"\(format(cx))\" y=\"\(format(y + 27))\" text-anchor=\"middle\" fill=\"#6B7280\" font-size=\"11\">cancel</text></g>"
        }
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
