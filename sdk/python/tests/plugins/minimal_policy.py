#!/usr/bin/env python3
"""A small elastic policy on the SDK (docs/plugins.md §8): give a pod back only to more
important work that really waits, grow only into a node with room while nothing waits, and
resize only right after a checkpoint."""
import sys

from t9ksim_sdk import Decision, Decisions, Observation, serve_policy

MINUTE = 60_000_000  # µs


def take_node(free: list[int], gpus: int) -> bool:
    """Books one pod of `gpus` GPUs on the fullest node with room (free[n]: nodes with n free)."""
    for n in range(gpus, len(free)):
        if free[n] > 0:
            free[n], free[n - gpus] = free[n] - 1, free[n - gpus] + 1
            return True
    return False


def decide(p: Observation) -> Decisions:
    # Jobs that cannot start: an elastic job's growth pods do not count (it runs without them).
    blocked = [w for w in p["waiting"] if (w["waitingPods"] or 0) > (w["growthPods"] or 0)]
    free = list(p["freeGpusPerNode"] or [])
    decisions: list[Decision] = []
    later = None  # the next checkpoint of a job it would resize
    for j in p["jobs"]:
        want = j["expectedReplicas"]
        if any((w["queuePriority"] or 0) > j["queuePriority"] for w in blocked):
            want = max(j["minReplicas"], want - 1)  # more important work waits: give a pod back
        elif (not blocked and not j["waitingPods"] and want < j["maxReplicas"]
              and take_node(free, j["gpusPerPod"])):
            want += 1  # nothing waits and a node has room
        since, every = j["sinceCheckpointMicros"], j["checkpointIntervalMicros"]
        if want != j["expectedReplicas"] and every and since is not None and since > 2 * MINUTE:
            # A resize between checkpoints throws work away: decide again after the next one.
            at = p["nowMicros"] + every - since + MINUTE
            later = at if later is None else min(later, at)
        elif want != j["expectedReplicas"]:
            decisions.append({"jobId": j["jobId"], "expectedReplicas": want})
    return {"decisions": decisions, "nextDecisionMicros": later}


if __name__ == "__main__":
    sys.exit(serve_policy(decide, name="minimal-policy"))
