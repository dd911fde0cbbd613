"""One reconcile of a GenericJob: a port of controllers/reconcile.cpp (Reconcile, reconcile_job)
with the GenericJob view of controllers/kinds.cpp (GenericJobController::reconcile).

The stages, in the built-in's order: the previous status carried over; the replica slots
observed; a finished job only cleans up; a paused one stops its pods; resume; each slot's restart
decision; ReplicaFailure; the job's verdict (rules, §3.1); and for a live job its PodGroup, its
missing pods and its phase. What the built-in does only for PyTorchTrainingJob and DeepSpeedJob
(backoffLimit, activeDeadlineSeconds, elastic membership, TensorBoard) is left out: a GenericJob
has none of them (§3.3).

Hooks for mutants (tests/plugins/mutants/): `decide` (the job's verdict) and
`previous_task_restarts` / `previous_rank_restarts` (the restart counts carried in the status).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from . import pods as P
from . import rules as R
from .pods import ObservedPod, Slot, TypeView
from .status import (apply_terminal_conditions, find_condition, read_conditions, set_condition,
                     write_status)

REPLICA_PHASES = ["Creating", "Pending", "Running", "Succeeded", "Failed", "Unknown", "Deleted"]


class Reconcile:
    """One reconcile step; `run()` gives version 1's reconcile result (docs/protocol.md §5)."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self.job: Mapping[str, Any] = request["job"]
        self.spec: Mapping[str, Any] = self.job["spec"]
        self.name: str = self.job["metadata"].get("name", "")
        self.now: str = request["now"]
        self.now_us: int = int(request["nowMicros"])
        self.options: Mapping[str, Any] = request.get("options") or {}
        self.pod_group: Optional[Mapping[str, Any]] = request.get("podGroup")
        self.pods: List[ObservedPod] = [P.observe_pod(p) for p in request.get("pods") or []]
        self.types: List[TypeView] = [
            TypeView(type=r["type"], replicas=int(r.get("replicas", 1)),
                     policy=(r.get("restartPolicy") or {}).get("policy", "OnFailure"),
                     limit=int((r.get("restartPolicy") or {}).get("limit", 0)),
                     template=r.get("template") or {})
            for r in self.spec.get("replicaSpecs") or []]
        mode = self.spec.get("runMode") or {}
        self.paused_spec = bool((mode.get("pause") or {}).get("enabled", False))
        self.debug = bool((mode.get("debug") or {}).get("enabled", False))
        self.clean_up: str = self.spec.get("cleanUpPolicy") or "None"

        # The previous status; tasks are rebuilt from the slots (Reconcile::Reconcile).
        self.prev: Mapping[str, Any] = self.job.get("status") or {}
        self.phase: Optional[str] = self.prev.get("phase")
        self.conditions = read_conditions(self.prev)
        self.carried: Dict[str, Any] = {k: self.prev.get(k) for k in (
            "tensorboard", "startTime", "completionTime", "activeSince", "elasticReplicas")}
        if not self.phase:  # first reconcile: the clocks start (§11 Q6)
            self.phase = "Pending"
            self.carried["startTime"] = self.now
            self.carried["activeSince"] = self.now
        # A GenericJob has no backoffCount (§1.3): it is dropped from the status.

        self.actions: List[Dict[str, Any]] = []
        self.slots: List[Slot] = []
        self.stray: List[str] = []  # pods of a replica type no longer in the spec
        self.type_prev = [0] * len(self.types)
        self.type_now = [0] * len(self.types)
        self.verdict: Optional[R.Verdict] = None
        self.requeue: Optional[int] = None
        self.first_failed_pod: Optional[ObservedPod] = None

    # ---- the stages (Reconcile::run) ----

    def run(self) -> Dict[str, Any]:
        self.observe()
        if self.phase in ("Succeeded", "Failed"):  # terminal: cleanup only (§1.1, §6.2)
            failed = find_condition(self.conditions, "Failed")
            deadline = (failed is not None and failed["status"] == "True"
                        and failed["reason"] == "DeadlineExceeded")
            R.terminal_deletions(self.slots, self.clean_up, deadline)
            return self.finish(False)
        if self.paused_spec:  # §7.2: checked before anything else of a live job
            self.pause()
            return self.finish(False)
        if self.phase == "Paused":
            self.resume()
        # GenericJob has no activeDeadlineSeconds (§3.3): Reconcile::deadline does nothing.
        self.restart_decisions()
        self.replica_failure()
        if self.verdict is None and not self.debug:  # no rules in debug mode (§7.1, §11 Q19)
            self.verdict = self.decide()
        if self.verdict is not None:
            return self.conclude()
        self.ensure_pod_group()
        for s in self.slots:
            s.create = s.desired and s.outcome == R.MISSING
        self.live_conditions()
        return self.finish(True, self.requeue)

    def decide(self) -> Optional[R.Verdict]:
        """The job's verdict from its slots (§3.1, §11 Q2)."""
        return R.decide_generic(self.spec, self.types, self.slots)

    def previous_task_restarts(self, task: Mapping[str, Any]) -> int:
        """The type's counted restarts the status carries (tasks[].restartCount)."""
        return int(task.get("restartCount") or 0)

    def previous_rank_restarts(self, task: Mapping[str, Any], name: str) -> int:
        """A rank's counted restarts the status carries: the first replica of that name."""
        for r in task.get("replicas") or []:
            if r.get("name") == name:
                return int(r.get("restartCount") or 0)
        return 0

    # ---- observe: slots = desired ranks plus ranks that still have a pod (§1.3) ----

    def observe(self) -> None:
        # The job's pods by name; of two with one name the first in the request counts
        # (Reconcile::observe sorts by name, keeping the first).
        by_name: Dict[str, ObservedPod] = {}
        for p in self.pods:
            if p.job == self.name:
                by_name.setdefault(p.name, p)
        names = sorted(by_name)  # std::string's byte order: UTF-8 sorts as code points do
        known = {t.type for t in self.types}
        self.stray = [n for n in names
                      if by_name[n].replica_type not in known and not by_name[n].terminating]
        for ti in range(len(self.types)):
            self.observe_type(ti, by_name, names)

    def observe_type(self, ti: int, by_name: Dict[str, ObservedPod], names: List[str]) -> None:
        t = self.types[ti]
        prev_task = None
        for task in self.prev.get("tasks") or []:  # the last task of the type counts
            if task.get("type") == t.type:
                prev_task = task
        if prev_task is not None:
            self.type_prev[ti] = self.type_now[ti] = self.previous_task_restarts(prev_task)

        def prev_restarts(name: str) -> int:
            return 0 if prev_task is None else self.previous_rank_restarts(prev_task, name)

        # Pods of ranks beyond the desired ones, by rank; of several with one rank the first by
        # name counts. Pods of a duplicated type belong to its first spec (observe_type).
        extra: Dict[int, ObservedPod] = {}
        for n in names:
            p = by_name[n]
            if p.replica_type == t.type and p.rank >= t.replicas:
                extra.setdefault(p.rank, p)
        for rank in range(t.replicas):
            name = P.replica_name(self.name, t.type, rank)
            r = prev_restarts(name)
            self.slots.append(Slot(type_index=ti, rank=rank, name=name, pod=by_name.get(name),
                                   desired=True, prev_restarts=r, restarts=r))
        for rank in sorted(extra):
            p = extra[rank]
            r = prev_restarts(p.name)
            self.slots.append(Slot(type_index=ti, rank=rank, name=p.name, pod=p, desired=False,
                                   prev_restarts=r, restarts=r))

    # ---- run modes (§7.2) ----

    def pause(self) -> None:
        """Graceful deletion of every pod not already terminating, terminated ones too; no
        restart nor verdict while paused; the deadline clock stops (§11 Q6). A job created
        paused goes Pending -> Paused in its first step and gets Initialized only on resume."""
        for s in self.slots:
            if s.pod is not None and not s.pod.terminating:
                s.delete = "Pause"
        self.phase = "Paused"
        self.carried["activeSince"] = None
        set_condition(self.conditions, "Paused", "True", "Paused",
                      "All replicas are deleted or being deleted.", self.now)
        running = find_condition(self.conditions, "Running")
        if running is not None and running["status"] == "True":
            set_condition(self.conditions, "Running", "False", "Paused", "The job is paused.",
                          self.now)

    def resume(self) -> None:
        """Resuming until all replicas are back; the clock restarts (§11 Q6, Kubeflow reset)."""
        self.phase = "Resuming"
        self.carried["activeSince"] = self.now
        set_condition(self.conditions, "Paused", "False", "Resumed", "The job is resuming.",
                      self.now)

    # ---- restarts (§2) ----

    def restart_decisions(self) -> None:
        for s in self.slots:  # slot order: type, then rank
            self.restart_decision(s)

    def restart_decision(self, s: Slot) -> None:
        if s.pod is None:
            s.outcome = R.MISSING
            return
        p = s.pod
        if p.phase == "Failed" and self.first_failed_pod is None:
            self.first_failed_pod = p  # terminating and undesired pods count too
        if p.terminating:
            s.outcome = R.TERMINATING
            return
        if not s.desired:
            s.outcome, s.delete = R.SCALED_DOWN, "ScaleDown"
            return
        if p.phase in ("Pending", "Running", "Unknown"):
            s.outcome = R.ACTIVE  # Unknown pods are left alone (§9, §11 Q13)
            return
        failed = p.phase == "Failed"
        if failed and p.deletion_reason == "MaxDuration":  # §11 Q12
            if self.options.get("maxDurationHandling") == "recreate":
                s.outcome, s.delete = R.RECREATE, "Restart"
            else:
                s.outcome = R.FAILED_FINAL
            return
        final = R.FAILED_FINAL if failed else R.SUCCEEDED_FINAL
        t = self.types[s.type_index]
        if not R.policy_restarts(t.policy, p, self.options):
            s.outcome = final
            return
        # §2.3, §11 Q3: restartPolicy.limit per rank, or per replica type.
        per_type = self.options.get("genericLimitScope") == "per-type"
        used = self.type_now[s.type_index] if per_type else s.restarts
        if used >= t.limit:
            s.outcome = final
            return
        if self.options.get("restartBackoff"):  # §11 Q5: wait from the pod's end
            since = p.finish_micros if p.finish_micros is not None else self.now_us
            at = since + R.backoff_delay(s.restarts, self.options)
            if self.now_us < at:
                s.outcome = R.BACKOFF_WAIT
                self.requeue_in(at - self.now_us)
                return
        s.outcome, s.delete = R.RESTART, "Restart"
        s.restarts += 1
        self.type_now[s.type_index] += 1

    def requeue_in(self, micros: int) -> None:
        self.requeue = micros if self.requeue is None else min(self.requeue, micros)

    def replica_failure(self) -> None:
        """ReplicaFailure=True once a pod is seen Failed (the first in slot order); it stays True
        after a successful restart (§1.2 [UNSPEC], sticky)."""
        p = self.first_failed_pod
        if p is None:
            return
        set_condition(self.conditions, "ReplicaFailure", "True", "ErrorInPod",
                      f"Pod[{p.name}] exited with error code {p.exit_code_or_kill}", self.now)

    # ---- the verdict and a live job ----

    def conclude(self) -> Dict[str, Any]:
        """The job finished now. Restarts decided in this step are not carried out nor counted
        (only the Kubeflow backoff rule keeps them, and a GenericJob has no backoffLimit)."""
        v = self.verdict
        assert v is not None
        self.phase = v.phase
        self.carried["completionTime"] = self.now
        self.carried["activeSince"] = None
        apply_terminal_conditions(self.conditions, v, self.now)
        R.terminal_deletions(self.slots, self.clean_up, v.failed_reason == "DeadlineExceeded")
        return self.finish(False)

    def ensure_pod_group(self) -> None:
        """§8.1: one PodGroup named after the job, created before its pods; updated in place,
        metadata kept (§11 Q20), when the desired spec differs."""
        if P.t9k_scheduler(self.job) is None:
            return
        if self.pod_group is None:
            self.actions.append({"type": "CreatePodGroup",
                                 "podGroup": P.new_pod_group(self.job, self.types, self.now)})
            return
        want = P.desired_pod_group_spec(self.job, self.types)
        if not P.pod_group_spec_is_current(self.pod_group.get("spec") or {}, want):
            self.actions.append({"type": "UpdatePodGroup", "podGroup": P.updated_pod_group(
                self.pod_group, self.job, self.types)})

    def live_conditions(self) -> None:
        """Initialized, ReplicaFailure False and, once the pods run, Running (§11 Q1)."""
        set_condition(self.conditions, "Initialized", "True", "",
                      "All sub-resources are created.", self.now)
        if find_condition(self.conditions, "ReplicaFailure") is None:
            set_condition(self.conditions, "ReplicaFailure", "False", "", R.MSG_ALL_RUNNING,
                          self.now)
        if self.phase not in ("Pending", "Resuming"):
            return  # Running never goes back to Pending when a pod is replaced
        desired = [s for s in self.slots if s.desired]
        running = [s for s in desired if P.running_now(s)]
        if self.options.get("runningWhen") == "master-running":
            is_running = any(s.type_index == 0 and s.rank == 0 for s in running)
        else:
            is_running = len(desired) > 0 and len(running) == len(desired)
        if is_running:
            self.phase = "Running"
            set_condition(self.conditions, "Running", "True", "Running", R.MSG_ALL_RUNNING,
                          self.now)

    # ---- the result ----

    def finish(self, commit: bool, requeue: Optional[int] = None) -> Dict[str, Any]:
        """Actions, then the status built from the slots; this step's restart counts are kept
        only with `commit` (Reconcile::finish)."""
        self.build_actions()
        result: Dict[str, Any] = {"actions": self.actions, "status": self.build_status(commit)}
        if requeue is not None:
            result["requeueAfterMicros"] = requeue
        return result

    def build_actions(self) -> None:
        """Deletions (strays first, then slots), then creations: a name is free only once its
        old pod is gone. Pods created after a pause use resumeSpecs (§7.2): the job has been
        paused when its status has a Paused condition."""
        for name in self.stray:
            self.actions.append({"type": "DeletePod", "name": name, "reason": "ScaleDown"})
        for s in self.slots:
            if s.delete is not None:
                self.actions.append({"type": "DeletePod", "name": s.name, "reason": s.delete})
        resumed = find_condition(self.conditions, "Paused") is not None
        for s in self.slots:
            if s.create:
                pod = P.new_pod(self.job, self.types[s.type_index], s.name, s.rank, resumed)
                self.actions.append({"type": "CreatePod", "pod": pod})

    def build_status(self, commit: bool) -> Dict[str, Any]:
        """Tasks with replica statuses, and the aggregate counted from them (§1.3)."""
        counts = {phase: 0 for phase in REPLICA_PHASES}
        tasks = []
        for ti, t in enumerate(self.types):
            replicas = []
            for s in self.slots:
                if s.type_index != ti:
                    continue
                phase = P.replica_phase(s)
                counts[phase] += 1
                r: Dict[str, Any] = {"name": s.name}
                if s.pod is not None and not s.create and s.pod.uid:
                    r["uid"] = s.pod.uid
                r["phase"] = phase
                containers = P.container_statuses(s, t)
                if containers:
                    r["containers"] = containers
                restarts = s.restarts if commit else s.prev_restarts
                if restarts:
                    r["restartCount"] = restarts
                replicas.append(r)
            count = self.type_now[ti] if commit else self.type_prev[ti]
            task: Dict[str, Any] = {"type": t.type, "restartCount": count}
            if replicas:
                task["replicas"] = replicas
            tasks.append(task)
        aggregate = {phase.lower(): counts[phase] for phase in REPLICA_PHASES}
        return write_status(self.phase, self.conditions, aggregate, tasks, self.carried)


def reconcile(request: Mapping[str, Any]) -> Dict[str, Any]:
    """Version 1's reconcile: params in, result out (docs/protocol.md §5). Pure: no clock, no
    randomness, nothing kept between calls but what the status carries."""
    return Reconcile(request).run()
