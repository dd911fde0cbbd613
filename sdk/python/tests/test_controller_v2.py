"""Controllers on protocol version 2: every form of job update (pod patches among them), the
statuses answered only when they change (as a merge patch when that is smaller), resync answers,
errors; user code sees version 1's request every time."""

import copy
import json
import pathlib
import random

import pytest
from support import (OPTIONS, Recorder, controller, initialize, job, pod, request, shutdown,
                     status)
from v2_wire import ControllerWire

NOW = "1970-01-01T00:00:01.100000Z"
SAMPLE = pathlib.Path(__file__).resolve().parents[3] / "tests" / "plugins" / \
    "sample-transcript.jsonl"


def reconcile(rid, updates, now=1100000, forget=None, now_text=NOW):
    params = {"now": now_text, "nowMicros": now, "jobs": updates}
    if forget is not None:
        params["forget"] = forget
    return request(rid, "reconcile", params)


def resync(uid="job-0", name="a", pods=(), st=None, pg=None, tb=None):
    return {"uid": uid, "resync": True, "job": job(name, uid), "status": st, "pods": list(pods),
            "podGroup": pg, "tensorBoard": tb}


def v1_request(j, pods=(), st=None, pg=None, tb=None, now=1100000):
    j = copy.deepcopy(j)
    if st is not None:
        j["status"] = st
    return {"job": j, "pods": list(pods), "podGroup": pg, "tensorBoard": tb, "now": NOW,
            "nowMicros": now, "options": OPTIONS}


def run(messages, answer=None):
    rec = Recorder(answer)
    rc, replies, _ = controller(rec, [initialize()] + messages + [shutdown(99)])
    assert rc == 0
    assert replies[0]["result"]["protocolVersion"] == "2"
    assert replies[-1]["result"] is None
    return rec, replies[1:-1]


def test_a_resync_gives_version_1_request_with_the_options_of_initialize():
    p0, p1 = pod("a", 0, "pod-0"), pod("a", 1, "pod-1", "Running")
    pg = {"apiVersion": "scheduler.tensorstack.dev/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "a"}, "spec": {"minMember": 2, "queue": "default", "priority": 0}}
    tb = {"uid": "tb-0", "ready": False}
    rec, replies = run([reconcile(2, [resync(pods=[p0, p1], pg=pg, tb=tb)])])
    assert rec.snapshots == [v1_request(job(), [p0, p1], pg=pg, tb=tb)]
    assert "status" not in rec.seen[0]["job"]  # no status yet: absent, as version 1 sends it
    assert replies[0]["result"] == {"results": [
        {"uid": "job-0", "actions": [], "status": {"phase": "Pending"}}]}


def test_status_is_answered_only_when_it_changes_and_then_kept():
    answers = iter([{"status": {"phase": "Pending"}}, {"status": {"phase": "Pending"}},
                    {"status": {"phase": "Running"}, "requeueAfterMicros": 5},
                    {"status": {"phase": "Running"}}])
    rec, replies = run([reconcile(2, [resync()]), reconcile(3, [{"uid": "job-0"}]),
                        reconcile(4, [{"uid": "job-0"}]), reconcile(5, [{"uid": "job-0"}])],
                       lambda r: next(answers))
    results = [r["result"]["results"][0] for r in replies]
    assert results == [{"uid": "job-0", "status": {"phase": "Pending"}}, {"uid": "job-0"},
                       {"uid": "job-0", "status": {"phase": "Running"}, "requeueAfterMicros": 5},
                       {"uid": "job-0"}]
    # Each request carries the status the plugin keeps: the one it last answered.
    assert [s["job"].get("status") for s in rec.snapshots] == [
        None, {"phase": "Pending"}, {"phase": "Pending"}, {"phase": "Running"}]


def test_returning_the_received_status_object_itself_always_sends_it():
    # It may have been changed in place: the SDK cannot tell, so it says it.
    def mutate(r):
        st = r["job"].get("status")
        if st is None:
            return {"status": {"phase": "Pending"}}
        st["phase"] = "Running"
        return {"status": st}

    _, replies = run([reconcile(2, [resync()]), reconcile(3, [{"uid": "job-0"}])], mutate)
    assert replies[1]["result"]["results"][0] == {"uid": "job-0", "status": {"phase": "Running"}}


def test_a_status_sent_by_the_simulator_replaces_the_kept_one():
    rec, _ = run([reconcile(2, [resync(st=status("Running"))]),
                  reconcile(3, [{"uid": "job-0", "status": status("Paused")}]),
                  reconcile(4, [{"uid": "job-0", "status": None}])])
    assert [s["job"].get("status") for s in rec.snapshots] == [status("Running"),
                                                               status("Paused"), None]
    assert "status" not in rec.seen[2]["job"]


def test_a_job_update_replaces_the_job_and_keeps_the_status():
    changed = job()
    changed["spec"]["replicaSpecs"][0]["replicas"] = 3
    rec, _ = run([reconcile(2, [resync(st=status())]),
                  reconcile(3, [{"uid": "job-0", "job": changed}])],
                 lambda r: {"status": status()})
    assert rec.snapshots[1]["job"] == {**changed, "status": status()}


def test_pods_append_replace_in_place_and_remove():
    p0, p1, p2, p3 = (pod("a", i, f"pod-{i}") for i in range(4))
    p1_running = pod("a", 1, "pod-1", "Running")
    p0_new = pod("a", 0, "pod-9")  # a new pod of a deleted one's name
    rec, replies = run([
        reconcile(2, [resync(pods=[p0, p1])]),
        reconcile(3, [{"uid": "job-0", "pods": [p2, p1_running, p3]}]),  # append, replace
        reconcile(4, [{"uid": "job-0", "removedPods": ["pod-0", "pod-2"], "pods": [p0_new]}]),
        reconcile(5, [{"uid": "job-0", "removedPods": ["pod-1", "pod-3", "pod-9"]}]),
    ])
    names = [[p["metadata"]["uid"] for p in s["pods"]] for s in rec.snapshots]
    assert names == [["pod-0", "pod-1"], ["pod-0", "pod-1", "pod-2", "pod-3"],
                     ["pod-1", "pod-3", "pod-9"], []]
    assert rec.snapshots[1]["pods"][1] == p1_running
    assert all("resync" not in r["result"]["results"][0] for r in replies)


@pytest.mark.parametrize("key, value", [("podGroup", {"apiVersion": "x", "kind": "PodGroup",
                                                      "metadata": {"name": "a"},
                                                      "spec": {"minMember": 1}}),
                                        ("tensorBoard", {"uid": "tb-1", "ready": True})])
def test_pod_group_and_tensor_board_change_to_a_value_and_to_null(key, value):
    rec, _ = run([reconcile(2, [resync()]), reconcile(3, [{"uid": "job-0", key: value}]),
                  reconcile(4, [{"uid": "job-0"}]), reconcile(5, [{"uid": "job-0", key: None}])])
    assert [s[key] for s in rec.snapshots] == [None, value, value, None]


def test_a_batch_calls_each_job_in_order_and_answers_in_order():
    rec, replies = run([reconcile(2, [resync("job-1", "b"), resync("job-0", "a"),
                                      resync("job-2", "c")])],
                       lambda r: {"status": {"phase": r["job"]["metadata"]["name"]}})
    assert [s["job"]["metadata"]["name"] for s in rec.snapshots] == ["b", "a", "c"]
    assert [(r["uid"], r["status"]["phase"]) for r in replies[0]["result"]["results"]] == [
        ("job-1", "b"), ("job-0", "a"), ("job-2", "c")]


def test_unknown_jobs_and_inconsistent_updates_are_answered_with_resync(capsys):
    p0 = pod("a", 0, "pod-0")
    rec, replies = run([
        reconcile(2, [{"uid": "job-7"}, resync(pods=[p0])]),
        reconcile(3, [{"uid": "job-0", "removedPods": ["pod-5"]}]),  # not kept: dropped
        reconcile(4, [{"uid": "job-0"}]),                            # so it is unknown now
        reconcile(5, [resync(pods=[p0])]),
        reconcile(6, [{"uid": "job-0", "pods": [pod("a", 0, "pod-1")]}]),  # a name taken
        reconcile(7, [resync()]),
        reconcile(8, [{"uid": "job-0", "pods": [{"metadata": {"name": "x"}}]}]),  # no uid
    ])
    results = [r["result"]["results"] for r in replies]
    assert results[0][0] == {"uid": "job-7", "resync": True}
    assert results[0][1]["uid"] == "job-0" and "resync" not in results[0][1]
    for i in (1, 2, 4, 6):
        assert results[i] == [{"uid": "job-0", "resync": True}]
    assert len(rec.seen) == 3  # user code is not called for a job it cannot be given
    err = capsys.readouterr().err
    assert "job job-7: asking for a resync" in err and "pod-5" in err and "pod-1" in err


def test_forget_drops_a_job():
    _, replies = run([reconcile(2, [resync("job-0"), resync("job-1", "b")]),
                      reconcile(3, [{"uid": "job-1"}], forget=["job-0"]),
                      reconcile(4, [{"uid": "job-0"}])])
    assert replies[1]["result"]["results"] == [{"uid": "job-1"}] or \
        "resync" not in replies[1]["result"]["results"][0]
    assert replies[2]["result"]["results"] == [{"uid": "job-0", "resync": True}]


def test_an_exception_fails_the_batch_naming_the_job_and_keeps_no_status_of_it():
    def answer(r):
        if r["job"]["metadata"]["name"] == "b" and r["nowMicros"] == 2:
            raise RuntimeError("bad day")
        return {"status": {"phase": "Running" if r["nowMicros"] == 2 else "Pending"}}

    rec, replies = run([reconcile(2, [resync("job-0", "a"), resync("job-1", "b")], now=1),
                        reconcile(3, [{"uid": "job-0"}, {"uid": "job-1"}], now=2),
                        reconcile(4, [{"uid": "job-0"}], now=3)], answer)
    assert replies[1]["error"] == {"code": -32603,
                                   "message": "RuntimeError: bad day (job default/b)"}
    # job a's Running of the failed batch was never sent: the kept status is still Pending.
    assert rec.snapshots[-1]["job"]["status"] == {"phase": "Pending"}
    assert replies[2]["result"]["results"] == [{"uid": "job-0"}]


def test_params_it_cannot_read():
    _, replies = run([reconcile(2, "nope"), request(3, "reconcile", {"jobs": [{"x": 1}]}),
                      reconcile(4, [{"uid": "job-0", "resync": True}])])
    assert [r["error"]["code"] for r in replies] == [-32602, -32602, -32602]


def test_the_kept_objects_are_not_copied():
    p0 = pod("a", 0, "pod-0")
    rec, _ = run([reconcile(2, [resync(pods=[p0])]), reconcile(3, [{"uid": "job-0"}])])
    assert rec.seen[0]["pods"][0] is rec.seen[1]["pods"][0]
    assert rec.seen[0]["job"] is not rec.seen[1]["job"]  # the second with the status in it
    assert rec.seen[0]["job"]["spec"] is rec.seen[1]["job"]["spec"]


def test_version_2_gives_user_code_exactly_the_requests_of_version_1():
    """A real version 1 transcript (tests/plugins/sample-transcript.jsonl), sent as version 2
    updates: every request user code sees equals the version 1 params, and the answers map back
    to the version 1 answers."""
    entries = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    requests = [e["message"] for e in entries if e["dir"] == "to-plugin"
                and e["message"]["method"] == "reconcile"]
    answers = {e["message"]["id"]: e["message"]["result"] for e in entries
               if e["dir"] == "from-plugin" and e.get("session") == "generic"
               and "result" in e["message"]}
    assert len(requests) >= 3
    wire = ControllerWire()
    msgs = []
    for r in requests:
        update = wire.update(r["params"])
        msgs.append(reconcile(r["id"], [update], r["params"]["nowMicros"],
                              now_text=r["params"]["now"]))
        wire.result(update["uid"], answers[r["id"]])  # what the plugin will keep
    script = iter([answers[r["id"]] for r in requests])
    rec = Recorder(lambda r: next(script))
    rc, replies, _ = controller(rec, [initialize()] + msgs)
    assert rc == 0
    assert rec.snapshots == [r["params"] for r in requests]
    back = ControllerWire()
    for r, reply in zip(requests, replies[1:]):
        back.update(r["params"])
        (res,) = reply["result"]["results"]
        assert back.result(res["uid"], res) == answers[r["id"]]


# ---- podPatches: pods changed in their observed state only ----


def test_pod_patches_merge_into_the_kept_pods():
    p0, p1 = pod("a", 0, "pod-0"), pod("a", 1, "pod-1")
    bound = {"metadata": {"uid": "pod-0"}, "spec": {"nodeName": "gpu-3"},
             "t9ksim": {"bindTime": "1970-01-01T00:00:02Z", "gpuIndex": 0}}
    started = {"metadata": {"uid": "pod-0"},
               "status": {"phase": "Running", "startTime": "1970-01-01T00:00:07Z"}}
    failed = {"metadata": {"uid": "pod-1"}, "status": {"phase": "Failed", "containerStatuses": [
        {"name": "main", "state": {"terminated": {"exitCode": 1}}}]}}
    # Members set to null are removed; an array is replaced whole.
    moved = {"metadata": {"uid": "pod-1", "deletionTimestamp": "1970-01-01T00:00:09Z"},
             "status": {"containerStatuses": [{"name": "main", "state": {"terminated": {
                 "exitCode": 137, "finishedAt": "1970-01-01T00:00:08Z"}}}]},
             "t9ksim": {"deletionReason": "Restart"}}
    unbound = {"metadata": {"uid": "pod-0"}, "spec": {"nodeName": None},
               "status": {"startTime": None}, "t9ksim": {"gpuIndex": None, "bindTime": None}}
    rec, replies = run([reconcile(2, [resync(pods=[p0, p1])]),
                        reconcile(3, [{"uid": "job-0", "podPatches": [bound]}]),
                        reconcile(4, [{"uid": "job-0", "podPatches": [failed, started]}]),
                        reconcile(5, [{"uid": "job-0", "podPatches": [moved, unbound]}])])
    assert all("resync" not in r["result"]["results"][0] for r in replies)
    e0, e1 = copy.deepcopy(p0), copy.deepcopy(p1)
    e0["spec"]["nodeName"] = "gpu-3"
    e0["t9ksim"].update(bindTime="1970-01-01T00:00:02Z", gpuIndex=0)
    assert rec.snapshots[1]["pods"] == [e0, e1]
    e0["status"] = {"phase": "Running", "startTime": "1970-01-01T00:00:07Z"}
    e1["status"] = failed["status"]
    assert rec.snapshots[2]["pods"] == [e0, e1]
    e1["metadata"]["deletionTimestamp"] = "1970-01-01T00:00:09Z"
    e1["status"] = {"phase": "Failed", "containerStatuses": moved["status"]["containerStatuses"]}
    e1["t9ksim"]["deletionReason"] = "Restart"
    del e0["spec"]["nodeName"], e0["status"]["startTime"]
    del e0["t9ksim"]["gpuIndex"], e0["t9ksim"]["bindTime"]
    assert rec.snapshots[3]["pods"] == [e0, e1]
    assert [p["metadata"]["uid"] for p in rec.snapshots[3]["pods"]] == ["pod-0", "pod-1"]


def test_a_pod_patch_leaves_the_pods_user_code_was_given_as_they_were():
    p0, p1 = pod("a", 0, "pod-0"), pod("a", 1, "pod-1")
    rec, _ = run([reconcile(2, [resync(pods=[p0, p1])]),
                  reconcile(3, [{"uid": "job-0", "podPatches": [
                      {"metadata": {"uid": "pod-1"}, "status": {"phase": "Running"}}]}])])
    assert rec.seen[0]["pods"][1] == pod("a", 1, "pod-1")  # still Pending
    assert rec.seen[1]["pods"][1]["status"] == {"phase": "Running"}
    assert rec.seen[1]["pods"][0] is rec.seen[0]["pods"][0]  # not patched: not copied
    assert rec.seen[1]["pods"][1]["spec"] is rec.seen[0]["pods"][1]["spec"]


def test_pod_patches_and_whole_pods_in_one_update():
    p0, p1, p2 = (pod("a", i, f"pod-{i}") for i in range(3))
    p1_again = pod("a", 1, "pod-1", "Running")
    p1_again["metadata"]["labels"] = {"x": "y"}  # more than observed state: sent whole
    rec, replies = run([
        reconcile(2, [resync(pods=[p0, p1])]),
        reconcile(3, [{"uid": "job-0", "pods": [p1_again, p2],
                       "podPatches": [{"metadata": {"uid": "pod-0"},
                                       "status": {"phase": "Succeeded"}}]}]),
    ])
    assert [p["status"]["phase"] for p in rec.snapshots[1]["pods"]] == [
        "Succeeded", "Running", "Pending"]
    assert rec.snapshots[1]["pods"][1] == p1_again


@pytest.mark.parametrize("update, why", [
    ({"podPatches": [{"metadata": {"uid": "pod-9"}, "status": {"phase": "Running"}}]},
     "podPatches names a pod it does not have: pod-9"),
    ({"removedPods": ["pod-0"],
      "podPatches": [{"metadata": {"uid": "pod-0"}, "status": {"phase": "Running"}}]},
     "podPatches names a pod it does not have: pod-0"),
    ({"podPatches": [{"status": {"phase": "Running"}}]},
     "a pod patch without metadata.uid cannot be applied"),
    ({"podPatches": ["pod-0"]}, "a pod patch without metadata.uid cannot be applied"),
])
def test_a_pod_patch_it_cannot_apply_asks_for_a_resync(capsys, update, why):
    rec, replies = run([reconcile(2, [resync(pods=[pod("a", 0, "pod-0")])]),
                        reconcile(3, [{"uid": "job-0", **update}, resync("job-1", "b")]),
                        reconcile(4, [{"uid": "job-0"}])])
    results = [r["result"]["results"] for r in replies]
    assert results[1][0] == {"uid": "job-0", "resync": True}
    assert "resync" not in results[1][1]  # the other job of the batch is answered
    assert results[2] == [{"uid": "job-0", "resync": True}]  # dropped: unknown until a resync
    assert [s["job"]["metadata"]["name"] for s in rec.snapshots] == ["a", "b"]
    assert f"job job-0: asking for a resync: {why}" in capsys.readouterr().err


# ---- statusPatch: a changed status as a merge patch when that is smaller ----


def full_status(phase="Running", running=2, failed=0, replica_phase="Running"):
    st = status(phase)
    st["aggregate"].update(running=running, failed=failed)
    st["conditions"] = [
        {"type": "Initialized", "status": "True", "lastTransitionTime": "1970-01-01T00:00:01Z",
         "message": "All sub-resources are created."},
        {"type": "Running", "status": "True", "lastTransitionTime": "1970-01-01T00:00:05Z",
         "reason": "Running", "message": "All pods are running."}]
    st["tasks"] = [{"type": "w", "restartCount": 0, "replicas": [
        {"name": "a-w-0", "phase": "Running"}, {"name": "a-w-1", "phase": replica_phase}]}]
    return st


def answers(*statuses):
    it = iter(statuses)
    return lambda r: {"status": next(it)}


def job_results(replies):
    return [r["result"]["results"][0] for r in replies]


def test_a_changed_status_is_answered_as_a_patch_when_that_is_smaller():
    before, after = full_status(), full_status(running=1, failed=1, replica_phase="Failed")
    rec, replies = run([reconcile(2, [resync(st=before)]), reconcile(3, [{"uid": "job-0"}])],
                       answers(after, full_status(running=1, failed=1, replica_phase="Failed")))
    assert job_results(replies) == [
        {"uid": "job-0", "statusPatch": {"aggregate": {"running": 1, "failed": 1},
                                         "tasks": after["tasks"]}},
        {"uid": "job-0"}]  # then unchanged
    assert rec.snapshots[1]["job"]["status"] == after  # kept: the patched status


def test_a_patch_not_smaller_than_the_whole_status_is_not_sent():
    small = {"phase": "Failed"}  # every other member would be null in a patch
    _, replies = run([reconcile(2, [resync(st=full_status())]), reconcile(3, [{"uid": "job-0"}]),
                      reconcile(4, [{"uid": "job-0"}])],
                     answers(small, {"phase": "Succeeded"}, {"phase": "Succeeded"}))
    # {"phase":"Succeeded"} as a patch is no smaller than as the whole status: whole.
    assert job_results(replies) == [{"uid": "job-0", "status": small},
                                    {"uid": "job-0", "status": {"phase": "Succeeded"}},
                                    {"uid": "job-0"}]


def test_a_status_patch_removes_members_with_null():
    before = {**full_status(), "backoffCount": 2, "startTime": "1970-01-01T00:00:05Z"}
    after = full_status()
    after["aggregate"]["running"] = 1
    _, replies = run([reconcile(2, [resync(st=before)])], answers(after))
    assert job_results(replies) == [{"uid": "job-0", "statusPatch": {
        "aggregate": {"running": 1}, "backoffCount": None, "startTime": None}}]


def test_no_kept_status_or_the_kept_object_itself_gives_the_whole_status():
    def answer(r):
        st = r["job"].get("status")
        if st is None:
            return {"status": full_status()}
        st["aggregate"]["running"] = 1  # changed in place (it should not be): sent whole
        return {"status": st}

    _, replies = run([reconcile(2, [resync()]), reconcile(3, [{"uid": "job-0"}])], answer)
    results = job_results(replies)
    assert results[0] == {"uid": "job-0", "status": full_status()}
    assert "statusPatch" not in results[1] and results[1]["status"]["aggregate"]["running"] == 1


def test_a_status_that_differs_in_null_members_only_is_unchanged():
    before = full_status()
    after = {**copy.deepcopy(before), "backoffCount": None}
    after["aggregate"]["unknown"] = 0
    after["tasks"][0]["replicas"][0]["uid"] = None  # in an array: compared whole, so changed
    _, replies = run([reconcile(2, [resync(st=before)]), reconcile(3, [{"uid": "job-0"}])],
                     answers({**before, "backoffCount": None}, after))
    assert job_results(replies)[0] == {"uid": "job-0"}
    assert job_results(replies)[1] == {"uid": "job-0", "statusPatch": {"tasks": after["tasks"]}}


def test_the_other_members_of_a_result_go_with_a_status_patch():
    after = full_status(running=1)
    rec = Recorder(lambda r: {"actions": [], "status": after, "requeueAfterMicros": 7})
    _, replies, out = controller(rec, [initialize(), reconcile(2, [resync(st=full_status())])])
    assert replies[1]["result"]["results"] == [{"uid": "job-0", "actions": [],
                                                "requeueAfterMicros": 7,
                                                "statusPatch": {"aggregate": {"running": 1}}}]
    # Compact, the patch spliced in last.
    assert out.getvalue().split(b"\n")[1].endswith(
        b'"requeueAfterMicros":7,"statusPatch":{"aggregate":{"running":1}}}]}}')


def test_a_value_that_is_not_json_in_a_patch_fails_naming_the_job():
    after = full_status()
    after["aggregate"]["running"] = float("nan")
    _, replies = run([reconcile(2, [resync(st=full_status())]),
                      reconcile(3, [{"uid": "job-0"}])], answers(after, full_status()))
    assert replies[0]["error"]["code"] == -32603
    assert replies[0]["error"]["message"].endswith("(job default/a)")
    # The failed answer's status is not kept: the next request has the one before.
    assert job_results(replies[1:]) == [{"uid": "job-0"}]


def test_status_patches_round_trip_over_a_sequence_of_statuses():
    """What the simulator keeps (the wire applies each answer as RFC 7386 says) is, after every
    answer, the status user code returned, and the next request carries it."""
    rng = random.Random(5)
    statuses = []
    for _ in range(60):
        st = full_status(running=rng.randrange(3), failed=rng.randrange(2),
                         replica_phase=rng.choice(["Running", "Failed"]))
        for key in ("backoffCount", "startTime", "conditions"):
            if rng.random() < 0.3:
                st.pop(key, None)
            elif rng.random() < 0.3:
                st[key] = rng.randrange(3) if key == "backoffCount" else "1970-01-01T00:00:09Z"
        statuses.append(st if rng.random() < 0.8 else {"phase": rng.choice(["Failed", "Unknown"])})
    updates = [reconcile(2, [resync(st=full_status())])] + [
        reconcile(3 + i, [{"uid": "job-0"}]) for i in range(len(statuses) - 1)]
    rec, replies = run(updates, answers(*statuses))
    wire = ControllerWire()
    wire.kept["job-0"] = {"status": full_status()}
    forms = set()
    for i, (st, res) in enumerate(zip(statuses, job_results(replies))):
        forms |= {k for k in ("status", "statusPatch") if k in res} or {"none"}
        assert wire.result("job-0", res)["status"] == st
        if i + 1 < len(statuses):
            assert rec.snapshots[i + 1]["job"]["status"] == st
    assert forms == {"status", "statusPatch", "none"}
