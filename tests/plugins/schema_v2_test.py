#!/usr/bin/env python3
"""The schemas of protocol version 2 (protocol/schema/v2/) and check_schemas.py's versions.

    schema_v2_test.py WORKDIR

check_schemas.py accepts the hand-written transcripts of both versions
(sample-transcript.jsonl, sample-transcript-v2.jsonl) and refuses each corruption of the version
2 one below, naming the schema and the path of the fault: so the version 2 schemas are read
where a session chose "2", version 1's where it chose "1", and they can fail. Standard library
only; needs no simulator.
"""
import copy
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SCHEMAS = HERE.parent.parent / "protocol" / "schema"
CHECK = HERE / "check_schemas.py"
SAMPLE_V2 = HERE / "sample-transcript-v2.jsonl"


def check(path):
    p = subprocess.run([sys.executable, str(CHECK), str(SCHEMAS), str(path)], capture_output=True,
                       text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def first(entries, session, pred):
    for e in entries:
        if e.get("session") == session and pred(e["message"]):
            return e["message"]
    raise AssertionError(f"no message of session {session} to corrupt")


def is_request(method, **extra):
    def pred(m):
        if m.get("method") != method:
            return False
        params = m.get("params", {})
        return all(params.get(k) == v for k, v in extra.items())
    return pred


def update_without_resync(m):
    return m.get("method") == "reconcile" and not m["params"]["jobs"][0].get("resync")


def results(m):
    return isinstance(m.get("result"), dict) and "results" in m["result"]


def with_pod_patches(m):
    return m.get("method") == "reconcile" and "podPatches" in m["params"]["jobs"][0]


def with_status_patch(m):
    return results(m) and "statusPatch" in m["result"]["results"][0]


def pod_patch(m):
    return m["params"]["jobs"][0]["podPatches"][0]


def decisions(m):
    return isinstance(m.get("result"), dict) and "decisions" in m["result"]


def chose(version):
    def pred(m):
        return isinstance(m.get("result"), dict) and m["result"].get("protocolVersion") == version
    return pred


# (name, session, which message, how to break it, the schema and path the checker must name)
CORRUPTIONS = [
    ("a job update's job carries its status", "controller", is_request("reconcile"),
     lambda m: m["params"]["jobs"][0]["job"].__setitem__("status", {"phase": "Running"}),
     "v2/reconcile.request.json", "$.params.jobs[0].job.status"),
    ("resync false", "controller", update_without_resync,
     lambda m: m["params"]["jobs"][0].__setitem__("resync", False),
     "v2/reconcile.request.json", "$.params.jobs[0].resync"),
    ("a resync without its pods", "controller", is_request("reconcile"),
     lambda m: m["params"]["jobs"][0].pop("pods"),
     "v2/reconcile.request.json", "$.params.jobs[0]"),
    ("no jobs", "controller", is_request("reconcile"),
     lambda m: m["params"].__setitem__("jobs", []),
     "v2/reconcile.request.json", "$.params.jobs"),
    ("a version 1 reconcile in a session that chose 2", "controller", is_request("reconcile"),
     lambda m: m.__setitem__("params", {"job": m["params"]["jobs"][0]["job"], "pods": [],
                                        "podGroup": None, "tensorBoard": None,
                                        "now": m["params"]["now"],
                                        "nowMicros": m["params"]["nowMicros"]}),
     "v2/reconcile.request.json", "$.params"),
    ("a pod patch without metadata.uid", "controller", with_pod_patches,
     lambda m: pod_patch(m)["metadata"].pop("uid"),
     "v2/reconcile.request.json", "$.params.jobs[0].podPatches[0].metadata.uid"),
    ("a pod patch of a member the world does not set", "controller", with_pod_patches,
     lambda m: pod_patch(m)["spec"].__setitem__("schedulerName", "default-scheduler"),
     "v2/reconcile.request.json", "$.params.jobs[0].podPatches[0].spec.schedulerName"),
    ("a pod patch that removes the phase", "controller", with_pod_patches,
     lambda m: pod_patch(m)["status"].__setitem__("phase", None),
     "v2/reconcile.request.json", "$.params.jobs[0].podPatches[0].status.phase"),
    ("a pod patch that changes nothing", "controller", with_pod_patches,
     lambda m: m["params"]["jobs"][0]["podPatches"].__setitem__(0, {"metadata": {"uid": "pod-0"}}),
     "v2/reconcile.request.json", "$.params.jobs[0].podPatches[0]"),
    ("pod patches in a resync", "controller", is_request("reconcile"),
     lambda m: m["params"]["jobs"][0].__setitem__("podPatches", [
         {"metadata": {"uid": "pod-0"}, "status": {"phase": "Running"}}]),
     "v2/reconcile.request.json", "$.params.jobs[0]"),
    ("a result without uid", "controller", results,
     lambda m: m["result"]["results"][0].pop("uid"),
     "v2/reconcile.result.json", "$.result.results[0].uid"),
    ("a result with a phase that does not exist", "controller", results,
     lambda m: m["result"]["results"][0].__setitem__("status", {"phase": "Sleeping"}),
     "v2/reconcile.result.json", "$.result.results[0].status.phase"),
    ("a status patch with a phase that does not exist", "controller", with_status_patch,
     lambda m: m["result"]["results"][0]["statusPatch"].__setitem__("phase", "Sleeping"),
     "v2/reconcile.result.json", "$.result.results[0].statusPatch.phase"),
    ("a status patch that is not an object", "controller", with_status_patch,
     lambda m: m["result"]["results"][0].__setitem__("statusPatch", [{"phase": "Running"}]),
     "v2/reconcile.result.json", "$.result.results[0].statusPatch"),
    ("a version 1 result in a session that chose 2", "controller", results,
     lambda m: m.__setitem__("result", {"actions": [], "status": {"phase": "Pending"}}),
     "v2/reconcile.result.json", "$.result.results"),
    ("an incomplete waiting entry with resync", "policy", is_request("decide", resync=True),
     lambda m: m["params"]["waiting"][0].pop("gpuMilli"),
     "v2/decide.request.json", "$.params.waiting[0].gpuMilli"),
    ("version 1's priority in a job entry", "policy", is_request("decide"),
     lambda m: m["params"]["jobs"][0].__setitem__("priority", 1),
     "v2/decide.request.json", "$.params.jobs[0].priority"),
    ("no freeGpusPerNode", "policy", is_request("decide"),
     lambda m: m["params"].pop("freeGpusPerNode"),
     "v2/decide.request.json", "$.params.freeGpusPerNode"),
    ("resync as text", "policy", decisions,
     lambda m: m["result"].__setitem__("resync", "yes"),
     "v2/decide.result.json", "$.result.resync"),
    ("a version not offered", "policy", chose("2"),
     lambda m: m["result"].__setitem__("protocolVersion", "3"),
     "v2/initialize.result.json", "$.result.protocolVersion"),
    ("version 2 chosen where it was not offered", "controller", is_request("initialize"),
     lambda m: m["params"].pop("protocolVersions"),
     "initialize.result.json", "$.result.protocolVersion"),
    ("a version offered by no one", "policy", is_request("initialize"),
     lambda m: m["params"].__setitem__("protocolVersions", ["1"]),
     "v2/initialize.result.json", "$.result.protocolVersion: chose \"2\""),
    ("an offer of an unknown version", "policy", is_request("initialize"),
     lambda m: m["params"].__setitem__("protocolVersions", ["1", "7"]),
     "v2/initialize.request.json", "$.params.protocolVersions[1]"),
    ("a version 2 update in a session that chose 1", "offered-chose-1", is_request("reconcile"),
     lambda m: m.__setitem__("params", {"now": m["params"]["now"],
                                        "nowMicros": m["params"]["nowMicros"],
                                        "jobs": [{"uid": "job-0"}]}),
     "reconcile.request.json", "$.params"),
]


def main():
    work = pathlib.Path(sys.argv[1]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    for sample in (HERE / "sample-transcript.jsonl", SAMPLE_V2):
        rc, out = check(sample)
        if rc != 0:
            sys.exit(f"FAIL: {sample.name} is refused: {out}")
        print(f"ok   {out}")
    entries = [json.loads(line) for line in SAMPLE_V2.read_text().splitlines() if line.strip()]
    for i, (name, session, pred, corrupt, schema, path) in enumerate(CORRUPTIONS):
        broken = copy.deepcopy(entries)
        corrupt(first(broken, session, pred))
        target = work / f"broken-{i}.jsonl"
        target.write_text("".join(json.dumps(e) + "\n" for e in broken))
        rc, out = check(target)
        if rc != 1 or f"{schema}): {path}" not in out:
            sys.exit(f"FAIL: {name}: expected a violation of {schema} at {path}, got "
                     f"exit {rc}: {out}")
        print(f"ok   refused: {name} ({out.split(': ', 1)[1]})")


if __name__ == "__main__":
    main()
