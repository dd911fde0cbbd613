#!/usr/bin/env python3
"""A minimal GenericJob controller on the SDK: one pod per rank, no restarts
(docs/plugins.md §8)."""
import sys
from typing import Any

from t9ksim_sdk import (Action, JobStatus, NewPod, ReconcileRequest, ReconcileResult,
                        serve_controller)
from t9ksim_sdk.types import JobPhase, NewContainer


def new_pod(job: str, replica: dict[str, Any], rank: int) -> NewPod:
    containers: list[NewContainer] = [
        {"name": c.get("name", ""),
         "resources": {"requests": {**c.get("resources", {}).get("limits", {}),
                                    **c.get("resources", {}).get("requests", {})}}}
        for c in replica["template"]["spec"]["containers"]]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{job}-{replica['type']}-{rank}"},
            "spec": {"schedulerName": "default-scheduler", "containers": containers},
            "t9ksim": {"job": job, "replicaType": replica["type"], "rank": rank}}


def reconcile(p: ReconcileRequest) -> ReconcileResult:
    job = p["job"]
    name, phase = job["metadata"]["name"], job.get("status", {}).get("phase")
    pods = {pod["metadata"]["name"]: pod for pod in p["pods"]}
    actions: list[Action] = []
    phases: list[str] = []
    for replica in job["spec"]["replicaSpecs"]:
        for rank in range(replica["replicas"]):
            pod = pods.get(f"{name}-{replica['type']}-{rank}")
            if pod is None and phase not in ("Succeeded", "Failed"):
                actions.append({"type": "CreatePod", "pod": new_pod(name, replica, rank)})
            phases.append(pod["status"]["phase"] if pod else "Pending")
    new: JobPhase
    if phase in (None, "Succeeded", "Failed"):
        new = phase or "Pending"          # first reconcile: Pending; terminal phases stay
    elif "Failed" in phases:
        new = "Failed"
    elif all(x == "Succeeded" for x in phases):
        new = "Succeeded"
    elif all(x == "Running" for x in phases) or phase == "Running":
        new = "Running"                   # Running never goes back to Pending
    else:
        new = "Pending"
    status: JobStatus = {"phase": new}
    if new in ("Succeeded", "Failed"):
        status["conditions"] = [{"type": "Completed", "status": "True",
                                 "lastTransitionTime": p["now"], "reason": new}]
    return {"actions": actions, "status": status}


if __name__ == "__main__":
    sys.exit(serve_controller(reconcile, name="minimal-generic"))
