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
