#!/usr/bin/env python3
"""A GenericJob controller with its own restart backoff, as a t9ksim plugin (docs/plugins.md).

What it does, per reconcile (level-based: from the job, its pods and its own status only):
  * creates the job's PodGroup (T9k scheduler) and one pod per replica rank, named
    <job>-<type>-<rank>, with the template containers' requests (a missing request defaults to
    the limit, as Kubernetes does);
  * when a pod fails: OnFailure and Always restart it up to restartPolicy.limit times per rank
    (Always restarts a pod that succeeded too); Never, or an exhausted limit, fails the job;
  * its own restart backoff: the n-th restart of a rank waits BASE * 2^(n-1) seconds (at most
    CAP) after the pod finished; meanwhile it asks to be reconciled again when the wait ends;
  * the job succeeds when every rank's pod has succeeded (and is not to be restarted);
  * on a terminal phase, cleanUpPolicy All deletes every pod, Unfinished the ones still running.

Not modelled (the built-in controller has them): success/failure rules, run modes (pause,
debug), init containers' requests, activeDeadlineSeconds.

Run it:
    t9ksim run scenario.yaml --plugin GenericJob="python3 plugins/examples/generic_controller.py"

Written on the Python SDK (sdk/python: the protocol, its versions and errors are the SDK's);
runs from a checkout without installing it. Logs go to stderr
(OUT/plugins/genericjob-controller.log).
"""

from __future__ import annotations

import os
import pathlib
import sys
from typing import Any, cast

try:
    import t9ksim_sdk
except ImportError:  # not installed: the SDK of this checkout
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "sdk" / "python" / "src"))
    import t9ksim_sdk

from t9ksim_sdk import (Action, Condition, NewPod, ReconcileRequest, ReconcileResult,
                        micros_to_rfc3339, rfc3339_to_micros)
from t9ksim_sdk.types import (GenericJobSpec, GenericReplicaSpec, OwnerReference, PodTemplate,
                              ReplicaStatus, T9kScheduler, TaskStatus)

BASE_S = float(os.environ.get("GENERIC_BACKOFF_BASE_S", "15"))
CAP_S = float(os.environ.get("GENERIC_BACKOFF_CAP_S", "300"))


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def requests_of(template: PodTemplate) -> list[dict[str, str]]:
    """The pod's requests: each container's requests, a missing one defaulting to its limit."""
    containers = []
    for c in template.get("spec", {}).get("containers", []):
        res = c.get("resources", {})
        req = dict(res.get("limits", {}))
        req.update(res.get("requests", {}))
        containers.append(req)
    return containers


def condition(kind: Any, status: Any, now: int, reason: str = "",
              message: str = "") -> Condition:
    c: Condition = {"type": kind, "status": status, "lastTransitionTime": micros_to_rfc3339(now)}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def reconcile(p: ReconcileRequest) -> ReconcileResult:
    job, now = p["job"], p["nowMicros"]
    meta, spec = job["metadata"], cast(GenericJobSpec, job["spec"])
    name, ns, uid = meta["name"], meta.get("namespace", ""), meta.get("uid", "")
    old = job.get("status", {})
    phase = old.get("phase")
    owner: list[OwnerReference] = [{"apiVersion": "batch.tensorstack.dev/v1beta1",
                                    "kind": "GenericJob", "name": name, "uid": uid,
                                    "controller": True}]
    t9k = spec.get("scheduler", {}).get("t9kScheduler")
    queue = (t9k["queue"] if t9k else "") or "default"
    pods = {pod["metadata"]["name"]: pod for pod in p["pods"]}
    # Restart counts per rank, kept in the status this controller writes (the world stores it).
    restarts: dict[str, int] = {}
    for task in old.get("tasks") or []:
        for rep in task.get("replicas") or []:
            restarts[rep["name"]] = rep.get("restartCount") or 0

    actions: list[Action] = []
    requeue = None
    if t9k and p["podGroup"] is None:
        total = sum(r.get("replicas", 1) for r in spec["replicaSpecs"])
        actions.append({"type": "CreatePodGroup", "podGroup": {
            "apiVersion": "scheduler.tensorstack.dev/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns, "ownerReferences": owner},
            "spec": {"minMember": total, "queue": queue, "priority": t9k.get("priority", 0),
                     "roles": [{"name": r["type"], "minMember": r.get("replicas", 1)}
                               for r in spec["replicaSpecs"]]}}})

    terminal = phase in ("Succeeded", "Failed")
    failed_for_good, all_done, all_running = None, True, True
    tasks: list[TaskStatus] = []
    for r in spec["replicaSpecs"]:
        policy = r.get("restartPolicy", {}).get("policy", "OnFailure")
        limit = r.get("restartPolicy", {}).get("limit", 0)
        reps: list[ReplicaStatus] = []
        for rank in range(r.get("replicas", 1)):
            pod_name = f"{name}-{r['type']}-{rank}"
            pod = pods.get(pod_name)
            count = restarts.get(pod_name, 0)
            state = pod["status"]["phase"] if pod else "Missing"
            reps.append({"name": pod_name, "phase": "Creating" if state == "Missing" else state,
                         "restartCount": count})
            if state != "Running":
                all_running = False
            ended = state in ("Succeeded", "Failed")
            restart = ((state == "Failed" and policy in ("OnFailure", "Always"))
                       or (state == "Succeeded" and policy == "Always"))
            if state != "Succeeded" or restart:
                all_done = False
            if terminal or not pod:
                if not pod and not terminal:
                    actions.append({"type": "CreatePod",
                                    "pod": new_pod(name, ns, owner, r, rank, t9k, queue)})
                continue
            if pod["metadata"].get("deletionTimestamp"):
                continue
            if state == "Failed" and not restart:
                failed_for_good = f"Pod[{pod_name}] failed and restartPolicy is {policy}"
            elif ended and restart:
                if count >= limit:
                    if state == "Failed":
                        failed_for_good = (f"Pod[{pod_name}] failed after {count} restarts "
                                           f"(limit {limit})")
                    continue
                statuses = pod["status"].get("containerStatuses") or []
                term = statuses[0]["state"]["terminated"] if statuses else {}
                finished = rfc3339_to_micros(term["finishedAt"]) if "finishedAt" in term else now
                delay = int(min(CAP_S, BASE_S * 2 ** count) * 1e6)
                if now >= finished + delay:
                    actions.append({"type": "DeletePod", "name": pod_name, "reason": "Restart"})
                    reps[-1]["restartCount"] = count + 1
                    log(f"{name}: restarting {pod_name} (restart {count + 1}) after "
                        f"{delay / 1e6:.0f} s")
                else:
                    requeue = min(requeue or 1 << 62, finished + delay - now)
        tasks.append({"type": r["type"], "restartCount": sum(x.get("restartCount") or 0
                                                             for x in reps),
                      "replicas": reps})

    conditions = [condition("Initialized", "True", now)]
    if terminal:
        new_phase = phase
        conditions = old.get("conditions", conditions) or []
    elif failed_for_good:
        new_phase = "Failed"
        conditions += [condition("Completed", "True", now, "Failed", failed_for_good),
                       condition("Failed", "True", now, "Failed", failed_for_good)]
    elif all_done:
        new_phase = "Succeeded"
        conditions += [condition("Completed", "True", now, "Succeeded", "All pods succeeded.")]
    elif all_running or phase == "Running":
        new_phase = "Running"
        conditions += [condition("Running", "True", now, "Running", "All pods are running.")]
    else:
        new_phase = "Pending"
    if new_phase in ("Succeeded", "Failed") and not terminal:
        cleanup = spec.get("cleanUpPolicy", "None")
        for pod in p["pods"]:
            live = (pod["status"]["phase"] in ("Pending", "Running", "Unknown")
                    and not pod["metadata"].get("deletionTimestamp"))
            if cleanup == "All" or (cleanup == "Unfinished" and live):
                actions.append({"type": "DeletePod", "name": pod["metadata"]["name"],
                                "reason": "Cleanup"})
        requeue = None
    result: ReconcileResult = {
        "actions": actions,
        "status": {"phase": new_phase, "conditions": conditions, "tasks": tasks}}
    if requeue is not None:
        result["requeueAfterMicros"] = requeue
    return result


def new_pod(job: str, ns: str, owner: list[OwnerReference], replica: GenericReplicaSpec,
            rank: int, t9k: T9kScheduler | None, queue: str) -> NewPod:
    template = replica["template"]
    labels = dict(template.get("metadata", {}).get("labels", {}))
    labels.update({"tensorstack.dev/owner-name": job, "genericjob": job})
    first = (template.get("spec", {}).get("containers") or [{}])[0]
    pod: NewPod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"{job}-{replica['type']}-{rank}", "namespace": ns,
                     "labels": labels, "ownerReferences": owner},
        "spec": {"schedulerName": "t9k-scheduler" if t9k else "default-scheduler",
                 "containers": [{"name": f"c{i}",
                                 "command": first.get("command", []) if i == 0 else [],
                                 "args": first.get("args", []) if i == 0 else [],
                                 "resources": {"requests": dict(req)}}
                                for i, req in enumerate(requests_of(template))]},
        "t9ksim": {"job": job, "replicaType": replica["type"], "rank": rank},
    }
    if t9k:
        pod["t9ksim"].update({"queue": queue, "podGroup": job, "role": replica["type"]})
    return pod


if __name__ == "__main__":
    log(f"backoff {BASE_S} s doubling to {CAP_S} s")
    sys.exit(t9ksim_sdk.serve_controller(reconcile, name="generic-with-backoff"))
