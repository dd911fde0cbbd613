#!/usr/bin/env python3
"""Runs a plugin and records every protocol line both ways (docs/protocol.md §9, "Checking messages against the schemas").

Usage, in place of a plugin command:
    T9KSIM_TEE_TRANSCRIPT=/tmp/t.jsonl tee_plugin.py -- COMMAND [ARG...]
e.g.
    T9KSIM_TEE_TRANSCRIPT=$PWD/t.jsonl build/ci/app/t9ksim run scenario.yaml --out /tmp/out \\
        --plugin controllers="python3 tests/plugins/tee_plugin.py -- build/ci/app/t9ksim plugin serve controller"
then
    python3 tests/plugins/check_schemas.py protocol/schema t.jsonl

COMMAND runs with this process's stdin, stdout and working folder; its stderr is this process's
(the plugin's log). Lines are forwarded unchanged, each way as it comes; each is also appended to
$T9KSIM_TEE_TRANSCRIPT as
    {"dir": "to-plugin" | "from-plugin", "session": "<this process's id>", "message": <the line>}
(the line's own text, so what the checker reads is byte for byte what was sent), or with "raw":
"<the line>" instead of "message" when the line is not JSON. One write per line on a file
opened for appending, so several plugins (and replications) may share one transcript; the
session keeps their ids apart. Give the transcript an absolute path: plugins named in a
scenario run in the scenario's folder.

This process ends when COMMAND has closed its output and exited, with COMMAND's exit code, or
killed by the signal that killed COMMAND, so the simulator sees what it would see without it.
When the simulator kills this process (a timeout), COMMAND sees the end of its input and is
left to exit by itself.

Standard library only.
"""
import json
import os
import signal
import subprocess
import sys
import threading


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


class Transcript:
    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.session = json.dumps(str(os.getpid()))

    def record(self, direction, line):
        text = line.rstrip(b"\n")
        head = b'{"dir":"' + direction + b'","session":' + self.session.encode() + b","
        try:
            decoded = text.decode("utf-8")
            json.loads(decoded, parse_constant=_reject_constant)
            entry = head + b'"message":' + text + b"}\n"
        except ValueError:  # also UnicodeDecodeError
            raw = json.dumps(text.decode("utf-8", errors="replace"))
            entry = head + b'"raw":' + raw.encode() + b"}\n"
        os.write(self.fd, entry)


def forward_input(child, transcript):
    """The simulator's lines to the plugin; closes the plugin's input when ours ends."""
    try:
        for line in sys.stdin.buffer:
            transcript.record(b"to-plugin", line)
            child.stdin.write(line)
            child.stdin.flush()
    except (BrokenPipeError, ValueError):
        pass  # the plugin is gone; its end shows on its output
    finally:
        try:
            child.stdin.close()
        except BrokenPipeError:
            pass


def main(argv):
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: T9KSIM_TEE_TRANSCRIPT=FILE tee_plugin.py -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    command = argv[argv.index("--") + 1:]
    path = os.environ.get("T9KSIM_TEE_TRANSCRIPT")
    if not path:
        print("tee_plugin.py: set T9KSIM_TEE_TRANSCRIPT to the transcript's path", file=sys.stderr)
        return 2
    transcript = Transcript(path)
    try:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as e:
        print(f"tee_plugin.py: cannot start {command[0]}: {e}", file=sys.stderr)
        return 127
    threading.Thread(target=forward_input, args=(child, transcript), daemon=True).start()
    out = sys.stdout.buffer
    try:
        for line in child.stdout:
            transcript.record(b"from-plugin", line)
            out.write(line)
            out.flush()
    except BrokenPipeError:
        pass
    try:
        out.flush()
    except BrokenPipeError:
        pass
    os.close(1)  # the simulator sees the end of the plugin's output now, as without this wrapper
    rc = child.wait()
    if rc < 0:
        try:
            signal.signal(-rc, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL, SIGSTOP: always the default
        os.kill(os.getpid(), -rc)
    return rc


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stderr.flush()
    # Without the interpreter's shutdown: the input thread may still be blocked reading stdin
    # (the simulator closes it only once this process has exited), and a shutdown that finds
    # stdin's buffer locked by a daemon thread aborts the process ("could not acquire lock ...
    # at interpreter shutdown"): SIGABRT where the plugin had exited cleanly.
    os._exit(code)
