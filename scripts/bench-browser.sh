#!/usr/bin/env bash
# The browser benchmark: uidelta's Chromium backend (first full tree, then a
# diff per action) against Playwright's aria snapshot after every action
# (playwright-core, as Playwright MCP does it), on the scenarios of
# bench/browser-scenarios.json over fixtures/web, both in one run
# (crates/uidelta-bench/src/bin/browser.rs). Markdown on stdout.
#
# Installs what it needs: Debian's chromium; Node.js 20 or newer (Debian 12's
# nodejs is 18, too old for playwright-core: then the official Node.js 20
# binary that the npm registry ships as the package node-linux-<arch> is
# installed under target/node, with Debian's npm); the pinned playwright-core
# (npm ci in bench/playwright). Extra arguments go to the benchmark, e.g.
# `--runs 5 --only dialog,form` (`--help` lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

# The Node.js release installed when the one on PATH is older than 20.
NODE_RELEASE=20.20.2
NODE_PREFIX=target/node

node_major() {
    "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

# Prints the path of a Node.js 20 or newer, installing one when needed.
find_node() {
    local system
    system="$(command -v node || true)"
    if [ -n "$system" ] && [ "$(node_major "$system")" -ge 20 ]; then
        echo "$system"
        return
    fi
    local arch
    case "$(uname -m)" in
        x86_64) arch=x64 ;;
        aarch64 | arm64) arch=arm64 ;;
        *) echo "error: no Node.js package for $(uname -m); install Node.js 20 yourself" >&2; exit 2 ;;
    esac
    local local_node="$NODE_PREFIX/node_modules/node-linux-$arch/bin/node"
    if [ ! -x "$local_node" ] || [ "$(node_major "$local_node")" -lt 20 ]; then
        if ! command -v npm >/dev/null 2>&1; then
            need_packages nodejs npm
        fi
        local found="none"
        [ -n "$system" ] && found="$("$system" --version) ($system)"
        echo "installing Node.js $NODE_RELEASE (npm package node-linux-$arch) in $NODE_PREFIX;" \
            "the Node.js on PATH is too old for playwright-core: $found" >&2
        mkdir -p "$NODE_PREFIX"
        npm install --prefix "$NODE_PREFIX" --no-save --no-package-lock --no-audit --no-fund \
            --loglevel=error "node-linux-$arch@$NODE_RELEASE" >&2
    fi
    if [ "$(node_major "$local_node")" -lt 20 ]; then
        echo "error: $local_node does not run as Node.js 20 or newer" >&2
        exit 2
    fi
    echo "$(pwd)/$local_node"
}

need_cargo
need_packages chromium
NODE="$(find_node)"
# npm's own scripts start `node` from PATH: let that be the same one.
export PATH="$(dirname "$NODE"):$PATH"
if [ ! -f bench/playwright/node_modules/playwright-core/package.json ]; then
    if ! command -v npm >/dev/null 2>&1; then
        need_packages npm
    fi
    echo "installing playwright-core (npm ci in bench/playwright)" >&2
    (cd bench/playwright && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

echo "playwright-core $("$NODE" -p 'require("./bench/playwright/node_modules/playwright-core/package.json").version')," \
    "node $("$NODE" --version) ($NODE), $(/usr/bin/chromium --version 2>/dev/null | head -n 1)" >&2
cargo run --release -q -p uidelta-bench --bin browser -- --node "$NODE" "$@"
