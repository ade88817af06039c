#!/usr/bin/env bash
# The Python environment in which the capture benchmark runs OSWorld's own
# accessibility-tree capture (`capture --against osworld`):
# target/osworld-venv, made from Debian's /usr/bin/python3 with
# --system-site-packages so that Debian's python3-pyatspi (gi.repository.Atspi)
# is seen, plus lxml from PyPI at a pinned version, the one library OSWorld's
# capture code builds its XML with. Idempotent; prints the venv's python.
#
# OSWorld's capture code itself is its server module, desktop_env/server/main.py
# of OSWorld's repository (the desktop-env package on PyPI holds only the
# client: desktop_env/controllers/python.py asks that server's /accessibility
# over HTTP). The benchmark reads it from target/osworld/main.py, or from the
# file named by OSWORLD_SERVER / --osworld-server; see BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

LXML_VERSION=5.3.0
target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target/osworld-venv"

need_packages python3 python3-venv python3-pyatspi
if [ ! -x "$venv/bin/python" ]; then
    /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
if ! "$venv/bin/python" -c "import lxml, sys; sys.exit(lxml.__version__ != '$LXML_VERSION')" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "lxml==$LXML_VERSION"
fi
"$venv/bin/python" -c "import lxml.etree, pyatspi" || {
    echo "error: $venv cannot import lxml and pyatspi" >&2
    exit 1
}
echo "$venv/bin/python"
