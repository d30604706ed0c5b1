#!/usr/bin/env bash
# `import Sluice` is Combine: every name of Combine's API lists is there (100%), and Sluice declares
# no public name beyond them except the ones scripts/api/allowed-extra.txt lists with a reason.
# What Sluice adds lives in SluiceSchedulers and SluiceExtras.
set -euo pipefail
cd "$(dirname "$0")/.."
report=$(python3 scripts/api/api-coverage --modules Sluice --extra)
echo "$report" | grep -E "^api coverage|extra public names"
grep -q "^api coverage: .* = 100.0%" <<<"$report" || { echo "Sluice lacks names of Combine's:"; python3 scripts/api/api-coverage --no-build --missing | grep missing; exit 1; }
allowed=$(grep -v '^#' scripts/api/allowed-extra.txt | sed 's/#.*//; s/[[:space:]]*$//' | grep -v '^$' | sort)
extra=$(sed -n 's/^  extra //p' <<<"$report" | sort)
unexpected=$(comm -23 <(echo "$extra") <(echo "$allowed"))
if [ -n "$unexpected" ]; then
    echo "Sluice declares public names Combine does not have (move them to SluiceExtras or SluiceSchedulers):"
    echo "$unexpected"
    exit 1
fi
echo "Sluice's public names are Combine's"
