package plugin

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// A watch of a job's objects of one kind, with the predicates a manager's watch would run.
type watchEntry struct {
	gvk schema.GroupVersionKind
	p   predicate.Predicate
}

// seenObject is an object of a watched kind as the watch last delivered it.
type seenObject struct {
	key objKey
	obj client.Object
}

// Watch delivers to p the events a manager's watch of obj's kind would, for the objects of each
// job (its pods as the simulator sends them, the Services, ConfigMaps and Secrets the SDK keeps
// for it): before a job is reconciled, Create for each object that appeared since its last
// reconcile, Update for each that changed, Delete for each that went, in that order and in the
// objects' creation order. What p returns is not used: the simulator decides when a job is
// reconciled. A controller that counts what its informers have seen (the expectations of
// Kubeflow's training-operator) needs this; most need no watch.
func (s *Server) Watch(obj client.Object, p predicate.Predicate) error {
	gvk, err := apiutil.GVKForObject(obj, s.scheme)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if gvk != podGVK && !inertGVKs[gvk] {
		return fmt.Errorf("watch %s: the SDK delivers events for pods, Services, ConfigMaps and "+
			"Secrets only", gvk.Kind)
	}
	s.watches = append(s.watches, watchEntry{gvk: gvk, p: p})
	return nil
}

func (s *Server) watched(gvk schema.GroupVersionKind) []predicate.Predicate {
	var out []predicate.Predicate
	for _, w := range s.watches {
		if w.gvk == gvk {
			out = append(out, w.p)
		}
	}
	return out
}

// deliver sends the watches the events of the job's objects since its last reconcile.
func (s *Server) deliver(k *keptJob, sess *session) {
	if len(s.watches) == 0 {
		return
	}
	var now []seenObject
	for _, key := range sess.order {
		if o, ok := sess.objs[key]; ok && len(s.watched(key.gvk)) > 0 {
			now = append(now, seenObject{key, o.DeepCopyObject().(client.Object)})
		}
	}
	before := map[objKey]client.Object{}
	for _, x := range k.seen {
		before[x.key] = x.obj
	}
	for _, x := range now {
		old, ok := before[x.key]
		for _, p := range s.watched(x.key.gvk) {
			if !ok {
				p.Create(event.CreateEvent{Object: x.obj})
			} else if changed(old, x.obj) {
				p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: x.obj})
			}
		}
		delete(before, x.key)
	}
	for _, x := range k.seen {
		if _, gone := before[x.key]; gone {
			for _, p := range s.watched(x.key.gvk) {
				p.Delete(event.DeleteEvent{Object: x.obj})
			}
		}
	}
	k.seen = now
}

// changed says whether a watched object differs from what the watch last saw, apart from its
// resource version: the SDK numbers versions afresh in each reconcile (session.put), so an
// object nobody wrote may carry another one, which no informer would report as an update.
func changed(old, now client.Object) bool {
	o := old.DeepCopyObject().(client.Object)
	o.SetResourceVersion(now.GetResourceVersion())
	return !equality.Semantic.DeepEqual(o, now)
}
