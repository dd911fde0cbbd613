"""Typed messages of the plugin protocol, versions 1 and 2 (docs/plugins.md, docs/protocol-v2.md).

TypedDicts, so a message is the plain ``dict`` ``json.loads`` gives: no conversion cost. Field
names, and which fields are required, follow ``protocol/schema/`` (tests/test_types_schema.py
holds them to it):

* what the simulator sends (jobs, pods, PodGroups, options, observations) is typed exactly as it
  writes it: a required key is always there;
* what a plugin sends (actions, new pods and PodGroups, decisions) is typed as the simulator
  reads it: only what it requires is required;
* what travels both ways (a job's status and its parts, metadata, owner references) is typed
  as the simulator reads it, so a status a controller builds type-checks; the status it
  receives always has ``aggregate`` and every condition a ``lastTransitionTime``.

Times are RFC 3339 strings or integer microseconds (``...Micros``); quantities are strings
("500m", "4", "32Gi"; a reply may also give numbers): see ``t9ksim_sdk.values``.
"""

# No "from __future__ import annotations": TypedDict must see Required[...] as evaluated
# annotations to tell required keys from optional ones (Python 3.11).
from typing import Any, Literal, Required, TypedDict, Union

# ---- enumerations ----

JobKind = Literal["GenericJob", "PyTorchTrainingJob", "DeepSpeedJob"]
JobPhase = Literal["Pending", "Running", "Paused", "Resuming", "Succeeded", "Failed", "Unknown"]
PodPhase = Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"]
ReplicaPhase = Literal["Creating", "Pending", "Running", "Succeeded", "Failed", "Unknown",
                       "Deleted"]
ConditionType = Literal["Initialized", "Running", "ReplicaFailure", "Completed", "Failed",
                        "Paused"]
ConditionStatus = Literal["True", "False", "Unknown"]
DeletionReason = Literal["Cleanup", "Pause", "ScaleDown", "Deadline", "Restart", "Preemption",
                         "MaxDuration", "NodeFailure", "Drain", "User"]
PendingCause = Literal["Quota", "Capacity", "Constraints", "Preempting", "QueueOrder",
                       "GangMembers"]
Resources = dict[str, str]
"""Resource name to quantity string, as the simulator writes it ({"nvidia.com/gpu": "4"})."""
ResourcesAccepted = dict[str, Union[str, int, float]]
"""Resource name to quantity, as the simulator reads it (a string or a JSON number)."""

# ---- metadata ----


class OwnerReference(TypedDict, total=False):
    apiVersion: str
    kind: str
    name: str
    uid: str
    controller: bool


class ObjectMeta(TypedDict, total=False):
    """A job's or a PodGroup's metadata; empty fields are left out."""
    name: str
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    uid: str
    creationTimestamp: str
    ownerReferences: list[OwnerReference]


class PodMeta(TypedDict, total=False):
    """A pod's metadata: ObjectMeta, a required name, and deletionTimestamp while terminating."""
    name: Required[str]
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    uid: str
    creationTimestamp: str
    ownerReferences: list[OwnerReference]
    deletionTimestamp: str


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


# ---- a job's status (the controller's memory; it travels both ways) ----


class Condition(TypedDict, total=False):
    type: Required[ConditionType]
    status: Required[ConditionStatus]
    lastTransitionTime: str | None
    reason: str | None
    message: str | None


class Aggregate(TypedDict, total=False):
    creating: int | None
    pending: int | None
    running: int | None
    succeeded: int | None
    failed: int | None
    unknown: int | None
    deleted: int | None


class ReplicaContainer(TypedDict, total=False):
    name: str | None
    state: str | None
    exitCode: int | None


class ReplicaStatus(TypedDict, total=False):
    name: Required[str]
    uid: str | None
    phase: ReplicaPhase | None
    containers: list[ReplicaContainer] | None
    restartCount: int | None


class TaskStatus(TypedDict, total=False):
    type: Required[str]
    restartCount: int | None
    replicas: list[ReplicaStatus] | None


class TensorBoardDependent(TypedDict, total=False):
    apiVersion: str | None
    kind: str | None
    name: str | None
    namespace: str | None
    uid: str | None


class TensorBoardStatus(TypedDict, total=False):
    name: str | None
    dependent: TensorBoardDependent | None
    ready: bool | None
    reason: str | None
    action: str | None
    note: str | None
    type: str | None


class JobStatus(TypedDict, total=False):
    phase: JobPhase | None
    conditions: list[Condition] | None
    aggregate: Aggregate | None
    tasks: list[TaskStatus] | None
    backoffCount: int | None
    tensorboard: TensorBoardStatus | None
    startTime: str | None
    completionTime: str | None
    activeSince: str | None
    elasticReplicas: int | None


# ---- jobs (reconcile params.job): the manifest with the defaults applied ----


class TemplateResources(TypedDict, total=False):
    limits: Resources
    requests: Resources


class TemplateContainer(TypedDict, total=False):
    name: str
    image: str
    command: list[str]
    args: list[str]
    resources: TemplateResources


class PodTemplateSpec(TypedDict, total=False):
    initContainers: list[TemplateContainer]
    containers: Required[list[TemplateContainer]]
    nodeSelector: dict[str, str]
    schedulerName: str
    priorityClassName: str
    priority: int
    restartPolicy: str
    terminationGracePeriodSeconds: int
    activeDeadlineSeconds: int
    tolerations: list[dict[str, str]]


class PodTemplate(TypedDict, total=False):
    metadata: ObjectMeta
    spec: Required[PodTemplateSpec]


class T9kScheduler(TypedDict):
    queue: str
    priority: int


class SchedulerSpec(TypedDict):
    t9kScheduler: T9kScheduler


class RunMode(TypedDict, total=False):
    """debug: {enabled, replicaSpecs?}; pause: {enabled, resumeSpecs?} (job.json#/$defs/runMode)."""
    debug: dict[str, Any]
    pause: dict[str, Any]


class RunPolicy(TypedDict, total=False):
    activeDeadlineSeconds: int
    backoffLimit: Required[int]
    cleanUpPolicy: Required[str]


class ElasticSpec(TypedDict):
    enabled: bool
    minReplicas: int
    maxReplicas: int
    expectedReplicas: int


class GenericRestartPolicy(TypedDict):
    policy: Literal["Always", "OnFailure", "Never", "ExitCode"]
    limit: int


class GenericReplicaSpec(TypedDict):
    type: str
    replicas: int
    restartPolicy: GenericRestartPolicy
    template: PodTemplate


class GenericJobSpec(TypedDict, total=False):
    successRules: list[dict[str, list[int]]]
    failureRules: list[dict[str, list[int]]]
    service: dict[str, Any]  # {"ports": [{"name", "port"}]}
    runMode: RunMode
    cleanUpPolicy: Required[str]
    scheduler: SchedulerSpec
    replicaSpecs: Required[list[GenericReplicaSpec]]


class PyTorchReplicaSpec(TypedDict, total=False):
    type: Required[str]
    replicas: Required[int]
    scalingWeight: int
    restartPolicy: Required[str]
    template: Required[PodTemplate]


class TorchrunConfig(TypedDict, total=False):
    enabled: Required[bool]
    maxRestarts: Required[int]
    procPerNode: Required[str]
    rdzvBackend: Required[str]
    extraOptions: list[str]


class TensorboardSpec(TypedDict, total=False):
    image: str
    trainingLogFilesets: list[str]


class PyTorchTrainingJobSpec(TypedDict, total=False):
    replicaSpecs: Required[list[PyTorchReplicaSpec]]
    elastic: ElasticSpec
    torchrunConfig: TorchrunConfig
    runMode: RunMode
    runPolicy: Required[RunPolicy]
    tensorboardSpec: TensorboardSpec
    scheduler: SchedulerSpec


class DeepSpeedConfig(TypedDict, total=False):
    customCommand: str
    slotsPerWorker: int
    localRank: Required[bool]
    autotune: Required[str]
    run: dict[str, list[str]]  # one of python, module, exec
    otherArgs: list[str]


class DeepSpeedWorker(TypedDict):
    replicas: int
    restartPolicy: str
    template: PodTemplate


class DeepSpeedJobSpec(TypedDict, total=False):
    scheduler: SchedulerSpec
    runPolicy: Required[RunPolicy]
    runMode: RunMode
    elastic: ElasticSpec
    config: Required[DeepSpeedConfig]
    disableCustomEnv: Required[bool]
    worker: Required[DeepSpeedWorker]


JobSpec = Union[GenericJobSpec, PyTorchTrainingJobSpec, DeepSpeedJobSpec]


class Job(TypedDict, total=False):
    """Any kind. ``spec`` is typed loosely (one of the three): narrow it by ``kind`` with
    ``typing.cast(GenericJobSpec, job["spec"])``, or type the job as one of the three below."""
    apiVersion: Required[str]
    kind: Required[JobKind]
    metadata: Required[ObjectMeta]
    spec: Required[Any]
    status: JobStatus


class GenericJob(TypedDict, total=False):
    apiVersion: Required[str]
    kind: Required[Literal["GenericJob"]]
    metadata: Required[ObjectMeta]
    spec: Required[GenericJobSpec]
    status: JobStatus


class PyTorchTrainingJob(TypedDict, total=False):
    apiVersion: Required[str]
    kind: Required[Literal["PyTorchTrainingJob"]]
    metadata: Required[ObjectMeta]
    spec: Required[PyTorchTrainingJobSpec]
    status: JobStatus


class DeepSpeedJob(TypedDict, total=False):
    apiVersion: Required[str]
    kind: Required[Literal["DeepSpeedJob"]]
    metadata: Required[ObjectMeta]
    spec: Required[DeepSpeedJobSpec]
    status: JobStatus


# ---- controller options ----


class ControllerOptions(TypedDict):
    retryableExitCodes: Literal["t9k", "kubeflow"]
    t9kRetryableExitCodes: list[int]
    backoffLimitRule: Literal["master-fails-again", "kubeflow-reach-limit"]
    exitCodeIgnoresBackoffLimit: bool
    restartBackoff: bool
    restartBackoffBaseMicros: int
    restartBackoffCapMicros: int
    permanentFailureScope: Literal["any-replica", "master-only"]
    maxDurationHandling: Literal["fail-replica", "recreate"]
    runningWhen: Literal["all-pods-running", "master-running"]
    genericLimitScope: Literal["per-replica", "per-type"]
    elasticSuccess: Literal["master", "any-replica"]


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


class ReconcileResult(TypedDict, total=False):
    actions: list[Action] | None
    status: Required[JobStatus]
    requeueAfterMicros: int | None
    requeueAfter: str | None  # a duration text, read when requeueAfterMicros is absent


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


# ---- version 2 on the wire (the SDK speaks it; user code never sees it) ----


class JobUpdate(TypedDict, total=False):
    uid: Required[str]
    resync: bool
    job: Job  # without status
    status: JobStatus | None
    pods: list[Pod]
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
    status: JobStatus | None  # absent: unchanged
    requeueAfterMicros: int | None
    requeueAfter: str | None


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
