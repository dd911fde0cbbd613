package plugin

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// eventRecorder sends the events recorded during a reconcile with its answer (events.jsonl, with
// --events, docs/protocol.md §5) and writes every event to the plugin's log with the simulated
// time (those recorded outside a reconcile go there only).
type eventRecorder struct {
	s         *Server
	component string
}

func (r *eventRecorder) Event(obj runtime.Object, eventtype, reason, message string) {
	name := ""
	if o, ok := obj.(client.Object); ok {
		name = o.GetNamespace() + "/" + o.GetName()
	}
	fmt.Fprintf(r.s.log, "event t=%s %s %s %s %s: %s\n", formatTime(simNow()), r.component, name,
		eventtype, reason, message)
	if sess := r.s.cur; sess != nil {
		sess.events = append(sess.events, map[string]any{"type": eventtype, "reason": reason,
			"message": message})
	}
}

func (r *eventRecorder) Eventf(obj runtime.Object, eventtype, reason, format string, args ...any) {
	r.Event(obj, eventtype, reason, fmt.Sprintf(format, args...))
}

func (r *eventRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventtype,
	reason, format string, args ...any) {
	r.Eventf(obj, eventtype, reason, format, args...)
}
