"""Elastic policies: version 1's observation converted, version 2's kept and merged; one whole
Observation to user code either way."""

import json
import pathlib

from support import Recorder, initialize, policy, request, shutdown
from v2_wire import PolicyWire

from t9ksim_sdk._policy import JOB_FIELDS, WAITING_FIELDS

SAMPLE = pathlib.Path(__file__).resolve().parents[3] / "tests" / "plugins" / \
    "sample-transcript.jsonl"
NOW = "1970-01-01T08:00:00Z"


def v1_job(jid, priority=1, expected=1, name=None):
    return {"job": name or f"default/e-{jid}", "jobId": jid, "queue": "research",
            "priority": priority, "minReplicas": 1, "maxReplicas": 4,
            "expectedReplicas": expected, "runningPods": 1, "gpusPerPod": 8, "scalingWeight": 1.0,
            "speedup": [1.0, 1.9, 2.7, 3.4], "progress": 0.5, "training": True,
            "sinceCheckpointMicros": 779900000, "checkpointIntervalMicros": 1200000000,
            "checkpointCostMicros": 0, "rescaleOverheadMicros": 120000000,
            "lastResizeMicros": None}


V1 = {"now": NOW, "nowMicros": 28800000000, "freeGpus": 8,
      "queues": [{"name": "research", "priority": 1, "quotaGpuMilli": 24000,
                  "allocatedGpuMilli": 24000,
                  "pending": [{"priority": 3, "gpuMilli": 8000, "jobs": 1}]},
                 {"name": "z", "priority": 0, "quotaGpuMilli": None, "allocatedGpuMilli": 0,
                  "pending": []}],
      "waiting": [{"jobId": 3, "priority": 1}],
      "jobs": [v1_job(0), v1_job(2, priority=0)]}


def v2_job(jid, **fields):
    e = {k: v for k, v in v1_job(jid).items() if k != "priority"}
    e.update(queuePriority=1, jobPriority=0, waitingPods=0)
    e.update(fields)
    return e


def v2_waiting(jid, **fields):
    e = {"jobId": jid, "job": f"default/w-{jid}", "queue": "research", "queuePriority": 1,
         "jobPriority": 0, "elastic": False, "waitingPods": 2, "growthPods": 0,
         "demand": {"nvidia.com/gpu": "16"}, "gpuMilli": 16000,
         "waitingSinceMicros": 1000000, "pendingCause": "Quota"}
    e.update(fields)
    return e


def decide_v2(rid, waiting=(), jobs=(), resync=False, removed=None, free=8):
    p = {"now": NOW, "nowMicros": 28800000000 + rid, "freeGpus": free, "freeGpusPerNode": [1, 0, 1],
         "queues": [], "waiting": list(waiting), "jobs": list(jobs)}
    if resync:
        p["resync"] = True
    if removed is not None:
        p["removed"] = removed
    return request(rid, "decide", p)


def run(messages, versions=("1", "2"), answer=None, **kw):
    rec = Recorder(answer or (lambda o: {"decisions": [], "nextDecisionMicros": None}))
    rc, replies, _ = policy(rec, [initialize("elasticPolicy", versions)] + messages
                            + [shutdown(99)], **kw)
    assert rc == 0 and replies[-1]["result"] is None
    return rec, replies[1:-1]


def test_version_1_observation_is_converted_to_version_2_shape():
    rec, replies = run([request(2, "decide", V1)], versions=None)
    obs = rec.snapshots[0]
    assert obs["freeGpusPerNode"] is None
    assert obs["queues"][0]["pending"] == [{"jobPriority": 3, "gpuMilli": 8000, "jobs": 1}]
    assert obs["queues"][1] == {"name": "z", "priority": 0, "quotaGpuMilli": None,
                                "allocatedGpuMilli": 0, "pending": []}
    assert obs["waiting"] == [{"jobId": 3, "queuePriority": 1, **{
        f: None for f in WAITING_FIELDS if f not in ("jobId", "queuePriority")}}]
    j0 = obs["jobs"][0]
    assert set(j0) == set(JOB_FIELDS)
    assert (j0["queuePriority"], j0["jobPriority"], j0["waitingPods"]) == (1, None, None)
    added = ("queuePriority", "jobPriority", "waitingPods")
    assert {k: v for k, v in j0.items() if k not in added} == \
        {k: v for k, v in v1_job(0).items() if k != "priority"}
    assert obs["jobs"][1]["queuePriority"] == 0
    assert replies[0]["result"] == {"decisions": [], "nextDecisionMicros": None}


def test_the_sample_transcript_decides_the_same():
    entries = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    session = [e["message"] for e in entries if e.get("session") == "policy"]
    asked = [m for m in session if m.get("method") == "decide"]
    answered = {m["id"]: m["result"] for m in session if "result" in m}

    script = iter([answered[m["id"]] for m in asked])
    rec, replies = run(asked, versions=None, answer=lambda obs: next(script))
    assert [r["result"] for r in replies] == [answered[m["id"]] for m in asked]
    for obs, m in zip(rec.snapshots, asked):
        assert [(j["job"], j["queuePriority"]) for j in obs["jobs"]] == \
            [(j["job"], j["priority"]) for j in m["params"]["jobs"]]


def test_version_2_keeps_merges_and_removes_entries_in_job_id_order():
    rec, replies = run([
        decide_v2(2, [v2_waiting(5), v2_waiting(3)], [v2_job(4), v2_job(1)], resync=True),
        decide_v2(3, [{"jobId": 3, "waitingPods": 1, "pendingCause": None}],
                  [{"jobId": 4, "expectedReplicas": 2, "lastResizeMicros": 7}, v2_job(0)]),
        decide_v2(4, [], [], removed={"waiting": [5], "jobs": [1]}),
        decide_v2(5, [v2_waiting(9)], [], removed={"waiting": [3]}, free=0),
    ])
    seen = rec.snapshots
    assert [[w["jobId"] for w in o["waiting"]] for o in seen] == [[3, 5], [3, 5], [3], [9]]
    assert [[j["jobId"] for j in o["jobs"]] for o in seen] == [[1, 4], [0, 1, 4], [0, 4], [0, 4]]
    assert seen[1]["waiting"][0] == v2_waiting(3, waitingPods=1, pendingCause=None)
    assert seen[1]["jobs"][2] == v2_job(4, expectedReplicas=2, lastResizeMicros=7)
    assert seen[3]["freeGpus"] == 0 and seen[3]["freeGpusPerNode"] == [1, 0, 1]
    assert all(set(o) == {"now", "nowMicros", "freeGpus", "freeGpusPerNode", "queues",
                          "waiting", "jobs"} for o in seen)
    assert all("resync" not in r["result"] for r in replies)


def test_version_2_asks_for_a_resync_when_it_cannot_follow(capsys):
    rec, replies = run([
        decide_v2(2, [], []),                                         # nothing kept yet
        decide_v2(3, [v2_waiting(1)], [v2_job(2)], resync=True),
        decide_v2(4, [{"jobId": 7, "waitingPods": 1}], []),           # a new id, not whole
        decide_v2(5, [], [{"jobId": 2, "runningPods": 2}]),           # dropped: resync again
        decide_v2(6, [v2_waiting(1)], [v2_job(2)], resync=True),
        decide_v2(7, [], [], removed={"jobs": [8]}),                  # not kept
    ])
    assert [r["result"].get("resync") for r in replies] == [True, None, True, True, None, True]
    assert [r["result"]["decisions"] for r in replies] == [[]] * 6
    assert len(rec.seen) == 2
    assert "asking for a resync" in capsys.readouterr().err


def test_the_wire_of_a_version_1_run_gives_the_version_1_observation():
    """Version 1 observations sent as version 2 increments (tests/v2_wire.py) reach user code
    whole: the same as version 1's, but for the fields version 2 adds."""
    second = json.loads(json.dumps(V1))
    second["jobs"] = [v1_job(0, expected=2), v1_job(5)]
    second["waiting"] = []
    wire = PolicyWire()
    rec, _ = run([request(2, "decide", wire.decide(V1)), request(3, "decide", wire.decide(second))])
    rec1, _ = run([request(2, "decide", V1), request(3, "decide", second)], versions=None)
    strip = ("jobPriority", "waitingPods", "freeGpusPerNode", "job", "queue", "elastic",
             "growthPods", "demand", "gpuMilli", "waitingSinceMicros", "pendingCause")

    def known(o):
        return json.loads(json.dumps(o), object_hook=lambda d: {k: v for k, v in d.items()
                                                                if k not in strip or
                                                                "expectedReplicas" in d and
                                                                k in ("job", "queue")})
    assert [known(o) for o in rec.snapshots] == [known(o) for o in rec1.snapshots]


def test_errors_are_answered_and_serving_goes_on(capsys):
    answers = iter([ZeroDivisionError("no"), None, {"decisions": {}},
                    {"decisions": [], "x": float("inf")}, {"decisions": []}])

    def answer(obs):
        a = next(answers)
        if isinstance(a, Exception):
            raise a
        return a

    _, replies = run([request(i, "decide", V1) for i in range(2, 7)] +
                     [request(7, "decide", "nope")], versions=None, answer=answer)
    errors = [r.get("error") for r in replies]
    assert errors[0] == {"code": -32603, "message": "ZeroDivisionError: no"}
    assert errors[1]["message"].startswith("TypeError: decide returned NoneType")
    assert errors[2]["code"] == -32603
    assert errors[3]["message"].startswith("ValueError: Out of range float")
    assert replies[4]["result"] == {"decisions": []}
    assert errors[5]["code"] == -32602
    assert "Traceback" in capsys.readouterr().err


def test_decides_false_still_answers_a_decide():
    rec, replies = run([request(2, "decide", V1)], versions=None, decides=False)
    assert len(rec.seen) == 1 and replies[0]["result"]["decisions"] == []
