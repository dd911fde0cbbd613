package plugin

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var (
	podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	// Kinds the SDK keeps for a job without telling the simulator, which models no networking or
	// configuration: a controller's Services, ConfigMaps and Secrets exist for its later reads
	// (a training operator's headless Service per replica), and do nothing else.
	inertGVKs = map[schema.GroupVersionKind]bool{{Version: "v1", Kind: "Service"}: true,
		{Version: "v1", Kind: "ConfigMap"}: true, {Version: "v1", Kind: "Secret"}: true}
	podGroupGVK = schema.GroupVersionKind{Group: "scheduler.tensorstack.dev", Version: "v1beta1",
		Kind: "PodGroup"}
)

type objKey struct {
	gvk             schema.GroupVersionKind
	namespace, name string
}

// session is one reconcile: the objects of the observation, typed, and what the reconciler
// wrote, as the protocol's answer.
type session struct {
	s         *Server
	entry     *kindEntry
	jobKey    types.NamespacedName
	objs      map[objKey]client.Object
	order     []objKey // insertion order: pods in the world's creation order
	actions   []map[string]any
	status    json.RawMessage // the status written, as JSON text; nil: unchanged
	localMeta map[string]any
	failed    error // a write the simulator cannot apply: the reconcile fails with it
	version   int64 // the last resource version given out
	events    []map[string]any
	inert     bool // a Service, ConfigMap or Secret was written: keptJob.inert to save
}

func (s *Server) typed(gvk schema.GroupVersionKind, m map[string]any) (client.Object, error) {
	o, err := s.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not a client.Object", gvk)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, obj); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

func newSession(s *Server, e *kindEntry, k *keptJob) (*session, error) {
	sess := &session{s: s, entry: e, objs: map[objKey]client.Object{}, localMeta: nil}
	job, err := s.typedJob(e, k)
	if err != nil {
		return nil, fmt.Errorf("the job: %w", err)
	}
	sess.jobKey = types.NamespacedName{Namespace: job.GetNamespace(), Name: job.GetName()}
	sess.put(e.gvk, job)
	for i, pm := range k.pods {
		if k.typedPods[i] == nil {
			pod, err := podFromWire(pm)
			if err != nil {
				return nil, err
			}
			pod.SetGroupVersionKind(podGVK)
			k.typedPods[i] = pod
		}
		// The kept object itself: reads hand out copies, and a write replaces it (copy on write).
		sess.put(podGVK, k.typedPods[i])
	}
	if k.podGroup != nil && s.scheme.Recognizes(podGroupGVK) {
		if k.typedPodGroup == nil {
			pg, err := s.typed(podGroupGVK, k.podGroup)
			if err != nil {
				return nil, fmt.Errorf("the PodGroup: %w", err)
			}
			k.typedPodGroup = pg
		}
		sess.put(podGroupGVK, k.typedPodGroup)
	}
	for _, o := range k.inert {
		sess.put(o.GetObjectKind().GroupVersionKind(), o) // kept objects: written by replacing
	}
	return sess, nil
}

// inertObjects are the session's Services, ConfigMaps and Secrets, in creation order.
func (sess *session) inertObjects() []client.Object {
	var out []client.Object
	for _, key := range sess.order {
		if o, ok := sess.objs[key]; ok && inertGVKs[key.gvk] {
			out = append(out, o)
		}
	}
	return out
}

// forget removes an object the reconcile deleted from its reads.
func (sess *session) forget(key objKey) {
	delete(sess.objs, key)
	for i, k := range sess.order {
		if k == key {
			sess.order = append(sess.order[:i], sess.order[i+1:]...)
			break
		}
	}
}

// put stores obj with a new resource version, which it also gets: as on an API server, every
// write gives the object a new one, and a write based on an older one is a Conflict. The versions
// live only within one reconcile (the simulator has none); they count from 1 in load order, so
// they are the same run after run.
// typedJob is the job with its status and the SDK's own metadata, as a typed object of its own
// (the reconciler may change it): decoded from what is kept only when that changed.
func (s *Server) typedJob(e *kindEntry, k *keptJob) (client.Object, error) {
	if k.typedJob == nil {
		jm := deepCopyJSON(k.job).(map[string]any)
		if k.localMeta != nil {
			meta, _ := jm["metadata"].(map[string]any)
			for key, v := range k.localMeta {
				meta[key] = deepCopyJSON(v)
			}
		}
		job, err := s.typed(e.gvk, jm)
		if err != nil {
			return nil, err
		}
		k.typedJob = job
	}
	job := k.typedJob.DeepCopyObject().(client.Object)
	status := reflect.ValueOf(job).Elem().FieldByName("Status")
	if k.status == nil || !status.IsValid() {
		return job, nil
	}
	// A status type without DeepCopy cannot be copied safely: decoded afresh each time.
	_, copyable := reflect.PointerTo(status.Type()).MethodByName("DeepCopy")
	if k.typedStatus == nil || !copyable {
		p := reflect.New(status.Type())
		if err := json.Unmarshal(k.status, p.Interface()); err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
		if !copyable {
			status.Set(p.Elem())
			return job, nil
		}
		k.typedStatus = p.Elem().Interface()
	}
	status.Set(reflect.ValueOf(deepCopyValue(k.typedStatus)))
	return job, nil
}

func (sess *session) put(gvk schema.GroupVersionKind, obj client.Object) {
	sess.version++
	obj.SetResourceVersion(strconv.FormatInt(sess.version, 10))
	key := objKey{gvk, obj.GetNamespace(), obj.GetName()}
	if _, ok := sess.objs[key]; !ok {
		sess.order = append(sess.order, key)
	}
	sess.objs[key] = obj
}

func (sess *session) now() metav1.Time { return metav1.NewTime(simNow()) }

func notFound(gvk schema.GroupVersionKind, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: resourceOf(gvk)},
		name)
}

// resourceOf is the plural resource name of a kind, as the API server would name it.
func resourceOf(gvk schema.GroupVersionKind) string {
	return strings.ToLower(gvk.Kind) + "s"
}
