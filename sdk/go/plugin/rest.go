package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RESTConfig returns a rest.Config whose requests the server answers in process from the
// reconcile in progress, through the same client as Client(): for controllers that also build a
// client-go clientset (kubernetes.NewForConfig) or another REST client. Get, list (label and
// field selectors), create, update, patch and delete of the types in the scheme, and the status
// subresource; their writes become actions exactly as the client's do. Watches, and calls
// outside a reconcile, are errors that say so. Bodies are JSON (client-go's default).
func (s *Server) RESTConfig() *rest.Config {
	// No client-side rate limit: client-go's default (5 a second) waits on the wall clock while
	// it reads time.Now, which is the simulated time, standing still within a reconcile.
	return &rest.Config{Host: "http://t9ksim.invalid", Transport: restTransport{s: s},
		ContentConfig: rest.ContentConfig{ContentType: "application/json"},
		RateLimiter:   flowcontrol.NewFakeAlwaysRateLimiter()}
}

type restTransport struct{ s *Server }

// restResources maps the scheme's resources to their kinds, built once: the scheme's types are
// all registered before the server serves (AllKnownTypes copies its map on every call).
func (s *Server) restResources() map[schema.GroupVersionResource]schema.GroupVersionKind {
	s.restOnce.Do(func() {
		s.restIndex = map[schema.GroupVersionResource]schema.GroupVersionKind{}
		for gvk := range s.scheme.AllKnownTypes() {
			if !strings.HasSuffix(gvk.Kind, "List") {
				plural, _ := meta.UnsafeGuessKindToResource(gvk)
				s.restIndex[plural] = gvk
			}
		}
	})
	return s.restIndex
}

// restTarget is what a request's path names: /api/v1/namespaces/NS/pods/NAME/status, or
// /apis/GROUP/VERSION/...; an empty name is the collection.
type restTarget struct {
	gvk       schema.GroupVersionKind
	namespace string
	name      string
	sub       string
}

func (t restTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	status, body := t.serve(req)
	return &http.Response{StatusCode: status, Status: http.StatusText(status),
		Header:  http.Header{"Content-Type": []string{"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(body)),
		Request: req, ProtoMajor: 1, ProtoMinor: 1}, nil
}

func (t restTransport) serve(req *http.Request) (int, []byte) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	target, err := t.parse(req.URL.Path)
	if err != nil {
		return fail(apierrors.NewNotFound(schema.GroupResource{}, req.URL.Path))
	}
	var in []byte
	if req.Body != nil {
		if in, err = io.ReadAll(req.Body); err != nil {
			return fail(apierrors.NewBadRequest(err.Error()))
		}
	}
	if ct := req.Header.Get("Content-Type"); len(in) > 0 && !strings.Contains(ct, "json") {
		return fail(apierrors.NewBadRequest(fmt.Sprintf("content type %q: the t9ksim client "+
			"reads JSON bodies only (client-go's default)", ct)))
	}
	out, code, err := t.do(req, target, in)
	if err != nil {
		return fail(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fail(apierrors.NewInternalError(err))
	}
	return code, b
}

// parse maps a path to the scheme's kind by its resource (the lower-case plural of the kind, as
// Kubernetes names them: pods, services, podgroups).
func (t restTransport) parse(path string) (restTarget, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var gv schema.GroupVersion
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		gv, parts = schema.GroupVersion{Version: parts[1]}, parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		gv, parts = schema.GroupVersion{Group: parts[1], Version: parts[2]}, parts[3:]
	default:
		return restTarget{}, fmt.Errorf("%s: not a path of the Kubernetes API", path)
	}
	var tg restTarget
	if len(parts) >= 2 && parts[0] == "namespaces" {
		tg.namespace, parts = parts[1], parts[2:]
	}
	if len(parts) == 0 || len(parts) > 3 {
		return restTarget{}, fmt.Errorf("%s: no resource of a namespace", path)
	}
	tg.gvk = t.s.restResources()[gv.WithResource(parts[0])]
	if tg.gvk.Kind == "" {
		return restTarget{}, fmt.Errorf("%s: the t9ksim client has no resource %q in %s", path,
			parts[0], gv)
	}
	if len(parts) > 1 {
		tg.name = parts[1]
	}
	if len(parts) > 2 {
		tg.sub = parts[2]
	}
	return tg, nil
}

func (t restTransport) object(gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := t.s.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", gvk.Kind)
	}
	return obj, nil
}

// do serves one request with the client; the answer is the object (or list) and its status code.
func (t restTransport) do(req *http.Request, tg restTarget, in []byte) (any, int, error) {
	c, ctx := t.s.client, req.Context()
	if tg.sub != "" && tg.sub != "status" {
		if req.Method == http.MethodGet {
			return nil, 0, apierrors.NewNotFound(schema.GroupResource{Resource: tg.sub}, tg.name)
		}
		// An eviction or a binding: a write the simulator cannot apply fails the reconcile, as the
		// client's do, rather than looking like an object already gone.
		call := fmt.Sprintf("%s of %s %s/%s/%s", req.Method, tg.gvk.Kind, tg.namespace, tg.name, tg.sub)
		sess, err := c.session(call)
		if err != nil {
			return nil, 0, err
		}
		return nil, 0, sess.refuse(call, "the simulator has no %s subresource", tg.sub)
	}
	q := req.URL.Query()
	if tg.name == "" {
		return t.collection(req, tg, q, in)
	}
	obj, err := t.object(tg.gvk)
	if err != nil {
		return nil, 0, err
	}
	obj.SetName(tg.name)
	obj.SetNamespace(tg.namespace)
	switch req.Method {
	case http.MethodGet:
		err = c.Get(ctx, client.ObjectKey{Namespace: tg.namespace, Name: tg.name}, obj)
	case http.MethodPut:
		if err = json.Unmarshal(in, obj); err != nil {
			return nil, 0, apierrors.NewBadRequest(err.Error())
		}
		if tg.sub == "status" {
			err = c.Status().Update(ctx, obj)
		} else {
			err = c.Update(ctx, obj)
		}
	case http.MethodPatch:
		p := client.RawPatch(types.PatchType(req.Header.Get("Content-Type")), in)
		if tg.sub == "status" {
			err = c.Status().Patch(ctx, obj, p)
		} else {
			err = c.Patch(ctx, obj, p)
		}
	case http.MethodDelete:
		if err = c.Delete(ctx, obj); err == nil {
			return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusSuccess}, http.StatusOK, nil
		}
	default:
		return nil, 0, apierrors.NewMethodNotSupported(schema.GroupResource{Resource: tg.gvk.Kind},
			req.Method)
	}
	if err != nil {
		return nil, 0, err
	}
	obj.GetObjectKind().SetGroupVersionKind(tg.gvk)
	return obj, http.StatusOK, nil
}

func (t restTransport) collection(req *http.Request, tg restTarget, q url.Values,
	in []byte) (any, int, error) {
	c, ctx := t.s.client, req.Context()
	var opts []client.ListOption
	if tg.namespace != "" {
		opts = append(opts, client.InNamespace(tg.namespace))
	}
	if s := q.Get("labelSelector"); s != "" {
		sel, err := labels.Parse(s)
		if err != nil {
			return nil, 0, apierrors.NewBadRequest(err.Error())
		}
		opts = append(opts, client.MatchingLabelsSelector{Selector: sel})
	}
	if s := q.Get("fieldSelector"); s != "" {
		sel, err := fields.ParseSelector(s)
		if err != nil {
			return nil, 0, apierrors.NewBadRequest(err.Error())
		}
		opts = append(opts, client.MatchingFieldsSelector{Selector: sel})
	}
	switch req.Method {
	case http.MethodGet:
		if q.Get("watch") == "true" || q.Get("watch") == "1" {
			return nil, 0, apierrors.NewMethodNotSupported(
				schema.GroupResource{Resource: tg.gvk.Kind}, "watch (the simulator decides when "+
					"a job is reconciled)")
		}
		lo, err := t.s.scheme.New(tg.gvk.GroupVersion().WithKind(tg.gvk.Kind + "List"))
		if err != nil {
			return nil, 0, err
		}
		list := lo.(client.ObjectList)
		if err := c.List(ctx, list, opts...); err != nil {
			return nil, 0, err
		}
		list.GetObjectKind().SetGroupVersionKind(tg.gvk.GroupVersion().WithKind(tg.gvk.Kind + "List"))
		return list, http.StatusOK, nil
	case http.MethodPost:
		obj, err := t.object(tg.gvk)
		if err != nil {
			return nil, 0, err
		}
		if err := json.Unmarshal(in, obj); err != nil {
			return nil, 0, apierrors.NewBadRequest(err.Error())
		}
		if obj.GetNamespace() == "" {
			obj.SetNamespace(tg.namespace)
		}
		if err := c.Create(ctx, obj); err != nil {
			return nil, 0, err
		}
		obj.GetObjectKind().SetGroupVersionKind(tg.gvk)
		return obj, http.StatusCreated, nil
	case http.MethodDelete:
		obj, err := t.object(tg.gvk)
		if err != nil {
			return nil, 0, err
		}
		var dopts []client.DeleteAllOfOption
		for _, o := range opts {
			if d, ok := o.(client.DeleteAllOfOption); ok {
				dopts = append(dopts, d)
			}
		}
		if err := c.DeleteAllOf(ctx, obj, dopts...); err != nil {
			return nil, 0, err
		}
		return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusSuccess}, http.StatusOK, nil
	}
	return nil, 0, apierrors.NewMethodNotSupported(schema.GroupResource{Resource: tg.gvk.Kind},
		req.Method)
}

// fail answers an error as the API server does: its Status, with its code.
func fail(err error) (int, []byte) {
	st := apierrors.NewInternalError(err).ErrStatus
	st.Message = err.Error()
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		st = api.Status()
	}
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	st.Status = metav1.StatusFailure
	b, _ := json.Marshal(st)
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	return code, b
}
