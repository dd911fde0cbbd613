"""Helpers of the SDK's tests: requests as the simulator writes them, and serving them in memory."""

from __future__ import annotations

import io
import json
from typing import Any, Callable

from t9ksim_sdk import serve_controller, serve_policy

OPTIONS = {
    "retryableExitCodes": "t9k", "t9kRetryableExitCodes": [130, 137, 138, 143],
    "backoffLimitRule": "master-fails-again", "exitCodeIgnoresBackoffLimit": False,
    "restartBackoff": False, "restartBackoffBaseMicros": 10000000,
    "restartBackoffCapMicros": 360000000, "permanentFailureScope": "any-replica",
    "maxDurationHandling": "fail-replica", "runningWhen": "all-pods-running",
    "genericLimitScope": "per-replica", "elasticSuccess": "master"}
POLICY = {"name": "fixed", "periodMicros": 300000000, "cooldownMicros": 600000000,
          "checkpointWindowMicros": 120000000}


def initialize(role: str = "controller", versions: tuple[str, ...] | None = ("1", "2"),
               rid: int = 1) -> dict[str, Any]:
    params: dict[str, Any] = {
        "protocolVersion": "1", "role": role,
        "kinds": ["GenericJob"] if role == "controller" else [],
        "simulator": {"name": "t9ksim", "version": "0.1.0"},
        "controllerOptions": OPTIONS, "policy": POLICY}
    if versions is not None:
        params["protocolVersions"] = list(versions)
    return request(rid, "initialize", params)


def request(rid: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def shutdown(rid: int) -> dict[str, Any]:
    return request(rid, "shutdown", {})


def job(name: str = "a", uid: str = "job-0", replicas: int = 2) -> dict[str, Any]:
    return {"apiVersion": "batch.tensorstack.dev/v1beta1", "kind": "GenericJob",
            "metadata": {"name": name, "namespace": "default", "uid": uid,
                         "creationTimestamp": "1970-01-01T00:00:01Z"},
            "spec": {"cleanUpPolicy": "None", "replicaSpecs": [
                {"type": "w", "replicas": replicas,
                 "restartPolicy": {"policy": "OnFailure", "limit": 0},
                 "template": {"spec": {"containers": [
                     {"name": "c", "image": "i",
                      "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}]}}


def pod(job_name: str, rank: int, uid: str, phase: str = "Pending") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{job_name}-w-{rank}", "namespace": "default", "uid": uid,
                         "creationTimestamp": "1970-01-01T00:00:01.100000Z"},
            "spec": {"schedulerName": "default-scheduler", "priority": 0,
                     "terminationGracePeriodSeconds": 30,
                     "containers": [{"name": "main",
                                     "resources": {"requests": {"nvidia.com/gpu": "1"}}}]},
            "status": {"phase": phase},
            "t9ksim": {"job": job_name, "replicaType": "w", "rank": rank, "generation": 0}}


def status(phase: str = "Pending") -> dict[str, Any]:
    return {"phase": phase, "aggregate": {"creating": 0, "pending": 0, "running": 0,
                                          "succeeded": 0, "failed": 0, "unknown": 0,
                                          "deleted": 0}}


def lines(messages: list[Any]) -> bytes:
    """Messages as the simulator writes them: compact JSON, one per line."""
    return b"".join(m if isinstance(m, bytes) else
                    json.dumps(m, separators=(",", ":")).encode() + b"\n" for m in messages)


class Output(io.BytesIO):
    """stdout that counts flushes and what was written before each."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[int] = []

    def flush(self) -> None:
        super().flush()
        self.flushed.append(len(self.getvalue()))


def serve(serve_fn: Callable[..., int], fn: Callable[..., Any], messages: list[Any],
          stdin: Any = None, **kwargs: Any) -> tuple[int, list[dict[str, Any]], Output]:
    out = Output()
    rc = serve_fn(fn, stdin=stdin or io.BytesIO(lines(messages)), stdout=out, **kwargs)
    text = out.getvalue()
    replies = [json.loads(line) for line in text.split(b"\n") if line]
    return rc, replies, out


def controller(fn: Callable[..., Any], messages: list[Any], **kwargs: Any
               ) -> tuple[int, list[dict[str, Any]], Output]:
    kwargs.setdefault("name", "test-controller")
    return serve(serve_controller, fn, messages, **kwargs)


def policy(fn: Callable[..., Any], messages: list[Any], **kwargs: Any
           ) -> tuple[int, list[dict[str, Any]], Output]:
    kwargs.setdefault("name", "test-policy")
    return serve(serve_policy, fn, messages, **kwargs)


class Recorder:
    """A reconcile (or decide) that records what it was given and answers from a script."""

    def __init__(self, answer: Callable[[Any], Any] | None = None) -> None:
        self.seen: list[Any] = []
        self.snapshots: list[Any] = []
        self.answer = answer or (lambda r: {"actions": [], "status": {"phase": "Pending"}})

    def __call__(self, request: Any) -> Any:
        self.seen.append(request)
        self.snapshots.append(json.loads(json.dumps(request)))  # as it was at the call
        return self.answer(request)
