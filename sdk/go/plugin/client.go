package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// memClient is the client.Client a reconciler gets: reads come from the observation of the
// reconcile in progress (exact copies, times to the microsecond), writes become the protocol's
// actions and status. A write the simulator cannot apply fails with an error naming the call.
type memClient struct{ s *Server }

var _ client.Client = (*memClient)(nil)

func (c *memClient) session(call string) (*session, error) {
	if c.s.cur == nil {
		return nil, fmt.Errorf("%s: the t9ksim client serves reads and writes only during a "+
			"Reconcile the simulator asked for", call)
	}
	return c.s.cur, nil
}

func (c *memClient) gvkOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, c.s.scheme)
}

// copyInto sets dst (a pointer to a typed object) to a deep copy of src.
func copyInto(dst client.Object, src client.Object) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src.DeepCopyObject()).Elem())
}

// describe names a call for an error: "Create of Pod default/a-w-0".
func describe(call string, gvk schema.GroupVersionKind, obj client.Object) string {
	return fmt.Sprintf("%s of %s %s/%s", call, gvk.Kind, obj.GetNamespace(), obj.GetName())
}

// write is what every write starts from: the reconcile in progress, the object's kind and key
// (an empty namespace is the job's, as with a namespaced client) and the call's name for errors.
type write struct {
	sess *session
	gvk  schema.GroupVersionKind
	key  objKey
	what string
}

func (c *memClient) begin(call string, obj client.Object) (write, error) {
	sess, err := c.session(call)
	if err != nil {
		return write{}, err
	}
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return write{}, err
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace(sess.jobKey.Namespace)
	}
	return write{sess, gvk, objKey{gvk, obj.GetNamespace(), obj.GetName()},
		describe(call, gvk, obj)}, nil
}

// refuse records a write the simulator cannot apply; the reconcile fails with it even if the
// reconciler ignores the error.
func (sess *session) refuse(what string, format string, args ...any) error {
	err := fmt.Errorf("%s: %s", what, fmt.Sprintf(format, args...))
	if sess.failed == nil {
		sess.failed = err
	}
	return apierrors.NewBadRequest(err.Error())
}

func (c *memClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object,
	opts ...client.GetOption) error {
	sess, err := c.session("Get")
	if err != nil {
		return err
	}
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return err
	}
	o, ok := sess.objs[objKey{gvk, key.Namespace, key.Name}]
	if !ok {
		return notFound(gvk, key.Name)
	}
	copyInto(obj, o)
	return nil
}

func (c *memClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	sess, err := c.session("List")
	if err != nil {
		return err
	}
	lgvk, err := c.gvkOf(list)
	if err != nil {
		return err
	}
	gvk := lgvk.GroupVersion().WithKind(strings.TrimSuffix(lgvk.Kind, "List"))
	lo := client.ListOptions{}
	lo.ApplyOptions(opts)
	var items []runtime.Object
	for _, key := range sess.order {
		o, ok := sess.objs[key]
		if !ok || key.gvk != gvk {
			continue
		}
		match, err := c.selects(key, o, lo.Namespace, lo.LabelSelector, lo.FieldSelector)
		if err != nil {
			return err
		}
		if match {
			items = append(items, o.DeepCopyObject())
		}
	}
	return meta.SetList(list, items)
}

// selects says whether a List or DeleteAllOf with these options takes the object stored at key.
func (c *memClient) selects(key objKey, o client.Object, namespace string, ls labels.Selector,
	fs fields.Selector) (bool, error) {
	if namespace != "" && key.namespace != namespace {
		return false, nil
	}
	if ls != nil && !ls.Matches(labels.Set(o.GetLabels())) {
		return false, nil
	}
	if fs == nil {
		return true, nil
	}
	return c.matchFields(key.gvk, o, fs)
}

// matchFields evaluates a field selector with the indexes the reconciler registered, as the
// cache does (metadata.name and metadata.namespace need none).
func (c *memClient) matchFields(gvk schema.GroupVersionKind, o client.Object,
	sel fields.Selector) (bool, error) {
	for _, r := range sel.Requirements() {
		var values []string
		switch r.Field {
		case "metadata.name":
			values = []string{o.GetName()}
		case "metadata.namespace":
			values = []string{o.GetNamespace()}
		default:
			f := c.s.indexes[gvk][r.Field]
			if f == nil {
				return false, fmt.Errorf("List of %s with field selector %q: no index for field %q "+
					"(register it with Server.FieldIndexer().IndexField)", gvk.Kind, sel, r.Field)
			}
			values = f(o)
		}
		has := false
		for _, v := range values {
			has = has || v == r.Value
		}
		if has != (r.Operator != selection.NotEquals) {
			return false, nil
		}
	}
	return true, nil
}

func (c *memClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	w, err := c.begin("Create", obj)
	if err != nil {
		return err
	}
	sess, gvk, what := w.sess, w.gvk, w.what
	key := w.key
	if _, exists := sess.objs[key]; exists {
		return apierrors.NewAlreadyExists(schema.GroupResource{Group: gvk.Group,
			Resource: resourceOf(gvk)}, obj.GetName())
	}
	if obj.GetResourceVersion() != "" {
		return apierrors.NewBadRequest(what + ": resourceVersion should not be set on objects to be created")
	}
	var action map[string]any
	switch gvk {
	case podGVK:
		p, err := toPod(obj)
		if err != nil {
			return sess.refuse(what, "%v", err)
		}
		// A kind of the plugin's own may name its container as it likes (Kubeflow: "pytorch");
		// T9k's kinds keep the pods the built-in controllers make, byte for byte.
		pod, err := podToWire(p, sess.entry.rule != nil)
		if err != nil {
			return sess.refuse(what, "%v", err)
		}
		action = map[string]any{"type": "CreatePod", "pod": pod}
	case podGroupGVK:
		pg, err := objectToWire(obj)
		if err != nil {
			return sess.refuse(what, "%v", err)
		}
		action = map[string]any{"type": "CreatePodGroup", "podGroup": pg}
	default:
		if inertGVKs[gvk] {
			sess.inert = true // kept, no action: the simulator has no such objects
			break
		}
		if gvk.Kind == "TensorBoard" {
			tb, err := tensorBoardAction(obj)
			if err != nil {
				return sess.refuse(what, "%v", err)
			}
			action = tb
			break
		}
		return sess.refuse(what, "the simulator creates Pods, PodGroups and TensorBoards only "+
			"(and the SDK keeps Services, ConfigMaps and Secrets)")
	}
	if action != nil {
		sess.actions = append(sess.actions, action)
	}
	stored := obj.DeepCopyObject().(client.Object)
	stored.GetObjectKind().SetGroupVersionKind(gvk)
	sess.put(gvk, stored)
	obj.SetResourceVersion(stored.GetResourceVersion())
	return nil
}

func (c *memClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	w, err := c.begin("Delete", obj)
	if err != nil {
		return err
	}
	sess, gvk, what := w.sess, w.gvk, w.what
	if inertGVKs[gvk] {
		if _, ok := sess.objs[w.key]; !ok {
			return notFound(gvk, obj.GetName())
		}
		sess.forget(w.key)
		sess.inert = true
		return nil
	}
	if gvk != podGVK {
		return sess.refuse(what, "the simulator deletes pods only (a job's other objects go "+
			"with the job)")
	}
	stored, ok := sess.objs[w.key]
	if !ok {
		return notFound(gvk, obj.GetName())
	}
	action := map[string]any{"type": "DeletePod", "name": obj.GetName()}
	for _, o := range opts {
		if r, ok := o.(DeleteReason); ok {
			action["reason"] = string(r)
		}
	}
	sess.actions = append(sess.actions, action)
	if stored.GetDeletionTimestamp() == nil {
		// A copy: the stored object may be the one the SDK keeps between reconciles.
		next := stored.DeepCopyObject().(client.Object)
		now := sess.now()
		next.SetDeletionTimestamp(&now)
		sess.objs[w.key] = next
	}
	return nil
}

func (c *memClient) DeleteAllOf(ctx context.Context, obj client.Object,
	opts ...client.DeleteAllOfOption) error {
	sess, err := c.session("DeleteAllOf")
	if err != nil {
		return err
	}
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return err
	}
	if gvk != podGVK && !inertGVKs[gvk] {
		return sess.refuse(fmt.Sprintf("DeleteAllOf %s", gvk.Kind), "the simulator deletes pods only")
	}
	do := client.DeleteAllOfOptions{}
	do.ApplyOptions(opts)
	var reason []client.DeleteOption
	for _, o := range opts {
		if r, ok := o.(DeleteReason); ok {
			reason = append(reason, r)
		}
	}
	for _, key := range append([]objKey(nil), sess.order...) {
		o := sess.objs[key]
		if key.gvk != gvk {
			continue
		}
		match, err := c.selects(key, o, do.Namespace, do.LabelSelector, do.FieldSelector)
		if err != nil {
			return err
		}
		if !match {
			continue
		}
		if err := c.Delete(ctx, o.DeepCopyObject().(client.Object), reason...); err != nil {
			return err
		}
	}
	return nil
}

func (c *memClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.update("Update", obj, false)
}

// update applies a whole new object (Update, or the result of a Patch); status: through the
// status subresource.
func (c *memClient) update(call string, obj client.Object, status bool) error {
	w, err := c.begin(call, obj)
	if err != nil {
		return err
	}
	sess, gvk, what, key := w.sess, w.gvk, w.what, w.key
	stored, ok := sess.objs[key]
	if !ok {
		return notFound(gvk, obj.GetName())
	}
	if rv := obj.GetResourceVersion(); rv != "" && rv != stored.GetResourceVersion() {
		return apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: resourceOf(gvk)},
			obj.GetName(), fmt.Errorf("the object has been modified; please apply your changes to "+
				"the latest version and try again"))
	}
	defer func() {
		if now, ok := sess.objs[key]; ok {
			obj.SetResourceVersion(now.GetResourceVersion())
		}
	}()
	isJob := gvk == sess.entry.gvk && obj.GetName() == sess.jobKey.Name &&
		obj.GetNamespace() == sess.jobKey.Namespace
	switch {
	case isJob && status:
		return c.updateJobStatus(sess, what, obj, stored)
	case isJob:
		return c.updateJob(sess, what, obj, stored)
	case status:
		return sess.refuse(what, "the simulator takes a status from the controller for its job only")
	case inertGVKs[gvk]:
		next := obj.DeepCopyObject().(client.Object)
		next.GetObjectKind().SetGroupVersionKind(gvk)
		sess.put(gvk, next)
		sess.inert = true
		return nil
	case gvk == podGroupGVK:
		// The world keeps the PodGroup's creation time (behaviour spec §11 Q20).
		obj.SetCreationTimestamp(stored.GetCreationTimestamp())
		pg, err := objectToWire(obj)
		if err != nil {
			return sess.refuse(what, "%v", err)
		}
		sess.actions = append(sess.actions, map[string]any{"type": "UpdatePodGroup", "podGroup": pg})
		sess.put(gvk, obj.DeepCopyObject().(client.Object))
		return nil
	}
	return sess.refuse(what, "the simulator cannot change a %s in place (delete it and create "+
		"another)", gvk.Kind)
}

func (c *memClient) updateJobStatus(sess *session, what string, obj, stored client.Object) error {
	var w any = map[string]any{}
	if f := reflect.ValueOf(obj).Elem().FieldByName("Status"); f.IsValid() {
		var err error
		if w, err = encodeValue(f); err != nil {
			return sess.refuse(what, "%v", err)
		}
	}
	st, _ := w.(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	b, err := json.Marshal(st)
	if err != nil {
		return sess.refuse(what, "%v", err)
	}
	sess.status = b
	// The stored job takes the new status; its spec and metadata stay.
	next := stored.DeepCopyObject().(client.Object)
	setField(next, obj, "Status")
	sess.put(sess.entry.gvk, next)
	return nil
}

// updateJob takes a job's metadata changes (finalizers, labels, annotations: kept by the SDK, the
// simulator does not carry them); a change of its spec is refused: the spec is the scenario's.
func (c *memClient) updateJob(sess *session, what string, obj, stored client.Object) error {
	a, err := toWire(obj)
	if err != nil {
		return sess.refuse(what, "%v", err)
	}
	b, err := toWire(stored)
	if err != nil {
		return sess.refuse(what, "%v", err)
	}
	if !reflect.DeepEqual(normalize(a.(map[string]any)["spec"]), normalize(b.(map[string]any)["spec"])) {
		return sess.refuse(what, "it changes the job's spec; the simulator takes only a job's "+
			"status from its controller (Status().Update or Status().Patch)")
	}
	meta := map[string]any{}
	for _, m := range []struct {
		key string
		v   any
	}{{"finalizers", obj.GetFinalizers()}, {"labels", obj.GetLabels()},
		{"annotations", obj.GetAnnotations()}} {
		meta[m.key] = normalize(m.v)
	}
	sess.localMeta = meta
	next := stored.DeepCopyObject().(client.Object)
	next.SetFinalizers(obj.GetFinalizers())
	next.SetLabels(obj.GetLabels())
	next.SetAnnotations(obj.GetAnnotations())
	sess.put(sess.entry.gvk, next)
	return nil
}

// normalize makes a value comparable with one decoded from JSON.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// setField copies the named struct field from src to dst (two objects of one type).
func setField(dst, src client.Object, name string) {
	d := reflect.ValueOf(dst).Elem().FieldByName(name)
	s := reflect.ValueOf(src).Elem().FieldByName(name)
	if d.IsValid() && s.IsValid() {
		d.Set(reflect.ValueOf(deepCopyValue(s.Interface())))
	}
}

// deepCopyValue copies a status value through its DeepCopy method when it has one.
func deepCopyValue(v any) any {
	m := reflect.ValueOf(&v).Elem().Elem()
	p := reflect.New(m.Type())
	p.Elem().Set(m)
	if dc := p.MethodByName("DeepCopy"); dc.IsValid() {
		return dc.Call(nil)[0].Elem().Interface()
	}
	return v
}

func (c *memClient) Patch(ctx context.Context, obj client.Object, patch client.Patch,
	opts ...client.PatchOption) error {
	return c.patch("Patch", obj, patch, false)
}

// patch applies a patch to the stored object as an API server would, then updates with the
// result. Times in a patch body are at the second (metav1.Time's JSON), as on a real server.
func (c *memClient) patch(call string, obj client.Object, patch client.Patch, status bool) error {
	w, err := c.begin(call, obj)
	if err != nil {
		return err
	}
	sess, gvk, what := w.sess, w.gvk, w.what
	stored, ok := sess.objs[w.key]
	if !ok {
		return notFound(gvk, obj.GetName())
	}
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	cur, err := toWire(stored)
	if err != nil {
		return err
	}
	curJSON, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	var out []byte
	switch patch.Type() {
	case types.MergePatchType:
		out, err = jsonpatch.MergePatch(curJSON, data)
	case types.JSONPatchType:
		var p jsonpatch.Patch
		if p, err = jsonpatch.DecodePatch(data); err == nil {
			out, err = p.Apply(curJSON)
		}
	case types.StrategicMergePatchType:
		out, err = strategicpatch.StrategicMergePatch(curJSON, data, stored.DeepCopyObject())
	default:
		return sess.refuse(what, "patch type %s is not supported by the t9ksim client", patch.Type())
	}
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("%s: %v", what, err))
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return err
	}
	next, err := c.s.typed(gvk, m)
	if err != nil {
		return err
	}
	if err := c.update(call, next, status); err != nil {
		return err
	}
	copyInto(obj, sess.objs[w.key])
	return nil
}

func (c *memClient) Status() client.SubResourceWriter { return statusWriter{c} }

func (c *memClient) SubResource(sub string) client.SubResourceClient {
	return subResource{c: c, name: sub}
}

func (c *memClient) Scheme() *runtime.Scheme { return c.s.scheme }

func (c *memClient) RESTMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for gvk := range c.s.scheme.AllKnownTypes() {
		m.Add(gvk, meta.RESTScopeNamespace)
	}
	return m
}

func (c *memClient) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	return c.gvkOf(obj)
}

func (c *memClient) IsObjectNamespaced(obj runtime.Object) (bool, error) { return true, nil }

// objectToWire is an object as the simulator reads it: without the resource version, which
// exists only within a reconcile.
func objectToWire(obj client.Object) (any, error) {
	w, err := toWire(obj)
	if m, ok := w.(map[string]any); ok {
		if meta, ok := m["metadata"].(map[string]any); ok {
			delete(meta, "resourceVersion")
		}
	}
	return w, err
}
