"""Enumerations, value types and metadata, shared by every message."""

# No "from __future__ import annotations": TypedDict must see Required[...] as evaluated
# annotations to tell required keys from optional ones (Python 3.11).
from typing import Literal, Required, TypedDict, Union


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
