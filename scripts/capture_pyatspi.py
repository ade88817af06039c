#!/usr/bin/python3
"""Capture one application's AT-SPI tree as uidelta interchange JSON.

Reference implementation of an AT-SPI snapshot, built on pyatspi (Debian:
python3-pyatspi).  It writes the interchange JSON documented in SPEC.md
("Formats"):

    {"source": "atspi", "app": NAME, "pid": PID, "window": WINDOW-or-null,
     "captured_at_ms": EPOCH_MS, "capture_ms": DURATION_MS,
     "truncated": false, "root": NODE}

    NODE = {"id": BUS_NAME + OBJECT_PATH, "role": "push button",
            "name": "...", "value": "..." or null, "description": "...",
            "states": ["enabled", "focusable", ...], "bounds": [x, y, w, h]
            or null, "attributes": {...}, "children": [NODE, ...]}

Conventions (the Rust AT-SPI backend is compared against these):
- role: pyatspi getRoleName() (AT-SPI's own role name, e.g. "push button").
- states: pyatspi state names (lower case, words separated by spaces, e.g.
  "multi line"), sorted.
- value: the Value interface's current value (integral values without a
  trailing ".0", others as Python repr of the float); otherwise, for
  text-bearing nodes (EditableText interface, or role entry / text /
  password text / terminal), the whole Text contents; null otherwise.
- bounds: Component extents in screen (desktop) coordinates; null when the
  node has no Component interface.
- Children that are gone (null reference, defunct, or an error on first
  contact) are skipped silently.
- The walk is depth-first pre-order; --max-nodes stops it and sets
  "truncated": true.
- A container that manages its descendants (a spreadsheet) and has more
  than 2,000 children is not walked child by child, which makes the
  application build an object per cell (LibreOffice Calc's sheet says
  2,147,483,647 and never answers): its cells on screen are read instead,
  through its Table, between the cells at its top-left and bottom-right
  corners (as uidelta reads it).

Must run under the system python (/usr/bin/python3), which has gi and
pyatspi; DBUS_SESSION_BUS_ADDRESS (or the AT_SPI_BUS X property on
$DISPLAY) must lead to the accessibility bus.

Usage:
    capture_pyatspi.py --app gtk3-widget-factory --out snap.json
    capture_pyatspi.py --app gtk3-widget-factory --count
    capture_pyatspi.py --list
"""

import argparse
import json
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import GLib  # noqa: E402

import pyatspi  # noqa: E402

STATE_NAMES = pyatspi.state.STATE_VALUE_TO_NAME
TEXT_ROLES = {"entry", "text", "password text", "terminal"}
# Children up to which a container that manages its descendants is walked
# whole.
WHOLE_UP_TO = 2000


def state_names(acc):
    names = []
    for st in acc.getState().getStates():
        name = STATE_NAMES.get(int(st))
        if name is None:
            name = st.value_nick.replace("-", " ")
        names.append(name)
    return sorted(names)


def fmt_number(v):
    v = float(v)
    if v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    return repr(v)


def bus_name(acc):
    app = getattr(acc, "app", None)
    name = getattr(app, "bus_name", None) if app is not None else None
    if not name:
        # The application object itself: its own connection.
        name = getattr(acc, "bus_name", None) or ""
    return name


class Walker:
    def __init__(self, max_nodes):
        self.max_nodes = max_nodes
        self.count = 0
        self.truncated = False

    def node(self, acc):
        """Reads one accessible's own fields (no children). Raises on a
        dead object; the caller decides whether to skip it."""
        role = acc.getRoleName()
        states = state_names(acc)
        if "defunct" in states:
            raise LookupError("defunct")
        try:
            ifaces = set(acc.get_interfaces())
        except GLib.Error:
            ifaces = set()
        value = None
        if "Value" in ifaces:
            try:
                value = fmt_number(acc.queryValue().currentValue)
            except (GLib.Error, NotImplementedError):
                value = None
        elif "Text" in ifaces and ("EditableText" in ifaces or role in TEXT_ROLES):
            try:
                value = acc.queryText().getText(0, -1)
            except (GLib.Error, NotImplementedError):
                value = None
        bounds = None
        if "Component" in ifaces:
            try:
                e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                bounds = [e.x, e.y, e.width, e.height]
            except (GLib.Error, NotImplementedError):
                bounds = None
        try:
            attrs = acc.get_attributes() or {}
        except GLib.Error:
            attrs = {}
        return {
            "id": bus_name(acc) + (acc.path or ""),
            "role": role,
            "name": acc.name or "",
            "value": value,
            "description": acc.description or "",
            "states": states,
            "bounds": bounds,
            "attributes": dict(sorted(attrs.items())),
            "children": [],
        }

    def children(self, acc):
        """The children of `acc` to walk, each as a function that reads it:
        all of them, or the cells on screen of a container that manages its
        descendants and has many."""
        n = acc.childCount
        if not (n < 0 or n > WHOLE_UP_TO) or not acc.getState().contains(
                pyatspi.STATE_MANAGES_DESCENDANTS):
            return [lambda i=i: acc.getChildAtIndex(i) for i in range(n)]
        try:
            table = acc.queryTable()
            comp = acc.queryComponent()
            e = comp.getExtents(pyatspi.DESKTOP_COORDS)
            first = comp.getAccessibleAtPoint(e.x + 1, e.y + 1, pyatspi.DESKTOP_COORDS)
            last = comp.getAccessibleAtPoint(e.x + e.width - 2, e.y + e.height - 2,
                                             pyatspi.DESKTOP_COORDS)
            if first is None or last is None:
                return []
            i, j = first.getIndexInParent(), last.getIndexInParent()
            r0, c0 = table.getRowAtIndex(i), table.getColumnAtIndex(i)
            r1, c1 = table.getRowAtIndex(j), table.getColumnAtIndex(j)
            return [lambda r=r, c=c: table.getAccessibleAt(r, c)
                    for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        except (GLib.Error, NotImplementedError):
            return []

    def walk(self, root_acc):
        """Depth-first pre-order walk without recursion."""
        root = self.node(root_acc)
        self.count = 1
        stack = [(root_acc, root)]
        while stack:
            acc, out = stack.pop()
            try:
                children = self.children(acc)
            except GLib.Error:
                continue
            pending = []
            for read in children:
                if self.count >= self.max_nodes:
                    self.truncated = True
                    break
                try:
                    child = read()
                    if child is None:
                        continue
                    cnode = self.node(child)
                except (GLib.Error, LookupError):
                    continue  # gone while we looked: skip it
                self.count += 1
                out["children"].append(cnode)
                pending.append((child, cnode))
            # Reversed so that the first child is walked first.
            stack.extend(reversed(pending))
            if self.truncated:
                # Stop adding anything more anywhere.
                self.max_nodes = self.count
        return root


def find_app(name, pid):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        try:
            app = desktop.getChildAtIndex(i)
            if app is None:
                continue
            if name is not None and app.name != name:
                continue
            if pid is not None and app.get_process_id() != pid:
                continue
            return app
        except GLib.Error:
            continue
    return None


def list_apps():
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        try:
            app = desktop.getChildAtIndex(i)
            if app is None:
                continue
            print(f"{app.get_process_id()}\t{bus_name(app)}\t{app.name}\t{app.childCount}")
        except GLib.Error:
            continue


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--app", help="application name as on the AT-SPI bus")
    ap.add_argument("--pid", type=int, help="process id (alone or with --app)")
    ap.add_argument("--out", help="output file (default: stdout)")
    ap.add_argument("--max-nodes", type=int, default=100000, help="node cap (default 100000)")
    ap.add_argument("--window", help="capture only the top-level window with this name "
                    "(still under the application node)")
    ap.add_argument("--count", action="store_true", help="print only the node count")
    ap.add_argument("--list", action="store_true", help="list applications on the bus")
    ap.add_argument("--wait", type=float, default=0.0,
                    help="seconds to wait for the application to appear (default 0)")
    ap.add_argument("--indent", type=int, help="pretty-print with this indent")
    args = ap.parse_args()

    if args.list:
        list_apps()
        return 0
    if args.app is None and args.pid is None:
        ap.error("--app or --pid is required")
    if args.max_nodes < 1:
        ap.error("--max-nodes must be at least 1")

    deadline = time.monotonic() + args.wait
    while True:
        app = find_app(args.app, args.pid)
        if app is not None or time.monotonic() >= deadline:
            break
        time.sleep(0.2)
    if app is None:
        print(f"capture_pyatspi: no application {args.app or args.pid!r} on the AT-SPI bus",
              file=sys.stderr)
        return 2

    captured_at_ms = int(time.time() * 1000)
    t0 = time.monotonic()
    walker = Walker(args.max_nodes)
    window = None
    if args.window is None:
        root = walker.walk(app)
    else:
        root = walker.node(app)
        walker.count = 1
        for i in range(app.childCount):
            w = app.getChildAtIndex(i)
            if w is not None and w.name == args.window:
                window = w.name
                walker.max_nodes = max(1, args.max_nodes - 1)
                root["children"].append(walker.walk(w))
                walker.count += 1
                break
        if window is None:
            print(f"capture_pyatspi: no window {args.window!r} in {app.name!r}", file=sys.stderr)
            return 2
    capture_ms = round((time.monotonic() - t0) * 1000.0, 1)

    if args.count:
        print(walker.count)
        return 0

    doc = {
        "source": "atspi",
        "app": app.name,
        "pid": app.get_process_id(),
        "window": window,
        "captured_at_ms": captured_at_ms,
        "capture_ms": capture_ms,
        "truncated": walker.truncated,
        "root": root,
    }
    if args.indent is not None:
        text = json.dumps(doc, indent=args.indent, ensure_ascii=False)
    else:
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
            f.write("\n")
    else:
        sys.stdout.write(text + "\n")
    print(f"capture_pyatspi: {walker.count} nodes in {capture_ms} ms"
          + (" (truncated)" if walker.truncated else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
