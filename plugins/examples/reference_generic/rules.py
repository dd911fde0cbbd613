"""Restart policies and budgets (§2), the GenericJob success and failure rules (§3.1, §11 Q2)
and the cleanup of a finished job (§6.2).

Port of controllers/rules.cpp (policy_restarts, backoff_delay, terminal_deletions,
decide_generic, rule_text) for kind GenericJob.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence

from .pods import ObservedPod, Slot, TypeView

MSG_ALL_RUNNING = "All pods are running normally."
MSG_SUCCEEDED = "The job has finished successfully."

# Slot outcomes (detail::Outcome): where a slot stands after this step's decisions.
MISSING = "Missing"                # no pod: create one
TERMINATING = "Terminating"        # pod on its way out: wait, then recreate
ACTIVE = "Active"                  # Pending, Running or Unknown
SUCCEEDED_FINAL = "SucceededFinal"  # exited 0 and will not be restarted
FAILED_FINAL = "FailedFinal"       # failed, no restart: "failed" for rules (§3.1 [INFERRED])
RESTART = "Restart"                # deleted now, to be replaced: a counted restart (§11 Q4)
RECREATE = "Recreate"              # maxDuration pod deleted and recreated, uncounted (§11 Q12)
BACKOFF_WAIT = "BackoffWait"       # restart decided, waiting out the back-off (§11 Q5)
SCALED_DOWN = "ScaledDown"         # a rank beyond the desired ones: deleted now


@dataclass
class Verdict:
    phase: str            # Succeeded or Failed
    failed_reason: str    # the Failed condition's reason ("" on success)
    message: str


def is_retryable(code: int, options: Mapping[str, Any]) -> bool:
    """§2.2: the T9k list, or any code >= 128 with retryableExitCodes: kubeflow."""
    if options.get("retryableExitCodes") == "kubeflow":
        return code >= 128
    return code in (options.get("t9kRetryableExitCodes") or [])


def policy_restarts(policy: str, pod: ObservedPod, options: Mapping[str, Any]) -> bool:
    """Does the policy ask for a new pod after this pod ended? (§2.2). Always restarts a pod that
    exited 0 too ([INFERRED] §2.2); ExitCode only retryable exits."""
    if pod.phase == "Succeeded":
        return policy == "Always"
    if policy in ("OnFailure", "Always"):
        return True
    if policy == "ExitCode":
        return is_retryable(pod.exit_code_or_kill, options)
    return False  # Never


def backoff_delay(restarts_so_far: int, options: Mapping[str, Any]) -> int:
    """§11 Q5: the n-th restart of a rank waits min(cap, base * 2^(n-1)) µs; the doubling stops
    at the cap (backoff_delay), so the exponent never overflows."""
    base = int(options.get("restartBackoffBaseMicros", 10_000_000))
    cap = int(options.get("restartBackoffCapMicros", 360_000_000))
    d = base
    i = 0
    while i < restarts_so_far and d < cap:
        d *= 2
        i += 1
    return min(d, cap)


def terminal_deletions(slots: Sequence[Slot], policy: str, deadline: bool) -> None:
    """Deletions once the job is terminal, repeated every reconcile until done (level-based).
    §6.1: after a deadline the unfinished pods are stopped whatever the policy; §6.2: All
    deletes every pod, Unfinished the Pending/Running/Unknown ones, None nothing."""
    for s in slots:
        s.create = False
        s.delete = None
        if s.pod is None or s.pod.terminating:
            continue
        unfinished = s.pod.phase in ("Pending", "Running", "Unknown")
        if deadline and unfinished:
            s.delete = "Deadline"
        elif policy == "All" or (policy == "Unfinished" and unfinished):
            s.delete = "Cleanup"


def _rule_entry(type_: str, ranks: Sequence[int]) -> str:
    """One `"worker":["0","1"]` entry: string ranks, as in the UC failure message (§3.1)."""
    return '"' + type_ + '":[' + ",".join(f'"{r}"' for r in ranks) + "]"


def rule_text(rule: Mapping[str, Sequence[int]]) -> str:
    """{"worker":["0"]}: types sorted (FinishRule is a std::map), ranks in rule order."""
    return "{" + ",".join(_rule_entry(t, rule[t]) for t in sorted(rule)) + "}"


def _find(slots: Sequence[Slot], types: List[TypeView], type_: str, rank: int) -> Optional[Slot]:
    for s in slots:
        if s.desired and types[s.type_index].type == type_ and s.rank == rank:
            return s
    return None


def _all_named(slots: Sequence[Slot], types: List[TypeView], rule: Mapping[str, Sequence[int]],
               want: str) -> bool:
    """Every replica the rule names has the outcome; an empty rule is never fulfilled, nor one
    naming a replica that does not exist."""
    named = False
    for type_ in sorted(rule):
        for rank in rule[type_]:
            s = _find(slots, types, type_, int(rank))
            if s is None or s.outcome != want:
                return False
            named = True
    return named


def _success_reachable(slots: Sequence[Slot], types: List[TypeView],
                       rules: Sequence[Mapping[str, Sequence[int]]]) -> bool:
    """UC-1500: can some success rule still be fulfilled? A rule with a type but no ranks counts
    as reachable (decide_generic tests only that the rule names a type)."""
    reachable = False
    for rule in rules:
        ok = len(rule) > 0
        for type_ in sorted(rule):
            for rank in rule[type_]:
                s = _find(slots, types, type_, int(rank))
                if s is None or s.outcome == FAILED_FINAL:
                    ok = False
        reachable = reachable or ok
    return reachable


def decide_generic(spec: Mapping[str, Any], types: List[TypeView],
                   slots: Sequence[Slot]) -> Optional[Verdict]:
    """§3.1 and §11 Q2; failure is evaluated before success (decide_generic)."""
    success_rules = spec.get("successRules") or []
    failure_rules = spec.get("failureRules") or []
    first_failed = next((s for s in slots if s.desired and s.outcome == FAILED_FINAL), None)
    if not failure_rules:
        if first_failed is not None:  # §11 Q2: any replica failing terminally, named as a rule
            text = ("The job is failed with rule: {"
                    + _rule_entry(types[first_failed.type_index].type, [first_failed.rank]) + "}")
            return Verdict("Failed", "Failed", text)
    else:
        for rule in failure_rules:
            if _all_named(slots, types, rule, FAILED_FINAL):
                return Verdict("Failed", "Failed",
                               "The job is failed with rule: " + rule_text(rule))
    # UC-1500: restarts exhausted and no success rule can still be fulfilled; with no
    # successRules the default "all replicas" rule is unreachable too.
    if first_failed is not None and not _success_reachable(slots, types, success_rules):
        return Verdict("Failed", "Failed",
                       f"The job is failed because the restarts of {first_failed.name} are "
                       "exhausted and no success rule can be fulfilled")
    return decide_success(success_rules, types, slots)


def decide_success(success_rules: Sequence[Mapping[str, Sequence[int]]], types: List[TypeView],
                   slots: Sequence[Slot]) -> Optional[Verdict]:
    """Any successRule whose replicas all succeeded; with none, every desired replica (§11 Q2)."""
    if not success_rules:
        desired = [s for s in slots if s.desired]
        if desired and all(s.outcome == SUCCEEDED_FINAL for s in desired):
            return Verdict("Succeeded", "", MSG_SUCCEEDED)
        return None
    for rule in success_rules:
        if _all_named(slots, types, rule, SUCCEEDED_FINAL):
            return Verdict("Succeeded", "", MSG_SUCCEEDED)
    return None
