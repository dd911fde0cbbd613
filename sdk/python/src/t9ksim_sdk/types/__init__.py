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

A package, split by subject (``_common``, ``_pods``, ``_jobs``, ``_messages``, ``_wire``);
import the names from ``t9ksim_sdk.types``, as before.
"""

from ._common import (ConditionStatus, ConditionType, DeletionReason, JobKind, JobPhase,
                      ObjectMeta, OwnerReference, PendingCause, PodMeta, PodPhase, ReplicaPhase,
                      Resources, ResourcesAccepted)
from ._pods import (ContainerState, ContainerStatus, NewContainer, NewContainerResources, NewPod,
                    NewPodExtension, NewPodGroup, NewPodGroupSpec, NewPodSpec, NewPodStatus, Pod,
                    PodContainer, PodContainerResources, PodExtension, PodGroup, PodGroupCondition,
                    PodGroupRole, PodGroupSpec, PodGroupStatus, PodSpec, PodStatus, TensorBoard,
                    TerminatedState)
from ._jobs import (Aggregate, Condition, ControllerOptions, DeepSpeedConfig, DeepSpeedJob,
                    DeepSpeedJobSpec, DeepSpeedWorker, ElasticSpec, GenericJob, GenericJobSpec,
                    GenericReplicaSpec, GenericRestartPolicy, Job, JobSpec, JobStatus, PodTemplate,
                    PodTemplateSpec, PyTorchReplicaSpec, PyTorchTrainingJob,
                    PyTorchTrainingJobSpec, ReplicaContainer, ReplicaStatus, RunMode, RunPolicy,
                    SchedulerSpec, T9kScheduler, TaskStatus, TemplateContainer, TemplateResources,
                    TensorBoardDependent, TensorBoardStatus, TensorboardSpec, TorchrunConfig)
from ._messages import (Action, Capabilities, ControllerEvent, CreatePod, CreatePodGroup, CreateTensorBoard,
                        Decision, Decisions, DeletePod, ElasticJob, ElasticJobV1, ErrorReply,
                        InitializeParams, InitializeResult, Observation, ObservationV1, Pending,
                        PendingV1, PolicySettings, Queue, QueueV1, ReconcileRequest,
                        ReconcileResult, Request, RestartTraining, ResultReply, RpcError,
                        SimulatorInfo, TensorBoardSpec, UpdatePodGroup, WaitingJob, WaitingV1)
from ._wire import (DecideParamsV2, DecisionsV2, ElasticJobUpdate, JobResult, JobUpdate, PodPatch,
                    PodPatchExtension, PodPatchMeta, PodPatchSpec, PodPatchStatus,
                    ReconcileParamsV2, ReconcileResultV2, Removed, WaitingUpdate)

__all__ = [
    "Action", "Aggregate", "Capabilities", "Condition", "ConditionStatus", "ConditionType",
    "ContainerState", "ContainerStatus", "ControllerEvent", "ControllerOptions", "CreatePod", "CreatePodGroup",
    "CreateTensorBoard", "DecideParamsV2", "Decision", "Decisions", "DecisionsV2",
    "DeepSpeedConfig", "DeepSpeedJob", "DeepSpeedJobSpec", "DeepSpeedWorker", "DeletePod",
    "DeletionReason", "ElasticJob", "ElasticJobUpdate", "ElasticJobV1", "ElasticSpec",
    "ErrorReply", "GenericJob", "GenericJobSpec", "GenericReplicaSpec", "GenericRestartPolicy",
    "InitializeParams", "InitializeResult", "Job", "JobKind", "JobPhase", "JobResult", "JobSpec",
    "JobStatus", "JobUpdate", "NewContainer", "NewContainerResources", "NewPod", "NewPodExtension",
    "NewPodGroup", "NewPodGroupSpec", "NewPodSpec", "NewPodStatus", "ObjectMeta", "Observation",
    "ObservationV1", "OwnerReference", "Pending", "PendingCause", "PendingV1", "Pod",
    "PodContainer", "PodContainerResources", "PodExtension", "PodGroup", "PodGroupCondition",
    "PodGroupRole", "PodGroupSpec", "PodGroupStatus", "PodMeta", "PodPatch", "PodPatchExtension",
    "PodPatchMeta", "PodPatchSpec", "PodPatchStatus", "PodPhase", "PodSpec", "PodStatus",
    "PodTemplate", "PodTemplateSpec", "PolicySettings", "PyTorchReplicaSpec", "PyTorchTrainingJob",
    "PyTorchTrainingJobSpec", "Queue", "QueueV1", "ReconcileParamsV2", "ReconcileRequest",
    "ReconcileResult", "ReconcileResultV2", "Removed", "ReplicaContainer", "ReplicaPhase",
    "ReplicaStatus", "Request", "Resources", "ResourcesAccepted", "RestartTraining", "ResultReply",
    "RpcError", "RunMode", "RunPolicy", "SchedulerSpec", "SimulatorInfo", "T9kScheduler",
    "TaskStatus", "TemplateContainer", "TemplateResources", "TensorBoard", "TensorBoardDependent",
    "TensorBoardSpec", "TensorBoardStatus", "TensorboardSpec", "TerminatedState", "TorchrunConfig",
    "UpdatePodGroup", "WaitingJob", "WaitingUpdate", "WaitingV1",
]
