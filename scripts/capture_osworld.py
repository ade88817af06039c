#!/usr/bin/python3
"""Capture an application's accessibility tree with OSWorld's own code.

The baseline of the capture benchmark's `--against osworld` mode. OSWorld's
accessibility tree is built by its desktop-env server module
(desktop_env/server/main.py of OSWorld's repository; the desktop-env package
on PyPI holds only the client, which asks the server's GET /accessibility
over HTTP). This script loads that module from the file given, as it is, and
runs its Linux capture:

- --app NAME: what the endpoint does for one application:
  `_create_atspi_node(app, 1)` appended to a `desktop-frame` element made
  with the module's namespace map, serialized with
  `lxml.etree.tostring(..., encoding="unicode")`. The application is found
  among `pyatspi.Registry.getDesktop(0)`'s children by name before the
  clock starts.
- --desktop: the endpoint itself, `get_accessibility_tree()` (every
  application on the bus, one thread each, then the same serialization),
  including its `libreoffice --version` probe.

The module imports libraries for screenshots, input, HTTP and serving that
the capture never calls (Xlib, pyautogui, requests, PIL, flask, and
pyxcursor, a file beside main.py); they are replaced by empty stand-ins
before it is loaded. Flask's stand-in gives `route` decorators that leave
the function as it is, a standard `logging` logger as `app.logger`, and a
`jsonify` that returns its argument. Nothing of the capture is replaced.

Prints one JSON object: {"capture_ms": wall time of the capture measured
here (interpreter start-up, imports, finding the application and printing
excluded), "elements": element count of the XML, "server_sha256": of the
module file, "xml": the XML}.

Must run under a Python that has pyatspi (Debian's python3-pyatspi) and
lxml: scripts/osworld-venv.sh makes one. DBUS_SESSION_BUS_ADDRESS (or the
AT_SPI_BUS X property on $DISPLAY) must lead to the accessibility bus.

Usage:
    capture_osworld.py --server target/osworld/main.py --app gtk3-widget-factory
    capture_osworld.py --server target/osworld/main.py --desktop
"""

import argparse
import hashlib
import importlib.util
import json
import logging
import sys
import time
import types

# Modules main.py imports that its capture does not use.
STUBBED = ["Xlib", "Xlib.display", "Xlib.X", "pyautogui", "requests", "PIL",
           "PIL.Image", "PIL.ImageGrab", "flask", "pyxcursor"]


class Anything:
    """Stands for any object of a stubbed module: every attribute, call and
    decoration gives an Anything or leaves the decorated function alone."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return Anything()

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return Anything()


class FlaskApp:
    """Flask's application object as far as main.py uses it at import time."""

    def __init__(self, name, *args, **kwargs):
        self.logger = logging.getLogger("osworld-server")

    def route(self, *args, **kwargs):
        return lambda function: function

    def __getattr__(self, name):
        return Anything()


class StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything()


def load_server(path):
    for name in STUBBED:
        sys.modules[name] = StubModule(name)
    flask = sys.modules["flask"]
    flask.Flask = FlaskApp
    flask.jsonify = lambda value: value
    spec = importlib.util.spec_from_file_location("osworld_server", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_app(pyatspi, name, wait):
    deadline = time.monotonic() + wait
    while True:
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop.getChildAtIndex(i)
            if app is not None and app.name == name:
                return app
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True,
                    help="OSWorld's desktop_env/server/main.py")
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--app", help="application name as on the AT-SPI bus")
    which.add_argument("--desktop", action="store_true",
                       help="the whole /accessibility endpoint")
    ap.add_argument("--wait", type=float, default=0.0,
                    help="seconds to wait for the application to appear (default 0)")
    ap.add_argument("--out", help="output file (default: stdout)")
    args = ap.parse_args()

    with open(args.server, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    server = load_server(args.server)
    import lxml.etree
    import pyatspi

    if args.desktop:
        t0 = time.monotonic()
        xml = server.get_accessibility_tree()["AT"]
        capture_ms = (time.monotonic() - t0) * 1000.0
        elements = sum(1 for _ in lxml.etree.fromstring(xml).iter())
    else:
        app = find_app(pyatspi, args.app, args.wait)
        if app is None:
            print(f"capture_osworld: no application {args.app!r} on the AT-SPI bus",
                  file=sys.stderr)
            return 2
        t0 = time.monotonic()
        root = lxml.etree.Element("desktop-frame", nsmap=server._accessibility_ns_map_ubuntu)
        root.append(server._create_atspi_node(app, 1))
        xml = lxml.etree.tostring(root, encoding="unicode")
        capture_ms = (time.monotonic() - t0) * 1000.0
        elements = sum(1 for _ in root.iter())

    doc = {"capture_ms": round(capture_ms, 1), "elements": elements,
           "server_sha256": digest, "xml": xml}
    text = json.dumps(doc, ensure_ascii=False)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    print(f"capture_osworld: {elements} elements in {capture_ms:.1f} ms", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
