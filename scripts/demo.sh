#!/usr/bin/env bash
# The demo: diffs of real actions on a real application, and the tokens they
# save against re-reading the whole tree after each action.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_cargo
cargo build --release --locked -q -p uidelta
bin=target/release/uidelta

diff_tokens=0
tree_tokens=0
steps=0
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT

show() {
    local title=$1 before=$2 after=$3
    shift 3
    printf '\n\033[1m== %s\033[0m\n$ uidelta diff %s %s %s\n' "$title" "$before" "$after" "$*"
    # Exit code 1 means "changes found", as with diff(1).
    "$bin" diff "$before" "$after" --stats "$@" 2>"$stats" || [ $? -eq 1 ]
    cat "$stats"
    # "# size: diff N tokens (B bytes), full after tree M tokens (C bytes)"
    read -r d t < <(sed -E 's/.*diff ([0-9]+) tokens.*tree ([0-9]+) tokens.*/\1 \2/' "$stats")
    diff_tokens=$((diff_tokens + d))
    tree_tokens=$((tree_tokens + t))
    steps=$((steps + 1))
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
printf '\n\033[1m== tokens over these %d real steps\033[0m\n' "$steps"
echo "re-reading the full tree after every step: $tree_tokens tokens"
echo "one diff per step:                         $diff_tokens tokens ($((100 * diff_tokens / tree_tokens))% of the full loop)"

show "terminator compact YAML: moved window, new indices, one real edit" \
    examples/terminator/before.yaml examples/terminator/after.yaml
show "the same, rendered the way terminator would (line diff)" \
    examples/terminator/before.yaml examples/terminator/after.yaml --format terminator
