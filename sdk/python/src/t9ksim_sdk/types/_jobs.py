"""A job's status (both ways), jobs as reconcile sends them, and the controller options."""

# No "from __future__ import annotations": TypedDict must see Required[...] as evaluated
# annotations to tell required keys from optional ones (Python 3.11).
from typing import Any, Literal, Required, TypedDict, Union

from ._common import (ConditionStatus, ConditionType, JobKind, JobPhase, ObjectMeta,
                      ReplicaPhase, Resources)


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
