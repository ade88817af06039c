"""A private virtual desktop for the live tests: Xvfb, a session bus, the
accessibility bus, and gtk3-widget-factory on it. A missing program fails
the test with the Debian package to install."""

import os
import shutil
import signal
import subprocess
import time

import pytest

NEEDED = {
    "Xvfb": "xvfb",
    "dbus-daemon": "dbus",
    "/usr/libexec/at-spi-bus-launcher": "at-spi2-core",
    "gtk3-widget-factory": "gtk-3-examples",
}


def _require():
    missing = [pkg for prog, pkg in NEEDED.items() if shutil.which(prog) is None]
    if missing:
        pytest.fail("the live tests need: apt-get install -y " + " ".join(sorted(set(missing))))


def _start_xvfb():
    """Xvfb on the first free display from :90, and that display."""
    for number in range(90, 190):
        if os.path.exists(f"/tmp/.X{number}-lock") or os.path.exists(f"/tmp/.X11-unix/X{number}"):
            continue
        # -noreset: otherwise the server resets when its last client leaves
        # (the bus launcher, before the application connects) and loses the
        # AT_SPI_BUS property the launcher set, and the application never
        # joins the accessibility bus.
        xvfb = subprocess.Popen(
            ["Xvfb", f":{number}", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and xvfb.poll() is None:
            if os.path.exists(f"/tmp/.X11-unix/X{number}"):
                return xvfb, f":{number}"
            time.sleep(0.05)
        xvfb.kill()
        xvfb.wait()
    pytest.fail("Xvfb did not start on any display from :90 to :189")


@pytest.fixture(scope="module")
def live_desktop():
    """Yields the environment of a fresh desktop with gtk3-widget-factory;
    the test process talks to that desktop while the fixture lives."""
    _require()
    started = []
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS")}
    try:
        xvfb, display = _start_xvfb()
        started.append(xvfb)
        bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address"],
            stdout=subprocess.PIPE, text=True, start_new_session=True,
        )
        started.append(bus)
        address = bus.stdout.readline().strip()
        env = dict(os.environ, DISPLAY=display, DBUS_SESSION_BUS_ADDRESS=address,
                   NO_AT_BRIDGE="0", GTK_A11Y="atspi", ACCESSIBILITY_ENABLED="1")
        env.pop("AT_SPI_BUS_ADDRESS", None)
        for cmd in (["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], ["gtk3-widget-factory"]):
            started.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, start_new_session=True))
        os.environ.update(DISPLAY=display, DBUS_SESSION_BUS_ADDRESS=address)
        os.environ.pop("AT_SPI_BUS_ADDRESS", None)
        yield env
    finally:
        # Asked to stop first: Xvfb then takes its lock file and socket
        # with it, which a kill would leave, holding their display number.
        for proc in reversed(started):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=2)
            except ProcessLookupError:
                proc.wait()
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def wait_for_app(desktop, name, limit=30.0):
    """Waits until `name` is on the accessibility bus."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if any(app == name for app, _ in desktop.apps()):
            return
        time.sleep(0.2)
    pytest.fail(f"{name} did not appear on the accessibility bus within {limit} s")
