"""uidelta.Browser on a page in a headless Chromium: its tree, typing and
a click, each answering with what it changed."""

import pathlib
import shutil

import pytest

import uidelta

FORM = (pathlib.Path(__file__).resolve().parents[3] / "fixtures/web/form.html").as_uri()


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
