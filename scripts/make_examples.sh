#!/usr/bin/env bash
# Regenerates examples/widget-factory/*.json: real AT-SPI snapshots of
# gtk3-widget-factory, captured with scripts/capture_pyatspi.py before and
# after real actions performed through AT-SPI (Action, EditableText,
# Selection) and X11 (xdotool, for the window move).
#
# Everything runs in a private sandbox: its own Xvfb display, its own D-Bus
# session bus, its own accessibility bus, its own XDG_RUNTIME_DIR. Nothing of
# the caller's desktop is touched, and everything is torn down on exit.
#
# Needs (Debian 12):
#   apt-get install -y --no-install-recommends xvfb at-spi2-core \
#       gtk-3-examples python3-pyatspi python3-gi dbus-x11 xdotool
#
# Usage: scripts/make_examples.sh [OUTDIR]   (default: examples/widget-factory)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
OUT="${1:-$ROOT/examples/widget-factory}"
PY=/usr/bin/python3            # the system python: it has gi and pyatspi
CAPTURE="$HERE/capture_pyatspi.py"
APP=gtk3-widget-factory
MOVE_DX=118
MOVE_DY=118

for tool in Xvfb dbus-daemon xdotool gdbus "$APP" /usr/libexec/at-spi-bus-launcher; do
    command -v "$tool" >/dev/null || { echo "make_examples: missing $tool" >&2; exit 1; }
done
"$PY" -c 'import pyatspi' || { echo "make_examples: $PY has no pyatspi" >&2; exit 1; }

WORK="$(mktemp -d /tmp/uidelta-examples.XXXXXX)"
XVFB_PID=""
SESSION_PID=""
LAUNCHER_PID=""
APP_PID=""

# Ends a process we started and, first, its direct children (the launcher's
# dbus-daemon, that daemon's activated at-spi2-registryd, ...), by pid only.
stop_tree() {
    local pid="$1" child
    [ -n "$pid" ] || return 0
    for child in $(pgrep -P "$pid" 2>/dev/null || true); do
        stop_tree "$child"
    done
    kill "$pid" 2>/dev/null || true
}

cleanup() {
    local rc=$?
    set +e
    stop_tree "$APP_PID"
    stop_tree "$LAUNCHER_PID"
    stop_tree "$SESSION_PID"
    stop_tree "$XVFB_PID"
    sleep 0.3
    for pid in "$APP_PID" "$LAUNCHER_PID" "$SESSION_PID" "$XVFB_PID"; do
        [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    done
    if [ "$rc" -ne 0 ]; then
        echo "make_examples: failed (rc=$rc); logs:" >&2
        for f in "$WORK"/*.log; do
            [ -s "$f" ] && { echo "== $f" >&2; tail -n 20 "$f" >&2; }
        done
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Nothing from the caller's session may leak in.
unset AT_SPI_BUS_ADDRESS DBUS_SESSION_BUS_ADDRESS WAYLAND_DISPLAY GTK_MODULES || true
export XDG_RUNTIME_DIR="$WORK/run"
mkdir -m 700 "$XDG_RUNTIME_DIR"

# 1. X server on a free display (Xvfb picks it and writes it to fd 3).
Xvfb -displayfd 3 -screen 0 1600x1200x24 -nolisten tcp -noreset \
    3>"$WORK/display" >"$WORK/xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 100); do
    [ -s "$WORK/display" ] && break
    sleep 0.05
done
[ -s "$WORK/display" ] || { echo "make_examples: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(head -n1 "$WORK/display")"

# 2. Private session bus.
dbus-daemon --session --fork --print-address=1 --print-pid=1 >"$WORK/session" 2>"$WORK/dbus.log"
DBUS_SESSION_BUS_ADDRESS="$(sed -n 1p "$WORK/session")"
SESSION_PID="$(sed -n 2p "$WORK/session")"
export DBUS_SESSION_BUS_ADDRESS

# 3. Accessibility bus. The launcher owns org.a11y.Bus on the session bus
# and sets the AT_SPI_BUS property on the X root window; the application's
# atk-bridge and libatspi (pyatspi) find the a11y bus through either. It
# must be up before the application starts.
export NO_AT_BRIDGE=0 GTK_A11Y=atspi GNOME_ACCESSIBILITY=1
/usr/libexec/at-spi-bus-launcher --launch-immediately >"$WORK/launcher.log" 2>&1 &
LAUNCHER_PID=$!
A11Y_ADDRESS=""
for _ in $(seq 100); do
    A11Y_ADDRESS="$(gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus \
        --method org.a11y.Bus.GetAddress 2>/dev/null | sed -E "s/^\('(.*)',\)$/\1/" || true)"
    [ -n "$A11Y_ADDRESS" ] && break
    sleep 0.1
done
[ -n "$A11Y_ADDRESS" ] || { echo "make_examples: no accessibility bus" >&2; exit 1; }
echo "make_examples: DISPLAY=$DISPLAY a11y bus $A11Y_ADDRESS" >&2

# 4. The application.
"$APP" >"$WORK/app.log" 2>&1 &
APP_PID=$!
"$PY" "$CAPTURE" --app "$APP" --wait 20 --count >/dev/null

# Wait until the main window is mapped and its tree is populated.
for _ in $(seq 100); do
    WID="$(xdotool search --onlyvisible --pid "$APP_PID" 2>/dev/null | head -n1 || true)"
    [ -n "$WID" ] && break
    sleep 0.1
done
[ -n "$WID" ] || { echo "make_examples: no window of $APP" >&2; exit 1; }

# act ACTION: performs one action through AT-SPI and waits (up to 10 s) until
# its effect is visible in the tree; then lets the UI settle briefly.
act() {
    "$PY" - "$@" <<'PY'
import sys, time
import pyatspi

APP = "gtk3-widget-factory"
action = sys.argv[1]


def app():
    d = pyatspi.Registry.getDesktop(0)
    for a in d:
        if a is not None and a.name == APP:
            return a
    sys.exit(f"act: {APP} not on the bus")


def find(acc, pred):
    out, stack = [], [acc]
    while stack:
        a = stack.pop()
        try:
            if pred(a):
                out.append(a)
            stack.extend(c for c in reversed(list(a)) if c is not None)
        except Exception:
            pass
    return out


def states(a):
    return {pyatspi.state.STATE_VALUE_TO_NAME[int(s)] for s in a.getState().getStates()}


def ypos(a):
    e = a.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    return (e.y, e.x)


def click(a):
    act = a.queryAction()
    names = [act.getName(i) for i in range(act.nActions)]
    idx = names.index("click") if "click" in names else 0
    act.doAction(idx)


def wait_for(cond, what, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if cond():
                return
        except Exception:
            pass
        time.sleep(0.1)
    sys.exit(f"act: timed out waiting for {what}")


def by_path(path):
    return find(app(), lambda a: a.path == path)[0]


def top_windows():
    return [(w.getRoleName(), w.name) for w in app() if w is not None]


if action == "check":
    cands = find(app(), lambda a: a.getRoleName() == "check box" and a.name == "checkbutton"
                 and {"sensitive", "showing"} <= states(a) and "checked" not in states(a))
    target = min(cands, key=ypos)
    click(target)
    path = target.path
    wait_for(lambda: "checked" in states(by_path(path)), "checked")
    print(f"check box 'checkbutton' {path}: clicked, now checked")

elif action == "type":
    text = sys.argv[2]
    cands = find(app(), lambda a: a.getRoleName() == "text"
                 and "EditableText" in a.get_interfaces()
                 and {"sensitive", "showing", "single line"} <= states(a)
                 and a.queryText().getText(0, -1) == "")
    target = min(cands, key=ypos)
    path = target.path
    target.queryComponent().grabFocus()
    target.queryEditableText().insertText(0, text, len(text.encode("utf-8")))
    wait_for(lambda: by_path(path).queryText().getText(0, -1) == text, "typed text")
    print(f"entry {path}: focused, inserted {text!r}")

elif action == "tab":
    lists = find(app(), lambda a: a.getRoleName() == "page tab list" and "showing" in states(a))
    target = min(lists, key=lambda a: ypos(a)[::-1])
    target.querySelection().selectChild(1)
    path = target.path
    wait_for(lambda: "selected" in states(by_path(path)[1]), "tab selected")
    print(f"page tab list {path}: selected child 1 ({by_path(path)[1].name!r})")

elif action == "page2":
    target = find(app(), lambda a: a.getRoleName() == "radio button" and a.name == "Page 2")[0]
    click(target)
    path = target.path
    wait_for(lambda: "checked" in states(by_path(path)), "Page 2 checked")
    time.sleep(0.5)  # the stack's transition
    print(f"radio button 'Page 2' {path}: clicked, stack shows page 2")

elif action == "about":
    target = find(app(), lambda a: a.getRoleName() == "push button"
                  and a.name == "About Widget Factory")[0]
    click(target)
    wait_for(lambda: any(r == "dialog" and "showing" in states(w)
                         for w in app() if w is not None for r in [w.getRoleName()]),
             "About dialog")
    print(f"push button 'About Widget Factory' {target.path}: clicked; windows: {top_windows()}")

elif action == "close-about":
    dlg = [w for w in app() if w is not None and w.getRoleName() == "dialog"][0]
    btn = find(dlg, lambda a: a.getRoleName() == "push button" and a.name == "Close")[0]
    click(btn)
    wait_for(lambda: not any(w.getRoleName() == "dialog" and "showing" in states(w)
                             for w in app() if w is not None), "About dialog closed")
    print(f"push button 'Close' {btn.path}: clicked; windows: {top_windows()}")

else:
    sys.exit(f"act: unknown action {action}")
time.sleep(0.5)  # let the UI settle
PY
}

capture() {
    "$PY" "$CAPTURE" --app "$APP" --out "$OUT/$1"
}

mkdir -p "$OUT"
rm -f "$OUT"/*.json
sleep 1  # first paint and the initial focus

capture 01-start.json
act check;                     capture 02-checked.json
act type "hello from uidelta"; capture 03-typed.json
act tab;                       capture 04-notebook-tab.json
act page2;                     capture 05-page2.json
act about;                     capture 06-about.json
act close-about;               capture 07-about-closed.json

# Bounds-only pair: the same state, the window moved by X11 (no window
# manager runs, so xdotool moves it directly).
read -r X Y < <(xdotool getwindowgeometry --shell "$WID" | sed -n 's/^[XY]=//p' | paste -sd' ')
xdotool windowmove --sync "$WID" $((X + MOVE_DX)) $((Y + MOVE_DY))
echo "window $WID moved from $X,$Y to $((X + MOVE_DX)),$((Y + MOVE_DY))" >&2
sleep 0.5
capture 08-moved.json

echo "make_examples: wrote $(ls "$OUT"/*.json | wc -l) snapshots to $OUT" >&2
