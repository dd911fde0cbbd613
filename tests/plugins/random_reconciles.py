"""Random GenericJob reconcile requests (protocol version 1, docs/protocol.md §5) for comparing a
controller's answers with `t9ksim plugin serve controller`'s (tests/plugins/reference_port_test.py).

They reach what no scenario can: pods of a replica type the spec lost, ranks beyond the replicas,
two pods of one name, a duplicated replica type, any phase and any previous status, PodGroups
that need an update (with a topologyPolicy, a status, `finished`), restartPolicy ExitCode, every
controller option. Every request is one the simulator could send as far as the protocol goes
(the same shapes, canonical quantities and times), not necessarily one its world would produce.
Standard library only.
"""
from __future__ import annotations

import random
import time
from typing import Any, Dict, List, Optional

JobJson = Dict[str, Any]
PHASES = ["Pending", "Running", "Paused", "Resuming", "Succeeded", "Failed", "Unknown"]
CONDITIONS = ["Initialized", "Running", "ReplicaFailure", "Completed", "Failed", "Paused"]
AGGREGATE = ["creating", "pending", "running", "succeeded", "failed", "unknown", "deleted"]
HOUR = 3_600_000_000


def timestamp(us: int) -> str:
    """As the simulator writes times: seconds, a 6-digit fraction when not whole, Z."""
    secs, frac = divmod(us, 1_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    return text + (f".{frac:06d}" if frac else "") + "Z"


class Generator:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def resources(self) -> Dict[str, str]:
        names = ["nvidia.com/gpu", "cpu", "memory", "t9ksim.io/gpu-milli"]
        values = ["0", "1", "3", "250m", "500m", "1536Mi", "4Gi"]
        return {k: self.r.choice(values) for k in self.r.sample(names, self.r.randint(0, 3))}

    def container(self, name: str) -> Dict[str, Any]:
        c: Dict[str, Any] = {"name": name, "image": "busybox"}
        if self.chance(0.5):
            c["command"] = ["python", "train.py"]
        if self.chance(0.3):
            c["args"] = ["--epochs", "3"]
        res = {k: v for k, v in (("limits", self.resources()), ("requests", self.resources()))
               if v and self.chance(0.7)}
        if res:
            c["resources"] = res
        return c

    def template(self) -> Dict[str, Any]:
        spec: Dict[str, Any] = {}
        if self.chance(0.3):
            spec["initContainers"] = [self.container("init")]
        spec["containers"] = [self.container(f"c{i}") for i in range(self.r.randint(0, 2))]
        if self.chance(0.2):
            spec["nodeSelector"] = {"zone": "a", "pool": "gpu"}
        if self.chance(0.2):
            spec["schedulerName"] = "other-scheduler"
        if self.chance(0.2):
            spec["priority"] = self.r.randint(0, 5)
        if self.chance(0.2):
            spec["terminationGracePeriodSeconds"] = self.r.randint(0, 60)
        out: Dict[str, Any] = {"spec": spec}
        if self.chance(0.3):
            out = {"metadata": {"labels": {"team": "a", "genericjob": "overridden"},
                                "annotations": {"note": "kept"}}, **out}
        return out

    def rules(self, types: List[str]) -> List[Dict[str, List[int]]]:
        return [{t: self.r.sample(range(4), self.r.randint(0, 2))
                 for t in sorted(self.r.sample(types, self.r.randint(1, len(types))))}
                for _ in range(self.r.randint(1, 2))]

    def run_mode(self, types: List[str]) -> Dict[str, Any]:
        mode: Dict[str, Any] = {}
        if self.chance(0.2):
            debug: Dict[str, Any] = {"enabled": self.chance(0.8)}
            if self.chance(0.5):
                entry: Dict[str, Any] = {"type": self.r.choice(types),
                                         "skipInitContainer": self.chance(0.5)}
                if self.chance(0.5):
                    entry["command"] = ["sleep", "600"]
                debug["replicaSpecs"] = [entry]
            mode["debug"] = debug
        if self.chance(0.3):
            pause: Dict[str, Any] = {"enabled": self.chance(0.6)}
            if self.chance(0.5):
                entry = {"type": self.r.choice(types), "skipInitContainer": self.chance(0.5)}
                if self.chance(0.5):
                    entry["command"] = ["python", "resume.py"]
                if self.chance(0.5):
                    entry["args"] = ["--from", "checkpoint"]
                pause["resumeSpecs"] = [entry]
            mode["pause"] = pause
        return mode

    def job(self, name: str, types: List[str]) -> JobJson:
        spec: Dict[str, Any] = {}
        if self.chance(0.3):
            spec["successRules"] = self.rules(types)
        if self.chance(0.3):
            spec["failureRules"] = self.rules(types)
        mode = self.run_mode(types)
        if mode:
            spec["runMode"] = mode
        spec["cleanUpPolicy"] = self.r.choice(["None", "All", "Unfinished"])
        if self.chance(0.6):
            spec["scheduler"] = {"t9kScheduler": {"queue": self.r.choice(["", "default", "q1"]),
                                                  "priority": self.r.randint(0, 3)}}
        spec["replicaSpecs"] = [
            {"type": t, "replicas": self.r.randint(0, 3),
             "restartPolicy": {"policy": self.r.choice(["OnFailure", "Always", "Never",
                                                        "ExitCode"]),
                               "limit": self.r.randint(0, 3)},
             "template": self.template()} for t in types]
        return {"apiVersion": "batch.tensorstack.dev/v1beta1", "kind": "GenericJob",
                "metadata": {"name": name, "namespace": "default", "uid": "job-1",
                             "creationTimestamp": timestamp(0)},
                "spec": spec}

    def status(self, name: str, types: List[str], now: int) -> Optional[Dict[str, Any]]:
        if self.chance(0.25):
            return None  # the first reconcile
        st: Dict[str, Any] = {"phase": self.r.choice(PHASES)}
        conditions = []
        for t in CONDITIONS:
            if self.chance(0.4):
                c = {"type": t, "status": self.r.choice(["True", "False"]),
                     "lastTransitionTime": timestamp(self.r.randint(0, now))}
                if self.chance(0.5):
                    c["reason"] = self.r.choice(["DeadlineExceeded", "Failed", "Paused"])
                if self.chance(0.5):
                    c["message"] = "earlier"
                conditions.append(c)
        self.r.shuffle(conditions)
        if conditions:
            st["conditions"] = conditions
        st["aggregate"] = {k: 0 for k in AGGREGATE}
        tasks = []
        for t in types + (["gone"] if self.chance(0.2) else []):
            task: Dict[str, Any] = {"type": t, "restartCount": self.r.randint(0, 4)}
            replicas: List[Dict[str, Any]] = [{"name": f"{name}-{t}-{k}", "phase": "Running"}
                                              for k in range(self.r.randint(0, 4))]
            for rep in replicas:
                if self.chance(0.5):
                    rep["restartCount"] = self.r.randint(1, 3)
            if replicas:
                task["replicas"] = replicas
            tasks.append(task)
        st["tasks"] = tasks
        if self.chance(0.2):
            st["backoffCount"] = 2
        for key, p in (("startTime", 0.8), ("completionTime", 0.2), ("activeSince", 0.5)):
            if self.chance(p):
                st[key] = timestamp(self.r.randint(0, now))
        if self.chance(0.1):
            st["elasticReplicas"] = 2
        return st

    def pod(self, job: str, type_: str, rank: int, name: str, now: int) -> Dict[str, Any]:
        phase = self.r.choice(["Pending", "Running", "Succeeded", "Failed", "Unknown"])
        meta: Dict[str, Any] = {"name": name, "namespace": "default",
                                "uid": f"pod-{self.r.randint(0, 99)}",
                                "creationTimestamp": timestamp(0)}
        if self.chance(0.2):
            meta["deletionTimestamp"] = timestamp(now)
        spec: Dict[str, Any] = {}
        if phase != "Pending" or self.chance(0.5):
            spec["nodeName"] = "gpu-1"
        spec.update({"schedulerName": "default-scheduler", "priority": 0,
                     "terminationGracePeriodSeconds": 30, "containers": [{"name": "main"}]})
        status: Dict[str, Any] = {"phase": phase}
        if phase in ("Succeeded", "Failed"):
            term: Dict[str, Any] = {}
            if phase == "Succeeded":
                term["exitCode"] = 0
            elif self.chance(0.9):  # else missing: read as 137
                term["exitCode"] = self.r.choice([1, 2, 130, 137, 138, 143, 200])
            if self.chance(0.8):
                term["finishedAt"] = timestamp(max(0, now - self.r.randint(0, 400_000_000)))
            status["containerStatuses"] = [{"name": "main", "state": {"terminated": term}}]
        ext: Dict[str, Any] = {"job": job if self.chance(0.95) else "another-job",
                               "replicaType": type_, "rank": rank, "generation": 0}
        if self.chance(0.15):
            ext["deletionReason"] = self.r.choice(["MaxDuration", "Preemption", "User"])
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                "status": status, "t9ksim": ext}

    def pods(self, job: str, types: List[str], now: int) -> List[Dict[str, Any]]:
        out, names = [], set()
        for _ in range(self.r.randint(0, 7)):
            type_ = self.r.choice(types + ["stray"])
            rank = self.r.randint(0, 4)
            name = f"{job}-{type_}-{rank}" if self.chance(0.9) else f"{job}-odd-{rank}"
            if name in names and self.chance(0.7):
                continue
            names.add(name)
            out.append(self.pod(job, type_, rank, name, now))
        return out

    def pod_group(self, job: str, types: List[str]) -> Dict[str, Any]:
        spec: Dict[str, Any] = {
            "minMember": self.r.randint(0, 6),
            "roles": [{"name": t, "minMember": self.r.randint(0, 3)}
                      for t in types[:self.r.randint(0, len(types))]],
            "queue": self.r.choice(["default", "q1"]), "priority": self.r.randint(0, 3)}
        if not spec["roles"]:
            del spec["roles"]
        if self.chance(0.3):
            spec["topologyPolicy"] = "rack"
        if self.chance(0.2):
            spec["finished"] = True
        pg = {"apiVersion": "scheduler.tensorstack.dev/v1beta1", "kind": "PodGroup",
              "metadata": {"name": job, "namespace": "default",
                           "creationTimestamp": timestamp(0)},
              "spec": spec}
        if self.chance(0.4):
            pg["status"] = {"conditions": [{"type": "GroupScheduled", "status": "True"},
                                           {"type": "SufficientGroupMember", "status": "False"}],
                            "allocated": {"nvidia.com/gpu": "8"}, "pending": 0, "running": 2,
                            "succeeded": 0, "failed": 0, "unknown": 0}
        return pg

    def options(self) -> Dict[str, Any]:
        c = self.r.choice
        return {"retryableExitCodes": c(["t9k", "kubeflow"]),
                "t9kRetryableExitCodes": c([[130, 137, 138, 143], [1, 2]]),
                "backoffLimitRule": c(["master-fails-again", "kubeflow-reach-limit"]),
                "exitCodeIgnoresBackoffLimit": self.chance(0.5),
                "restartBackoff": self.chance(0.5),
                "restartBackoffBaseMicros": c([10_000_000, 1_000_000]),
                "restartBackoffCapMicros": c([360_000_000, 5_000_000]),
                "permanentFailureScope": c(["any-replica", "master-only"]),
                "maxDurationHandling": c(["fail-replica", "recreate"]),
                "runningWhen": c(["all-pods-running", "master-running"]),
                "genericLimitScope": c(["per-replica", "per-type"]),
                "elasticSuccess": c(["master", "any-replica"])}

    def request(self) -> Dict[str, Any]:
        name = self.r.choice(["a", "job-x"])
        types = self.r.sample(["worker", "master", "ps"], self.r.randint(1, 3))
        if self.chance(0.05):
            types.append(types[0])  # a duplicated replica type
        now = self.r.randint(0, HOUR)
        job = self.job(name, types)
        status = self.status(name, types, now)
        if status is not None:
            job["status"] = status
        return {"job": job, "pods": self.pods(name, types, now),
                "podGroup": self.pod_group(name, types) if self.chance(0.5) else None,
                "tensorBoard": None, "now": timestamp(now), "nowMicros": now,
                "options": self.options()}
