"""uidelta.Browser on a page in a headless Chromium: its tree, typing and
a click, each answering with what it changed."""

import pathlib
import shutil

import pytest

import uidelta

WEB = pathlib.Path(__file__).resolve().parents[3] / "fixtures/web"
FORM = (WEB / "form.html").as_uri()
DIALOG = (WEB / "dialog.html").as_uri()
SHOP = (WEB / "shop.html").as_uri() + "?n=2"
ALERTS = (WEB / "alerts.html").as_uri()
BOARD = (WEB / "board.html").as_uri()
PNG = b"\x89PNG\r\n\x1a\n"


def need_chromium():
    if shutil.which("chromium") is None:
        pytest.fail("the browser test needs Chromium: apt-get install -y chromium")


def test_typing_and_submitting_a_form_answer_with_their_changes():
    if shutil.which("chromium") is None:
        pytest.fail("the browser test needs Chromium: apt-get install -y chromium")
    browser = uidelta.Browser(FORM)
    tree = browser.tree()
    assert '[e4] entry "Name"' in tree
    assert '[e8] push button "Create account"' in tree
    typed = browser.type("e4", "Ada")
    [field] = typed.diff.modified
    assert field.element.ref == "e4"
    assert [(c.attr, c.old, c.new) for c in field.changes] == [("value", None, "Ada")]
    sent = browser.click('role:push button && name:Create account')
    [status] = sent.diff.modified
    assert status.element.role == "status bar"
    assert ("name", "", "Thanks, Ada") in [(c.attr, c.old, c.new) for c in status.changes]
    assert sent.text.splitlines()[-1].startswith("~ [e9] status bar | name: \"\" -> \"Thanks, Ada\"")


def test_an_action_needs_no_tree_first():
    need_chromium()
    browser = uidelta.Browser(FORM)
    typed = browser.type("role:entry && name:Name", "Ada")
    [field] = typed.diff.modified
    assert (field.element.role, field.element.name) == ("entry", "Name")
    assert [(c.attr, c.old, c.new) for c in field.changes] == [("value", None, "Ada")]
    sent = browser.click("role:push button && name:Create account")
    [status] = sent.diff.modified
    assert ("name", "", "Thanks, Ada") in [(c.attr, c.old, c.new) for c in status.changes]


def test_hovering_over_a_menu_button_shows_its_menu():
    need_chromium()
    browser = uidelta.Browser(SHOP)
    assert 'link "Women 1"' not in browser.tree()
    shown = browser.hover("role:push button && name:Women")
    links = [line.split('] link "')[1].rstrip('"') for line in shown.text.splitlines() if '] link "' in line]
    assert links == [f"Women {k}" for k in range(1, 9)]
    assert 'link "Women 1"' in browser.tree()


def test_points_of_the_page_are_hovered_and_clicked():
    need_chromium()
    browser = uidelta.Browser(SHOP)
    [men] = browser.find("role:push button && name:Men")
    x, y, w, h = men.bounds
    assert w > 0 and h > 0
    shown = browser.hover_at(x + w // 2, y + h // 2)
    assert shown.method == f"CDP Input pointer move at {x + w // 2},{y + h // 2}"
    links = [line.split('] link "')[1].rstrip('"') for line in shown.text.splitlines() if '] link "' in line]
    assert links == [f"Men {k}" for k in range(1, 9)]
    [link] = browser.find("role:link && name:Men 3")
    lx, ly, lw, lh = link.bounds
    clicked = browser.click_at(lx + lw // 2, ly + lh // 2)
    assert clicked.method.startswith("CDP Input click at ")
    assert clicked.diff.has_changes
    with pytest.raises(ValueError, match="a double click is of the left button"):
        browser.click_at(1, 1, button="right", double=True)
    with pytest.raises(ValueError, match='no button "middle"'):
        browser.click("role:push button && name:Men", button="middle")


def test_scroll_turns_the_wheel_or_brings_an_element_into_view():
    need_chromium()
    browser = uidelta.Browser(SHOP)
    turned = browser.scroll("role:document web", amount=5)
    assert turned.method.startswith("CDP Input wheel 0,5 at ")
    shown = browser.scroll("role:toggle button && name:Add 2", direction="up", amount=0)
    assert shown.method == "DOM.scrollIntoViewIfNeeded"
    with pytest.raises(ValueError, match="more than 50 wheel clicks"):
        browser.scroll("role:document web", amount=51)
    with pytest.raises(ValueError, match="is negative"):
        browser.scroll("role:document web", amount=-1)
    with pytest.raises(ValueError, match='no direction "sideways"'):
        browser.scroll("role:document web", direction="sideways")


def test_a_prompt_is_a_dialog_answered_with_what_was_typed():
    need_chromium()
    browser = uidelta.Browser(ALERTS)
    opened = browser.click("role:push button && name:Rename")
    [dialog] = opened.diff.added
    assert (dialog.element.role, dialog.element.name) == ("dialog", "New name for the list")
    with pytest.raises(RuntimeError, match="waits for the answer to its JavaScript prompt"):
        browser.click("role:push button && name:Save")
    typed = browser.type("role:entry", "Groceries")
    [entry] = typed.diff.modified
    assert [(c.attr, c.old, c.new) for c in entry.changes] == [("value", "Items", "Groceries")]
    answered = browser.click("role:dialog >> name:OK")
    assert '| name: "Ready" -> "Renamed to Groceries"' in answered.text


def test_dragging_a_card_onto_a_list_moves_it():
    need_chromium()
    browser = uidelta.Browser(BOARD)
    # From a point of the viewport (a card's centre, as the page's first
    # read placed it) onto a list.
    [card] = browser.find("role:list item && name:Call Ann")
    x, y, w, h = card.bounds
    moved = browser.drag_at(x + w // 2, y + h // 2, "role:list && name:Done")
    assert moved.method.startswith(f"CDP Input drag from {x + w // 2},{y + h // 2} to ")
    assert '| name: "Ready" -> "Call Ann moved to Done"' in moved.text
    with pytest.raises(ValueError, match="drag_at: give where to drop"):
        browser.drag_at(x, y)
    moved = browser.drag("role:list item && name:Write report", "role:list && name:Done")
    assert moved.diff.added == [] and moved.diff.removed == []
    card = next(m for m in moved.diff.modified if m.element.name == "Write report")
    [change] = card.changes
    assert change.attr == "parent"
    assert (change.old.role, change.old.name, change.new.name) == ("list", "To do", "Done")
    with pytest.raises(ValueError, match="give where to drop"):
        browser.drag("role:list item && name:Write report")


def test_the_asyncio_session_answers_as_the_plain_one():
    import asyncio

    async def task():
        browser = await uidelta.AsyncBrowser.open(FORM)
        tree = await browser.tree()
        assert '[e4] entry "Name"' in tree
        typed = await browser.type("e4", "Grace")
        [field] = typed.diff.modified
        return [(c.attr, c.old, c.new) for c in field.changes]

    assert asyncio.run(task()) == [("value", None, "Grace")]


def test_find_and_invoke_in_a_page():
    need_chromium()
    browser = uidelta.Browser(FORM)
    [button] = browser.find("role:push button")
    assert (button.ref, button.role, button.name) == ("e8", "push button", "Create account")
    assert "enabled" in button.states
    [entry] = browser.find("role:entry && name:Name")
    assert (entry.ref, entry.value) == ("e4", None)
    assert browser.find("role:push button && name:Delete") == []
    sent = browser.invoke(button.ref, "press")
    [status] = sent.diff.modified
    assert ("name", "", "Thanks, stranger") in [(c.attr, c.old, c.new) for c in status.changes]
    with pytest.raises(RuntimeError, match="no action `explode`") as unknown:
        browser.invoke("e8", "explode")
    assert unknown.value.kind == "unsupported"
    with pytest.raises(LookupError) as nothing:
        browser.click("role:push button && name:Delete")
    assert nothing.value.kind == "no_match"


def test_wait_for_element_returns_the_dialogs_last_button():
    need_chromium()
    browser = uidelta.Browser(DIALOG)
    assert '"Open dialog"' in browser.tree()
    browser.click("role:push button && name:Open dialog")
    # The dialog opens 300 ms after the click; "Delete" comes last.
    waited = browser.wait_for_element("role:dialog >> role:push button && name:Delete",
                                      timeout=30)
    assert (waited.element.role, waited.element.name) == ("push button", "Delete")
    [delete] = browser.find("role:push button && name:Delete")
    assert delete.ref == waited.element.ref
    browser.click(delete.ref)
    gone = browser.wait_for_element("role:dialog", timeout=30, condition="disappears")
    assert gone.element is None


def test_screenshot_is_a_png_of_the_page(tmp_path):
    import struct

    need_chromium()
    browser = uidelta.Browser(FORM)
    out = tmp_path / "page.png"
    png = browser.screenshot(str(out))
    assert png[:8] == PNG
    width, height = struct.unpack(">II", png[16:24])
    # The 1280x1024 window less the bars a browser window has.
    assert width == 1280 and 800 < height < 1024
    assert out.read_bytes() == png
