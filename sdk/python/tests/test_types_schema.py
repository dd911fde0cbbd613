"""Every TypedDict of t9ksim_sdk.types has the keys, and the required keys, of its JSON Schema in
protocol/schema/ (version 2's in protocol/schema/v2/), so the typed messages cannot drift from
the schemas. A new TypedDict must be given its schema here."""

from __future__ import annotations

import json
import pathlib
import posixpath
from typing import Any, is_typeddict

import pytest

from t9ksim_sdk import types

SCHEMAS = pathlib.Path(__file__).resolve().parents[3] / "protocol" / "schema"
_files: dict[str, Any] = {}


def _load(name: str) -> Any:
    if name not in _files:
        _files[name] = json.loads((SCHEMAS / name).read_text())
    return _files[name]


def _resolve(node: Any, base: str) -> tuple[Any, str]:
    while isinstance(node, dict) and "$ref" in node and len(node) <= 2:  # a ref (+ description)
        file_part, _, pointer = node["$ref"].partition("#")
        if file_part:
            base = posixpath.normpath(posixpath.join(posixpath.dirname(base), file_part))
        node = _load(base)
        for token in pointer.strip("/").split("/") if pointer else []:
            node = node[int(token)] if isinstance(node, list) else node[token]
    return node, base


def _branches(node: Any, base: str) -> list[tuple[Any, str]]:
    """The schemas a value of `node` must (allOf, $ref) or may (non-null anyOf/oneOf) meet."""
    node, base = _resolve(node, base)
    out = [(node, base)]
    if isinstance(node, dict):
        if "$ref" in node:
            out += _branches({"$ref": node["$ref"]}, base)
        for sub in node.get("allOf", []):
            out += _branches(sub, base)
        for key in ("anyOf", "oneOf"):
            for sub in node.get(key, []):
                s, b = _resolve(sub, base)
                if s != {"type": "null"}:
                    out += _branches(s, b)
    return out


def shape(node: Any, base: str) -> tuple[set[str], set[str]]:
    """(property names, required names) of an object schema: allOf and a nullable object's
    requirements count; alternatives (several non-null anyOf branches) add only names."""
    node, base = _resolve(node, base)
    props = {k for k, v in node.get("properties", {}).items() if v is not False}
    required = set(node.get("required", []))
    for sub in node.get("allOf", []) + ([{"$ref": node["$ref"]}] if "$ref" in node else []):
        p, r = shape(sub, base)
        props |= p
        required |= r
    for key in ("anyOf", "oneOf"):
        alts = [_resolve(s, base) for s in node.get(key, [])]
        alts = [(s, b) for s, b in alts if s != {"type": "null"}]
        for s, b in alts:
            p, r = shape(s, b)
            props |= p
            if len(alts) == 1:
                required |= r
    return props, required


def locate(where: str) -> tuple[Any, str]:
    """'file#$def.prop.list[].prop' or 'file#prop...' (from the file's root) to (schema, file)."""
    name, _, path = where.partition("#")
    node: Any = _load(name)
    steps = path.split(".") if path else []
    if steps and steps[0].startswith("$"):
        node = node["$defs"][steps.pop(0)[1:]]
    for step in steps:
        key, items = (step[:-2], True) if step.endswith("[]") else (step, False)
        found = None
        for sub, b in _branches(node, name):
            if isinstance(sub, dict) and key in sub.get("properties", {}):
                found, name = sub["properties"][key], b
                break
        assert found is not None, f"{where}: no property {key}"
        node = found
        if items:
            node = next(sub["items"] for sub, _ in _branches(node, name)
                        if isinstance(sub, dict) and "items" in sub)
    return node, name


# TypedDict -> [(schema, mode)]; mode: "exact" (keys and required), "keys" (keys only), "whole"
# (keys; every key required: what the SDK hands over whole).
S: dict[str, list[tuple[str, str]]] = {
    # what the simulator writes
    "Pod": [("defs.json#$pod", "exact")],
    "PodSpec": [("defs.json#$pod.spec", "exact")],
    "PodContainer": [("defs.json#$pod.spec.containers[]", "exact")],
    "PodContainerResources": [("defs.json#$pod.spec.containers[].resources", "exact")],
    "PodStatus": [("defs.json#$pod.status", "exact")],
    "ContainerStatus": [("defs.json#$pod.status.containerStatuses[]", "exact")],
    "ContainerState": [("defs.json#$pod.status.containerStatuses[].state", "exact")],
    "TerminatedState": [("defs.json#$pod.status.containerStatuses[].state.terminated", "exact")],
    "PodExtension": [("defs.json#$pod.t9ksim", "exact")],
    "PodGroup": [("defs.json#$podGroup", "exact")],
    "PodGroupSpec": [("defs.json#$podGroup.spec", "exact")],
    "PodGroupStatus": [("defs.json#$podGroup.status", "exact")],
    "PodGroupCondition": [("defs.json#$podGroup.status.conditions[]", "exact")],
    "PodGroupRole": [("defs.json#$podGroup.spec.roles[]", "exact"),
                     ("defs.json#$podGroupAccepted.spec.roles[]", "exact")],
    "TensorBoard": [("reconcile.request.json#params.tensorBoard", "exact")],
    "ControllerOptions": [("defs.json#$controllerOptions", "exact")],
    "Job": [("job.json#$genericJob", "exact"), ("job.json#$pyTorchTrainingJob", "exact"),
            ("job.json#$deepSpeedJob", "exact")],
    "GenericJob": [("job.json#$genericJob", "exact")],
    "PyTorchTrainingJob": [("job.json#$pyTorchTrainingJob", "exact")],
    "DeepSpeedJob": [("job.json#$deepSpeedJob", "exact")],
    "GenericJobSpec": [("job.json#$genericJob.spec", "exact")],
    "GenericReplicaSpec": [("job.json#$genericJob.spec.replicaSpecs[]", "exact")],
    "GenericRestartPolicy": [("job.json#$genericJob.spec.replicaSpecs[].restartPolicy", "exact")],
    "PyTorchTrainingJobSpec": [("job.json#$pyTorchTrainingJob.spec", "exact")],
    "PyTorchReplicaSpec": [("job.json#$pyTorchTrainingJob.spec.replicaSpecs[]", "exact")],
    "TorchrunConfig": [("job.json#$pyTorchTrainingJob.spec.torchrunConfig", "exact")],
    "TensorboardSpec": [("job.json#$pyTorchTrainingJob.spec.tensorboardSpec", "exact")],
    "DeepSpeedJobSpec": [("job.json#$deepSpeedJob.spec", "exact")],
    "DeepSpeedConfig": [("job.json#$deepSpeedJob.spec.config", "exact")],
    "DeepSpeedWorker": [("job.json#$deepSpeedJob.spec.worker", "exact")],
    "RunPolicy": [("job.json#$runPolicy", "exact")],
    "ElasticSpec": [("job.json#$elastic", "exact")],
    "RunMode": [("job.json#$runMode", "exact")],
    "SchedulerSpec": [("job.json#$scheduler", "exact")],
    "T9kScheduler": [("job.json#$scheduler.t9kScheduler", "exact")],
    "PodTemplate": [("job.json#$podTemplate", "exact")],
    "PodTemplateSpec": [("job.json#$podTemplate.spec", "exact")],
    "TemplateContainer": [("job.json#$container", "exact")],
    "TemplateResources": [("job.json#$container.resources", "exact")],
    "ReconcileRequest": [("reconcile.request.json#params", "exact")],
    "InitializeParams": [("initialize.request.json#params", "exact"),
                         ("v2/initialize.request.json#params", "keys")],
    "SimulatorInfo": [("initialize.request.json#params.simulator", "exact")],
    "PolicySettings": [("initialize.request.json#params.policy", "exact")],
    "ObservationV1": [("decide.request.json#params", "exact")],
    "QueueV1": [("decide.request.json#params.queues[]", "exact")],
    "PendingV1": [("decide.request.json#params.queues[].pending[]", "exact")],
    "WaitingV1": [("decide.request.json#params.waiting[]", "exact")],
    "ElasticJobV1": [("decide.request.json#params.jobs[]", "exact")],
    "Request": [("shutdown.request.json#", "exact")],
    "JobUpdate": [("v2/reconcile.request.json#$jobUpdate", "exact")],
    "PodPatch": [("v2/reconcile.request.json#$podPatch", "exact")],
    "PodPatchMeta": [("v2/reconcile.request.json#$podPatch.metadata", "exact")],
    "PodPatchSpec": [("v2/reconcile.request.json#$podPatch.spec", "exact")],
    "PodPatchStatus": [("v2/reconcile.request.json#$podPatch.status", "exact")],
    "PodPatchExtension": [("v2/reconcile.request.json#$podPatch.t9ksim", "exact")],
    "ReconcileParamsV2": [("v2/reconcile.request.json#params", "exact")],
    "Queue": [("v2/decide.request.json#$queue", "exact")],
    "Pending": [("v2/decide.request.json#$queue.pending[]", "exact")],
    "WaitingUpdate": [("v2/decide.request.json#$waiting", "exact")],
    "ElasticJobUpdate": [("v2/decide.request.json#$job", "exact")],
    "Removed": [("v2/decide.request.json#params.removed", "exact")],
    "DecideParamsV2": [("v2/decide.request.json#params", "exact")],
    "Observation": [("v2/decide.request.json#params", "whole")],
    "WaitingJob": [("v2/decide.request.json#$waiting", "whole")],
    "ElasticJob": [("v2/decide.request.json#$job", "whole")],
    # what a plugin writes (the simulator reads)
    "NewPod": [("defs.json#$podAccepted", "exact")],
    "NewPodSpec": [("defs.json#$podAccepted.spec", "exact")],
    "NewContainer": [("defs.json#$podAccepted.spec.containers[]", "exact")],
    "NewContainerResources": [("defs.json#$podAccepted.spec.containers[].resources", "exact")],
    "NewPodStatus": [("defs.json#$podAccepted.status", "exact")],
    "NewPodExtension": [("defs.json#$podAccepted.t9ksim", "exact")],
    "NewPodGroup": [("defs.json#$podGroupAccepted", "exact")],
    "NewPodGroupSpec": [("defs.json#$podGroupAccepted.spec", "exact")],
    "CreatePod": [("defs.json#$createPod", "exact")],
    "DeletePod": [("defs.json#$deletePod", "exact")],
    "CreatePodGroup": [("defs.json#$createPodGroup", "exact")],
    "UpdatePodGroup": [("defs.json#$updatePodGroup", "exact")],
    "CreateTensorBoard": [("defs.json#$createTensorBoard", "exact")],
    "TensorBoardSpec": [("defs.json#$createTensorBoard.spec", "exact")],
    "RestartTraining": [("defs.json#$restartTraining", "exact")],
    "ReconcileResult": [("reconcile.result.json#result", "exact")],
    "ControllerEvent": [("defs.json#$controllerEvent", "exact")],
    "JobResult": [("v2/reconcile.result.json#$jobResult", "exact")],
    "ReconcileResultV2": [("v2/reconcile.result.json#result", "exact")],
    "Capabilities": [("initialize.result.json#result.capabilities", "exact")],
    "InitializeResult": [("initialize.result.json#result", "exact"),
                         ("v2/initialize.result.json#result", "exact")],
    "Decision": [("decide.result.json#result.decisions[]", "exact")],
    "Decisions": [("decide.result.json#result", "exact")],
    "DecisionsV2": [("v2/decide.result.json#result", "exact")],
    "ResultReply": [("shutdown.result.json#", "exact")],
    "ErrorReply": [("error.json#", "exact")],
    "RpcError": [("error.json#error", "exact")],
    # both ways: the keys of what the simulator writes, the required keys of what it reads
    "OwnerReference": [("defs.json#$ownerReference", "keys"),
                       ("defs.json#$ownerReferenceAccepted", "exact")],
    "ObjectMeta": [("defs.json#$objectMeta", "keys"), ("defs.json#$objectMetaAccepted", "exact")],
    "PodMeta": [("defs.json#$podMeta", "exact"), ("defs.json#$podAccepted.metadata", "exact")],
    "JobStatus": [("defs.json#$jobStatus", "keys"), ("defs.json#$jobStatusAccepted", "exact")],
    "Condition": [("defs.json#$jobStatus.conditions[]", "keys"),
                  ("defs.json#$jobStatusAccepted.conditions[]", "exact")],
    "Aggregate": [("defs.json#$jobStatus.aggregate", "keys"),
                  ("defs.json#$jobStatusAccepted.aggregate", "exact")],
    "TaskStatus": [("defs.json#$jobStatus.tasks[]", "keys"),
                   ("defs.json#$jobStatusAccepted.tasks[]", "exact")],
    "ReplicaStatus": [("defs.json#$jobStatus.tasks[].replicas[]", "keys"),
                      ("defs.json#$jobStatusAccepted.tasks[].replicas[]", "exact")],
    "ReplicaContainer": [("defs.json#$jobStatus.tasks[].replicas[].containers[]", "keys"),
                         ("defs.json#$jobStatusAccepted.tasks[].replicas[].containers[]",
                          "exact")],
    "TensorBoardStatus": [("defs.json#$jobStatus.tensorboard", "keys"),
                          ("defs.json#$jobStatusAccepted.tensorboard", "exact")],
    "TensorBoardDependent": [("defs.json#$jobStatus.tensorboard.dependent", "keys"),
                             ("defs.json#$jobStatusAccepted.tensorboard.dependent", "exact")],
}

# Keys a TypedDict names that its schema leaves to "additionalProperties" (the simulator does not
# read them, but plugins write them), and schema keys the SDK leaves out on purpose.
EXTRA = {"NewPod": {"apiVersion", "kind"}, "NewPodGroup": {"apiVersion", "kind"},
         "NewContainer": {"name"}}
LEFT_OUT = {"Observation": {"resync", "removed"}, "ResultReply": {"error"}}


def typed_dicts() -> dict[str, Any]:
    # t9ksim_sdk.types is a package: its TypedDicts are defined in its modules.
    return {n: t for n, t in vars(types).items()
            if is_typeddict(t) and t.__module__.startswith(types.__name__ + ".")}


def test_every_typed_dict_has_its_schema():
    assert sorted(set(typed_dicts()) - set(S)) == [], "give these TypedDicts a schema in S"
    assert sorted(set(S) - set(typed_dicts())) == [], "S names TypedDicts that do not exist"


@pytest.mark.parametrize("name", sorted(S))
def test_keys_and_required_keys_match_the_schema(name):
    td = typed_dicts()[name]
    keys = set(td.__required_keys__) | set(td.__optional_keys__)
    required = set(td.__required_keys__)
    problems = []
    for where, mode in S[name]:
        props, req = shape(*locate(where))
        props -= LEFT_OUT.get(name, set())
        req -= LEFT_OUT.get(name, set())
        mine = keys - EXTRA.get(name, set())
        if mine != props:
            problems.append(f"{where}: keys only in the TypedDict {sorted(mine - props)}, only "
                            f"in the schema {sorted(props - mine)}")
        want = props if mode == "whole" else req
        if mode != "keys" and required != want:
            problems.append(f"{where}: required only in the TypedDict {sorted(required - want)}, "
                            f"only in the schema {sorted(want - required)}")
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


def test_the_checker_sees_drift():
    """The comparison can fail: a schema's object with a key more is told apart."""
    props, req = shape(*locate("defs.json#$pod.t9ksim"))
    assert "generation" in req and "queue" in props - req
    assert shape({"properties": {"a": {}, "b": False}, "required": ["a"]}, "defs.json") == \
        ({"a"}, {"a"})
