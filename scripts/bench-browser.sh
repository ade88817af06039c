#!/usr/bin/env bash
# The Playwright side of the browser benchmark: serves fixtures/web on
# 127.0.0.1, runs the scenarios of bench/browser-scenarios.json in Chromium
# through playwright-core (bench/playwright/aria.mjs) and prints one JSON line
# per step on stdout: the aria snapshot Playwright MCP would return after it
# and the action, settle and snapshot times. The uidelta side reads these lines.
# Installs what it needs: Debian's chromium, Node.js and npm when missing, and
# the pinned playwright-core (npm ci) when bench/playwright/node_modules is.
# Extra arguments go to aria.mjs, e.g. `--only dialog,form --repeat 5`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_cargo
need_packages chromium
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    need_packages nodejs npm
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
    echo "error: playwright-core needs Node.js 20 or newer, found $(node --version)." \
        "Debian 12 ships 18: install Node.js 20 (for example from NodeSource) and run this again." >&2
    exit 2
fi
if [ ! -f bench/playwright/node_modules/playwright-core/package.json ]; then
    echo "installing playwright-core (npm ci in bench/playwright)" >&2
    (cd bench/playwright && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

echo "playwright-core $(node -p 'require("./bench/playwright/node_modules/playwright-core/package.json").version')," \
    "node $(node --version), $(/usr/bin/chromium --version 2>/dev/null | head -n 1)" >&2
cargo run --release -q -p uidelta-bench --bin serve -- -- node bench/playwright/aria.mjs "$@"
