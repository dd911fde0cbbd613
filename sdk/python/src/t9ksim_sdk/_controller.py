"""Controllers: ``reconcile`` in both protocol versions, as one call per job to user code.

Version 1 hands the request over as it comes. Version 2 (docs/protocol-v2.md §2) keeps, per job
uid, what the simulator sent (the job without its status, the status, the pods in creation order
indexed by uid, the PodGroup, the TensorBoard), applies each update to it (pods changed in their
observed state arrive as JSON merge patches), assembles version 1's request from it for each job
of the batch, and answers the statuses only when they changed: as a merge patch against the
status kept when that is smaller than the whole.

What user code gets references the kept objects (read-only: build new objects to return); only
the request dict itself and its ``pods`` list are new per call, so a reconcile costs no copy of
the job or its pods. A pod patch builds a new pod (sharing what it does not change), so a pod
user code was given earlier stays as it was.
"""

from __future__ import annotations

from typing import Any, Callable

from ._merge import diff, merge
from ._rpc import INVALID_PARAMS, Handler, RpcError, describe, encode, log, user_error
from .types import ReconcileRequest, ReconcileResult

Reconcile = Callable[[ReconcileRequest], ReconcileResult]


class _Job:
    """What a version 2 plugin keeps of one job."""

    __slots__ = ("job", "status", "pods", "index", "pod_group", "tensor_board")

    def __init__(self, job: dict[str, Any], status: Any, pods: list[Any], pod_group: Any,
                 tensor_board: Any) -> None:
        self.job = job
        self.status = status
        self.pods = pods
        self.index = _index(pods)
        self.pod_group = pod_group
        self.tensor_board = tensor_board

    def request(self, now: Any, now_micros: Any, options: Any) -> dict[str, Any]:
        job = self.job
        if self.status is not None:
            job = {**job, "status": self.status}  # shallow: the spec is the kept one
        return {"job": job, "pods": list(self.pods), "podGroup": self.pod_group,
                "tensorBoard": self.tensor_board, "now": now, "nowMicros": now_micros,
                "options": options}


def _pod_uid(pod: Any) -> Any:
    meta = pod.get("metadata") if isinstance(pod, dict) else None
    return meta.get("uid") if isinstance(meta, dict) else None


def _index(pods: list[Any]) -> dict[str, int]:
    return {_pod_uid(p): i for i, p in enumerate(pods)}


def _job_name(job: Any) -> str:
    meta = job.get("metadata") if isinstance(job, dict) else None
    if not isinstance(meta, dict):
        return "?"
    return f"{meta.get('namespace', '')}/{meta.get('name', '?')}"


def _check_result(result: Any) -> dict[str, Any]:
    if not isinstance(result, dict):
        raise TypeError(f"reconcile returned {type(result).__name__}; expected a dict with "
                        "'status' (and 'actions', 'requeueAfterMicros')")
    if result.get("status") is None:
        raise ValueError("the result has no 'status': return the job's whole new status every "
                         "time (its 'status' in the request when nothing changed)")
    return result


class ControllerHandler(Handler):
    role = "controller"

    def __init__(self, reconcile: Reconcile, name: str) -> None:
        super().__init__(name)
        self.reconcile = reconcile
        self.options: Any = None
        self.jobs: dict[str, _Job] = {}
        self.undo: list[tuple[_Job, Any]] = []
        self.methods = {"reconcile": self.on_reconcile}

    def configure(self, params: dict[str, Any]) -> None:
        self.options = params.get("controllerOptions")
        self.jobs.clear()

    def commit(self) -> None:
        self.undo.clear()

    def rollback(self) -> None:
        # Statuses of an answer that was not sent are not the plugin's: restore them.
        for job, status in reversed(self.undo):
            job.status = status
        self.undo.clear()

    def call(self, request: Any) -> dict[str, Any]:
        try:
            return _check_result(self.reconcile(request))
        except Exception as e:
            raise user_error(self.name, e, f" (job {_job_name(request['job'])})") from e

    def encode_result(self, result: dict[str, Any], job: Any) -> bytes:
        try:
            return encode(result)
        except (TypeError, ValueError, RecursionError) as e:
            raise user_error(self.name, e, f" (job {_job_name(job)})") from e

    def on_reconcile(self, params: Any) -> bytes:
        if self.version == "2":
            return self.reconcile_v2(params)
        if not isinstance(params, dict) or not isinstance(params.get("job"), dict):
            raise RpcError(INVALID_PARAMS, "reconcile: params.job: expected an object, found "
                                           + describe(params.get("job")
                                                      if isinstance(params, dict) else params))
        return self.encode_result(self.call(params), params["job"])

    # ---- version 2 ----

    def reconcile_v2(self, params: Any) -> bytes:
        if not isinstance(params, dict) or not isinstance(params.get("jobs"), list):
            found = params.get("jobs") if isinstance(params, dict) else params
            raise RpcError(INVALID_PARAMS, f"reconcile: params.jobs: expected an array, found "
                                           f"{describe(found)}")
        forget = params.get("forget")
        if forget:
            for uid in forget:
                self.jobs.pop(uid, None)
        now, now_micros, options = params.get("now"), params.get("nowMicros"), self.options
        parts = []
        for i, update in enumerate(params["jobs"]):
            if not isinstance(update, dict) or not isinstance(update.get("uid"), str):
                raise RpcError(INVALID_PARAMS, f"reconcile: params.jobs[{i}].uid: expected a "
                                               "string")
            uid = update["uid"]
            kept = self.apply(i, uid, update)
            if kept is None:
                parts.append(b'{"uid":' + encode(uid) + b',"resync":true}')
                continue
            request = kept.request(now, now_micros, options)
            parts.append(self.answer(uid, kept, self.call(request), request["job"]))
        return b'{"results":[' + b",".join(parts) + b"]}"

    def answer(self, uid: str, kept: _Job, result: dict[str, Any], job: Any) -> bytes:
        """One job's encoded result: the status left out when unchanged, else sent as a merge
        patch against the kept one when that is smaller than the whole status; kept after."""
        status, old = result["status"], kept.status
        out = {"uid": uid, **result}
        if status is old or not isinstance(old, dict) or not isinstance(status, dict):
            # The kept object itself (user code may have changed it in place: what changed
            # cannot be told), or nothing to patch: the whole status.
            self.keep(kept, status)
            return self.encode_result(out, job)
        del out["status"]
        if status == old:
            return self.encode_result(out, job)  # unchanged: the status kept stays
        patch = diff(old, status)
        if not patch:  # it differs in null members only: the same status for the simulator
            return self.encode_result(out, job)
        self.keep(kept, status)
        whole = self.encode_result(status, job)
        small = self.encode_result(patch, job)
        # The rest encoded once; the status member spliced in at the end.
        head = self.encode_result(out, job)[:-1]
        if len(small) < len(whole):
            return head + b',"statusPatch":' + small + b"}"
        return head + b',"status":' + whole + b"}"

    def keep(self, kept: _Job, status: Any) -> None:
        self.undo.append((kept, kept.status))
        kept.status = status

    def apply(self, i: int, uid: str, update: dict[str, Any]) -> _Job | None:
        """Apply one job update to what is kept; None (and nothing kept) when it cannot be
        applied, to answer that job with a resync."""
        if update.get("resync"):
            job = update.get("job")
            pods = update.get("pods") or []
            if not isinstance(job, dict) or not isinstance(pods, list):
                raise RpcError(INVALID_PARAMS, f"reconcile: params.jobs[{i}]: a resync needs "
                                               "'job' (an object) and 'pods' (an array)")
            job.pop("status", None)
            fresh = _Job(job, update.get("status"), pods, update.get("podGroup"),
                         update.get("tensorBoard"))
            self.jobs[uid] = fresh
            return fresh
        kept = self.jobs.get(uid)
        why = "it is not known (no resync update was received for it)" if kept is None else \
            self.apply_changes(kept, update)
        if why or kept is None:
            self.jobs.pop(uid, None)
            log(self.name, f"job {uid}: asking for a resync: {why}")
            return None
        return kept

    def apply_changes(self, kept: _Job, update: dict[str, Any]) -> str:
        """docs/protocol-v2.md §2 "What the plugin keeps"; the reason it cannot, or ""."""
        if "job" in update:
            job = update["job"]
            if not isinstance(job, dict):
                return f"'job' is {describe(job)}"
            job.pop("status", None)
            kept.job = job
        if "status" in update:
            kept.status = update["status"]
        removed = update.get("removedPods")
        if removed:
            gone = set(removed)
            missing = gone.difference(kept.index)
            if missing:
                return f"removedPods names pods it does not have: {sorted(missing)}"
            kept.pods = [p for p in kept.pods if _pod_uid(p) not in gone]
            kept.index = _index(kept.pods)
        patches = update.get("podPatches")
        if patches:
            pods, index = kept.pods, kept.index
            for patch in patches:
                puid = _pod_uid(patch)
                if not isinstance(puid, str):
                    return "a pod patch without metadata.uid cannot be applied"
                at = index.get(puid)
                if at is None:
                    return f"podPatches names a pod it does not have: {puid}"
                pods[at] = merge(pods[at], patch)
        changed = update.get("pods")
        if changed:
            pods, index = kept.pods, kept.index
            for pod in changed:
                puid = _pod_uid(pod)
                if not isinstance(puid, str):
                    return "a pod without metadata.uid cannot be placed"
                at = index.get(puid)
                if at is not None:
                    pods[at] = pod
                    continue
                name = pod["metadata"].get("name")
                if any(p["metadata"].get("name") == name for p in pods):
                    return f"new pod {puid} is named {name!r} like a pod it keeps"
                index[puid] = len(pods)
                pods.append(pod)
        if "podGroup" in update:
            kept.pod_group = update["podGroup"]
        if "tensorBoard" in update:
            kept.tensor_board = update["tensorBoard"]
        return ""
