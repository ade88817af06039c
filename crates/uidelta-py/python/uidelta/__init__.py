"""What did my last action change? Diffs of accessibility trees, and the
delta loop on the live desktop and in Chromium.

`diff` compares two captures; `Desktop` and `Browser` act and answer with
what each action changed; `AsyncDesktop` and `AsyncBrowser` are the same
for asyncio (each call runs in a worker thread; the native code releases
the GIL while it reads and waits). Errors of the desktop and the browser
carry `kind`, the name MCP's errors give them (`no_match`, `timeout`, ...).
`python -m uidelta` is the `uidelta` command line."""

import asyncio as _asyncio
import functools as _functools

from ._uidelta import *  # noqa: F401,F403
from ._uidelta import __version__, diff  # noqa: F401

try:
    from ._uidelta import Browser, Desktop, Found, Waited
except ImportError:  # Not built on this platform: the diff half only.
    Browser = Desktop = Found = Waited = None


class _Async:
    """Runs the methods of a session in a worker thread, one at a time."""

    _session = None

    def __getattr__(self, name):
        method = getattr(self._session, name)
        if not callable(method):
            return method

        @_functools.wraps(method)
        async def call(*args, **kwargs):
            return await _asyncio.to_thread(method, *args, **kwargs)

        return call


class AsyncDesktop(_Async):
    """`Desktop` for asyncio: `desktop = await AsyncDesktop.connect()`, then
    `await desktop.click(target)` and so on."""

    def __init__(self, session):
        self._session = session

    @classmethod
    async def connect(cls):
        return cls(await _asyncio.to_thread(Desktop))


class AsyncBrowser(_Async):
    """`Browser` for asyncio: `browser = await AsyncBrowser.open(url)`, then
    `await browser.click(target)` and so on."""

    def __init__(self, session):
        self._session = session

    @classmethod
    async def open(cls, url=None, *, cdp=None):
        return cls(await _asyncio.to_thread(Browser, url, cdp=cdp))
