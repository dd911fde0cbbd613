"""Pods (as the simulator sends them and as a controller creates them), PodGroups and the
TensorBoard."""

# No "from __future__ import annotations": TypedDict must see Required[...] as evaluated
# annotations to tell required keys from optional ones (Python 3.11).
from typing import Any, Literal, Required, TypedDict

from ._common import DeletionReason, ObjectMeta, PodMeta, PodPhase, Resources, ResourcesAccepted


# ---- pods, as the simulator sends them (reconcile params.pods) ----


class PodContainerResources(TypedDict):
    requests: Resources


class PodContainer(TypedDict, total=False):
    """Always one container, "main", with the pod's summed requests."""
    name: Required[str]
    command: list[str]
    args: list[str]
    resources: PodContainerResources


class PodSpec(TypedDict, total=False):
    nodeName: str
    schedulerName: Required[str]
    priority: Required[int]
    nodeSelector: dict[str, str]
    terminationGracePeriodSeconds: Required[int]
    containers: Required[list[PodContainer]]


class TerminatedState(TypedDict, total=False):
    exitCode: int
    finishedAt: str


class ContainerState(TypedDict):
    terminated: TerminatedState


class ContainerStatus(TypedDict):
    name: str
    state: ContainerState


class PodStatus(TypedDict, total=False):
    phase: Required[PodPhase]
    startTime: str
    containerStatuses: list[ContainerStatus]


class PodExtension(TypedDict, total=False):
    """What the world keeps of a pod beyond Kubernetes (``pod["t9ksim"]``)."""
    job: Required[str]
    replicaType: Required[str]
    rank: Required[int]
    generation: Required[int]
    queue: str
    podGroup: str
    role: str
    debug: bool
    gpuIndex: int
    bindTime: str
    deletionReason: DeletionReason


class Pod(TypedDict):
    apiVersion: str
    kind: str
    metadata: PodMeta
    spec: PodSpec
    status: PodStatus
    t9ksim: PodExtension


# ---- pods, as a controller creates them (CreatePod.pod) ----


class NewContainerResources(TypedDict, total=False):
    requests: ResourcesAccepted | None


class NewContainer(TypedDict, total=False):
    """Containers may be several: command and args are read from the first, requests summed."""
    name: str  # not read by the simulator
    command: list[str] | None
    args: list[str] | None
    resources: NewContainerResources | None


class NewPodSpec(TypedDict, total=False):
    nodeName: str | None
    schedulerName: str | None  # default "default-scheduler"; "t9k-scheduler" for the T9k one
    priority: int | None
    nodeSelector: dict[str, str] | None
    terminationGracePeriodSeconds: int | None  # default 30
    containers: Required[list[NewContainer]]


class NewPodStatus(TypedDict, total=False):
    phase: PodPhase | None  # "Pending" or absent: the world sets a pod's observed state
    startTime: str | None
    containerStatuses: list[dict[str, Any]] | None


class NewPodExtension(TypedDict, total=False):
    job: Required[str]
    replicaType: Required[str]
    rank: Required[int]
    generation: int | None
    queue: str | None
    podGroup: str | None
    role: str | None
    debug: bool | None
    gpuIndex: int | None
    bindTime: str | None
    deletionReason: DeletionReason | None


class NewPod(TypedDict, total=False):
    apiVersion: str  # not read by the simulator ("v1")
    kind: str  # not read by the simulator ("Pod")
    metadata: Required[PodMeta]
    spec: Required[NewPodSpec]
    status: NewPodStatus | None
    t9ksim: Required[NewPodExtension]


# ---- PodGroups ----


class PodGroupRole(TypedDict):
    name: str
    minMember: int


class PodGroupSpec(TypedDict, total=False):
    minMember: Required[int]
    roles: list[PodGroupRole]
    queue: Required[str]
    priority: Required[int]
    topologyPolicy: str
    finished: bool


class PodGroupCondition(TypedDict):
    type: Literal["GroupScheduled", "SufficientGroupMember"]
    status: Literal["True", "False"]


class PodGroupStatus(TypedDict):
    conditions: list[PodGroupCondition]
    allocated: Resources
    pending: int
    running: int
    succeeded: int
    failed: int
    unknown: int


class PodGroup(TypedDict, total=False):
    apiVersion: Required[str]
    kind: Required[str]
    metadata: Required[ObjectMeta]
    spec: Required[PodGroupSpec]
    status: PodGroupStatus


class NewPodGroupSpec(TypedDict, total=False):
    minMember: Required[int]
    roles: list[PodGroupRole] | None
    queue: str | None  # default "default"
    priority: int | None  # default 0
    topologyPolicy: str | None
    finished: bool | None


class NewPodGroup(TypedDict, total=False):
    """CreatePodGroup/UpdatePodGroup.podGroup; an observed PodGroup with a new spec fits too."""
    apiVersion: str  # not read by the simulator
    kind: str  # not read by the simulator
    metadata: Required[ObjectMeta]
    spec: Required[NewPodGroupSpec | PodGroupSpec]
    status: PodGroupStatus | dict[str, Any] | None


class TensorBoard(TypedDict):
    """The job's TensorBoard (reconcile params.tensorBoard)."""
    uid: str
    ready: bool
