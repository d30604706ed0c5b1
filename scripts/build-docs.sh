#!/usr/bin/env bash
# Builds the DocC documentation for Sluice, SluiceSchedulers, SluiceExtras, SluiceTesting and the SluiceRx modules with the toolchain's own
# swift-symbolgraph-extract and docc (no package plugin: SwiftPM cannot fetch one here), so that
# `.ci/run` catches docs that no longer build. Output: .build/docs/<Module>.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --target SluiceTesting >/dev/null
swift build --target SluiceExtras >/dev/null
swift build --target SluiceRxBlocking >/dev/null
swift build --target SluiceRxTest >/dev/null
bin=$(swift build --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')

for module in Sluice SluiceSchedulers SluiceExtras SluiceTesting SluiceRx SluiceRxBlocking SluiceRxTest; do
    graphs=".build/symbolgraphs/$module"
    mkdir -p .build/docs
    rm -rf "$graphs" && mkdir -p "$graphs"
    swift-symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$triple" \
        -minimum-access-level public -skip-synthesized-members -output-dir "$graphs"
    # The SluiceRx modules have no catalogue: their pages are the symbols' own comments.
    catalogue=()
    [ -d "Sources/$module/$module.docc" ] && catalogue=("Sources/$module/$module.docc")
    docc convert "${catalogue[@]}" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.sluice.$module" \
        --output-path ".build/docs/$module.doccarchive" --warnings-as-errors >/dev/null
    echo "docs: .build/docs/$module.doccarchive"
done

# Every public type (struct, class, enum, protocol) carries a doc comment; in the SluiceRx
# modules every public symbol does, and says what in Sluice it rests on.
python3 - <<'PY'
import glob, json, sys
undocumented = []
for module in ("SluiceRx", "SluiceRxBlocking", "SluiceRxTest"):
    for path in glob.glob(f".build/symbolgraphs/{module}/{module}*.symbols.json"):
        for symbol in json.load(open(path))["symbols"]:
            if symbol["kind"]["identifier"] in ("swift.enum.case", "swift.associatedtype"):
                continue
            text = " ".join(line["text"] for line in symbol.get("docComment", {}).get("lines", []))
            if "Sluice" not in text:
                undocumented.append(f"{module}: " + ".".join(symbol["pathComponents"]) + " (no word of what in Sluice it rests on)")
for module in ("Sluice", "SluiceSchedulers", "SluiceExtras", "SluiceTesting"):
    for path in glob.glob(f".build/symbolgraphs/{module}/{module}*.symbols.json"):
        for symbol in json.load(open(path))["symbols"]:
            kind = symbol["kind"]["identifier"]
            if kind in ("swift.struct", "swift.class", "swift.enum", "swift.protocol") and not symbol.get("docComment"):
                undocumented.append(f"{module}: " + ".".join(symbol["pathComponents"]))
if undocumented:
    print("public types without a doc comment:\n  " + "\n  ".join(sorted(set(undocumented))))
    sys.exit(1)
print("docs: every public type is documented")
PY
