"""uidelta.Desktop on a real application (gtk3-widget-factory) on a
private virtual desktop: its tree, an action and the diff it answers with."""

import pytest

import uidelta
from conftest import wait_for_app

APP = "gtk3-widget-factory"
CHECK = "role:check box && name:checkbutton && state:enabled && nth:0"


def test_a_check_box_ticked_answers_with_its_one_change(live_desktop):
    desktop = uidelta.Desktop()
    wait_for_app(desktop, APP)
    tree = desktop.tree(APP)
    assert 'check box "checkbutton"' in tree
    result = desktop.click(CHECK)
    assert not result.exited
    [modified] = result.diff.modified
    assert (modified.element.role, modified.element.name) == ("check box", "checkbutton")
    assert [(c.attr, c.old, c.new) for c in modified.changes] == [("checked", False, True)]
    ref = modified.element.ref
    assert f'~ [{ref}] check box "checkbutton" | checked: false -> true' in result.text.splitlines()
    # The ref works for the next action: unticked again.
    again = desktop.click(ref)
    [back] = again.diff.modified
    assert [(c.attr, c.old, c.new) for c in back.changes] == [("checked", True, False)]


def test_a_target_that_matches_nothing_is_a_lookup_error(live_desktop):
    desktop = uidelta.Desktop()
    wait_for_app(desktop, APP)
    desktop.tree(APP)
    with pytest.raises(LookupError, match="no element matches"):
        desktop.click("role:push button && name:No such button anywhere")
    with pytest.raises(ValueError):
        desktop.click("role:")


UNTICKED = "role:check box && name:checkbutton && state:enabled && !state:checked"
PNG = b"\x89PNG\r\n\x1a\n"


def test_find_answers_with_the_matching_elements_and_their_refs(live_desktop):
    desktop = uidelta.Desktop()
    wait_for_app(desktop, APP)
    [first] = desktop.find(CHECK, app=APP)
    assert (first.role, first.name, first.app) == ("check box", "checkbutton", APP)
    assert first.ref.startswith("e") and first.ref[1:].isdigit()
    assert "enabled" in first.states and "checked" not in first.states
    assert first.value is None
    assert repr(first) == f'[{first.ref}] check box "checkbutton" in {APP}'
    # Without `app`: every application read so far, the same element.
    every = desktop.find("role:check box && name:checkbutton")
    assert first.ref in [f.ref for f in every]
    assert {(f.role, f.name) for f in every} == {("check box", "checkbutton")}
    # The ref is the one actions take.
    ticked = desktop.click(first.ref)
    [modified] = ticked.diff.modified
    assert modified.element.ref == first.ref
    [again] = desktop.find(f"{CHECK} && state:checked", app=APP)
    assert again.ref == first.ref and "checked" in again.states
    desktop.click(first.ref)
    assert desktop.find("role:push button && name:No such button anywhere") == []


def test_a_point_of_the_screen_is_clicked_and_hovered(live_desktop):
    desktop = uidelta.Desktop()
    wait_for_app(desktop, APP)
    [box] = desktop.find(CHECK, app=APP)
    x, y, w, h = box.bounds
    assert w > 0 and h > 0
    centre = (x + w // 2, y + h // 2)
    ticked = desktop.click_at(APP, *centre)
    assert ticked.method == f"XTest click at {centre[0]},{centre[1]}"
    [modified] = ticked.diff.modified
    assert modified.element.ref == box.ref
    assert [(c.attr, c.old, c.new) for c in modified.changes] == [("checked", False, True)]
    moved = desktop.hover_at(APP, 1, 1)
    assert moved.method == "XTest pointer moved to 1,1"
    desktop.click(box.ref)
    with pytest.raises(ValueError, match='no button "middle"'):
        desktop.click_at(APP, *centre, button="middle")


def test_invoke_performs_an_elements_named_action(live_desktop):
    desktop = uidelta.Desktop()
    wait_for_app(desktop, APP)
    desktop.tree(APP)
    ticked = desktop.invoke(CHECK, "click")
    [modified] = ticked.diff.modified
    assert (modified.element.role, modified.element.name) == ("check box", "checkbutton")
    assert [(c.attr, c.old, c.new) for c in modified.changes] == [("checked", False, True)]
    back = desktop.invoke(modified.element.ref, "Click")
    [m] = back.diff.modified
    assert [(c.attr, c.old, c.new) for c in m.changes] == [("checked", True, False)]
    with pytest.raises(ValueError) as empty:
        desktop.invoke(CHECK, " ")
    assert empty.value.kind == "bad_argument"


def test_wait_for_element_returns_once_another_session_ticked_the_box(live_desktop):
    import threading
    import time

    waiter = uidelta.Desktop()
    wait_for_app(waiter, APP)
    [box] = waiter.find(CHECK, app=APP)
    assert "checked" not in box.states
    clicked = []

    def tick():
        other = uidelta.Desktop()
        other.tree(APP)
        time.sleep(0.5)
        clicked.append(other.click(CHECK))

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        waited = waiter.wait_for_element(APP, box.ref, timeout=60, condition="has_state",
                                         state="checked")
    finally:
        thread.join()
    assert (waited.element.ref, waited.element.role, waited.element.name) == (
        box.ref, "check box", "checkbutton")
    assert not waited.exited
    [modified] = clicked[0].diff.modified
    assert [(c.attr, c.old, c.new) for c in modified.changes] == [("checked", False, True)]
    # The same box, unticked again: it lacks the state now.
    waiter.click(box.ref)
    unticked = waiter.wait_for_element(APP, box.ref, timeout=60, condition="lacks_state",
                                       state="checked")
    assert unticked.element.ref == box.ref


def test_wait_for_element_times_out_with_kind_timeout(live_desktop):
    desktop = uidelta.Desktop()
    wait_for_app(desktop, APP)
    with pytest.raises(TimeoutError, match="0 match now") as late:
        desktop.wait_for_element(APP, "role:push button && name:No such button anywhere",
                                 timeout=0.5)
    assert late.value.kind == "timeout"
    with pytest.raises(ValueError) as bad:
        desktop.wait_for_element(APP, CHECK, condition="has_state", state="sideways")
    assert bad.value.kind == "bad_argument"
    assert "no state `sideways`" in str(bad.value)


def test_screenshot_is_a_png_of_the_whole_display(live_desktop, tmp_path):
    import struct

    desktop = uidelta.Desktop()
    out = tmp_path / "screen.png"
    png = desktop.screenshot(out)
    assert png[:8] == PNG
    assert struct.unpack(">II", png[16:24]) == (1280, 1024)
    assert out.read_bytes() == png
    assert desktop.screenshot()[:8] == PNG


def test_errors_carry_the_kind_mcp_gives_them(live_desktop):
    desktop = uidelta.Desktop()
    wait_for_app(desktop, APP)
    desktop.tree(APP)
    with pytest.raises(LookupError) as nothing:
        desktop.click("role:push button && name:No such button anywhere")
    assert nothing.value.kind == "no_match"
    with pytest.raises(LookupError) as unknown:
        desktop.click("e999999")
    assert unknown.value.kind == "unknown_ref"
    with pytest.raises(ValueError) as bad:
        desktop.find("role:")
    assert bad.value.kind == "bad_selector"
    with pytest.raises(LookupError) as no_app:
        desktop.tree("no-such-application-anywhere")
    assert no_app.value.kind == "not_found"


def test_the_asyncio_desktop_has_the_new_methods(live_desktop):
    import asyncio

    # Run alone, it is the first to use the desktop.
    wait_for_app(uidelta.Desktop(), APP)

    async def task():
        desktop = await uidelta.AsyncDesktop.connect()
        [found] = await desktop.find(CHECK, app=APP)
        waited = await desktop.wait_for_element(APP, CHECK, timeout=30)
        png = await desktop.screenshot()
        return found.ref, waited.element.ref, png[:8]

    found, waited, signature = asyncio.run(task())
    assert found == waited and signature == PNG
