#!/usr/bin/env bash
# Runs the whole test suite: formatting, lints, unit, property, golden and
# integration tests. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_cargo
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked
