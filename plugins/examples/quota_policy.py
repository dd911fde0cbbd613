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

Standard library only. Logs go to stderr (OUT/plugins/elastic-policy.log); stdout carries only
protocol messages, one JSON object per line.
"""
import json
import os
import sys

COOLDOWN_MICROS = int(float(os.environ.get("QUOTA_POLICY_COOLDOWN_S", "1200")) * 1e6)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def decide(p):
    now = p["nowMicros"]
    free = p["freeGpus"]
    room = {}  # GPUs left under each queue's quota (milli-GPU); queues without quota are absent
    for q in p["queues"]:
        if q["quotaGpuMilli"] is not None:
            room[q["name"]] = max(0, q["quotaGpuMilli"] - q["allocatedGpuMilli"])
    waiting = p["waiting"]
    jobs = sorted(p["jobs"], key=lambda j: (-j["priority"], -1 if j["lastResizeMicros"] is None else j["lastResizeMicros"], j["jobId"]))
    decisions = []
    for j in jobs:
        last = j["lastResizeMicros"]
        if last is not None and now - last < COOLDOWN_MICROS:
            continue
        pressure = any(w["jobId"] != j["jobId"] and w["priority"] >= j["priority"] for w in waiting)
        per_pod = max(1, j["gpusPerPod"])
        want = j["expectedReplicas"]
        if pressure:
            want = j["minReplicas"]
        else:
            while want < j["maxReplicas"] and free >= per_pod and room.get(j["queue"], 1 << 62) >= per_pod * 1000:
                want += 1
                free -= per_pod
                if j["queue"] in room:
                    room[j["queue"]] -= per_pod * 1000
        if want != j["expectedReplicas"]:
            decisions.append({"job": j["job"], "expectedReplicas": want})
    return {"decisions": decisions, "nextDecisionMicros": None}


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        try:
            if method == "initialize":
                result = {"protocolVersion": "1", "name": "quota-policy", "capabilities": {"decide": True}}
                log("initialized; cooldown", COOLDOWN_MICROS / 1e6, "s")
            elif method == "decide":
                result = decide(msg["params"])
            elif method == "shutdown":
                print(json.dumps({"jsonrpc": "2.0", "id": rid, "result": None}), flush=True)
                return
            else:
                raise ValueError(f"unknown method {method}")
            print(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}), flush=True)
        except Exception as e:  # an error reply names the problem; the simulator stops the run
            print(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": str(e)}}), flush=True)


if __name__ == "__main__":
    main()
