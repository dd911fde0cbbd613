#!/usr/bin/env python3
"""A minimal elastic policy on the SDK: grow into free GPUs, shrink when others wait
(docs/plugins.md §13)."""
import sys

from t9ksim_sdk import Decision, Decisions, Observation, serve_policy


def decide(p: Observation) -> Decisions:
    free, waiting = p["freeGpus"], {w["jobId"] for w in p["waiting"]}
    decisions: list[Decision] = []
    for j in p["jobs"]:
        want = j["expectedReplicas"]
        if waiting - {j["jobId"]}:  # another job waits for GPUs: give them back
            want = j["minReplicas"]
        elif j["runningPods"] >= want and want < j["maxReplicas"] and free >= j["gpusPerPod"]:
            want, free = want + 1, free - j["gpusPerPod"]
        if want != j["expectedReplicas"]:
            decisions.append({"jobId": j["jobId"], "expectedReplicas": want})
    return {"decisions": decisions, "nextDecisionMicros": None}


if __name__ == "__main__":
    sys.exit(serve_policy(decide, name="minimal-policy"))
