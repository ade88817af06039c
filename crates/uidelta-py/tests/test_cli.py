"""`python -m uidelta` is the `uidelta` command line: the same output and
exit status as the binary (UIDELTA_BIN, built by scripts/python-test.sh),
and `python -m uidelta mcp` serves MCP on stdio."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import wait_for_app

ROOT = pathlib.Path(__file__).resolve().parents[3]
START = ROOT / "examples/widget-factory/01-start.json"
CHECKED = ROOT / "examples/widget-factory/02-checked.json"
APP = "gtk3-widget-factory"
CHECK = "role:check box && name:checkbutton && state:enabled && nth:0"


def binary():
    path = os.environ.get("UIDELTA_BIN")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("set UIDELTA_BIN to the uidelta binary (cargo build -p uidelta; "
                    "scripts/python-test.sh does both)")
    return path


def both(*args, **kwargs):
    """The module's and the binary's answers to `args`."""
    ran = []
    for program in ([sys.executable, "-m", "uidelta"], [binary()]):
        ran.append(subprocess.run([*program, *args], capture_output=True, text=True,
                                  timeout=120, **kwargs))
    return ran


def test_help_exits_0_and_is_the_binarys():
    module, native = both("--help")
    assert module.returncode == 0, module.stderr
    assert module.stdout.startswith("What did my last action change?")
    assert "\nUsage: uidelta <COMMAND>\n" in module.stdout
    assert (module.stdout, module.stderr) == (native.stdout, native.stderr)


def test_diff_prints_and_exits_as_the_binary():
    module, native = both("diff", str(START), str(CHECKED))
    assert module.returncode == native.returncode == 1
    assert module.stdout == native.stdout
    assert module.stdout.splitlines() == [
        "# diff: ~1 modified",
        '~ [e58] check box "checkbutton" | checked: false -> true',
    ]
    same, _ = both("diff", str(START), str(START))
    assert (same.returncode, same.stdout) == (0, "No UI changes detected\n")


def test_trouble_and_usage_errors_exit_2_with_the_binarys_message():
    module, native = both("diff", "/no/such/capture.json", str(START))
    assert module.returncode == native.returncode == 2
    assert module.stderr == native.stderr
    assert module.stderr.startswith("uidelta: reading /no/such/capture.json")
    module, native = both("diff", "--no-such-option")
    assert module.returncode == native.returncode == 2
    assert module.stderr == native.stderr
    assert "unexpected argument '--no-such-option'" in module.stderr


def test_the_packages_script_is_the_same_command_and_makes_the_actions():
    from uidelta.__main__ import _helper

    script = pathlib.Path(sys.executable).parent / "uidelta"
    assert _helper() == str(script.resolve())
    done = subprocess.run([str(script), "diff", str(START), str(CHECKED)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout.splitlines()[1] == '~ [e58] check box "checkbutton" | checked: false -> true'


def test_ctrl_c_stops_the_mcp_server_as_it_stops_the_binary(tmp_path):
    import signal
    import time

    env = dict(os.environ, UIDELTA_STATE_DIR=str(tmp_path), DISPLAY=":9999",
               DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
    ends = []
    for program in ([sys.executable, "-m", "uidelta"], [binary()]):
        server = subprocess.Popen([*program, "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        try:
            # Serving: it answers an initialize.
            server.stdin.write(b'{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": '
                               b'{"protocolVersion": "2025-06-18", "capabilities": {}, '
                               b'"clientInfo": {"name": "test", "version": "0"}}}\n')
            server.stdin.flush()
            assert b'"id":0' in server.stdout.readline()
            server.send_signal(signal.SIGINT)
            ends.append(server.wait(timeout=60))
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert ends == [-signal.SIGINT, -signal.SIGINT]


def mcp_session(program, env, calls):
    """Runs MCP `calls` ((method, params) pairs) against `program mcp` on
    stdio and returns the results, in order."""
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for i, (method, params) in enumerate(calls, start=1):
        messages.append({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    server = subprocess.Popen([*program, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
    answers = {}
    try:
        for message in messages:
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            if "id" in message:
                while message["id"] not in answers:
                    line = server.stdout.readline()
                    assert line, f"the server ended: {server.stderr.read()}"
                    answer = json.loads(line)
                    if "id" in answer:
                        answers[answer["id"]] = answer
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert answers[0]["result"]["serverInfo"]["name"]
    return [answers[i]["result"] for i in range(1, len(calls) + 1)]


def test_mcp_on_stdio_lists_the_binarys_tools_and_finds_elements(live_desktop, tmp_path):
    env = dict(live_desktop, UIDELTA_STATE_DIR=str(tmp_path))
    calls = [
        ("tools/list", {}),
        ("tools/call", {"name": "find_elements", "arguments": {"selector": CHECK, "app": APP}}),
    ]
    import uidelta
    wait_for_app(uidelta.Desktop(), APP)
    [tools, found] = mcp_session([sys.executable, "-m", "uidelta"], env, calls)
    [native_tools, _] = mcp_session([binary()], env, calls)
    assert tools == native_tools
    assert "find_elements" in [t["name"] for t in tools["tools"]]
    [match] = found["structuredContent"]["matches"]
    assert (match["role"], match["name"], match["app"]) == ("check box", "checkbutton", APP)


def test_an_invoke_on_the_desktop_prints_its_diff(live_desktop, tmp_path):
    # The action goes through the package's script (`uidelta __keep-action`),
    # which stays until the application's handler has returned.
    env = dict(live_desktop, UIDELTA_STATE_DIR=str(tmp_path))
    import uidelta
    wait_for_app(uidelta.Desktop(), APP)
    run = [sys.executable, "-m", "uidelta"]
    ticked = subprocess.run([*run, "invoke", "--app", APP, CHECK, "click"], capture_output=True,
                            text=True, timeout=120, env=env)
    assert ticked.returncode == 0, ticked.stderr
    lines = ticked.stdout.splitlines()
    assert any(line.endswith('check box "checkbutton" | checked: false -> true')
               for line in lines), ticked.stdout
    back = subprocess.run([*run, "invoke", "--app", APP, CHECK, "click"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert back.returncode == 0, back.stderr
    assert any(line.endswith("checked: true -> false") for line in back.stdout.splitlines())
