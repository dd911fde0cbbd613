#!/usr/bin/env python3
"""A version 2 plugin behind a version 1 simulator (tests only).

    v2_shim.py -- COMMAND [ARG...]

To the simulator this process is a version 1 plugin; to COMMAND it is a simulator that speaks
version 2 (tests/v2_wire.py computes the updates): each version 1 request becomes a version 2
request of one job (or one observation), and the answer goes back as version 1's. Every 7th
reconcile also tells the plugin to forget that job, and every 5th decide is a resync, so the
plugin's resync answers and forget run too (real runs seldom have them). This runs the SDK's
version 2 code against real runs: their outputs must equal those of version 1.

COMMAND's stderr is this process's (the plugin's log). Standard library only.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from typing import Any

from v2_wire import ControllerWire, PolicyWire


class Child:
    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ids = itertools.count(1)

    def call(self, method: str, params: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        msg = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        self.proc.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"v2_shim: the plugin closed its output during {method}")
        reply: dict[str, Any] = json.loads(line)
        if reply.get("id") != msg["id"]:
            raise SystemExit(f"v2_shim: reply id {reply.get('id')} to request {msg['id']}")
        return reply


def answer(rid: Any, reply: dict[str, Any], result: Any = None) -> None:
    out = {"jsonrpc": "2.0", "id": rid}
    if "error" in reply:
        out["error"] = reply["error"]
    else:
        out["result"] = result
    sys.stdout.buffer.write(json.dumps(out, separators=(",", ":")).encode() + b"\n")
    sys.stdout.buffer.flush()


Answer = tuple[dict[str, Any], Any]


def reconcile(child: Child, wire: ControllerWire, params: dict[str, Any], n: int) -> Answer:
    uid = params["job"]["metadata"]["uid"]
    v2: dict[str, Any] = {"now": params["now"], "nowMicros": params["nowMicros"],
                          "jobs": [wire.update(params)]}
    if n % 7 == 6 and not v2["jobs"][0].get("resync"):
        v2["forget"] = [uid]
        del wire.kept[uid]
    reply = child.call("reconcile", v2)
    if "error" in reply:
        return reply, None
    (res,) = reply["result"]["results"]
    if res.get("resync"):
        v2 = {"now": params["now"], "nowMicros": params["nowMicros"],
              "jobs": [wire.resync(params)]}
        reply = child.call("reconcile", v2)
        if "error" in reply:
            return reply, None
        (res,) = reply["result"]["results"]
        if res.get("resync"):
            raise SystemExit(f"v2_shim: the plugin asked twice for a resync of job {uid}")
    if res.get("uid") != uid:
        raise SystemExit(f"v2_shim: result for {res.get('uid')}, expected {uid}")
    return reply, wire.result(uid, res)


def decide(child: Child, wire: PolicyWire, params: dict[str, Any], n: int) -> Answer:
    reply = child.call("decide", wire.decide(params, resync=n % 5 == 4))
    if "error" in reply:
        return reply, None
    if reply["result"].get("resync"):
        reply = child.call("decide", wire.decide(params, resync=True))
        if "error" in reply:
            return reply, None
        if reply["result"].get("resync"):
            raise SystemExit("v2_shim: the plugin asked twice for a resync")
    return reply, {k: v for k, v in reply["result"].items() if k != "resync"}


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: v2_shim.py -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    child = Child(argv[argv.index("--") + 1:])
    controller, policy = ControllerWire(), PolicyWire()
    counts = {"reconcile": 0, "decide": 0}
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        method, rid, params = msg["method"], msg["id"], msg["params"]
        if method == "initialize":
            reply = child.call(method, {**params, "protocolVersions": ["1", "2"]})
            result = reply.get("result") or {}
            if "result" in reply and result.get("protocolVersion") != "2":
                raise SystemExit("v2_shim: the plugin chose version "
                                 f"{result.get('protocolVersion')}")
            answer(rid, reply, {**result, "protocolVersion": "1"})
        elif method == "reconcile":
            answer(rid, *reconcile(child, controller, params, counts[method]))
            counts[method] += 1
        elif method == "decide":
            answer(rid, *decide(child, policy, params, counts[method]))
            counts[method] += 1
        else:
            reply = child.call(method, params)
            answer(rid, reply, reply.get("result"))
            if method == "shutdown":
                break
    assert child.proc.stdin is not None
    child.proc.stdin.close()
    print(f"v2_shim: {counts['reconcile']} reconcile(s), {counts['decide']} decide(s) as "
          "version 2", file=sys.stderr, flush=True)
    return child.proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
