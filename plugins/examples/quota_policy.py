#!/usr/bin/env python3
"""A quota-aware elastic policy with a cooldown, as a t9ksim plugin (docs/plugins.md).

Each decision, every running elastic job is considered in order of its queue's priority (highest
first), then of how long it has waited since its last resize:
  * when work of the same or a higher queue priority waits for GPUs, the job shrinks to
    minReplicas, freeing GPUs for that work;
  * otherwise it grows by one pod at a time while whole GPUs are free and its queue's quota has
    room, up to maxReplicas;
  * a job resized less than COOLDOWN ago is left alone (restarting training costs progress).

Run it from a scenario:
    controllers:
      options:
        elasticPolicy: {plugin: {command: [python3, quota_policy.py]}}
or from the command line:
    t9ksim run scenario.yaml --plugin elastic-policy="python3 plugins/examples/quota_policy.py"

Written on the Python SDK (sdk/python), which hands it the whole observation whatever protocol
version is spoken; runs from a checkout without installing it. Logs go to stderr
(OUT/plugins/elastic-policy.log); stdout carries only protocol messages.
"""

from __future__ import annotations

import os
import pathlib
import sys

try:
    import t9ksim_sdk
except ImportError:  # not installed: the SDK of this checkout
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "sdk" / "python" / "src"))
    import t9ksim_sdk

from t9ksim_sdk import Decision, Decisions, ElasticJob, Observation

COOLDOWN_MICROS = int(float(os.environ.get("QUOTA_POLICY_COOLDOWN_S", "1200")) * 1e6)


def decide(p: Observation) -> Decisions:
    now = p["nowMicros"]
    free = p["freeGpus"]
    room = {}  # GPUs left under each queue's quota (milli-GPU); queues without quota are absent
    for q in p["queues"]:
        if q["quotaGpuMilli"] is not None:
            room[q["name"]] = max(0, q["quotaGpuMilli"] - q["allocatedGpuMilli"])
    waiting = p["waiting"]

    def order(j: ElasticJob) -> tuple[int, int, int]:
        last = j["lastResizeMicros"]
        return -j["queuePriority"], -1 if last is None else last, j["jobId"]

    decisions: list[Decision] = []
    for j in sorted(p["jobs"], key=order):
        last = j["lastResizeMicros"]
        if last is not None and now - last < COOLDOWN_MICROS:
            continue
        pressure = any(w["jobId"] != j["jobId"] and w["queuePriority"] >= j["queuePriority"]
                       for w in waiting)
        per_pod = max(1, j["gpusPerPod"])
        want = j["expectedReplicas"]
        if pressure:
            want = j["minReplicas"]
        else:
            while (want < j["maxReplicas"] and free >= per_pod
                   and room.get(j["queue"], 1 << 62) >= per_pod * 1000):
                want += 1
                free -= per_pod
                if j["queue"] in room:
                    room[j["queue"]] -= per_pod * 1000
        if want != j["expectedReplicas"]:
            decisions.append({"job": j["job"], "expectedReplicas": want})
    return {"decisions": decisions, "nextDecisionMicros": None}


if __name__ == "__main__":
    print(f"cooldown {COOLDOWN_MICROS / 1e6} s", file=sys.stderr, flush=True)
    sys.exit(t9ksim_sdk.serve_policy(decide, name="quota-policy", decides=True))
