from typing import Any, Awaitable, Optional

from ._uidelta import *
from ._uidelta import ActionResult, Browser, Desktop, Diff, __version__, diff

class AsyncDesktop:
    """`Desktop` for asyncio: every method of `Desktop`, awaitable."""

    @classmethod
    async def connect(cls) -> "AsyncDesktop": ...
    def __getattr__(self, name: str) -> Any: ...

class AsyncBrowser:
    """`Browser` for asyncio: every method of `Browser`, awaitable."""

    @classmethod
    async def open(cls, url: Optional[str] = None, *, cdp: Optional[str] = None) -> "AsyncBrowser": ...
    def __getattr__(self, name: str) -> Any: ...
