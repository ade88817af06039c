#!/usr/bin/env bash
# Builds the Python package (crates/uidelta-py) as a wheel, installs it into
# a fresh virtual environment and runs its pytest suite. Called by
# scripts/test.sh; arguments go to pytest (`-k find`). Needs python3 with
# venv (Debian: python3-venv) and PyPI. UIDELTA_PY_STEPS=build only builds
# and installs the package, =test only runs the tests of the one installed.
set -euo pipefail
cd "$(dirname "$0")/.."

MATURIN="maturin==1.10.2"
PYTEST="pytest==8.4.2"
TARGET="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
VENV="$TARGET/python/venv"

STEPS="${UIDELTA_PY_STEPS:-build test}"

if [[ " $STEPS " == *" build "* ]]; then
    if ! /usr/bin/env python3 -m venv --help >/dev/null 2>&1; then
        echo "error: python3 with venv is needed for the Python package (apt-get install -y python3-venv)" >&2
        exit 2
    fi
    rm -rf "$VENV" "$TARGET/python/wheels"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "$MATURIN" "$PYTEST" || {
        echo "error: could not install $MATURIN and $PYTEST from PyPI" >&2
        exit 2
    }
    # A debug build: the tests check behaviour, not speed.
    "$VENV/bin/maturin" build --locked --compatibility linux \
        --manifest-path crates/uidelta-py/Cargo.toml --out "$TARGET/python/wheels"
    "$VENV/bin/pip" install -q --disable-pip-version-check "$TARGET"/python/wheels/uidelta-*.whl
    # `python -m uidelta` is checked against the binary (built with the
    # workspace's features, as the tests build it: nothing again).
    cargo build --locked --workspace --bin uidelta
fi

if [[ " $STEPS " != *" test "* ]]; then
    exit 0
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "error: no package built to test in $VENV (run scripts/python-test.sh without UIDELTA_PY_STEPS)" >&2
    exit 2
fi
export UIDELTA_BIN="$TARGET/debug/uidelta"
# From another directory, so that the installed package is the one tested.
(cd "$TARGET/python" && "$VENV/bin/python" -m pytest -q "$OLDPWD/crates/uidelta-py/tests" "$@")
