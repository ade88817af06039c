"""`python -m uidelta`: the `uidelta` command line (the same arguments,
output and exit status as the binary; `python -m uidelta mcp` serves MCP on
stdio). The package's `uidelta` script runs the same."""

import os
import signal
import sys


def _helper():
    """The package's `uidelta` script, which makes accessible actions for a
    command that ends before their handlers return; None when not
    installed."""
    try:
        from importlib import metadata

        dist = metadata.distribution("uidelta")
    except Exception:  # Not installed as a distribution (a source tree).
        return None
    for file in dist.files or ():
        if file.name == "uidelta" and file.parent.name in ("bin", "Scripts"):
            path = os.path.realpath(dist.locate_file(file))
            if os.access(path, os.X_OK):
                return path
    return None


def main():
    """Runs the command line with `sys.argv` and returns its exit status."""
    from uidelta import _uidelta

    if not hasattr(_uidelta, "main"):
        sys.stderr.write("uidelta: the command line is built for Linux only\n")
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    # Ctrl-C ends the command as it ends the binary: Python's own handler
    # would only run once the command returned.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return _uidelta.main(["uidelta", *sys.argv[1:]], _helper())


if __name__ == "__main__":
    sys.exit(main())
