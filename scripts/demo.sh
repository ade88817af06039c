#!/usr/bin/env bash
# The demo: a virtual desktop with real applications (gtk3-widget-factory and
# the fixture), real actions through the engine, the diff of each, and the
# tokens the delta loop costs against re-reading the whole tree each time.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_cargo
need_packages xvfb dbus dbus-x11 at-spi2-core libglib2.0-bin gtk-3-examples python3-gi gir1.2-gtk-3.0
cargo build --release --locked -q -p uidelta-demo -p uidelta
exec target/release/uidelta-demo
