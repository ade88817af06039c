#!/usr/bin/env bash
# The demo: diffs of real actions on a real application, and the tokens they
# save against re-reading the whole tree after each action.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_cargo
cargo build --release --locked -q -p uidelta
bin=target/release/uidelta

show() {
    local title=$1 before=$2 after=$3
    shift 3
    printf '\n\033[1m== %s\033[0m\n$ uidelta diff %s %s %s\n' "$title" "$before" "$after" "$*"
    # Exit code 1 means "changes found", as with diff(1).
    "$bin" diff "$before" "$after" --stats "$@" || [ $? -eq 1 ]
}

ex=examples/widget-factory
printf '\033[1m== gtk3-widget-factory, the first lines of its tree\033[0m\n'
"$bin" tree "$ex/01-start.json" | head -n 25
echo "..."
prev=""
for file in $(ls "$ex"/*.json | sort); do
    if [ -n "$prev" ]; then
        show "$(basename "$prev" .json) -> $(basename "$file" .json)" "$prev" "$file"
    fi
    prev=$file
done
show "terminator compact YAML: moved window, new indices, one real edit" \
    examples/terminator/before.yaml examples/terminator/after.yaml
show "the same, rendered the way terminator would (line diff)" \
    examples/terminator/before.yaml examples/terminator/after.yaml --format terminator
