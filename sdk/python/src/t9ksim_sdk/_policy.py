"""Elastic policies: ``decide`` in both protocol versions, as one whole Observation to user code.

Version 2 (docs/protocol-v2.md §3) sends ``waiting`` and ``jobs`` incrementally: they are kept
as maps by job id, entries merged field by field, and handed over whole, in job id order.
Version 1's observation is converted to version 2's shape: ``priority`` becomes
``queuePriority`` (jobs, waiting) and ``jobPriority`` (a queue's pending demand), and the fields
version 1 does not carry are None: ``freeGpusPerNode``; ``jobPriority`` and ``waitingPods`` of
a job; every field of a waiting job but ``jobId`` and ``queuePriority``.
"""

from __future__ import annotations

from typing import Any, Callable

from ._rpc import INVALID_PARAMS, Handler, RpcError, describe, encode, log, user_error
from .types import Decisions, Observation

Decide = Callable[[Observation], Decisions]

# Every field of a version 2 entry: a job id seen for the first time must carry them all.
WAITING_FIELDS = ("jobId", "job", "queue", "queuePriority", "jobPriority", "elastic",
                  "waitingPods", "growthPods", "demand", "gpuMilli", "waitingSinceMicros",
                  "pendingCause")
JOB_FIELDS = ("jobId", "job", "queue", "queuePriority", "jobPriority", "minReplicas",
              "maxReplicas", "expectedReplicas", "runningPods", "gpusPerPod", "scalingWeight",
              "speedup", "progress", "training", "sinceCheckpointMicros",
              "checkpointIntervalMicros", "checkpointCostMicros", "rescaleOverheadMicros",
              "lastResizeMicros", "waitingPods")
_WAITING_V1_ABSENT = {f: None for f in WAITING_FIELDS if f not in ("jobId", "queuePriority")}


def _queue_v1(q: dict[str, Any]) -> dict[str, Any]:
    pending = [{"jobPriority": p["priority"], "gpuMilli": p["gpuMilli"], "jobs": p["jobs"]}
               for p in q["pending"]]
    return {"name": q["name"], "priority": q["priority"], "quotaGpuMilli": q["quotaGpuMilli"],
            "allocatedGpuMilli": q["allocatedGpuMilli"], "pending": pending}


def _job_v1(j: dict[str, Any]) -> dict[str, Any]:
    out = {"jobId": j["jobId"], "job": j["job"], "queue": j["queue"],
           "queuePriority": j["priority"], "jobPriority": None}
    for k, v in j.items():
        if k not in out and k != "priority":
            out[k] = v
    out["waitingPods"] = None
    return out


def observation_v1(p: dict[str, Any]) -> dict[str, Any]:
    """A version 1 ``decide`` params as version 2's whole observation."""
    return {"now": p["now"], "nowMicros": p["nowMicros"], "freeGpus": p["freeGpus"],
            "freeGpusPerNode": None,
            "queues": [_queue_v1(q) for q in p["queues"]],
            "waiting": [{"jobId": w["jobId"], "queuePriority": w["priority"],
                         **_WAITING_V1_ABSENT} for w in p["waiting"]],
            "jobs": [_job_v1(j) for j in p["jobs"]]}


def _merge(kept: dict[int, dict[str, Any]], entries: Any, fields: tuple[str, ...],
           what: str) -> str:
    """Merge version 2 entries into the kept map; the reason it cannot, or ""."""
    if not isinstance(entries, list):
        raise RpcError(INVALID_PARAMS, f"decide: params.{what}: expected an array, found "
                                       f"{describe(entries)}")
    for i, entry in enumerate(entries):
        jid = entry.get("jobId") if isinstance(entry, dict) else None
        if not isinstance(jid, int):
            raise RpcError(INVALID_PARAMS, f"decide: params.{what}[{i}].jobId: expected an "
                                           "integer")
        old = kept.get(jid)
        if old is not None:
            old.update(entry)
            continue
        missing = [f for f in fields if f not in entry]
        if missing:
            return f"{what} entry of new job id {jid} lacks {', '.join(missing)}"
        kept[jid] = entry
    return ""


class PolicyHandler(Handler):
    role = "elasticPolicy"

    def __init__(self, decide: Decide, name: str, decides: bool) -> None:
        super().__init__(name)
        self.decide = decide
        self.decides = decides
        self.waiting: dict[int, dict[str, Any]] = {}
        self.jobs: dict[int, dict[str, Any]] = {}
        self.synced = False
        self.methods = {"decide": self.on_decide}

    def capabilities(self) -> dict[str, Any]:
        return {"decide": self.decides}

    def configure(self, params: dict[str, Any]) -> None:
        self.waiting.clear()
        self.jobs.clear()
        self.synced = False

    def on_decide(self, params: Any) -> bytes:
        if not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, f"decide: params: expected an object, found "
                                           f"{describe(params)}")
        if self.version == "2":
            why = self.apply_v2(params)
            if why:
                log(self.name, f"asking for a resync: {why}")
                self.waiting.clear()
                self.jobs.clear()
                self.synced = False
                return b'{"decisions":[],"resync":true}'
            obs = {"now": params.get("now"), "nowMicros": params.get("nowMicros"),
                   "freeGpus": params.get("freeGpus"),
                   "freeGpusPerNode": params.get("freeGpusPerNode"),
                   "queues": params.get("queues"),
                   "waiting": [self.waiting[k] for k in sorted(self.waiting)],
                   "jobs": [self.jobs[k] for k in sorted(self.jobs)]}
        else:
            try:
                obs = observation_v1(params)
            except (KeyError, TypeError) as e:
                raise RpcError(INVALID_PARAMS, f"decide: params: not a version 1 observation "
                                               f"({type(e).__name__}: {e})") from e
        try:
            result = self.decide(obs)  # type: ignore[arg-type]
            if not isinstance(result, dict) or not isinstance(result.get("decisions"), list):
                raise TypeError(f"decide returned {type(result).__name__}; expected a dict "
                                "with 'decisions' (a list) and 'nextDecisionMicros'")
            return encode(result)
        except Exception as e:
            raise user_error(self.name, e) from e

    def apply_v2(self, params: dict[str, Any]) -> str:
        """Apply a version 2 observation to the kept maps; the reason it cannot, or ""."""
        if params.get("resync"):
            self.waiting.clear()
            self.jobs.clear()
            self.synced = True
        elif not self.synced:
            return "no observation with resync was received"
        removed = params.get("removed") or {}
        if not isinstance(removed, dict):
            raise RpcError(INVALID_PARAMS, f"decide: params.removed: expected an object, found "
                                           f"{describe(removed)}")
        for what, kept in (("waiting", self.waiting), ("jobs", self.jobs)):
            for jid in removed.get(what) or ():
                if kept.pop(jid, None) is None:
                    return f"removed.{what} names job id {jid}, which it does not have"
        return (_merge(self.waiting, params.get("waiting"), WAITING_FIELDS, "waiting")
                or _merge(self.jobs, params.get("jobs"), JOB_FIELDS, "jobs"))
