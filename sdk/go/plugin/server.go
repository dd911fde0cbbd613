// Package plugin serves controller-runtime reconcilers as a t9ksim controller plugin: the
// simulator's observations are loaded into an in-memory client, the reconciler runs as it would
// against an API server, and what it wrote becomes the protocol's answer (docs/plugins-go.md;
// the wire: docs/protocol.md, docs/protocol-v2.md).
package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Server serves the reconcilers registered with it, one per job kind, over the simulator's
// protocol version 2 on stdin and stdout. Its methods are not safe for concurrent use: the
// protocol is lock-step and reconciles run one at a time.
type Server struct {
	scheme  *runtime.Scheme
	kinds   map[string]*kindEntry
	names   []string // registered kinds, sorted
	name    string
	options ControllerOptions
	jobs    map[string]*keptJob // by uid
	indexes map[schema.GroupVersionKind]map[string]client.IndexerFunc
	client  *memClient
	cur     *session // the reconcile in progress
	log     io.Writer
	logger  *logr.Logger // nil: one writing to log (the plugin's log file)

	watches []watchEntry // Watch (watch.go)

	restOnce  sync.Once // RESTConfig's index of resources (rest.go)
	restIndex map[schema.GroupVersionResource]schema.GroupVersionKind
}

type kindEntry struct {
	kind string
	gvk  schema.GroupVersionKind
	r    reconcile.Reconciler
	rule *KindRule // a kind of the plugin's own (kinds.go), nil for T9k's
}

// NewServer returns a server whose client reads and writes the types of scheme (give it
// client-go's scheme, for pods, and the job kinds' and PodGroup's API types).
func NewServer(scheme *runtime.Scheme) *Server {
	s := &Server{scheme: scheme, kinds: map[string]*kindEntry{}, jobs: map[string]*keptJob{},
		indexes: map[schema.GroupVersionKind]map[string]client.IndexerFunc{}, log: os.Stderr}
	s.client = &memClient{s: s}
	return s
}

// SetLogger sets the logger Serve installs as controller-runtime's (log.SetLogger) and puts in
// each reconcile's context. Without it: the plugin's log (its stderr, OUT/plugins/NAME.log),
// verbosity 0, without wall-clock timestamps, so that the log is the same run after run.
func (s *Server) SetLogger(l logr.Logger) { s.logger = &l }

// SetName sets the name the plugin gives itself at initialize.
func (s *Server) SetName(name string) { s.name = name }

// Client is the client to give the reconcilers: it reads and writes the observation of the
// reconcile in progress.
func (s *Server) Client() client.Client { return s.client }

// Scheme is the scheme the server was made with.
func (s *Server) Scheme() *runtime.Scheme { return s.scheme }

// Clock reads the simulated time of the reconcile in progress.
func (s *Server) Clock() clock.PassiveClock { return simClock{} }

// Options are the scenario's controller options (valid once the simulator has initialized the
// plugin, that is during every reconcile).
func (s *Server) Options() ControllerOptions { return s.options }

// FieldIndexer lets a reconciler's setup register the field indexes its Lists use, as it would
// with mgr.GetFieldIndexer().
func (s *Server) FieldIndexer() client.FieldIndexer { return indexer{s} }

// EventRecorder records the reconciler's events into the plugin's log (OUT/plugins/NAME.log),
// one line each, with the simulated time.
func (s *Server) EventRecorder(component string) record.EventRecorder {
	return &eventRecorder{s: s, component: component}
}

// Register serves kind (as the simulator names it: "GenericJob", "PyTorchTrainingJob",
// "DeepSpeedJob") with r; obj is an object of the kind's Go type, registered in the scheme.
func (s *Server) Register(kind string, obj client.Object, r reconcile.Reconciler) error {
	gvk, err := apiutil.GVKForObject(obj, s.scheme)
	if err != nil {
		return fmt.Errorf("register %s: %w", kind, err)
	}
	if gvk.Kind != kind {
		return fmt.Errorf("register %s: the object given is a %s", kind, gvk.Kind)
	}
	if _, dup := s.kinds[kind]; dup {
		return fmt.Errorf("register %s: already registered", kind)
	}
	s.kinds[kind] = &kindEntry{kind: kind, gvk: gvk, r: r}
	s.names = append(s.names, kind)
	sort.Strings(s.names)
	return nil
}

// Serve answers the simulator on stdin/stdout until it shuts the plugin down or closes stdin.
// With T9KSIM_SDK_CPUPROFILE=FILE in its environment it writes a CPU profile of the whole
// session there (go tool pprof), to see where a controller's time goes.
func (s *Server) Serve() error {
	if path := os.Getenv("T9KSIM_SDK_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	return s.ServeIO(os.Stdin, os.Stdout)
}

// ServeIO is Serve on the given streams.
func (s *Server) ServeIO(in io.Reader, out io.Writer) error {
	if len(s.kinds) == 0 {
		return errors.New("no reconciler registered")
	}
	if s.logger == nil {
		w := s.log
		l := funcr.New(func(prefix, args string) {
			if prefix != "" {
				fmt.Fprintf(w, "%s: %s\n", prefix, args)
			} else {
				fmt.Fprintln(w, args)
			}
		}, funcr.Options{})
		s.logger = &l
	}
	logf.SetLogger(*s.logger)
	c := newConn(in, out)
	for {
		line, err := c.read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil || req.Method == "" {
			if err := c.replyError(req.ID, codeParse, "not a JSON-RPC request"); err != nil {
				return err
			}
			continue
		}
		result, err := s.dispatch(&req)
		if err != nil {
			code := codeInternal
			var we *wireError
			if errors.As(err, &we) {
				code = we.code
			}
			if err := c.replyError(req.ID, code, err.Error()); err != nil {
				return err
			}
			continue
		}
		if err := c.reply(req.ID, result); err != nil {
			return err
		}
		if req.Method == "shutdown" {
			return nil
		}
	}
}

func (s *Server) dispatch(req *request) (any, error) {
	switch req.Method {
	case "initialize":
		return s.initialize(req.Params)
	case "reconcile":
		return s.reconcileBatch(req.Params)
	case "shutdown":
		return nil, nil
	}
	return nil, &wireError{codeMethodNotFound, fmt.Sprintf("a controller does not serve %q", req.Method)}
}

type initializeParams struct {
	ProtocolVersions  []string          `json:"protocolVersions"`
	Role              string            `json:"role"`
	Kinds             []string          `json:"kinds"`
	ControllerOptions ControllerOptions `json:"controllerOptions"`
}

func (s *Server) initialize(raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("initialize: %v", err)
	}
	if p.Role != "controller" {
		return nil, invalidParams("this plugin is a controller, asked to be %q", p.Role)
	}
	var missing []string
	for _, k := range p.Kinds {
		if s.kinds[k] == nil {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, invalidParams("asked to reconcile %s; this plugin serves %s",
			strings.Join(missing, ", "), strings.Join(s.names, ", "))
	}
	v2 := false
	for _, v := range p.ProtocolVersions {
		v2 = v2 || v == "2"
	}
	if !v2 {
		return nil, invalidParams("the Go SDK speaks protocol version 2; the simulator offers %s",
			strings.Join(p.ProtocolVersions, ", "))
	}
	s.options = p.ControllerOptions
	if !timeIsSimulated {
		fmt.Fprintln(s.log, "t9ksim SDK: time.Now reads the wall clock in this binary (built "+
			"without t9ksim-go); a controller that reads it is not deterministic. Server.Clock() "+
			"reads the simulated time (docs/plugins-go.md).")
	}
	name := s.name
	if name == "" {
		name = strings.Join(s.names, "+") + "-go"
	}
	hello := map[string]any{"protocolVersion": "2", "name": name, "capabilities": map[string]any{}}
	if d := s.declarations(p.Kinds); len(d) > 0 {
		hello["kinds"] = d
	}
	return hello, nil
}

type reconcileParams struct {
	NowMicros *int64      `json:"nowMicros"`
	Jobs      []jobUpdate `json:"jobs"`
	Forget    []string    `json:"forget"`
}

func (s *Server) reconcileBatch(raw json.RawMessage) (any, error) {
	var p reconcileParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("reconcile: %v", err)
	}
	if p.NowMicros == nil {
		return nil, invalidParams("reconcile: nowMicros is missing")
	}
	simNowMicros.Store(*p.NowMicros)
	for _, uid := range p.Forget {
		delete(s.jobs, uid)
	}
	results := make([]map[string]any, 0, len(p.Jobs))
	for i := range p.Jobs {
		u := &p.Jobs[i]
		k, err := apply(s.jobs[u.UID], u)
		var lost errLost
		if errors.As(err, &lost) {
			delete(s.jobs, u.UID)
			fmt.Fprintf(s.log, "t9ksim SDK: job %s: %s; asking for a resync\n", u.UID, lost.why)
			results = append(results, map[string]any{"uid": u.UID, "resync": true})
			continue
		}
		if err != nil {
			return nil, err
		}
		s.jobs[u.UID] = k
		r, err := s.reconcileJob(u.UID, k)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return map[string]any{"results": results}, nil
}

// reconcileJob runs the job's reconciler over what is kept and turns its writes into a result.
func (s *Server) reconcileJob(uid string, k *keptJob) (map[string]any, error) {
	kind, _ := k.job["kind"].(string)
	e := s.kinds[kind]
	if e == nil {
		return nil, invalidParams("job %s is a %q; this plugin serves %s", uid, kind,
			strings.Join(s.names, ", "))
	}
	sess, err := newSession(s, e, k)
	if err != nil {
		return nil, fmt.Errorf("job %s: loading the observation: %w", uid, err)
	}
	s.cur = sess
	defer func() { s.cur = nil }()
	s.deliver(k, sess)
	res, err := s.callReconciler(e, sess)
	if err != nil {
		return nil, fmt.Errorf("%s %s: Reconcile: %w", kind, sess.jobKey, err)
	}
	if sess.failed != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, sess.jobKey, sess.failed)
	}
	if e.rule != nil && e.rule.CanonicalOrder {
		canonicalOrder(sess)
	}
	out := map[string]any{"uid": uid}
	if len(sess.actions) > 0 {
		out["actions"] = sess.actions
	}
	if len(sess.events) > 0 {
		out["events"] = sess.events
	}
	if sess.status != nil {
		k.setStatus(sess.status)
		out["status"] = sess.status
	}
	if sess.localMeta != nil {
		k.localMeta = sess.localMeta
		k.typedJob = nil
	}
	if sess.inert {
		k.inert = sess.inertObjects()
	}
	if res.RequeueAfter > 0 {
		out["requeueAfterMicros"] = res.RequeueAfter.Microseconds()
	} else if res.Requeue { //nolint:staticcheck // Requeue is deprecated but still used
		// controller-runtime requeues with its rate limiter (5 ms at first); the simulator's
		// smallest step is a microsecond, and a requeue of 0 means "now", which would loop.
		out["requeueAfterMicros"] = int64(5000)
	}
	return out, nil
}

func (s *Server) callReconciler(e *kindEntry, sess *session) (res reconcile.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.log, "panic in Reconcile: %v\n%s", r, debug.Stack())
			err = fmt.Errorf("panic: %v (stack in the plugin's log)", r)
		}
	}()
	// As controller-runtime's controllers do: a logger with the object in the context.
	ctx := logf.IntoContext(context.Background(), s.logger.WithValues("controllerKind", e.kind,
		"namespace", sess.jobKey.Namespace, "name", sess.jobKey.Name))
	return e.r.Reconcile(ctx, reconcile.Request{NamespacedName: sess.jobKey})
}
