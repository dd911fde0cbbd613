package genericjob

import (
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"t9ksim.dev/sdk/plugin"
)

// missingExitCode is what a Failed pod's missing exit code reads as: SIGKILL, "stopped by the
// system" (§1.3; the world's contract 4, docs/plugins.md §3; exit_code_of in
// controllers/detail/slots.hpp).
const missingExitCode int32 = 137

// observedPod is what the controller reads of one of its pods (protocol/objects.cpp decode_pod).
type observedPod struct {
	name        string
	uid         string
	job         string
	replicaType string
	rank        int32
	phase       corev1.PodPhase
	nodeName    string
	terminating bool // metadata.deletionTimestamp is set
	// exitCode and finishedAt: of the first terminated container (decode_pod).
	exitCode       *int32
	finishedAt     *time.Time
	deletionReason string
}

// exitCodeOrKill: a Failed pod always carries an exit code; a missing one reads as 137.
func (p *observedPod) exitCodeOrKill() int32 {
	if p.exitCode == nil {
		return missingExitCode
	}
	return *p.exitCode
}

// observePod reads a pod as the simulator stores it (docs/protocol.md §6.2): what the world
// keeps beyond Kubernetes reaches the controller as the adapter's sim.t9ksim.io/ annotations.
// job is the owning job's name: the simulator's, else the controller owner reference's.
func observePod(pod *corev1.Pod) observedPod {
	o := observedPod{
		name:           pod.Name,
		uid:            string(pod.UID),
		job:            pod.Annotations[plugin.AnnotationJob],
		replicaType:    pod.Annotations[plugin.AnnotationReplicaType],
		phase:          pod.Status.Phase,
		nodeName:       pod.Spec.NodeName,
		terminating:    pod.DeletionTimestamp != nil,
		deletionReason: plugin.DeletionReason(pod),
	}
	if o.job == "" {
		if owner := metav1.GetControllerOf(pod); owner != nil {
			o.job = owner.Name
		}
	}
	if rank, err := strconv.ParseInt(pod.Annotations[plugin.AnnotationRank], 10, 32); err == nil {
		o.rank = int32(rank)
	}
	if o.phase == "" {
		o.phase = corev1.PodPending
	}
	// decode_pod: the first terminated container gives the exit code and the finish time.
	for i := range pod.Status.ContainerStatuses {
		term := pod.Status.ContainerStatuses[i].State.Terminated
		if term == nil {
			continue
		}
		code := term.ExitCode
		o.exitCode = &code
		if !term.FinishedAt.IsZero() {
			at := term.FinishedAt.Time
			o.finishedAt = &at
		}
		break
	}
	return o
}

// typeView is one replica spec (detail::TypeView for a GenericJob).
type typeView struct {
	typ      string
	replicas int32
	policy   string // Never, OnFailure, Always or ExitCode (§2.1)
	limit    int32
	template *corev1.PodTemplateSpec
}

// outcome is where a replica slot stands after this step's decisions (detail::Outcome).
type outcome int

const (
	outcomeMissing        outcome = iota // no pod: create one
	outcomeTerminating                   // pod on its way out: wait, then recreate
	outcomeActive                        // Pending, Running or Unknown
	outcomeSucceededFinal                // exited 0 and will not be restarted
	outcomeFailedFinal                   // failed, no restart: "failed" for rules (§3.1 [INFERRED])
	outcomeRestart                       // deleted now, to be replaced: a counted restart (§11 Q4)
	outcomeRecreate                      // maxDuration pod deleted and recreated, uncounted (§11 Q12)
	outcomeBackoffWait                   // restart decided, waiting out the back-off (§11 Q5)
	outcomeScaledDown                    // a rank beyond the desired ones: deleted now
)

// The deletion reasons this controller gives (docs/protocol.md §6.2).
const (
	reasonCleanup   = "Cleanup"
	reasonDeadline  = "Deadline"
	reasonPause     = "Pause"
	reasonRestart   = "Restart"
	reasonScaleDown = "ScaleDown"
	// reasonMaxDuration is the world's: a pod stopped by its queue's maxDuration (§11 Q12).
	reasonMaxDuration = "MaxDuration"
)

// slot is one replica slot (detail::Slot): a desired rank, or a rank beyond them with a pod.
type slot struct {
	typeIndex    int
	rank         int32
	name         string
	pod          *observedPod
	desired      bool
	prevRestarts int32
	restarts     int32 // counted restarts of this rank (§11 Q3)
	outcome      outcome
	create       bool
	deleteReason string // the deletion decided in this step; "" for none
}

// replicaName is "<job>-<type>-<rank>" (§2.3 [INFERRED] naming, detail::replica_name).
func replicaName(job, typ string, rank int32) string {
	return job + "-" + typ + "-" + itoa(rank)
}

// priorCounts are the restart counts the previous status carries for one replica type: the
// type's (tasks[].restartCount of the last task of the type) and each rank's (the first replica
// of a name).
type priorCounts struct {
	task  int32
	ranks map[string]int32
}

// observation is the replica slots of a job and what else observe finds.
type observation struct {
	slots []slot
	// stray are the pods of a replica type no longer in the spec, not terminating, by name.
	stray []string
	// typePrev: each type's counted restarts before this step.
	typePrev []int32
}

// observe builds the slots = desired ranks plus ranks that still have a pod (§1.3;
// Reconcile::observe and observe_type). pods are in the world's creation order; prior holds
// the previous status's counts by replica type (nil: none).
func observe(job string, types []typeView, pods []observedPod, prior []*priorCounts) observation {
	// The job's pods by name; of two with one name the first in creation order counts.
	byName := map[string]*observedPod{}
	var names []string
	for i := range pods {
		p := &pods[i]
		if p.job != job {
			continue
		}
		if _, dup := byName[p.name]; !dup {
			byName[p.name] = p
			names = append(names, p.name)
		}
	}
	sort.Strings(names) // std::string's byte order, as Go compares strings
	known := map[string]bool{}
	for _, t := range types {
		known[t.typ] = true
	}
	var obs observation
	for _, n := range names {
		if p := byName[n]; !known[p.replicaType] && !p.terminating {
			obs.stray = append(obs.stray, n)
		}
	}
	obs.typePrev = make([]int32, len(types))
	for ti := range types {
		if prior[ti] != nil {
			obs.typePrev[ti] = prior[ti].task
		}
		obs.slots = append(obs.slots, observeType(job, ti, types, byName, names, prior[ti])...)
	}
	return obs
}

// observeType gives the slots of one replica type: its desired ranks in order, then the ranks
// beyond them that have a pod, by rank (of several pods with one rank the first by name).
func observeType(job string, ti int, types []typeView, byName map[string]*observedPod,
	names []string, prior *priorCounts) []slot {
	t := types[ti]
	prevRestarts := func(name string) int32 {
		if prior == nil {
			return 0
		}
		return prior.ranks[name]
	}
	var out []slot
	for rank := int32(0); rank < t.replicas; rank++ {
		name := replicaName(job, t.typ, rank)
		r := prevRestarts(name)
		out = append(out, slot{typeIndex: ti, rank: rank, name: name, pod: byName[name],
			desired: true, prevRestarts: r, restarts: r})
	}
	// Pods of a duplicated type count for each of its specs, as in observe_type.
	extra := map[int32]*observedPod{}
	var ranks []int32
	for _, n := range names {
		p := byName[n]
		if p.replicaType != t.typ || p.rank < t.replicas {
			continue
		}
		if _, seen := extra[p.rank]; !seen {
			extra[p.rank] = p
			ranks = append(ranks, p.rank)
		}
	}
	sort.Slice(ranks, func(i, j int) bool { return ranks[i] < ranks[j] })
	for _, rank := range ranks {
		p := extra[rank]
		r := prevRestarts(p.name)
		out = append(out, slot{typeIndex: ti, rank: rank, name: p.name, pod: p, prevRestarts: r,
			restarts: r})
	}
	return out
}
