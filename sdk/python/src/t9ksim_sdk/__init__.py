"""t9ksim_sdk: write t9ksim controller and elastic-policy plugins as plain functions.

    from t9ksim_sdk import serve_controller, ReconcileRequest, ReconcileResult

    def reconcile(request: ReconcileRequest) -> ReconcileResult:
        ...

    if __name__ == "__main__":
        sys.exit(serve_controller(reconcile, name="my-controller"))

The SDK speaks the plugin protocol (docs/plugins.md, docs/protocol-v2.md) on stdin and stdout:
it negotiates the version, keeps what version 2 sends incrementally, and calls ``reconcile``
once per job with version 1's request (or ``decide`` with one whole observation), whatever
version is spoken. What user code receives is read-only (it may be what the SDK keeps for the
next request): build new objects to return. Standard library only.
"""

from __future__ import annotations

import sys
from typing import BinaryIO

from . import types
from ._controller import ControllerHandler, Reconcile
from ._policy import Decide, PolicyHandler
from ._rpc import serve
from .types import (Action, Condition, ControllerOptions, Decision, Decisions, ElasticJob, Job,
                    JobStatus, NewPod, NewPodGroup, Observation, Pod, PodGroup, Queue,
                    ReconcileRequest, ReconcileResult, ReplicaStatus, TaskStatus, WaitingJob)
from .values import format_quantity_milli, micros_to_rfc3339, quantity_milli, rfc3339_to_micros

__version__ = "0.1.0"

__all__ = [
    "Action", "Condition", "ControllerOptions", "Decision", "Decisions", "ElasticJob", "Job",
    "JobStatus", "NewPod", "NewPodGroup", "Observation", "Pod", "PodGroup", "Queue",
    "ReconcileRequest", "ReconcileResult", "ReplicaStatus", "TaskStatus", "WaitingJob",
    "format_quantity_milli", "micros_to_rfc3339", "quantity_milli", "rfc3339_to_micros",
    "serve_controller", "serve_policy", "types",
]


def serve_controller(reconcile: Reconcile, name: str = "t9ksim-sdk-controller", *,
                     stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Serve ``reconcile`` as a controller plugin until ``shutdown`` or the end of input.

    ``reconcile`` is called once per job reconcile with version 1's request and returns version
    1's result (``status`` required; ``actions`` and ``requeueAfterMicros`` optional). An
    exception it raises is answered as a JSON-RPC error naming the job (the simulator then stops
    the run) and its traceback goes to stderr. Returns the exit code: 0 after ``shutdown`` or at
    the end of input. ``stdin``/``stdout`` are binary streams (default: the process's).
    """
    return serve(ControllerHandler(reconcile, name), stdin or sys.stdin.buffer,
                 stdout or sys.stdout.buffer)


def serve_policy(decide: Decide, name: str = "t9ksim-sdk-policy", decides: bool = True, *,
                 stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Serve ``decide`` as an elastic-policy plugin until ``shutdown`` or the end of input.

    ``decide`` gets the whole observation (version 2's shape, also from a version 1 simulator:
    see ``Observation``) and returns ``{"decisions": [...], "nextDecisionMicros": int | None}``.
    ``decides=False`` tells the simulator never to call it (a policy that changes nothing).
    Returns the exit code, as ``serve_controller``.
    """
    return serve(PolicyHandler(decide, name, decides), stdin or sys.stdin.buffer,
                 stdout or sys.stdout.buffer)
