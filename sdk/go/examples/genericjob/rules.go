package genericjob

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Restart policies and budgets (§2), the GenericJob success and failure rules (§3.1, §11 Q2)
// and the cleanup of a finished job (§6.2): controllers/rules.cpp (policy_restarts,
// backoff_delay, terminal_deletions, decide_generic, rule_text) for kind GenericJob.

// The restart policies (§2.1).
const (
	policyNever     = "Never"
	policyOnFailure = "OnFailure"
	policyAlways    = "Always"
	policyExitCode  = "ExitCode"
)

// The cleanUpPolicy values (§6.2).
const (
	cleanUpAll        = "All"
	cleanUpUnfinished = "Unfinished"
)

// Messages of the §1.2 status snapshots.
const (
	msgAllRunning = "All pods are running normally."
	msgSucceeded  = "The job has finished successfully."
)

// finishRule is one success or failure rule: replica type -> ranks (§3.1).
type finishRule map[string][]int32

// verdict is how the job ended.
type verdict struct {
	succeeded    bool
	failedReason string // the Failed condition's reason ("" on success)
	message      string
}

// isRetryable: §2.2, the T9k list, or any code >= 128 with retryableExitCodes: kubeflow.
func isRetryable(code int32, s settings) bool {
	if s.kubeflowRetryable {
		return code >= 128
	}
	return slices.Contains(s.t9kRetryable, code)
}

// policyRestarts: does the policy ask for a new pod after this pod ended? (§2.2). Always
// restarts a pod that exited 0 too ([INFERRED] §2.2); ExitCode only retryable exits.
func policyRestarts(policy string, p *observedPod, s settings) bool {
	if p.phase == corev1.PodSucceeded {
		return policy == policyAlways
	}
	switch policy {
	case policyOnFailure, policyAlways:
		return true
	case policyExitCode:
		return isRetryable(p.exitCodeOrKill(), s)
	}
	return false // Never
}

// backoffDelay: §11 Q5, the n-th restart of a rank waits min(cap, base * 2^(n-1)); the doubling
// stops at the cap (backoff_delay), so it never overflows.
func backoffDelay(restartsSoFar int32, s settings) time.Duration {
	d := s.backoffBase
	for i := int32(0); i < restartsSoFar && d < s.backoffCap; i++ {
		d *= 2
	}
	return min(d, s.backoffCap)
}

// unfinished: a pod that has not terminated (Pending, Running or Unknown).
func unfinished(p *observedPod) bool {
	switch p.phase {
	case corev1.PodPending, corev1.PodRunning, corev1.PodUnknown:
		return true
	}
	return false
}

// terminalDeletions decides the deletions once the job is terminal, repeated every reconcile
// until done (level-based). §6.1: after a deadline the unfinished pods are stopped whatever the
// policy; §6.2: All deletes every pod, Unfinished the Pending/Running/Unknown ones, None
// nothing.
func terminalDeletions(slots []slot, policy string, deadline bool) {
	for i := range slots {
		s := &slots[i]
		s.create = false
		s.deleteReason = ""
		if s.pod == nil || s.pod.terminating {
			continue
		}
		live := unfinished(s.pod)
		switch {
		case deadline && live:
			s.deleteReason = reasonDeadline
		case policy == cleanUpAll || (policy == cleanUpUnfinished && live):
			s.deleteReason = reasonCleanup
		}
	}
}

// ruleEntry is one `"worker":["0","1"]` entry: string ranks, as in the UC failure message (§3.1).
func ruleEntry(typ string, ranks []int32) string {
	quoted := make([]string, len(ranks))
	for i, r := range ranks {
		quoted[i] = `"` + itoa(r) + `"`
	}
	return `"` + typ + `":[` + strings.Join(quoted, ",") + "]"
}

// sortedTypes are a rule's replica types in byte order (FinishRule is a std::map).
func sortedTypes(rule finishRule) []string {
	types := make([]string, 0, len(rule))
	for t := range rule {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// ruleText is {"worker":["0"]}: types sorted, ranks in rule order.
func ruleText(rule finishRule) string {
	entries := make([]string, 0, len(rule))
	for _, t := range sortedTypes(rule) {
		entries = append(entries, ruleEntry(t, rule[t]))
	}
	return "{" + strings.Join(entries, ",") + "}"
}

// findSlot is the desired slot of a type and rank, nil if there is none.
func findSlot(slots []slot, types []typeView, typ string, rank int32) *slot {
	for i := range slots {
		if s := &slots[i]; s.desired && types[s.typeIndex].typ == typ && s.rank == rank {
			return s
		}
	}
	return nil
}

// allNamed: every replica the rule names has the outcome; an empty rule is never fulfilled,
// nor one naming a replica that does not exist.
func allNamed(slots []slot, types []typeView, rule finishRule, want outcome) bool {
	named := false
	for _, typ := range sortedTypes(rule) {
		for _, rank := range rule[typ] {
			s := findSlot(slots, types, typ, rank)
			if s == nil || s.outcome != want {
				return false
			}
			named = true
		}
	}
	return named
}

// successReachable: UC-1500, can some success rule still be fulfilled? A rule with a type but
// no ranks counts as reachable (decide_generic tests only that the rule names a type).
func successReachable(slots []slot, types []typeView, rules []finishRule) bool {
	for _, rule := range rules {
		ok := len(rule) > 0
		for typ, ranks := range rule {
			for _, rank := range ranks {
				if s := findSlot(slots, types, typ, rank); s == nil || s.outcome == outcomeFailedFinal {
					ok = false
				}
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// decideGeneric is the job's verdict from its slots, nil while it goes on (§3.1, §11 Q2).
// Failure is evaluated before success (decide_generic).
func decideGeneric(successRules, failureRules []finishRule, types []typeView,
	slots []slot) *verdict {
	var firstFailed *slot
	for i := range slots {
		if s := &slots[i]; s.desired && s.outcome == outcomeFailedFinal {
			firstFailed = s
			break
		}
	}
	if len(failureRules) == 0 {
		if firstFailed != nil { // §11 Q2: any replica failing terminally, named as a rule
			text := "The job is failed with rule: {" +
				ruleEntry(types[firstFailed.typeIndex].typ, []int32{firstFailed.rank}) + "}"
			return &verdict{failedReason: "Failed", message: text}
		}
	} else {
		for _, rule := range failureRules {
			if allNamed(slots, types, rule, outcomeFailedFinal) {
				return &verdict{failedReason: "Failed",
					message: "The job is failed with rule: " + ruleText(rule)}
			}
		}
	}
	// UC-1500: restarts exhausted and no success rule can still be fulfilled; with no
	// successRules the default "all replicas" rule is unreachable too.
	if firstFailed != nil && !successReachable(slots, types, successRules) {
		return &verdict{failedReason: "Failed", message: "The job is failed because the restarts of " +
			firstFailed.name + " are exhausted and no success rule can be fulfilled"}
	}
	return decideSuccess(successRules, types, slots)
}

// decideSuccess: any success rule whose replicas all succeeded; with none, every desired
// replica (§11 Q2).
func decideSuccess(successRules []finishRule, types []typeView, slots []slot) *verdict {
	if len(successRules) == 0 {
		some, all := false, true
		for i := range slots {
			if s := &slots[i]; s.desired {
				some = true
				all = all && s.outcome == outcomeSucceededFinal
			}
		}
		if some && all {
			return &verdict{succeeded: true, message: msgSucceeded}
		}
		return nil
	}
	for _, rule := range successRules {
		if allNamed(slots, types, rule, outcomeSucceededFinal) {
			return &verdict{succeeded: true, message: msgSucceeded}
		}
	}
	return nil
}

// itoa writes an int32 in decimal, as fmt::format("{}") does.
func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }
