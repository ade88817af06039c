"""What did my last action change? Diffs of accessibility trees."""

import os
from typing import Iterable, Optional, Tuple, Union

__version__: str

Capture = Union[str, bytes, dict, list, "os.PathLike[str]"]
AttrValue = Union[str, bool, int, Tuple[int, int, int, int], None]

class Element:
    """One element as a diff names it."""

    ref: str
    role: str
    name: str
    value: Optional[str]

class Added:
    """An element that appeared, with everything in it."""

    element: Element
    parent: str
    subtree: list[Element]

class Removed:
    """An element that went."""

    element: Element
    parent: str

class AttrChange:
    """One attribute's change: `checked: False -> True`."""

    attr: str
    old: AttrValue
    new: AttrValue

class Modified:
    """An element some of whose attributes changed."""

    element: Element
    changes: list[AttrChange]

class FocusMove:
    """Where the keyboard focus went."""

    from_: Optional[Element]
    to: Optional[Element]

class Diff:
    """What changed between two trees."""

    @property
    def has_changes(self) -> bool: ...
    @property
    def text(self) -> str: ...
    @property
    def added(self) -> list[Added]: ...
    @property
    def removed(self) -> list[Removed]: ...
    @property
    def modified(self) -> list[Modified]: ...
    @property
    def focus(self) -> Optional[FocusMove]: ...
    def to_json(self) -> str: ...
    def __bool__(self) -> bool: ...

def diff(
    before: Capture,
    after: Capture,
    *,
    format: Optional[str] = None,
    keep: Iterable[str] = (),
) -> Diff:
    """What changed from `before` to `after` (paths, capture text, or dicts)."""

class ActionResult:
    """What an action did."""

    diff: Diff
    text: str
    method: str
    exited: bool

class Desktop:
    """The live Linux desktop (DISPLAY and the session bus from the
    environment), read through AT-SPI. Targets are refs (`e12`) or
    selectors (`role:push button && name:OK`)."""

    def __init__(self) -> None: ...
    def apps(self) -> list[Tuple[str, Optional[int]]]: ...
    def tree(self, app: str) -> str: ...
    def click(self, target: str) -> ActionResult: ...
    def type(self, target: str, text: str) -> ActionResult: ...
    def set_value(self, target: str, value: str) -> ActionResult: ...
    def select(self, target: str, selected: bool = True) -> ActionResult: ...
    def key(self, app: str, chord: str) -> ActionResult: ...
    def wait_for_change(self, app: str, timeout: float = 10.0) -> ActionResult: ...

class Browser:
    """A page in Chromium (headless, started for it; or the one at `cdp`),
    read through the DevTools protocol; `url` opens in a tab of its own."""

    def __init__(self, url: Optional[str] = None, *, cdp: Optional[str] = None) -> None: ...
    def tree(self) -> str: ...
    def click(self, target: str) -> ActionResult: ...
    def type(self, target: str, text: str) -> ActionResult: ...
    def set_value(self, target: str, value: str) -> ActionResult: ...
    def select(self, target: str, selected: bool = True) -> ActionResult: ...
    def key(self, chord: str) -> ActionResult: ...
    def navigate(self, url: str) -> ActionResult: ...
    def wait_for_change(self, timeout: float = 10.0) -> ActionResult: ...
