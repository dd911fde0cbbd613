"""Version 2 on the wire (docs/protocol-v2.md): the SDK speaks it; user code never sees it."""

# No "from __future__ import annotations": TypedDict must see Required[...] as evaluated
# annotations to tell required keys from optional ones (Python 3.11).
from typing import Required, TypedDict

from ._common import DeletionReason, PendingCause, PodPhase, Resources
from ._jobs import Job, JobStatus
from ._messages import Action, ControllerEvent, Decision, Queue
from ._pods import ContainerStatus, Pod, PodGroup, TensorBoard


# ---- version 2 on the wire (the SDK speaks it; user code never sees it) ----


class PodPatchMeta(TypedDict, total=False):
    uid: Required[str]  # the pod to patch
    deletionTimestamp: str | None


class PodPatchSpec(TypedDict):
    nodeName: str | None  # its only member the world sets


class PodPatchStatus(TypedDict, total=False):
    phase: PodPhase
    startTime: str | None
    containerStatuses: list[ContainerStatus] | None  # an array: replaced whole


class PodPatchExtension(TypedDict, total=False):
    gpuIndex: int | None
    bindTime: str | None
    deletionReason: DeletionReason | None


class PodPatch(TypedDict, total=False):
    """A pod changed in its observed state only, as a JSON merge patch (RFC 7386): the members
    that changed, null for the ones that are gone."""
    metadata: Required[PodPatchMeta]
    spec: PodPatchSpec
    status: PodPatchStatus
    t9ksim: PodPatchExtension


class JobUpdate(TypedDict, total=False):
    uid: Required[str]
    resync: bool
    job: Job  # without status
    status: JobStatus | None
    pods: list[Pod]
    podPatches: list[PodPatch]
    removedPods: list[str]
    podGroup: PodGroup | None
    tensorBoard: TensorBoard | None


class ReconcileParamsV2(TypedDict, total=False):
    now: Required[str]
    nowMicros: Required[int]
    jobs: Required[list[JobUpdate]]
    forget: list[str]


class JobResult(TypedDict, total=False):
    uid: Required[str]
    resync: bool | None
    actions: list[Action] | None
    status: JobStatus | None  # absent (and no statusPatch): unchanged
    statusPatch: JobStatus | None  # instead of status: a merge patch against the kept one
    requeueAfterMicros: int | None
    requeueAfter: str | None
    events: list[ControllerEvent] | None


class ReconcileResultV2(TypedDict):
    results: list[JobResult]


class WaitingUpdate(TypedDict, total=False):
    jobId: Required[int]
    job: str
    queue: str
    queuePriority: int
    jobPriority: int
    elastic: bool
    waitingPods: int
    growthPods: int
    demand: Resources
    gpuMilli: int
    waitingSinceMicros: int
    pendingCause: PendingCause | None


class ElasticJobUpdate(TypedDict, total=False):
    jobId: Required[int]
    job: str
    queue: str
    queuePriority: int
    jobPriority: int
    minReplicas: int
    maxReplicas: int
    expectedReplicas: int
    runningPods: int
    gpusPerPod: int
    scalingWeight: float
    speedup: list[float]
    progress: float | None
    training: bool
    sinceCheckpointMicros: int | None
    checkpointIntervalMicros: int | None
    checkpointCostMicros: int
    rescaleOverheadMicros: int
    lastResizeMicros: int | None
    waitingPods: int


class Removed(TypedDict, total=False):
    waiting: list[int]
    jobs: list[int]


class DecideParamsV2(TypedDict, total=False):
    now: Required[str]
    nowMicros: Required[int]
    resync: bool
    freeGpus: Required[int]
    freeGpusPerNode: Required[list[int]]
    queues: Required[list[Queue]]
    waiting: Required[list[WaitingUpdate]]
    jobs: Required[list[ElasticJobUpdate]]
    removed: Removed


class DecisionsV2(TypedDict, total=False):
    decisions: Required[list[Decision]]
    nextDecisionMicros: int | None
    nextDecision: str | None
    resync: bool | None
