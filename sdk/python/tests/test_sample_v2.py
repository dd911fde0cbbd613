"""The SDK answers tests/plugins/sample-transcript-v2.jsonl (the hand-written version 2 transcript
the schemas are checked on) as it is recorded, given user functions that answer each job as the
transcript does: the resync answers are the SDK's own, statuses are left out where unchanged and
sent as a statusPatch where that is smaller than the whole."""

import copy
import json
import pathlib

from support import controller, policy
from v2_wire import apply_merge_patch

SAMPLE = pathlib.Path(__file__).resolve().parents[3] / "tests" / "plugins" / \
    "sample-transcript-v2.jsonl"


def session(name):
    entries = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    asked = [e["message"] for e in entries if e["session"] == name and e["dir"] == "to-plugin"]
    answered = [e["message"] for e in entries
                if e["session"] == name and e["dir"] == "from-plugin"]
    return asked, answered


def test_the_controller_session():
    asked, answered = session("controller")
    # The calls user code gets, in order: every job result recorded but the resync answers.
    calls = [r for m in answered for r in (m.get("result") or {}).get("results", [])
             if not r.get("resync")]
    script = iter(calls)

    def reconcile(request):
        recorded = next(script)
        assert recorded["uid"] == request["job"]["metadata"]["uid"]
        out = {k: v for k, v in recorded.items() if k not in ("uid", "statusPatch")}
        if "status" not in out:  # unchanged, or patched: from the status it was given
            status = copy.deepcopy(request["job"].get("status"))
            out["status"] = apply_merge_patch(status, recorded["statusPatch"]) \
                if "statusPatch" in recorded else status
        return out

    rc, replies, _ = controller(reconcile, asked, name="generic-with-backoff")
    assert rc == 0
    assert replies == answered
    assert next(script, None) is None
    # The sample shows every form: a pod patch, a whole status, a status patch, none.
    requests = [u for m in asked if m["method"] == "reconcile" for u in m["params"]["jobs"]]
    results = [r for m in answered for r in (m.get("result") or {}).get("results", [])]
    assert any("podPatches" in u for u in requests)
    for form in ("status", "statusPatch"):
        assert any(form in r for r in results), form
    assert any(not r.get("resync") and "status" not in r and "statusPatch" not in r
               for r in results)


def test_the_policy_session():
    asked, answered = session("policy")
    script = iter(m["result"] for m in answered
                  if isinstance(m.get("result"), dict) and "decisions" in m["result"]
                  and not m["result"].get("resync"))
    rc, replies, _ = policy(lambda obs: next(script), asked, name="quota-policy")
    assert rc == 0
    assert replies == answered


def test_the_session_that_chose_version_1():
    asked, answered = session("offered-chose-1")
    rc, replies, _ = controller(lambda r: {"actions": [], "status": {"phase": "Pending"}},
                                asked, name="a-version-1-plugin")
    # The SDK chooses "2" when offered: this session is a version 1 plugin's.
    assert rc == 0
    assert replies[0]["result"]["protocolVersion"] == "2"
    assert answered[0]["result"]["protocolVersion"] == "1"
