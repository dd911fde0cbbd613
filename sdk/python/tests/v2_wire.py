"""The simulator's side of protocol version 2, computed from version 1's messages (tests only).

``ControllerWire`` turns each version 1 ``reconcile`` params into the version 2 job update a
simulator would send (docs/protocol-v2.md §2): a resync the first time, then only what changed
against what the plugin keeps (a pod changed in its observed state only as a merge patch, in
``podPatches``); and a version 2 job result back into version 1's result (the kept status when
it is absent, patched by ``statusPatch`` when that is given). Its merge patches are computed
here, independently of the SDK's. ``PolicyWire`` does the same for ``decide`` (§3), inventing
the fields version 1 does not carry (fixed values, so a policy that reads only version 1's
fields decides the same). Used by the unit tests and by ``v2_shim.py``, which puts a version 2
plugin behind a version 1 simulator.
"""

from __future__ import annotations

from typing import Any


def _uid(pod: dict[str, Any]) -> str:
    return pod["metadata"]["uid"]


# What the world sets of a pod (its observed state): (object, member), as the simulator's
# podPatches carry them.
OBSERVED = (("metadata", "deletionTimestamp"), ("spec", "nodeName"), ("status", "phase"),
            ("status", "startTime"), ("status", "containerStatuses"), ("t9ksim", "gpuIndex"),
            ("t9ksim", "bindTime"), ("t9ksim", "deletionReason"))


def _without_observed(pod: dict[str, Any]) -> dict[str, Any]:
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in pod.items()}
    for part, key in OBSERVED:
        out.get(part, {}).pop(key, None)
    return out


def pod_patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """The merge patch from ``before`` to ``after`` when they differ in observed state only (as
    the simulator sends it: metadata.uid and each changed member, null when gone), else None."""
    if _without_observed(before) != _without_observed(after):
        return None
    patch: dict[str, Any] = {"metadata": {"uid": _uid(after)}}
    for part, key in OBSERVED:
        was, now = before.get(part, {}).get(key), after.get(part, {}).get(key)
        if was != now:
            patch.setdefault(part, {})[key] = now
    return patch


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386, section 2, as written there."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    target = dict(target)
    for name, value in patch.items():
        if value is None:
            target.pop(name, None)
        else:
            target[name] = apply_merge_patch(target.get(name), value)
    return target


class ControllerWire:
    def __init__(self) -> None:
        # uid -> what the plugin keeps: job (no status), status, pods, podGroup, tensorBoard
        self.kept: dict[str, dict[str, Any]] = {}

    def resync(self, params: dict[str, Any]) -> dict[str, Any]:
        job = dict(params["job"])
        st = job.pop("status", None)
        uid = job["metadata"]["uid"]
        self.kept[uid] = {"job": job, "status": st, "pods": list(params["pods"]),
                          "podGroup": params["podGroup"], "tensorBoard": params["tensorBoard"]}
        return {"uid": uid, "resync": True, "job": job, "status": st, "pods": params["pods"],
                "podGroup": params["podGroup"], "tensorBoard": params["tensorBoard"]}

    def update(self, params: dict[str, Any]) -> dict[str, Any]:
        """The job update for version 1's ``params`` (a resync when the pods' order could not be
        kept by an update, as the simulator does)."""
        job = dict(params["job"])
        st = job.pop("status", None)
        uid = job["metadata"]["uid"]
        kept = self.kept.get(uid)
        if kept is None:
            return self.resync(params)
        upd: dict[str, Any] = {"uid": uid}
        if job != kept["job"]:
            upd["job"] = job
        if st != kept["status"]:
            upd["status"] = st
        new_uids = {_uid(p) for p in params["pods"]}
        old = {_uid(p): p for p in kept["pods"]}
        removed = [u for u in old if u not in new_uids]
        changed, patches = [], []
        for p in params["pods"]:
            before = old.get(_uid(p))
            if before == p:
                continue
            patch = pod_patch(before, p) if before is not None else None
            if patch is None:
                changed.append(p)
            else:
                patches.append(patch)
        after = [u for u in old if u in new_uids] + [_uid(p) for p in changed if _uid(p) not in old]
        if after != [_uid(p) for p in params["pods"]]:
            return self.resync(params)
        if removed:
            upd["removedPods"] = removed
        if patches:
            upd["podPatches"] = patches
        if changed:
            upd["pods"] = changed
        for key in ("podGroup", "tensorBoard"):
            if params[key] != kept[key]:
                upd[key] = params[key]
        kept.update(job=job, status=st, pods=list(params["pods"]), podGroup=params["podGroup"],
                    tensorBoard=params["tensorBoard"])
        return upd

    def result(self, uid: str, result: dict[str, Any]) -> dict[str, Any]:
        """A version 2 job result as version 1's result; keeps the status it answers."""
        out = {k: v for k, v in result.items() if k not in ("uid", "resync", "statusPatch")}
        if out.get("status") is None and result.get("statusPatch") is not None:
            out["status"] = apply_merge_patch(self.kept[uid]["status"], result["statusPatch"])
        if out.get("status") is None:
            out["status"] = self.kept[uid]["status"]
        else:
            self.kept[uid]["status"] = out["status"]
        return out


WAITING_INVENTED = {"job": "", "queue": "", "jobPriority": 0, "elastic": False, "waitingPods": 0,
                    "growthPods": 0, "demand": {}, "gpuMilli": 0, "waitingSinceMicros": 0,
                    "pendingCause": None}


class PolicyWire:
    def __init__(self) -> None:
        self.waiting: dict[int, dict[str, Any]] | None = None
        self.jobs: dict[int, dict[str, Any]] = {}

    @staticmethod
    def full(params: dict[str, Any]) -> tuple[dict[int, Any], dict[int, Any]]:
        waiting = {w["jobId"]: {"jobId": w["jobId"], "queuePriority": w["priority"],
                                **WAITING_INVENTED} for w in params["waiting"]}
        jobs = {}
        for j in params["jobs"]:
            e = {k: v for k, v in j.items() if k != "priority"}
            e.update(queuePriority=j["priority"], jobPriority=0, waitingPods=0)
            jobs[j["jobId"]] = e
        return waiting, jobs

    def decide(self, params: dict[str, Any], resync: bool = False) -> dict[str, Any]:
        waiting, jobs = self.full(params)
        queues = [{**q, "pending": [{"jobPriority": p["priority"], "gpuMilli": p["gpuMilli"],
                                     "jobs": p["jobs"]} for p in q["pending"]]}
                  for q in params["queues"]]
        out: dict[str, Any] = {"now": params["now"], "nowMicros": params["nowMicros"],
                               "freeGpus": params["freeGpus"], "freeGpusPerNode": [],
                               "queues": queues}
        if resync or self.waiting is None:
            out.update(resync=True, waiting=list(waiting.values()), jobs=list(jobs.values()))
        else:
            out["waiting"] = _changes(self.waiting, waiting)
            out["jobs"] = _changes(self.jobs, jobs)
            removed = {k: [i for i in old if i not in new] for k, old, new in
                       (("waiting", self.waiting, waiting), ("jobs", self.jobs, jobs))}
            removed = {k: v for k, v in removed.items() if v}
            if removed:
                out["removed"] = removed
        self.waiting, self.jobs = waiting, jobs
        return out


def _changes(old: dict[int, dict[str, Any]], new: dict[int, dict[str, Any]]) -> list[Any]:
    out = []
    for jid, entry in new.items():
        before = old.get(jid)
        if before is None:
            out.append(entry)
            continue
        diff = {k: v for k, v in entry.items() if before.get(k) != v}
        if diff:
            out.append({"jobId": jid, **diff})
    return out
