#!/usr/bin/env bash
# Runs the diff benchmarks (uidelta against a terminator-style baseline), the
# noise count and the capture benchmark on real applications (uidelta against
# pyatspi, and against OSWorld's capture code when it is there; installs its
# Debian packages and the venv when missing), then prints the tables that
# BENCHMARKS.md shows.
# Extra arguments go to criterion, e.g. `scripts/bench.sh 10k` runs only the
# 10k-node cases. Takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_cargo
target="${CARGO_TARGET_DIR:-$PWD/target}"

echo "== cargo bench (warm-up 1 s, measurement 3 s per benchmark)"
cargo bench -p uidelta-bench --bench diff -- --warm-up-time 1 --measurement-time 3 "$@"

echo
echo "## Timings (median of criterion's samples)"
echo
cargo run --release -q -p uidelta-bench --bin report -- "$target/criterion"

echo
echo "## Noise and change counts"
echo
cargo run --release -q -p uidelta-bench --bin noise

echo
echo "machine: $(nproc) cores, $(uname -sm), $(rustc --version)"

# Capture time on real applications (gtk3-widget-factory, Chromium on a local
# page) against pyatspi's full walk, on a private virtual desktop.
need_packages xvfb dbus-daemon dbus-bin at-spi2-core libglib2.0-bin gtk-3-examples \
    chromium python3-pyatspi
echo
echo "== capture time: uidelta against pyatspi on real applications (about 2 minutes)"
echo
cargo run --release -q -p uidelta-bench --bin capture

# The same applications against OSWorld's own capture code, run in a venv with
# Debian's pyatspi and lxml from PyPI. OSWorld's server module is not on PyPI
# (its desktop-env package holds only the client): the comparison runs when
# desktop_env/server/main.py of OSWorld's repository is at target/osworld/main.py
# or named by OSWORLD_SERVER (BENCHMARKS.md, "Capture against OSWorld").
osworld_server="${OSWORLD_SERVER:-$target/osworld/main.py}"
echo
if [ -f "$osworld_server" ]; then
    scripts/osworld-venv.sh >/dev/null
    echo "== capture time: uidelta against OSWorld's capture code (about 5 minutes)"
    echo
    OSWORLD_SERVER="$osworld_server" cargo run --release -q -p uidelta-bench --bin capture -- \
        --against osworld
else
    echo "== capture time against OSWorld: skipped, $osworld_server is missing" \
        "(desktop_env/server/main.py of OSWorld's repository)"
fi

# The delta loop on a scripted task of 38 real actions (gtk3-widget-factory,
# gtk3-demo, the fixture): tokens of the full tree after every step against one
# full tree plus the diffs. Then settle latency of immediate actions, auto
# settle against a fixed 1500 ms sleep, and the fixture's late dialog.
need_packages python3-gi gir1.2-gtk-3.0
echo
echo "== token study: full loop against delta loop (under a minute)"
echo
cargo run --release -q -p uidelta-bench --bin tokens
echo
echo "== settle latency: auto settle against a fixed 1500 ms sleep (about 5 minutes)"
echo
cargo run --release -q -p uidelta-bench --bin settle
echo
echo "== settle in the browser: no-op actions and an 800 ms dialog, against auto" \
    "settle deaf to the page's idle (about 4 minutes)"
echo
need_packages chromium
cargo run --release -q -p uidelta-bench --bin settle -- --browser
