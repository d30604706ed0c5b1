#!/usr/bin/env python3
"""Keeps every Swift code block of README.md compiled.

Each ```swift block in README.md is preceded by a marker comment that says where the block
lives in ClientPackage/, the package CI builds and tests against this checkout:

    <!-- snippet: quickstart Sources/Hello/main.swift -->   the file at that path, as written
    <!-- snippet: package -->       a Package.swift: its `targets:` entries must appear, line
                                    for line, in ClientPackage/Package.swift
    <!-- snippet: main NAME -->     a program of its own: ClientPackage/ReadmePrograms/NAME/main.swift,
                                    built and run by CI; if the folder has a Checks.swift (written
                                    by hand: what the block's comments say, as preconditions in a
                                    `checkExample()`), the program ends by calling it; each
                                    program is named in ClientPackage/Package.swift's
                                    `readmePrograms`
    <!-- snippet: file NAME -->     declarations: ClientPackage/Sources/ReadmeSnippets/NAME.swift
    <!-- snippet: test NAME -->     tests, run by `swift test`:
                                    ClientPackage/Tests/ReadmeSnippetsTests/NAME.swift

Files whose names end in `Checks.swift` are written by hand, not generated: a program's
`Checks.swift`, and tests in ClientPackage/Tests/ReadmeSnippetsTests of what a `file` block's
comments say (`FeedViewModelChecks.swift`).

`main` and `test` blocks see the declarations of the `file` blocks (a generated first line
imports that module), as a user's file sees the rest of their module.

The table of differences from Combine is kept twice, in README.md and in the documentation
catalogue (Sources/Sluice/Sluice.docc/DifferencesFromCombine.md); the catalogue's rows are the
README's, row for row.

    scripts/readme-snippets.py --write   writes the files (and the catalogue's table) from README.md
    scripts/readme-snippets.py --check   fails if a block has no marker, a file differs or the
                                         catalogue's table is not the README's
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
client = root / "ClientPackage"
readme = root / "README.md"

GENERATED = "// Generated from README.md by scripts/readme-snippets.py; edit the README, then run it with --write.\n"
PREAMBLE = GENERATED + "@testable import ReadmeSnippets\n\n"
CHECKS = "Checks.swift"
CHECK_CALL = "\ncheckExample()   // " + CHECKS + " beside this file: what the comments above say\n"

marker_pattern = re.compile(r"^<!-- snippet: (\w+)(?: (\S+))? -->$")


def blocks():
    """Yields (line number, marker kind, marker argument, code) for every ```swift block."""
    lines = readme.read_text().split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.strip().startswith("```swift"):
            indent = line[: len(line) - len(line.lstrip())]
            start = index
            body = []
            index += 1
            while not lines[index].strip().startswith("```"):
                text = lines[index]
                body.append(text[len(indent):] if text.startswith(indent) else text.lstrip())
                index += 1
            previous = lines[start - 1].strip() if start > 0 else ""
            match = marker_pattern.match(previous)
            kind, argument = (match.group(1), match.group(2)) if match else (None, None)
            yield start + 1, kind, argument, "\n".join(body) + "\n"
        index += 1


def expected_files(problems):
    files = {}
    for line, kind, argument, code in blocks():
        where = f"README.md:{line}"
        if kind is None:
            problems.append(f"{where}: a swift block without a `<!-- snippet: ... -->` marker on the line before it")
        elif kind == "quickstart" and argument:
            files[client / argument] = code
        elif kind == "main" and argument:
            folder = client / "ReadmePrograms" / argument
            files[folder / "main.swift"] = PREAMBLE + code + (CHECK_CALL if (folder / CHECKS).exists() else "")
        elif kind == "file" and argument:
            files[client / "Sources" / "ReadmeSnippets" / f"{argument}.swift"] = GENERATED + code
        elif kind == "test" and argument:
            files[client / "Tests" / "ReadmeSnippetsTests" / f"{argument}.swift"] = PREAMBLE + code
        elif kind == "package":
            check_package(where, code, problems)
        else:
            problems.append(f"{where}: unknown marker `{kind} {argument or ''}`")
    return files


def check_package(where, code, problems):
    """The README's targets must be ClientPackage's, line for line (white space aside)."""
    match = re.search(r"targets: \[\n(.*?)\n    \]", code, re.S)
    if not match:
        problems.append(f"{where}: a package block without a `targets: [` list")
        return
    wanted = [line.strip() for line in match.group(1).split("\n") if line.strip()]
    have = [line.strip() for line in (client / "Package.swift").read_text().split("\n")]
    for start in range(len(have)):
        if have[start:start + len(wanted)] == wanted:
            return
    problems.append(f"{where}: ClientPackage/Package.swift does not contain the README's targets as written")


def check_program_list(programs, problems):
    """ClientPackage/Package.swift names the README's programs (`let readmePrograms = [...]`)."""
    text = (client / "Package.swift").read_text()
    match = re.search(r"let readmePrograms = \[(.*?)\]", text, re.S)
    listed = sorted(re.findall(r'"(\w+)"', match.group(1))) if match else None
    if listed != sorted(programs):
        problems.append(f"ClientPackage/Package.swift: readmePrograms is {listed}, the README's programs are {sorted(programs)}")


def generated_paths():
    """Every file a previous --write made (so that removed blocks are noticed)."""
    folders = [client / "ReadmePrograms", client / "Sources" / "ReadmeSnippets", client / "Tests" / "ReadmeSnippetsTests"]
    for folder in folders:
        if folder.exists():
            yield from (path for path in folder.rglob("*.swift") if not path.name.endswith(CHECKS))


DIFFERENCES = root / "Sources" / "Sluice" / "Sluice.docc" / "DifferencesFromCombine.md"


def table_rows(text, header):
    """The rows of the table whose header line is `header` (where they start and end in `text`, and the rows)."""
    start = text.index(header)
    end = text.find("\n\n", start)
    end = len(text) if end < 0 else end
    lines = text[start:end].split("\n")
    return start + len(lines[0]) + len(lines[1]) + 2, end, lines[2:]


def differences_table(mode, problems):
    """Keeps the catalogue's table of differences the README's, row for row."""
    text = readme.read_text()
    _, _, rows = table_rows(text, "| | Combine | Sluice | why | pinned by |")
    catalogue = DIFFERENCES.read_text()
    start, end, current = table_rows(catalogue, "| behaviour | Combine | Sluice | why | pinned by |")
    if current == rows:
        return
    if mode == "--write":
        DIFFERENCES.write_text(catalogue[:start] + "\n".join(rows) + catalogue[end:])
    else:
        problems.append(f"{DIFFERENCES.relative_to(root)}'s table differs from the README's (run scripts/readme-snippets.py --write)")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    problems = []
    files = expected_files(problems)
    check_program_list([path.parent.name for path in files if path.parent.parent == client / "ReadmePrograms"], problems)
    stale = [path for path in generated_paths() if path not in files]
    differences_table(mode, problems)
    if mode == "--write":
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for path in stale:
            path.unlink()
            if path.parent.name != "ReadmeSnippets" and not any(path.parent.iterdir()):
                path.parent.rmdir()
    else:
        for path, text in files.items():
            if not path.exists() or path.read_text() != text:
                problems.append(f"{path.relative_to(root)} differs from its README block (run scripts/readme-snippets.py --write)")
        for path in stale:
            problems.append(f"{path.relative_to(root)} has no README block any more (run scripts/readme-snippets.py --write)")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"README snippets: {len(files)} files {'written' if mode == '--write' else 'in step with README.md'}")


main()
