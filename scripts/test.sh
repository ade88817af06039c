#!/usr/bin/env bash
# Runs the whole test suite: formatting, lints, unit, property, golden and
# integration tests. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_cargo
rustup component add rustfmt clippy >/dev/null 2>&1 || true
# The live tests run real applications on virtual desktops (GTK 3, GTK 4 and
# Qt 5 ones; tests under window managers: openbox; mutter, GNOME's, which
# frames windows with a title bar; xfwm4, Xfce's, which keeps a window of its
# own off the screen; x11-utils' xprop says when one runs), and web pages in
# headless Chromium; xdotool types into them as a keyboard would. mousepad is a
# real editor with a file chooser, and so is gedit (a header bar with
# popovers); FeatherPad is a real Qt 5 editor; zenity makes real dialogs, and
# xdg-desktop-portal-gtk is on the bus of most desktops with GTK applications,
# as it is on the tests'. LibreOffice (Writer, Calc and Impress, with its gtk3
# plugin) is an office suite with documents; Calc's sheet has 17 billion cells.
# Thunar is a file manager, and so is Nautilus (GTK 4, GNOME's: it brings
# GNOME's keyring, whose password prompt a browser must not wait on). GTK 2's
# demo (with its accessibility modules) is a GTK 2 application, and so is
# GIMP, an image editor. Firefox ESR and
# Thunderbird are Gecko's browser and mail client. VLC is a Qt 5 media
# player (run as the user nobody: it refuses root).
# GNOME Calculator is a GTK 4 application with libadwaita (menu buttons,
# drop-downs and their popovers).
# MinGW's C compiler lets the diff half be checked for Windows.
need_packages xvfb dbus dbus-x11 at-spi2-core libglib2.0-bin gtk-3-examples gtk-4-examples \
    qtbase5-examples python3-pyatspi python3-gi gir1.2-gtk-3.0 gir1.2-atspi-2.0 python3-venv \
    chromium openbox mutter xfwm4 x11-utils xdotool mousepad zenity gir1.2-gtk-4.0 xdg-desktop-portal-gtk \
    libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3 util-linux \
    gedit featherpad thunar nautilus xfce4-terminal gtk2.0-examples libgail-common libatk-adaptor firefox-esr thunderbird gimp vlc gnome-calculator \
    gcc-mingw-w64-x86-64

# One full build, nothing to reuse: incremental state would only add gigabytes.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# In CI, nothing is built with debug information, not even line tables: its
# failures are read without backtraces (below), and a panic's message says
# its file and line without them. The build takes a quarter less of the
# disk (3.7 GB against 4.9 GB).
if [ "${CI:-}" = true ]; then
    export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-false}"
fi
warn_low_disk "$(realpath -m "${CARGO_TARGET_DIR:-target}")" 8

# Each phase says when it starts, and how long the run has taken so far:
# where the time goes is read from the log.
phase() {
    echo "== $1 ($(date -u +%H:%M:%S), ${SECONDS} s in)"
}

phase "cargo fmt --check"
cargo fmt --all -- --check
phase "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
phase "cargo doc"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
phase "cargo test"
# Every capture a live mirror reads in part is compared with a whole walk,
# node for node; a difference is an error (docs/architecture.md). Every
# test binary runs, whatever fails before it, so that one run says all that
# fails; in CI, failures are said by their messages, without backtraces,
# which crowd them out of a log read in part.
if [ "${CI:-}" = true ]; then
    export RUST_BACKTRACE=0
fi
# The soak (`soak_short`) runs on its own, below.
UIDELTA_MIRROR=strict cargo test --workspace --locked --no-fail-fast -- --skip soak_short
# The soak is two minutes of a server on a desktop, mostly waiting: it runs
# while the conformance tasks run again as users run them, and the builds
# below (the Python package, the fuzz targets, the check for Windows) take
# the rest of the machine, at the lowest priority. The Python package's
# tests run after it.
phase "the soak, beside the conformance tasks and the builds"
soak_bin="$(cargo test --workspace --test soak --locked --no-run --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if (m.get("reason") == "compiler-artifact" and m.get("executable")
            and m["target"]["name"] == "soak"):
        print(m["executable"])')"
if [ -z "$soak_bin" ]; then
    echo "error: the soak test's binary was not found (cargo test -p uidelta-mcp --test soak --no-run)" >&2
    exit 1
fi
soak_log="$(mktemp)"
(cd crates/uidelta-mcp && UIDELTA_MIRROR=strict exec "$soak_bin" --exact soak_short) >"$soak_log" 2>&1 &
soak_pid=$!
trap 'kill "$soak_pid" 2>/dev/null || true; rm -f "$soak_log"' EXIT

phase "conformance tasks, as users run them (the soak beside them)"
# Without the check, captures answer from the mirrors alone, and sooner:
# the tasks on the real applications give the same answers. The tasks on
# toolkits that are never mirrored (GTK 4: GNOME Calculator, Nautilus;
# Qt 5: FeatherPad, VLC; `Profile::mirrors`) would only run again as they
# ran above. Nor do the two longest LibreOffice tasks (Calc's reading task
# and Writer's, about a minute each on their own as users run them, two or
# more under the check): they ran above with every capture checked node for
# node, and LibreOffice is still here through Calc's other task and
# Impress's.
# (`--workspace --test`: built with the features of the whole workspace,
# as above, nothing is compiled again; `-p` would compile several crates
# again for the features of one package.)
UIDELTA_MIRROR=on cargo test --workspace --test conformance --locked -- \
    --skip calculator_multiplies --skip nautilus_renames --skip featherpad_types --skip vlc_changes \
    --skip office::calc::calc_reads_the_cells_on_screen --skip office::writer::writer_task

phase "conformance tasks under a window manager (mutter)"
# The desktops above have no window manager, as an agent's bare Xvfb
# sandbox; most desktops have one, which frames windows, gives a dialog that
# opens the keyboard and the active window's place, and both back to the
# window under it when it closes. The tasks run again under GNOME's, their
# answers as they read there (`wm: ` lines, docs/architecture.md "Tests").
# Not GIMP's and Impress's, whose steps depend on where the pointer and the
# window land (a status bar's hint, a tool bar's room), nor the two longest
# LibreOffice tasks. Nor Nautilus's and Thunderbird's: with every task at
# once on two cores, each answered one step in five runs before the
# application was done (Nautilus selected the new folder after the wait had
# ended on a first change; Thunderbird's message window is now waited for,
# `Backend::windows_made`, but its account's page, shown and built again in
# its main window, came into the answer to New Message, one CI run in nine).
UIDELTA_TEST_WM="mutter --x11 --sm-disable" UIDELTA_MIRROR=on \
    cargo test --workspace --test conformance --locked -- \
    --skip gimp_scales --skip office::impress --skip nautilus_renames --skip thunderbird_writes \
    --skip office::calc::calc_reads_the_cells_on_screen --skip office::writer::writer_task

phase "python package: build"
UIDELTA_PY_STEPS=build nice -n 19 scripts/python-test.sh
# The fuzz targets (docs/fuzzing.md) build with stable Rust too, without
# the sanitizer: each runs its seeds once, so that none falls behind the
# readers it feeds.
phase "fuzz targets on their seeds"
(
    cd fuzz
    nice -n 19 cargo build --locked --bins --target-dir target
    for target in parse_json parse_terminator parse_osworld parse_macos_use; do
        "target/debug/$target" "seeds/$target"/* >/dev/null 2>&1 || {
            echo "error: fuzz target $target fails on its seeds (run fuzz/target/debug/$target fuzz/seeds/$target/*)" >&2
            exit 1
        }
    done
)
# The diff half (the core and the Python package without its live sessions)
# serves Windows and macOS users too: it must build there. A check for
# Windows (C parts through MinGW) keeps it free of Linux-only code.
phase "cargo check for Windows (the diff half)"
rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1 || {
    echo "error: could not add the Rust target x86_64-pc-windows-gnu (rustup target add x86_64-pc-windows-gnu)" >&2
    exit 2
}
PYO3_CROSS_PYTHON_VERSION=3.9 nice -n 19 cargo check --locked --target x86_64-pc-windows-gnu \
    -p uidelta-model -p uidelta-diff -p uidelta-formats -p uidelta-render -p uidelta-py

phase "the soak's result"
soak_status=0
wait "$soak_pid" || soak_status=$?
cat "$soak_log"
if [ "$soak_status" -ne 0 ]; then
    echo "error: the soak failed (exit $soak_status; run cargo test -p uidelta-mcp --test soak soak_short)" >&2
    exit 1
fi
phase "python package: tests"
UIDELTA_PY_STEPS=test scripts/python-test.sh
phase "done"
