package plugin

import (
	"fmt"
	"sort"
	"strings"
)

// KindRule is what the simulator needs to know of a job kind it does not know itself (one that
// is not batch.tensorstack.dev/v1beta1): the plugin declares it at initialize, with
// DeclareKind, and the simulator reads the job's shape and phase by it (docs/plugins-go.md,
// "Kinds of your own").
type KindRule struct {
	// ReplicaSpecs is the dotted path of the job's replica specs from its root, such as
	// "spec.pytorchReplicaSpecs": a map of replica type to {replicas, template} (Kubeflow's
	// form) or a list of {name, replicas, template}. The simulator reads from it the pods a
	// job asks for (its size in GPUs, what the scheduler and the outputs count); the controller
	// still decides which pods exist.
	ReplicaSpecs string
	// Phases read the job's phase from its status conditions: the phase of the first entry
	// whose condition type has status "True", in this order; Pending when none has.
	Phases []PhaseFrom
	// CanonicalOrder makes the SDK put each reconcile's writes and events of the kind in an order
	// of their own (canonicalOrder), so that a controller that makes them while ranging over a Go
	// map still gives byte-identical runs. Not sent to the simulator.
	CanonicalOrder bool
}

// PhaseFrom maps a condition type to one of the simulator's job phases: "Pending", "Running",
// "Succeeded", "Failed" or "Unknown".
type PhaseFrom struct {
	Condition string
	Phase     string
}

// KubeflowJobRule is the rule of the Kubeflow training-operator's job kinds (kubeflow.org/v1:
// PyTorchJob, TFJob, ...), whose conditions are Created, Running, Restarting, Succeeded,
// Failed; replicaSpecs names the kind's member of spec ("pytorchReplicaSpecs").
func KubeflowJobRule(replicaSpecs string) KindRule {
	return KindRule{
		ReplicaSpecs: "spec." + replicaSpecs,
		Phases: []PhaseFrom{
			{"Succeeded", "Succeeded"}, {"Failed", "Failed"},
			{"Running", "Running"}, {"Restarting", "Running"}, {"Created", "Pending"},
		},
		// The operator's ReconcileJobs ranges over the replica specs, a Go map.
		CanonicalOrder: true,
	}
}

var kindPhases = map[string]bool{
	"Pending": true, "Running": true, "Succeeded": true, "Failed": true, "Unknown": true,
}

// DeclareKind gives the rule of a registered kind of the plugin's own; the simulator refuses a
// kind it does not know unless its plugin declares it.
func (s *Server) DeclareKind(kind string, rule KindRule) error {
	e := s.kinds[kind]
	if e == nil {
		return fmt.Errorf("declare %s: register the kind first", kind)
	}
	if rule.ReplicaSpecs == "" || !strings.HasPrefix(rule.ReplicaSpecs, "spec.") {
		return fmt.Errorf("declare %s: ReplicaSpecs %q is not a path under spec (\"spec.<member>\")",
			kind, rule.ReplicaSpecs)
	}
	for _, p := range rule.Phases {
		if !kindPhases[p.Phase] {
			return fmt.Errorf("declare %s: phase %q of condition %s; allowed: Pending, Running, "+
				"Succeeded, Failed, Unknown", kind, p.Phase, p.Condition)
		}
	}
	r := rule
	e.rule = &r
	return nil
}

// declarations are the rules of the kinds asked for at initialize, as the protocol sends them.
func (s *Server) declarations(asked []string) []map[string]any {
	var out []map[string]any
	for _, k := range asked {
		e := s.kinds[k]
		if e == nil || e.rule == nil {
			continue
		}
		phases := make([]map[string]any, 0, len(e.rule.Phases))
		for _, p := range e.rule.Phases {
			phases = append(phases, map[string]any{"condition": p.Condition, "phase": p.Phase})
		}
		out = append(out, map[string]any{
			"apiVersion": e.gvk.GroupVersion().String(), "kind": e.gvk.Kind,
			"replicaSpecs": e.rule.ReplicaSpecs, "phases": phases,
		})
	}
	return out
}

// canonicalOrder puts a reconcile's writes and events in an order that does not depend on the
// order the controller made them in, for a kind whose rule asks for it (KindRule.CanonicalOrder):
// each run of consecutive actions of one type is sorted by the object's name, and the events by
// reason and message. A controller that ranges over a Go map (Kubeflow's replica types) makes
// them in a random order; on a real cluster they are concurrent calls whose order means nothing,
// but the simulator applies them in order, and binds pods in the order they were created.
func canonicalOrder(sess *session) {
	for i := 0; i < len(sess.actions); {
		j := i + 1
		for j < len(sess.actions) && sess.actions[j]["type"] == sess.actions[i]["type"] {
			j++
		}
		run := sess.actions[i:j]
		sort.SliceStable(run, func(a, b int) bool {
			return naturalLess(actionName(run[a]), actionName(run[b]))
		})
		i = j
	}
	sort.SliceStable(sess.events, func(a, b int) bool {
		ra, rb := fmt.Sprint(sess.events[a]["reason"]), fmt.Sprint(sess.events[b]["reason"])
		if ra != rb {
			return ra < rb
		}
		return naturalLess(fmt.Sprint(sess.events[a]["message"]), fmt.Sprint(sess.events[b]["message"]))
	})
}

func actionName(a map[string]any) string {
	if n, ok := a["name"].(string); ok {
		return n
	}
	for _, member := range []string{"pod", "podGroup"} {
		if n, ok := asObject(asObject(a[member])["metadata"])["name"].(string); ok {
			return n
		}
	}
	return ""
}

// naturalLess orders strings with their digit runs compared as numbers ("w-2" before "w-10").
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
