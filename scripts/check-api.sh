#!/usr/bin/env bash
# `import Sluice` is Combine: every name of Combine's API lists is there (100%), and Sluice declares
# no public name beyond them except the ones scripts/api/allowed-extra.txt lists with a reason.
# What Sluice adds lives in SluiceSchedulers and SluiceExtras.
set -euo pipefail
cd "$(dirname "$0")/.."
report=$(python3 scripts/api/api-coverage --modules Sluice --extra)
echo "$report" | grep -E "^api coverage|extra public names"
# Every name: the covered count equals the listed count (a percentage rounded to 100.0 could hide
# a missing name or two).
if ! grep -qE "^api coverage: ([0-9]+)/\1 " <<<"$report"; then
    echo "Sluice lacks names of Combine's; the whole report:"
    echo "$report"
    python3 scripts/api/api-coverage --no-build --missing | grep missing || true
    exit 1
fi
allowed=$(grep -v '^#' scripts/api/allowed-extra.txt | sed 's/#.*//; s/[[:space:]]*$//' | grep -v '^$' | sort)
extra=$(sed -n 's/^  extra //p' <<<"$report" | sort)
unexpected=$(comm -23 <(echo "$extra") <(echo "$allowed"))
if [ -n "$unexpected" ]; then
    echo "Sluice declares public names Combine does not have (move them to SluiceExtras or SluiceSchedulers):"
    echo "$unexpected"
    echo "The whole report:"
    echo "$report"
    exit 1
fi
echo "Sluice's public names are Combine's"
