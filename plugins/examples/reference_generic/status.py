"""The job's conditions (§1.2) and its status as the simulator writes it (§1.3).

Port of controllers/conditions.cpp (set_condition, apply_terminal_conditions) and of the status
writer of protocol/objects.cpp (write_status): keys in its order, empty optional fields left out,
so the answer is byte for byte what `t9ksim plugin serve controller` writes.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .rules import MSG_SUCCEEDED, Verdict

# JobConditionType's order (model/enums.hpp): conditions are kept in it (§1.2).
CONDITION_ORDER = ["Initialized", "Running", "ReplicaFailure", "Completed", "Failed", "Paused"]
EPOCH = "1970-01-01T00:00:00Z"  # a condition without lastTransitionTime reads as time 0 (§6.4)

Condition = Dict[str, str]


def read_conditions(status: Mapping[str, Any]) -> List[Condition]:
    """The previous conditions, in their order, with "" for an absent reason or message."""
    return [{"type": c["type"], "status": c["status"],
             "lastTransitionTime": c.get("lastTransitionTime") or EPOCH,
             "reason": c.get("reason") or "", "message": c.get("message") or ""}
            for c in status.get("conditions") or []]


def find_condition(conditions: List[Condition], type_: str) -> Optional[Condition]:
    return next((c for c in conditions if c["type"] == type_), None)


def set_condition(conditions: List[Condition], type_: str, status: str, reason: str,
                  message: str, now: str) -> None:
    """lastTransitionTime moves only when the status flips; reason and message always follow.
    A new condition goes before the first of a later type (set_condition)."""
    c = find_condition(conditions, type_)
    if c is not None:
        if c["status"] != status:
            c["status"] = status
            c["lastTransitionTime"] = now
        c["reason"] = reason
        c["message"] = message
        return
    new = {"type": type_, "status": status, "lastTransitionTime": now,
           "reason": reason, "message": message}
    rank = CONDITION_ORDER.index(type_)
    at = next((i for i, x in enumerate(conditions) if CONDITION_ORDER.index(x["type"]) > rank),
              len(conditions))
    conditions.insert(at, new)


def apply_terminal_conditions(conditions: List[Condition], v: Verdict, now: str) -> None:
    """The conditions of a finished job (§1.2, UC snapshots). Running=False is added even to a
    job that never ran."""
    if v.phase == "Succeeded":
        set_condition(conditions, "Running", "False", "Succeeded", MSG_SUCCEEDED, now)
        set_condition(conditions, "Completed", "True", "Succeeded", MSG_SUCCEEDED, now)
        set_condition(conditions, "Failed", "False", "Succeeded", MSG_SUCCEEDED, now)
    else:
        set_condition(conditions, "Running", "False", "Failed", v.message, now)
        set_condition(conditions, "Completed", "True", "Failed", v.message, now)
        set_condition(conditions, "Failed", "True", v.failed_reason, v.message, now)


def write_conditions(conditions: List[Condition]) -> List[Dict[str, str]]:
    out = []
    for c in conditions:
        x = {"type": c["type"], "status": c["status"],
             "lastTransitionTime": c["lastTransitionTime"]}
        if c["reason"]:
            x["reason"] = c["reason"]
        if c["message"]:
            x["message"] = c["message"]
        out.append(x)
    return out


def write_status(phase: Optional[str], conditions: List[Condition], aggregate: Dict[str, int],
                 tasks: List[Dict[str, Any]], carried: Mapping[str, Any]) -> Dict[str, Any]:
    """write_status's order: phase, conditions, aggregate, tasks, backoffCount (never for a
    GenericJob, §1.3), tensorboard, startTime, completionTime, activeSince, elasticReplicas
    (those four carried as given, `carried` holding the ones that are set)."""
    st: Dict[str, Any] = {}
    if phase:
        st["phase"] = phase
    if conditions:
        st["conditions"] = write_conditions(conditions)
    st["aggregate"] = aggregate
    if tasks:
        st["tasks"] = tasks
    for key in ("tensorboard", "startTime", "completionTime", "activeSince", "elasticReplicas"):
        if carried.get(key) is not None:
            st[key] = carried[key]
    return st
