"""uidelta.diff on real captures of gtk3-widget-factory (examples/), in
every form a caller has them: paths, text, dicts, OSWorld's XML."""

import json
import pathlib

import pytest

import uidelta

ROOT = pathlib.Path(__file__).resolve().parents[3]
START = ROOT / "examples/widget-factory/01-start.json"
CHECKED = ROOT / "examples/widget-factory/02-checked.json"
XML_START = ROOT / "fixtures/osworld/widget-factory-01-start.xml"
XML_CHECKED = ROOT / "fixtures/osworld/widget-factory-02-checked.xml"

TICKED = '~ [e58] check box "checkbutton" | checked: false -> true'


def test_a_ticked_check_box_is_one_typed_change():
    d = uidelta.diff(START, CHECKED)
    assert d.has_changes and bool(d)
    assert d.text.splitlines() == ["# diff: ~1 modified", TICKED]
    assert d.added == [] and d.removed == [] and d.focus is None
    [m] = d.modified
    assert (m.element.ref, m.element.role, m.element.name) == ("e58", "check box", "checkbutton")
    [c] = m.changes
    assert (c.attr, c.old, c.new) == ("checked", False, True)


def test_paths_text_bytes_and_dicts_give_the_same_diff():
    by_path = uidelta.diff(str(START), str(CHECKED)).text
    text_before, text_after = START.read_text(), CHECKED.read_text()
    assert uidelta.diff(text_before, text_after).text == by_path
    assert uidelta.diff(text_before.encode(), text_after.encode()).text == by_path
    assert uidelta.diff(json.loads(text_before), json.loads(text_after)).text == by_path


def test_osworld_xml_diffs_as_the_json_of_the_same_captures():
    assert uidelta.diff(XML_START, XML_CHECKED).text == uidelta.diff(START, CHECKED).text
    forced = uidelta.diff(XML_START.read_text(), XML_CHECKED.read_text(), format="osworld")
    assert forced.text.splitlines()[1] == TICKED


def changes(d):
    """The typed changes of a diff: (ref, attribute, old, new)."""
    return [(m.element.ref, c.attr, c.old, c.new) for m in d.modified for c in m.changes]


@pytest.mark.parametrize("pair", [("01-start", "02-checked"), ("02-checked", "03-typed")])
def test_terminator_yaml_diffs_as_the_json_of_the_same_captures(pair):
    # terminator's compact YAML of the same captures (fixtures/terminator,
    # written by `uidelta tree --format terminator`): the same typed changes
    # on the same refs; terminator's roles are coarser (a text field is
    # `static`), so only the role names differ in the text.
    a, b = pair
    yaml = uidelta.diff(
        ROOT / f"fixtures/terminator/widget-factory-{a}.yaml",
        ROOT / f"fixtures/terminator/widget-factory-{b}.yaml",
    )
    json_ = uidelta.diff(
        ROOT / f"examples/widget-factory/{a}.json",
        ROOT / f"examples/widget-factory/{b}.json",
    )
    assert changes(yaml) == changes(json_)
    assert changes(yaml) != []
    assert yaml.added == json_.added == [] and yaml.removed == json_.removed == []


def test_the_json_holds_the_same_change():
    d = json.loads(uidelta.diff(START, CHECKED).to_json())
    assert d["has_changes"] is True
    assert d["counts"] == {"added": 0, "removed": 0, "modified": 1}
    [change] = d["changes"]
    assert change["ref"] == "e58"


def test_the_same_tree_twice_is_no_change():
    d = uidelta.diff(START, START)
    assert not d.has_changes and not bool(d)
    assert d.modified == []
    assert d.text.strip() == "No UI changes detected"


def test_keeping_bounds_shows_what_the_default_filters_out():
    moved = ROOT / "examples/widget-factory/08-moved.json"
    before = ROOT / "examples/widget-factory/07-about-closed.json"
    assert not uidelta.diff(before, moved).has_changes
    assert uidelta.diff(before, moved, keep=["bounds"]).has_changes


def test_bad_input_is_a_clear_python_error():
    with pytest.raises(OSError, match="no-such-file.json"):
        uidelta.diff("no-such-file.json", CHECKED)
    with pytest.raises(ValueError, match="line 1, column"):
        uidelta.diff('{"role": ', CHECKED)
    with pytest.raises(ValueError, match="keep"):
        uidelta.diff(START, CHECKED, keep=["no such rule"])
    with pytest.raises(ValueError, match="format"):
        uidelta.diff(START, CHECKED, format="html")
    with pytest.raises(TypeError, match="before"):
        uidelta.diff(42, CHECKED)
