"""What did my last action change? Diffs of accessibility trees."""

import os
from typing import Iterable, Literal, Optional, Tuple, Union

__version__: str

Capture = Union[str, bytes, dict, list, "os.PathLike[str]"]
PathArg = Union[str, "os.PathLike[str]"]
AttrValue = Union[str, bool, int, Tuple[int, int, int, int], "Element", None]

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
    """What an action did: `diff`, `text` (the answer an agent reads),
    `method` (how it was done), `exited` (the application ended)."""

    diff: Diff
    text: str
    method: str
    exited: bool

class Found:
    """An element that matches a selector, as `find` gives it."""

    ref: str
    role: str
    name: str
    value: Optional[str]
    states: list[str]
    bounds: Optional[Tuple[int, int, int, int]]
    """(x, y, w, h) in the coordinates `click_at` takes, or None when unknown."""
    app: str

class Waited:
    """What `wait_for_element` found: the element (None when waiting for
    nothing to match), what changed meanwhile by application, and whether
    the application exited."""

    element: Optional[Element]
    changes: list[Tuple[str, Diff]]
    exited: bool

Condition = Literal["appears", "disappears", "has_state", "lacks_state"]
Button = Literal["left", "right"]
Direction = Literal["up", "down", "left", "right"]

# Errors of the desktop and the browser are LookupError (kinds no_match,
# ambiguous, ref_gone, unknown_ref, not_found, app_gone), TimeoutError
# (timeout), ValueError (bad_selector, bad_argument) or RuntimeError (the
# others: unresponsive, unsupported, disconnected, refs_exhausted,
# backend), each with a `kind` attribute naming it as MCP's errors do.

class Desktop:
    """The live Linux desktop (DISPLAY and the session bus from the
    environment), read through AT-SPI. Targets are refs (`e12`) or
    selectors (`role:push button && name:OK`)."""

    def __init__(self) -> None: ...
    def apps(self) -> list[Tuple[str, Optional[int]]]: ...
    def tree(self, app: str) -> str: ...
    def click(self, target: str, *, button: Button = "left", double: bool = False) -> ActionResult: ...
    def click_at(
        self, app: str, x: int, y: int, *, button: Button = "left", double: bool = False
    ) -> ActionResult:
        """Clicks the point (x, y) of the screen, answered with the diff of `app`: for what
        the tree does not show (a canvas), or an application that does not answer."""
    def hover(self, target: str) -> ActionResult:
        """Moves the pointer over `target` and leaves it there: what shows on hover."""
    def hover_at(self, app: str, x: int, y: int) -> ActionResult:
        """Moves the pointer to the point (x, y) of the screen, answered with the diff of `app`."""
    def drag(
        self, target: str, to: Optional[str] = None, *, at: Optional[Tuple[int, int]] = None
    ) -> ActionResult:
        """Drags `target` with the primary button onto the element `to` (dropped at its
        centre), or to the point `at`."""
    def drag_at(
        self,
        app: str,
        x: int,
        y: int,
        to: Optional[str] = None,
        *,
        at: Optional[Tuple[int, int]] = None,
    ) -> ActionResult:
        """Drags from the point (x, y) of the screen onto the element `to`, or to the
        point `at`, answered with the diff of `app`."""
    def scroll(self, target: str, direction: Direction = "down", amount: int = 3) -> ActionResult:
        """Turns the mouse wheel `amount` clicks over `target`; 0 scrolls it into view."""
    def type(self, target: str, text: str) -> ActionResult:
        """Types `text` into `target`: at its caret when it has the keyboard focus, else
        in place of its selected text or at its end; `set_value` replaces a field's text.
        A line break is Return and a tab Tab."""
    def set_value(self, target: str, value: str) -> ActionResult: ...
    def select(self, target: str, selected: bool = True) -> ActionResult: ...
    def key(self, app: str, chord: str) -> ActionResult: ...
    def wait_for_change(self, app: str, timeout: float = 10.0) -> ActionResult: ...
    def invoke(self, target: str, action: str) -> ActionResult:
        """Performs `target`'s accessible action named `action` (`click`, `activate`)."""
    def find(self, selector: str, app: Optional[str] = None) -> list[Found]:
        """The elements matching `selector`, in `app` or every application read so far."""
    def wait_for_element(
        self,
        app: str,
        selector: str,
        timeout: float = 10.0,
        *,
        condition: Condition = "appears",
        state: Optional[str] = None,
    ) -> Waited:
        """Waits until an element of `app` matching `selector` meets `condition`."""
    def screenshot(self, path: Optional[PathArg] = None) -> bytes:
        """A PNG of the screen, also written to `path` when given."""

class Browser:
    """A page in Chromium (headless, started for it; or the one at `cdp`),
    read through the DevTools protocol; `url` opens in a tab of its own.
    The first action reads the page when `tree()` or `find()` has not."""

    def __init__(self, url: Optional[str] = None, *, cdp: Optional[str] = None) -> None: ...
    def tree(self) -> str: ...
    def click(self, target: str, *, button: Button = "left", double: bool = False) -> ActionResult: ...
    def click_at(
        self, x: int, y: int, *, button: Button = "left", double: bool = False
    ) -> ActionResult:
        """Clicks the point (x, y) of the tab's viewport (CSS pixels): for what the tree
        does not show (a canvas)."""
    def hover(self, target: str) -> ActionResult:
        """Moves the pointer over `target` and leaves it there: what shows on hover."""
    def hover_at(self, x: int, y: int) -> ActionResult:
        """Moves the pointer to the point (x, y) of the tab's viewport."""
    def drag(
        self, target: str, to: Optional[str] = None, *, at: Optional[Tuple[int, int]] = None
    ) -> ActionResult:
        """Drags `target` with the primary button onto the element `to` (dropped at its
        centre), or to the point `at`."""
    def drag_at(
        self, x: int, y: int, to: Optional[str] = None, *, at: Optional[Tuple[int, int]] = None
    ) -> ActionResult:
        """Drags from the point (x, y) of the tab's viewport onto the element `to`, or to
        the point `at`."""
    def scroll(self, target: str, direction: Direction = "down", amount: int = 3) -> ActionResult:
        """Turns the mouse wheel `amount` clicks over `target`; 0 scrolls it into view."""
    def type(self, target: str, text: str) -> ActionResult:
        """Types `text` into `target`: at its caret when it has the keyboard focus, else
        in place of its selected text or at its end; `set_value` replaces a field's text.
        A line break is Return and a tab Tab."""
    def set_value(self, target: str, value: str) -> ActionResult: ...
    def select(self, target: str, selected: bool = True) -> ActionResult: ...
    def key(self, chord: str) -> ActionResult: ...
    def navigate(self, url: str) -> ActionResult: ...
    def wait_for_change(self, timeout: float = 10.0) -> ActionResult: ...
    def invoke(self, target: str, action: str) -> ActionResult:
        """Performs `action` (`click`, `focus`) on `target`."""
    def find(self, selector: str) -> list[Found]:
        """The elements of the page matching `selector`."""
    def wait_for_element(
        self,
        selector: str,
        timeout: float = 10.0,
        *,
        condition: Condition = "appears",
        state: Optional[str] = None,
    ) -> Waited:
        """Waits until an element of the page matching `selector` meets `condition`."""
    def screenshot(self, path: Optional[PathArg] = None) -> bytes:
        """A PNG of the page's viewport, also written to `path` when given."""

def main(argv: list[str], helper: Optional[str] = None) -> int:
    """Runs the `uidelta` command line (`python -m uidelta` calls it)."""
