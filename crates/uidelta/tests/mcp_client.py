"""Drives `uidelta mcp` with the official MCP Python SDK, as a host would.

Run by tests/mcp.rs inside a virtual desktop where gtk3-widget-factory and
the fixture application (fixtures/uidelta-fixture.py) are running, and, for
http, CLIENTS more fixture instances named uidelta-fixture-1..CLIENTS:

    python mcp_client.py stdio /path/to/uidelta [LOG_DIR]
    python mcp_client.py http http://127.0.0.1:PORT/mcp TOKEN CLIENTS

Prints one line per checked step; any failed check raises, which exits
non-zero with the step and the response that failed it.
"""

import base64
import json
import os
import re
import sys

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

FACTORY = "gtk3-widget-factory"
FIXTURE = "uidelta-fixture"
UNCHECKED = "role:check box && state:enabled && !state:checked && !state:indeterminate && nth:0"
SECRET = "hunter2-secret"

TOOLS = {
    "get_applications", "get_window_tree", "find_elements", "click_element",
    "click_at", "hover_element", "drag_element", "type_into_element", "press_key", "set_value", "select_option", "set_selected",
    "scroll_element", "invoke_element", "activate_element", "close_window",
    "open_application", "wait_for_change", "wait_for_element", "capture_screenshot",
    "navigate_browser", "execute_browser_script",
}

# One malformed call per tool: a missing, mistyped or unknown argument.
MALFORMED = {
    "get_applications": {"app": 3},
    "get_window_tree": {"app": 3},
    "find_elements": {"selector": 12},
    "click_element": {"click": "left"},
    "click_at": {"app": FACTORY, "x": 10},
    "hover_element": {"target": ["e1"]},
    "drag_element": {"target": "e1", "x": 10},
    "type_into_element": {"target": "e1"},
    "press_key": {"key": ["Return"]},
    "set_value": {"target": "e1", "value": None},
    "select_option": {"target": True},
    "set_selected": {"target": "e1", "selected": "yes"},
    "scroll_element": {"target": "e1", "amount": -3},
    "invoke_element": {"target": "e1"},
    "activate_element": {"targets": "e1"},
    "close_window": {"window": 5},
    "open_application": {"args": ["x"]},
    "wait_for_change": {"timeout_ms": "5"},
    "wait_for_element": {"app": FACTORY, "selector": "name:x", "condition": "sometimes"},
    "capture_screenshot": {"window": "x"},
    "navigate_browser": {"app": FACTORY, "go": "sideways"},
    "execute_browser_script": {"app": FACTORY},
}


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def check(cond, what, result=None):
    if not cond:
        detail = ""
        if result is not None:
            detail = "\n--- response ---\n" + text_of(result)
            if result.structured_content is not None:
                detail += "\n--- structured ---\n" + json.dumps(result.structured_content, indent=1)
        raise AssertionError(what + detail)
    print("ok:", what, flush=True)


async def call(session, name, args):
    return await session.call_tool(name, args, read_timeout_seconds=60)


async def scenario(session, transport):
    init = await session.initialize()
    check("get_window_tree" in (init.instructions or "") and "wait_for_change" in init.instructions,
          "the instructions teach the loop")

    tools = {t.name: t for t in (await session.list_tools()).tools}
    check(set(tools) == TOOLS, f"the 22 tools are listed ({sorted(set(tools) ^ TOOLS)} differ)")
    click_schema = tools["click_element"].input_schema
    check("ui_diff_before_after" in click_schema["properties"], "action tools take ui_diff_before_after")
    check("output_file" in tools["get_window_tree"].input_schema["properties"],
          "get_window_tree takes output_file")

    r = await call(session, "get_applications", {})
    check(not r.is_error and FACTORY in text_of(r), "get_applications lists the widget factory", r)
    names = [a["name"] for a in r.structured_content["applications"]]
    check(FIXTURE in names, "and the fixture", r)

    r = await call(session, "get_window_tree", {"app": FACTORY})
    tree = text_of(r)
    check(not r.is_error and '[e1] application "gtk3-widget-factory"' in tree and "check box" in tree,
          "get_window_tree answers with the tree", r)
    tree_tokens = r.structured_content["tree_tokens"]

    r = await call(session, "get_window_tree", {"app": FACTORY, "output_file": "tree.txt"})
    out = "" if r.is_error else r.structured_content["output_file"]
    check(out.endswith("/uidelta/output/tree.txt") and os.path.exists(out),
          "get_window_tree writes to output_file in its output directory and answers with the path",
          r)
    check("tree" not in r.structured_content and len(text_of(r)) < 400, "without the tree itself", r)
    r = await call(session, "get_window_tree", {"app": FACTORY, "output_file": "../tree.txt"})
    check(r.is_error, "and nowhere outside that directory", r)

    r = await call(session, "find_elements", {"selector": UNCHECKED, "app": FACTORY})
    check(not r.is_error and r.structured_content["total"] == 1, "find_elements finds one check box", r)
    box = r.structured_content["matches"][0]
    check(box["role"] == "check box" and box["ref"].startswith("e") and "checked" not in box["states"],
          f"with ref, role, name and states: {box['ref']} {box['name']!r}", r)

    r = await call(session, "click_element", {"target": box["ref"]})
    want = f'~ [{box["ref"]}] check box {json.dumps(box["name"])} | checked: false -> true'
    s = r.structured_content
    check(not r.is_error and want in s["ui_diff"], f"click_element answers with `{want}`", r)
    check(s["has_ui_changes"] and s["counts"]["modified"] >= 1 and s["target"]["ref"] == box["ref"],
          "with has_ui_changes, counts and the resolved target", r)
    check(s["method"] and isinstance(s["settle_ms"], int) and s["settle_capped"] is False,
          f"with the method ({s['method']}) and settle time ({s['settle_ms']} ms)", r)
    check(0 < s["diff_tokens"] < s["tree_tokens"] and abs(s["tree_tokens"] - tree_tokens) < tree_tokens / 2,
          f"and tokens: diff {s['diff_tokens']} vs tree {s['tree_tokens']}", r)
    check("tree" not in s, "no tree unless asked for", r)

    r = await call(session, "click_element", {"target": box["ref"], "include_tree_after_action": True})
    want = f'~ [{box["ref"]}] check box {json.dumps(box["name"])} | checked: true -> false'
    check(not r.is_error and want in r.structured_content["ui_diff"] and box["ref"] in r.structured_content["tree"],
          "the same ref toggles it back, and include_tree_after_action adds the tree", r)

    r = await call(session, "click_element",
                   {"target": box["ref"], "ui_diff_before_after": False, "settle": "fixed:50"})
    check(not r.is_error and "ui_diff" not in r.structured_content, "ui_diff_before_after: false leaves the diff out", r)
    await call(session, "click_element", {"target": box["ref"], "settle": "none"})

    # Errors are tool errors, and the next call still works.
    for tool, args in MALFORMED.items():
        r = await call(session, tool, args)
        check(r.is_error and r.structured_content["error"]["kind"] == "bad_argument",
              f"malformed {tool} is a tool error: {text_of(r)[:90]}", r)
        r = await call(session, "find_elements", {"selector": box["ref"]})
        check(not r.is_error and r.structured_content["total"] == 1, f"  and the next call works", r)
    for args, kind in [
        ({"target": "e99999"}, "unknown_ref"),
        ({"target": "role:push button && name:No such button", "app": FACTORY}, "no_match"),
        ({"target": "role:check box", "app": FACTORY}, "ambiguous"),
        ({"target": "name:x &&"}, "bad_selector"),
        ({"target": "e1", "app": "no-such-app"}, "not_found"),
        ({"target": "e1", "settle": "sometimes"}, "bad_argument"),
    ]:
        r = await call(session, "click_element", args)
        check(r.is_error and r.structured_content["error"]["kind"] == kind,
              f"{kind}: {text_of(r)[:100]}", r)
    r = await call(session, "wait_for_element",
                   {"app": FACTORY, "selector": "name:Never there", "timeout_ms": 300})
    check(r.is_error and r.structured_content["error"]["kind"] == "timeout", "a wait that runs out is a timeout error", r)
    r = await call(session, "wait_for_change", {"app": FIXTURE, "timeout_ms": 300})
    check(not r.is_error and r.structured_content["timed_out"] and not r.structured_content["has_ui_changes"],
          "wait_for_change without a change says so", r)

    # Passwords: what is typed never comes back, only bullets.
    r = await call(session, "type_into_element",
                   {"target": "role:password text && name:Password", "app": FIXTURE, "text": SECRET})
    raw = json.dumps(r.model_dump(mode="json"))
    check(not r.is_error and SECRET not in raw, "typed password text is in no response", r)
    check("\u2022" in r.structured_content["ui_diff"] or "\u25cf" in r.structured_content["ui_diff"],
          "the diff shows bullets", r)
    r = await call(session, "get_window_tree", {"app": FIXTURE})
    check(SECRET not in json.dumps(r.model_dump(mode="json")), "nor is it in the tree", r)
    r = await call(session, "find_elements", {"selector": "name:Password", "app": FIXTURE})
    check(SECRET not in json.dumps(r.model_dump(mode="json")), "nor in find results", r)

    # A diff with a dialog: the fixture's late dialog is complete in one answer.
    r = await call(session, "click_element", {"target": "name:Open details", "app": FIXTURE})
    diff = r.structured_content["ui_diff"]
    check(not r.is_error and 'dialog "Details"' in diff and "Field 5" in diff and "Close" in diff,
          "a late dialog is complete in the click's diff", r)
    r = await call(session, "wait_for_element",
                   {"app": FIXTURE, "selector": "role:dialog && name:Details", "timeout_ms": 2000})
    check(not r.is_error and r.structured_content["element"]["role"] == "dialog", "wait_for_element finds it", r)
    r = await call(session, "click_element", {"target": "role:dialog >> name:Close", "app": FIXTURE})
    check(not r.is_error and "- [" in r.structured_content["ui_diff"], "closing it is a removal", r)

    r = await call(session, "capture_screenshot", {"app": FACTORY})
    images = [c for c in r.content if c.type == "image"]
    check(not r.is_error and len(images) == 1 and images[0].mime_type == "image/png"
          and base64.b64decode(images[0].data).startswith(b"\x89PNG"),
          "capture_screenshot answers with a PNG image", r)

    r = await call(session, "press_key", {"key": "Tab", "app": FIXTURE})
    check(not r.is_error and "ui_diff" in r.structured_content, "press_key on the focused element of the app", r)

    # The other actions, each answering with its diff.
    r = await call(session, "select_option",
                   {"target": "role:combo box && value:Left", "app": FACTORY, "option": "Middle"})
    check(not r.is_error
          and 'combo box | value: "Left" -> "Middle"' in r.structured_content["ui_diff"],
          "select_option chooses the option: it is the combo box's value", r)
    r = await call(session, "set_value", {"target": "role:spin button && state:enabled", "app": FACTORY, "value": "42"})
    check(not r.is_error and 'value: "50" -> "42"' in r.structured_content["ui_diff"], "set_value", r)
    r = await call(session, "set_selected", {"target": 'role:page tab && name:"page 2" && nth:0', "app": FACTORY})
    check(not r.is_error and "selected: false -> true" in r.structured_content["ui_diff"], "set_selected", r)
    r = await call(session, "invoke_element",
                   {"target": "role:push button && name:Count", "app": FIXTURE, "action": "click"})
    counts = re.search(r'"Count: (\d+)" -> "Count: (\d+)"', r.structured_content["ui_diff"] if not r.is_error else "")
    check(counts and int(counts[2]) == int(counts[1]) + 1, "invoke_element", r)
    r = await call(session, "scroll_element", {"target": "role:text && name:Notes", "app": FIXTURE, "amount": 0})
    check(not r.is_error and r.structured_content["method"], "scroll_element", r)
    r = await call(session, "activate_element", {"target": "name:Count", "app": FIXTURE, "settle": "fixed:300"})
    check(not r.is_error and "ui_diff" in r.structured_content, "activate_element", r)
    r = await call(session, "open_application", {"program": "gtk3-icon-browser"})
    check(not r.is_error and r.structured_content["app"]["name"] == "gtk3-icon-browser", "open_application", r)
    r = await call(session, "close_window", {"app": "gtk3-icon-browser"})
    check(not r.is_error and r.structured_content["app_exited"], "close_window of the last window: it exited", r)

    # An application that exits leaves the session working; its refs are gone.
    r = await call(session, "find_elements", {"selector": "name:Count", "app": FIXTURE})
    count_ref = r.structured_content["matches"][0]["ref"]
    r = await call(session, "close_window", {"target": count_ref})
    check(not r.is_error and r.structured_content["app_exited"], "closing the fixture", r)
    r = await call(session, "click_element", {"target": box["ref"]})
    check(not r.is_error and "checked: false -> true" in r.structured_content["ui_diff"],
          "refs of other applications still work", r)
    r = await call(session, "click_element", {"target": count_ref})
    check(r.is_error and r.structured_content["error"]["kind"] == "ref_gone" and "exited" in text_of(r),
          "a ref of the exited application is gone", r)

    print(f"all checks passed over {transport}", flush=True)


def http_client(token):
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                              timeout=httpx2.Timeout(30, read=300))


CLICKS = 5


async def own_app(url, token, number, seen):
    """One of several concurrent clients, number k of 1..N: it acts only on
    its own fixture instance, uidelta-fixture-k, clicking its Count button
    CLICKS times. Its label must go Count: 1..CLICKS, one step a click (no
    other client touches it), and every response must name only its own
    application and refs from its own session's tree."""
    app = f"{FIXTURE}-{number}"
    others = [f"{FIXTURE}-{k}" for k in range(1, len(seen) + 1) if k != number]

    def only_own(r, what):
        raw = json.dumps(r.structured_content)
        check(not any(o in raw for o in others), f"client {number}: {what} names no other instance", r)

    async with http_client(token) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                r = await call(session, "get_window_tree", {"app": app})
                tree = "" if r.is_error else r.structured_content["tree"]
                check(tree.startswith(f'[e1] application "{app}"'),
                      f"client {number}: the tree of {app}, numbered from e1", r)
                only_own(r, "its tree")
                own = set(re.findall(r"\[(e\d+)\]", tree))
                r = await call(session, "find_elements", {"selector": "role:label && name~:Count", "app": app})
                check(not r.is_error and r.structured_content["total"] == 1,
                      f"client {number}: one Count label", r)
                label = r.structured_content["matches"][0]["ref"]
                r = await call(session, "find_elements",
                               {"selector": "role:push button && name:Count", "app": app})
                check(not r.is_error and r.structured_content["total"] == 1,
                      f"client {number}: one Count button", r)
                button = r.structured_content["matches"][0]["ref"]
                check(label in own and button in own, f"client {number}: both refs are from its own tree", r)
                for click in range(1, CLICKS + 1):
                    r = await call(session, "click_element", {"target": button})
                    s = {} if r.is_error else r.structured_content
                    diff = s.get("ui_diff", "")
                    counts = re.search(r'"Count: (\d+)" -> "Count: (\d+)"', diff)
                    check(counts and (int(counts[1]), int(counts[2])) == (click - 1, click)
                          and f"~ [{label}] label" in diff and s["app"]["name"] == app,
                          f"client {number}: click {click} takes its own label {label} to Count: {click}", r)
                    refs = set(re.findall(r"\[(e\d+)\]", diff))
                    check(refs <= own, f"client {number}: the diff's refs {sorted(refs)} are its own", r)
                    only_own(r, f"click {click}")
                r = await call(session, "find_elements", {"selector": "role:push button && name:Count"})
                check(not r.is_error and [m["app"] for m in r.structured_content["matches"]] == [app],
                      f"client {number}: its session has read only {app}", r)
                seen[number] = (label, button)


async def over_http(url, token, clients):
    async with httpx2.AsyncClient() as raw:
        resp = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                              headers={"Accept": "application/json, text/event-stream"})
        check(resp.status_code == 401, f"no bearer token: HTTP {resp.status_code}")
    seen = {number: None for number in range(1, clients + 1)}
    with anyio.fail_after(180):
        async with anyio.create_task_group() as group:
            for number in range(1, clients + 1):
                group.start_soon(own_app, url, token, number, seen)
    check(all(seen.values()), f"{clients} concurrent clients, each on its own application: {seen}")
    async with http_client(token) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await scenario(session, "http")


async def main():
    mode = sys.argv[1]
    with anyio.fail_after(300):
        if mode == "stdio":
            # An optional third argument: the server's --log-dir.
            args = ["mcp"] + (["--log-dir", sys.argv[3]] if len(sys.argv) > 3 else [])
            params = StdioServerParameters(command=sys.argv[2], args=args, env=dict(os.environ))
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await scenario(session, "stdio")
        elif mode == "http":
            await over_http(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        else:
            raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    anyio.run(main)
