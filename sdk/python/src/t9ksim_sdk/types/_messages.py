"""Actions, and the messages as user code sees them: reconcile (version 1's), initialize,
shutdown, the envelope, decide (version 1's, and version 2's whole observation)."""

# No "from __future__ import annotations": TypedDict must see Required[...] as evaluated
# annotations to tell required keys from optional ones (Python 3.11).
from typing import Any, Literal, Required, TypedDict, Union

from ._common import DeletionReason, JobKind, OwnerReference, PendingCause, Resources
from ._jobs import ControllerOptions, Job, JobStatus
from ._pods import NewPod, NewPodGroup, Pod, PodGroup, TensorBoard


# ---- actions (reconcile result.actions[]) ----


class CreatePod(TypedDict):
    type: Literal["CreatePod"]
    pod: NewPod


class DeletePod(TypedDict, total=False):
    type: Required[Literal["DeletePod"]]
    name: Required[str]
    reason: DeletionReason | None  # absent or null: Cleanup


class CreatePodGroup(TypedDict):
    type: Literal["CreatePodGroup"]
    podGroup: NewPodGroup


class UpdatePodGroup(TypedDict):
    type: Literal["UpdatePodGroup"]
    podGroup: NewPodGroup


class TensorBoardSpec(TypedDict, total=False):
    image: str | None
    trainingLogFilesets: list[str] | None


class CreateTensorBoard(TypedDict, total=False):
    type: Required[Literal["CreateTensorBoard"]]
    name: Required[str]
    namespace: str | None
    spec: TensorBoardSpec | None
    owner: OwnerReference | None


class RestartTraining(TypedDict, total=False):
    type: Required[Literal["RestartTraining"]]
    pods: list[str] | None
    replicas: Required[int]
    worldSize: int | None
    reason: str | None  # "ScaleUp" or "ScaleDown"


Action = Union[CreatePod, DeletePod, CreatePodGroup, UpdatePodGroup, CreateTensorBoard,
               RestartTraining]

# ---- reconcile, as user code sees it (version 1's params and result) ----


class ReconcileRequest(TypedDict):
    """One reconcile of one job: version 1's ``reconcile`` params, whatever version is spoken."""
    job: Job
    pods: list[Pod]
    podGroup: PodGroup | None
    tensorBoard: TensorBoard | None
    now: str
    nowMicros: int
    options: ControllerOptions


class ControllerEvent(TypedDict, total=False):
    """An event the controller recorded: to events.jsonl (with --events), read by nothing else."""
    type: str  # "Normal" (the default) or "Warning"
    reason: str
    message: str


class ReconcileResult(TypedDict, total=False):
    actions: list[Action] | None
    status: Required[JobStatus]
    requeueAfterMicros: int | None
    requeueAfter: str | None  # a duration text, read when requeueAfterMicros is absent
    events: list[ControllerEvent] | None


# ---- initialize, shutdown, the envelope ----


class SimulatorInfo(TypedDict):
    name: str
    version: str


class PolicySettings(TypedDict):
    name: str
    periodMicros: int
    cooldownMicros: int
    checkpointWindowMicros: int


class InitializeParams(TypedDict, total=False):
    protocolVersion: Required[str]
    protocolVersions: list[str]  # version 2's simulators: every version they speak
    role: Required[Literal["controller", "elasticPolicy"]]
    kinds: Required[list[JobKind]]
    simulator: Required[SimulatorInfo]
    controllerOptions: Required[ControllerOptions]
    policy: Required[PolicySettings]


class Capabilities(TypedDict, total=False):
    decide: bool | None


class InitializeResult(TypedDict, total=False):
    protocolVersion: Required[str]
    name: str | None
    capabilities: Capabilities | None


class Request(TypedDict):
    jsonrpc: Literal["2.0"]
    id: int
    method: str
    params: dict[str, Any]


class RpcError(TypedDict, total=False):
    code: Required[int]
    message: Required[str]
    data: Any


class ResultReply(TypedDict):
    jsonrpc: Literal["2.0"]
    id: int
    result: Any


class ErrorReply(TypedDict):
    jsonrpc: Literal["2.0"]
    id: int | None
    error: RpcError


# ---- decide, version 1 (what a version 1 simulator sends) ----


class PendingV1(TypedDict):
    priority: int
    gpuMilli: int
    jobs: int


class QueueV1(TypedDict):
    name: str
    priority: int
    quotaGpuMilli: int | None
    allocatedGpuMilli: int
    pending: list[PendingV1]


class WaitingV1(TypedDict):
    jobId: int
    priority: int


class ElasticJobV1(TypedDict):
    job: str
    jobId: int
    queue: str
    priority: int
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


class ObservationV1(TypedDict):
    now: str
    nowMicros: int
    freeGpus: int
    queues: list[QueueV1]
    waiting: list[WaitingV1]
    jobs: list[ElasticJobV1]


# ---- decide, as user code sees it (version 2's observation, whole) ----


class Pending(TypedDict):
    jobPriority: int
    gpuMilli: int
    jobs: int


class Queue(TypedDict):
    name: str
    priority: int
    quotaGpuMilli: int | None
    allocatedGpuMilli: int
    pending: list[Pending]


class WaitingJob(TypedDict):
    """A job with a pod waiting for a node. From a version 1 simulator only ``jobId`` and
    ``queuePriority`` are known; every other field is None."""
    jobId: int
    job: str | None
    queue: str | None
    queuePriority: int
    jobPriority: int | None
    elastic: bool | None
    waitingPods: int | None
    growthPods: int | None
    demand: Resources | None
    gpuMilli: int | None
    waitingSinceMicros: int | None
    pendingCause: PendingCause | None


class ElasticJob(TypedDict):
    """An elastic job the policy may resize. From a version 1 simulator ``jobPriority`` and
    ``waitingPods`` are None."""
    jobId: int
    job: str
    queue: str
    queuePriority: int
    jobPriority: int | None
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
    waitingPods: int | None


class Observation(TypedDict):
    """What a policy decides on: lists whole, in job id order. ``freeGpusPerNode`` is None from
    a version 1 simulator."""
    now: str
    nowMicros: int
    freeGpus: int
    freeGpusPerNode: list[int] | None
    queues: list[Queue]
    waiting: list[WaitingJob]
    jobs: list[ElasticJob]


class Decision(TypedDict, total=False):
    jobId: int | None  # by id (wins when both are given)
    job: str  # or by name, "namespace/name"
    expectedReplicas: Required[int]


class Decisions(TypedDict, total=False):
    decisions: Required[list[Decision]]
    nextDecisionMicros: int | None
    nextDecision: str | None  # RFC 3339, read when nextDecisionMicros is absent or null
