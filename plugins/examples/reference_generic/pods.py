"""The pods and the PodGroup a GenericJob asks for, and what its replica statuses say of them.

Port of controllers/pods.cpp (replica_name, running_now, replica_phase, fill_container_status,
make_pod, name_pod, desired_pod_group_spec, pod_group_spec_is_current) and of the pod reader of
protocol/objects.cpp (decode_pod), for kind GenericJob. Objects are written as
protocol/objects.cpp writes them (write_pod, write_pod_group), key for key, so an answer is the
byte-identical twin of `t9ksim plugin serve controller`'s.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .values import parse_time, pod_requests, write_resources

BATCH_API = "batch.tensorstack.dev/v1beta1"
SCHEDULER_API = "scheduler.tensorstack.dev/v1beta1"
KIND = "GenericJob"
T9K_SCHEDULER = "t9k-scheduler"
DEFAULT_SCHEDULER = "default-scheduler"
DEFAULT_QUEUE = "default"
DEFAULT_DEBUG_COMMAND = ["sleep", "inf"]  # model::default_debug_command (API ReplicaDebugSet)

# What a Failed pod's missing exit code reads as: SIGKILL, "stopped by the system" (§1.3; the
# world's contract 4, controllers/detail/slots.hpp exit_code_of).
MISSING_EXIT_CODE = 137


@dataclass
class ObservedPod:
    """What the controller reads of a pod of the request (protocol decode_pod)."""
    name: str
    uid: str
    job: str
    replica_type: str
    rank: int
    phase: str
    node_name: str
    terminating: bool                 # metadata.deletionTimestamp is set
    exit_code: Optional[int]
    finish_micros: Optional[int]
    deletion_reason: Optional[str]

    @property
    def exit_code_or_kill(self) -> int:
        return MISSING_EXIT_CODE if self.exit_code is None else self.exit_code


def observe_pod(pod: Mapping[str, Any]) -> ObservedPod:
    meta = pod.get("metadata") or {}
    status = pod.get("status") or {}
    ext = pod.get("t9ksim") or {}
    exit_code: Optional[int] = None
    finish: Optional[int] = None
    # decode_pod: the first terminated container's exit code; a later terminated container is
    # read only while no exit code was found yet (its finishedAt then wins too).
    for cs in status.get("containerStatuses") or []:
        term = (cs.get("state") or {}).get("terminated")
        if term is None or exit_code is not None:
            continue
        if term.get("exitCode") is not None:
            exit_code = int(term["exitCode"])
        if term.get("finishedAt") is not None:
            finish = parse_time(term["finishedAt"])
    return ObservedPod(
        name=meta.get("name", ""),
        uid=meta.get("uid", ""),
        job=ext.get("job", ""),
        replica_type=ext.get("replicaType", ""),
        rank=int(ext.get("rank", 0)),
        phase=status.get("phase") or "Pending",
        node_name=(pod.get("spec") or {}).get("nodeName") or "",
        terminating=meta.get("deletionTimestamp") is not None,
        exit_code=exit_code,
        finish_micros=finish,
        deletion_reason=ext.get("deletionReason"),
    )


@dataclass
class TypeView:
    """One replica spec (detail::TypeView for GenericJob: replicas = PodGroup role minimum)."""
    type: str
    replicas: int
    policy: str
    limit: int
    template: Mapping[str, Any]


@dataclass
class Slot:
    """One replica slot (detail::Slot): a desired rank, or a rank beyond them with a pod."""
    type_index: int
    rank: int
    name: str
    pod: Optional[ObservedPod]
    desired: bool
    prev_restarts: int
    restarts: int
    outcome: str = "Missing"
    create: bool = False
    delete: Optional[str] = None      # the DeletePod reason decided in this step


def replica_name(job: str, type_: str, rank: int) -> str:
    """"<job>-<type>-<rank>" (§2.3 [INFERRED] naming, detail::replica_name)."""
    return f"{job}-{type_}-{rank}"


def running_now(s: Slot) -> bool:
    return (s.pod is not None and not s.pod.terminating and s.delete is None
            and s.pod.phase == "Running")


def replica_phase(s: Slot) -> str:
    """§1.3 mapping (detail::replica_phase). A bound-less Pending pod is Creating."""
    if s.delete is not None or (s.pod is not None and s.pod.terminating):
        return "Deleted"
    if s.create:
        return "Creating"
    if s.pod is None:
        return "Deleted"  # a slot whose pod is gone and not (yet) recreated
    phase = s.pod.phase
    if phase == "Pending":
        return "Creating" if not s.pod.node_name else "Pending"
    return phase if phase in ("Running", "Succeeded", "Failed", "Unknown") else "Unknown"


def training_container(template: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    """GenericJob trains in its first container (no preferred name, detail::training_container)."""
    containers = (template.get("spec") or {}).get("containers") or []
    return containers[0] if containers else None


def container_statuses(s: Slot, t: TypeView) -> List[Dict[str, Any]]:
    """One container status for a slot with an observed pod (fill_container_status)."""
    if s.pod is None or s.create:
        return []
    c = training_container(t.template)
    out: Dict[str, Any] = {"name": (c or {}).get("name", "")}
    phase = s.pod.phase
    if phase in ("Succeeded", "Failed"):
        out["state"] = "terminated"
        out["exitCode"] = 0 if phase == "Succeeded" else s.pod.exit_code_or_kill
    elif phase == "Running":
        out["state"] = "running"
    else:  # Pending, Unknown
        out["state"] = "waiting"
    return [out]


def owner_reference(job: Mapping[str, Any]) -> Dict[str, Any]:
    meta = job["metadata"]
    return {"apiVersion": BATCH_API, "kind": KIND, "name": meta.get("name", ""),
            "uid": meta.get("uid", ""), "controller": True}


def t9k_scheduler(job: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    return (job["spec"].get("scheduler") or {}).get("t9kScheduler")


def _queue(t9k: Mapping[str, Any]) -> str:
    return t9k.get("queue") or DEFAULT_QUEUE  # empty => default (§8.3)


def _run_mode_command(job: Mapping[str, Any], t: TypeView, resumed: bool,
                      command: List[str],
                      args: List[str]) -> Tuple[bool, List[str], List[str], bool]:
    """§7.1 debug (the debug command replaces training) or §7.2 resumeSpecs after a resume:
    (debug, command, args, skip_init). Every matching entry applies in turn (make_pod)."""
    mode = job["spec"].get("runMode") or {}
    debug = mode.get("debug") or {}
    skip_init = False
    if debug.get("enabled"):
        command, args = list(DEFAULT_DEBUG_COMMAND), []
        for d in debug.get("replicaSpecs") or []:
            if d.get("type", "") != t.type:
                continue
            skip_init = bool(d.get("skipInitContainer", False))
            if d.get("command"):
                command = list(d["command"])
        return True, command, args, skip_init
    if resumed:
        for r in (mode.get("pause") or {}).get("resumeSpecs") or []:
            if r.get("type", "") != t.type:
                continue
            skip_init = bool(r.get("skipInitContainer", False))
            if r.get("command"):
                command = list(r["command"])
            if r.get("args"):
                args = list(r["args"])
    return False, command, args, skip_init


def new_pod(job: Mapping[str, Any], t: TypeView, name: str, rank: int,
            resumed: bool) -> Dict[str, Any]:
    """The pod of one rank (make_pod + name_pod), as write_pod writes a fresh pod."""
    meta = job["metadata"]
    job_name = meta.get("name", "")
    tmeta = t.template.get("metadata") or {}
    spec = t.template.get("spec") or {}
    container = training_container(t.template) or {}
    debug, command, args, skip_init = _run_mode_command(
        job, t, resumed, list(container.get("command") or []), list(container.get("args") or []))
    t9k = t9k_scheduler(job)
    labels = dict(tmeta.get("labels") or {})
    # §10 labels (and §8.1's for the T9k scheduler) override the template's.
    labels["genericjob"] = job_name
    labels["genericjob-replica"] = name
    if t9k is not None:
        labels["scheduler.tensorstack.dev/group-name"] = job_name
        labels["scheduler.tensorstack.dev/queue"] = _queue(t9k)
        labels["scheduler.tensorstack.dev/role"] = t.type
    labels["tensorstack.dev/component"] = KIND.lower()
    labels["tensorstack.dev/component-type"] = "user"
    labels["tensorstack.dev/owner-name"] = job_name
    metadata: Dict[str, Any] = {"name": name}
    if meta.get("namespace"):
        metadata["namespace"] = meta["namespace"]
    metadata["labels"] = {k: labels[k] for k in sorted(labels)}
    annotations = tmeta.get("annotations") or {}
    if annotations:
        metadata["annotations"] = {k: annotations[k] for k in sorted(annotations)}
    metadata["ownerReferences"] = [owner_reference(job)]

    if t9k is not None:
        scheduler_name = T9K_SCHEDULER
    else:
        scheduler_name = spec.get("schedulerName") or DEFAULT_SCHEDULER
    pod_spec: Dict[str, Any] = {"schedulerName": scheduler_name,
                                "priority": int(spec.get("priority") or 0)}
    node_selector = spec.get("nodeSelector") or {}
    if node_selector:
        pod_spec["nodeSelector"] = {k: node_selector[k] for k in sorted(node_selector)}
    grace = spec.get("terminationGracePeriodSeconds")
    pod_spec["terminationGracePeriodSeconds"] = 30 if grace is None else int(grace)
    main: Dict[str, Any] = {"name": "main"}
    if command:
        main["command"] = command
    if args:
        main["args"] = args
    requests = pod_requests(spec, skip_init)
    if requests:
        main["resources"] = {"requests": write_resources(requests)}
    pod_spec["containers"] = [main]

    ext: Dict[str, Any] = {"job": job_name, "replicaType": t.type, "rank": rank, "generation": 0}
    if t9k is not None:
        ext["queue"] = _queue(t9k)
        ext["podGroup"] = job_name
        ext["role"] = t.type
    if debug:
        ext["debug"] = True
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod_spec,
            "status": {"phase": "Pending"}, "t9ksim": ext}


def desired_pod_group_spec(job: Mapping[str, Any], types: List[TypeView]) -> Dict[str, Any]:
    """§8.1: minMember = the sum of replicas, one role per replica type (no elastic GenericJob)."""
    t9k = t9k_scheduler(job) or {}
    spec: Dict[str, Any] = {"minMember": sum(t.replicas for t in types)}
    if types:
        spec["roles"] = [{"name": t.type, "minMember": t.replicas} for t in types]
    spec["queue"] = _queue(t9k)
    spec["priority"] = int(t9k.get("priority") or 0)
    return spec


def pod_group_spec_is_current(have: Mapping[str, Any], want: Mapping[str, Any]) -> bool:
    """The observed spec equals the desired one; topologyPolicy and finished are not compared
    (pod_group_spec_is_current: they are not the controller's)."""
    roles = [(r.get("name", ""), int(r.get("minMember", 0))) for r in have.get("roles") or []]
    want_roles = [(r["name"], r["minMember"]) for r in want.get("roles", [])]
    return (int(have.get("minMember", 0)) == want["minMember"] and roles == want_roles
            and (have.get("queue") or DEFAULT_QUEUE) == want["queue"]
            and int(have.get("priority") or 0) == want["priority"])


def new_pod_group(job: Mapping[str, Any], types: List[TypeView], now: str) -> Dict[str, Any]:
    meta = job["metadata"]
    metadata: Dict[str, Any] = {"name": meta.get("name", "")}
    if meta.get("namespace"):
        metadata["namespace"] = meta["namespace"]
    metadata["creationTimestamp"] = now
    metadata["ownerReferences"] = [owner_reference(job)]
    return {"apiVersion": SCHEDULER_API, "kind": "PodGroup", "metadata": metadata,
            "spec": desired_pod_group_spec(job, types)}


def updated_pod_group(observed: Mapping[str, Any], job: Mapping[str, Any],
                      types: List[TypeView]) -> Dict[str, Any]:
    """The observed PodGroup with the desired spec: its metadata (creation time, §11 Q20) and
    status unchanged, its topologyPolicy kept. `finished` is not kept: the built-in replaces the
    whole spec but the topology (Reconcile::pod_group)."""
    spec = desired_pod_group_spec(job, types)
    topology = (observed.get("spec") or {}).get("topologyPolicy")
    if topology:
        spec["topologyPolicy"] = topology
    out: Dict[str, Any] = {"apiVersion": SCHEDULER_API, "kind": "PodGroup",
                           "metadata": observed.get("metadata") or {}, "spec": spec}
    if observed.get("status") is not None:
        out["status"] = observed["status"]
    return out
