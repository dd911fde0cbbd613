"""What both roles share: framing, initialize, shutdown, errors (docs/protocol.md §2, §3, §8).

One JSON-RPC 2.0 object per line each way. Requests are read with the binary stream's
``readline`` (no length limit); replies are written as compact UTF-8 JSON and flushed one by one.
Nothing but replies goes to stdout: the SDK's own lines go to stderr, which the simulator keeps
in ``OUT/plugins/NAME.log``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, BinaryIO, Callable

# Compact, UTF-8, and NaN or Infinity refused (they are not JSON: the simulator would stop the
# run on the reply) so that user code returning one gets an error reply naming it.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)

PARSE_ERROR = -32700
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# The highest protocol version the SDK answers with; T9KSIM_SDK_PROTOCOL=1 keeps a plugin on
# version 1 when the simulator offers both (to compare the two, or to rule version 2 out).
_VERSIONS = ("1", "2")


def encode(value: Any) -> bytes:
    """``value`` as compact JSON in UTF-8."""
    return _ENCODER.encode(value).encode("utf-8")


def log(name: str, text: str) -> None:
    """One line on stderr, looked up at call time (so a redirected sys.stderr is honoured)."""
    print(f"t9ksim_sdk[{name}]: {text}", file=sys.stderr, flush=True)


class RpcError(Exception):
    """Answer the request with this JSON-RPC error (the traceback, if any, is already logged)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def user_error(name: str, exc: BaseException, where: str = "") -> RpcError:
    """An exception raised by user code: its traceback on stderr, an internal error to answer."""
    import traceback  # here: errors only; its imports cost a plugin's start ~3 ms

    log(name, f"an exception in user code{where}:")
    traceback.print_exception(exc, file=sys.stderr)
    sys.stderr.flush()
    return RpcError(INTERNAL_ERROR, f"{type(exc).__name__}: {exc}{where}")


def describe(value: object) -> str:
    """A JSON value's kind, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else repr(value)


class Handler:
    """One role's side of the protocol; the serve loop calls it (see ``serve``)."""

    role = ""  # "controller" | "elasticPolicy"
    methods: dict[str, Callable[[Any], bytes]]

    def __init__(self, name: str) -> None:
        self.name = name
        self.version = "1"

    def capabilities(self) -> dict[str, Any]:
        return {}

    def configure(self, params: dict[str, Any]) -> None:
        """Take what initialize carries (and drop any state kept from an earlier one)."""

    def commit(self) -> None:
        """The reply of the last request is about to be written: keep what it promised."""

    def rollback(self) -> None:
        """The last request is answered with an error: forget what it would have changed."""

    def initialize(self, params: Any) -> bytes:
        if not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, f"initialize: params: expected an object, found "
                                           f"{describe(params)}")
        role = params.get("role")
        if role is not None and role != self.role:
            mine = "a controller" if self.role == "controller" else "an elastic policy"
            call = "serve_controller" if self.role == "controller" else "serve_policy"
            raise RpcError(INVALID_PARAMS,
                           f"initialize: this plugin is {mine} (t9ksim_sdk.{call}) but was "
                           f"started as role {json.dumps(role)}; give it to the simulator as "
                           + ("a controller (--plugin KIND=...)" if self.role == "controller"
                              else "the elastic policy (--plugin elastic-policy=...)"))
        offered = params.get("protocolVersions")
        highest = os.environ.get("T9KSIM_SDK_PROTOCOL", _VERSIONS[-1])
        self.version = "1"
        if isinstance(offered, list):
            for v in _VERSIONS:
                if v in offered and v <= highest:
                    self.version = v
        self.configure(params)
        log(self.name, f"initialized as {self.role or 'plugin'}, speaking protocol version "
                       f"{self.version}")
        return encode({"protocolVersion": self.version, "name": self.name,
                       "capabilities": self.capabilities()})


def _reply(rid: Any, result: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + encode(rid) + b',"result":' + result + b"}\n"


def _error(rid: Any, code: int, message: str) -> bytes:
    return encode({"jsonrpc": "2.0", "id": rid,
                   "error": {"code": code, "message": message}}) + b"\n"


def _answer(handler: Handler, method: str, params: Any) -> bytes:
    """The encoded result of one request; raises RpcError (or any exception: an SDK bug)."""
    if method == "initialize":
        return handler.initialize(params)
    call = handler.methods.get(method)
    if call is None:
        serves = ", ".join(["initialize", *handler.methods, "shutdown"])
        who = "a controller" if handler.role == "controller" else "an elastic policy"
        raise RpcError(METHOD_NOT_FOUND,
                       f"method {json.dumps(method)} is not served by {who} ({serves})")
    return call(params)


def _request(line: bytes, name: str) -> tuple[Any, str, Any] | bytes:
    """(id, method, params) of a request line, or the error reply to write instead."""
    try:
        msg = json.loads(line.decode("utf-8"))  # the protocol's encoding: no detection needed
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        log(name, f"a line that is not JSON: {e}")
        return _error(None, PARSE_ERROR, f"not JSON: {e}")
    if not isinstance(msg, dict) or not isinstance(msg.get("method"), str):
        rid = msg.get("id") if isinstance(msg, dict) else None
        log(name, "a line that is not a request (no method)")
        return _error(rid, PARSE_ERROR, "not a request: expected an object with a method")
    return msg.get("id"), msg["method"], msg.get("params")


def serve(handler: Handler, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer requests until shutdown or the end of input (then 0)."""
    readline, write, flush = stdin.readline, stdout.write, stdout.flush
    while True:
        line = readline()
        if not line:
            return 0
        if line.isspace():  # the simulator never sends one; answering would break lock-step
            log(handler.name, "an empty line ignored")
            continue
        parsed = _request(line, handler.name)
        if isinstance(parsed, bytes):
            data = parsed
            method = ""
        else:
            rid, method, params = parsed
            if method == "shutdown":
                data = _reply(rid, b"null")
            else:
                try:
                    data = _reply(rid, _answer(handler, method, params))
                    handler.commit()
                except RpcError as e:
                    handler.rollback()
                    data = _error(rid, e.code, e.message)
                except Exception as e:  # an SDK bug: say so, and go on serving
                    import traceback  # errors only (see user_error)

                    handler.rollback()
                    log(handler.name, f"internal error in {method}:")
                    traceback.print_exc(file=sys.stderr)
                    data = _error(rid, INTERNAL_ERROR, f"t9ksim_sdk: {type(e).__name__}: {e}")
        try:
            write(data)
            flush()
        except BrokenPipeError:
            _quiet_stdout(stdout)
            log(handler.name, "the simulator closed our output; exiting")
            return 1
        if method == "shutdown":
            return 0


def _quiet_stdout(stdout: BinaryIO) -> None:
    """After a broken pipe: point the descriptor at /dev/null, so the interpreter's own flush at
    exit does not fail again (Python's documented remedy for SIGPIPE)."""
    try:
        fd = stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
