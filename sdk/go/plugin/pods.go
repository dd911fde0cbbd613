package plugin

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// What the simulator keeps of a pod beyond Kubernetes (its "t9ksim" member, docs/protocol.md
// §6.2) reaches the controller as annotations under this prefix, so that the controller sees an
// ordinary corev1.Pod. They are taken off again when the controller creates a pod.
const annotationPrefix = "sim.t9ksim.io/"

// The annotations of a pod's simulator-only fields; each is set when the simulator has it.
const (
	AnnotationJob            = annotationPrefix + "job"
	AnnotationReplicaType    = annotationPrefix + "replica-type"
	AnnotationRank           = annotationPrefix + "rank"
	AnnotationGeneration     = annotationPrefix + "generation"
	AnnotationQueue          = annotationPrefix + "queue"
	AnnotationPodGroup       = annotationPrefix + "pod-group"
	AnnotationRole           = annotationPrefix + "role"
	AnnotationDebug          = annotationPrefix + "debug"
	AnnotationGPUIndex       = annotationPrefix + "gpu-index"
	AnnotationBindTime       = annotationPrefix + "bind-time"
	AnnotationDeletionReason = annotationPrefix + "deletion-reason"
	// The name the controller gave the pod's first container, for a kind of the plugin's own
	// (DeclareKind): the simulator keeps one container per pod, "main"; the SDK names it back,
	// with its status, as the controller named it (Kubeflow reads exit codes from the container
	// named after the framework, "pytorch").
	AnnotationContainerName = annotationPrefix + "container-name"
)

var extAnnotations = []struct{ member, annotation string }{
	{"job", AnnotationJob}, {"replicaType", AnnotationReplicaType}, {"rank", AnnotationRank},
	{"generation", AnnotationGeneration}, {"queue", AnnotationQueue},
	{"podGroup", AnnotationPodGroup}, {"role", AnnotationRole}, {"debug", AnnotationDebug},
	{"gpuIndex", AnnotationGPUIndex}, {"bindTime", AnnotationBindTime},
	{"deletionReason", AnnotationDeletionReason},
}

// The labels the T9k scheduler reads (docs/protocol.md §6.2; model/cluster.hpp).
const (
	labelGroupName = "scheduler.tensorstack.dev/group-name"
	labelQueue     = "scheduler.tensorstack.dev/queue"
	labelRole      = "scheduler.tensorstack.dev/role"
	// Kubeflow's training-operator names a pod's replica type and index with these.
	labelKubeflowReplicaType  = "training.kubeflow.org/replica-type"
	labelKubeflowReplicaIndex = "training.kubeflow.org/replica-index"
)

// DeletionReason is why the simulator is deleting the pod ("Restart", "Preemption",
// "NodeFailure", ..., docs/protocol.md §6.2), "" when it is not being deleted.
func DeletionReason(pod *corev1.Pod) string { return pod.Annotations[AnnotationDeletionReason] }

// DeleteReason is a client.DeleteOption that tells the simulator why a pod is deleted (a
// deletion reason of docs/protocol.md §6.2): r.Delete(ctx, &pod, plugin.DeleteReason("Restart")).
// A deletion without it is a "Cleanup". A real API server has no such field; elsewhere the option
// does nothing.
type DeleteReason string

// ApplyToDelete implements client.DeleteOption.
func (DeleteReason) ApplyToDelete(*client.DeleteOptions) {}

// ApplyToDeleteAllOf implements client.DeleteAllOfOption.
func (DeleteReason) ApplyToDeleteAllOf(*client.DeleteAllOfOptions) {}

func extString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// podFromWire reads a pod as the simulator sends it.
func podFromWire(m map[string]any) (*corev1.Pod, error) {
	// Copies of the maps this changes only (the kept pod stays as the simulator sent it).
	c := shallowCopy(m)
	ext, _ := c["t9ksim"].(map[string]any)
	delete(c, "t9ksim")
	if status, ok := c["status"].(map[string]any); ok {
		c["status"] = deepCopyJSON(status)
	}
	if len(ext) > 0 {
		meta := shallowCopy(asObject(c["metadata"]))
		c["metadata"] = meta
		ann := shallowCopy(asObject(meta["annotations"]))
		meta["annotations"] = ann
		for _, e := range extAnnotations {
			if v, ok := ext[e.member]; ok && v != nil {
				ann[e.annotation] = extString(v)
			}
		}
	}
	renameContainer(c)
	fillExitCodes(c)
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(b, pod); err != nil {
		return nil, fmt.Errorf("pod %s: %w", podUID(m), err)
	}
	return pod, nil
}

// renameContainer names the first container and its status as the controller named it
// (AnnotationContainerName), in copies of the maps it changes.
func renameContainer(pod map[string]any) {
	meta := asObject(pod["metadata"])
	name, _ := asObject(meta["annotations"])[AnnotationContainerName].(string)
	if name == "" {
		return
	}
	for _, part := range []struct{ obj, list string }{{"spec", "containers"},
		{"status", "containerStatuses"}} {
		obj := asObject(pod[part.obj])
		items, _ := obj[part.list].([]any)
		if len(items) == 0 {
			continue
		}
		first := shallowCopy(asObject(items[0]))
		first["name"] = name
		copied := append([]any{first}, items[1:]...)
		obj = shallowCopy(obj)
		obj[part.list] = copied
		pod[part.obj] = obj
	}
}

// missingExitCode is what a terminated container without an exit code means to the simulator:
// SIGKILL, stopped by the system (docs/plugins.md §3, the world's contract 4). corev1 cannot say
// "absent" (ExitCode is an int32), so the SDK writes it in.
const missingExitCode = 137

func fillExitCodes(pod map[string]any) {
	status, _ := pod["status"].(map[string]any)
	statuses, _ := status["containerStatuses"].([]any)
	for _, cs := range statuses {
		c, _ := cs.(map[string]any)
		state, _ := c["state"].(map[string]any)
		if term, ok := state["terminated"].(map[string]any); ok {
			if _, has := term["exitCode"]; !has {
				term["exitCode"] = json.Number(strconv.Itoa(missingExitCode))
			}
		}
	}
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// podIdentity is what the simulator must know of a pod a controller creates: its job, replica
// type and rank (docs/protocol.md §6.2, CreatePod).
type podIdentity struct {
	job, replicaType string
	rank             int64
}

func identify(pod *corev1.Pod) (podIdentity, error) {
	var id podIdentity
	ann, lab := pod.Annotations, pod.Labels
	id.job = ann[AnnotationJob]
	if id.job == "" {
		if ref := metav1.GetControllerOf(pod); ref != nil {
			id.job = ref.Name
		}
	}
	if id.job == "" {
		return id, fmt.Errorf("it has no controller owner reference, so the simulator cannot tell " +
			"its job (set one with controllerutil.SetControllerReference)")
	}
	typ, rank := ann[AnnotationReplicaType], ann[AnnotationRank]
	if typ == "" && lab[labelKubeflowReplicaType] != "" {
		typ, rank = lab[labelKubeflowReplicaType], lab[labelKubeflowReplicaIndex]
	}
	if typ == "" {
		// "<job>-<type>-<rank>", as T9k and Kubeflow name their pods.
		rest, ok := strings.CutPrefix(pod.Name, id.job+"-")
		i := strings.LastIndexByte(rest, '-')
		if !ok || i <= 0 {
			return id, fmt.Errorf("its replica type and rank are not in annotations %s and %s, and "+
				"its name is not \"%s-<type>-<rank>\"", AnnotationReplicaType, AnnotationRank, id.job)
		}
		typ, rank = rest[:i], rest[i+1:]
	}
	n, err := strconv.ParseInt(rank, 10, 32)
	if err != nil || n < 0 {
		return id, fmt.Errorf("its rank %q is not a number >= 0", rank)
	}
	id.replicaType, id.rank = typ, n
	return id, nil
}

// effectiveRequests is what the scheduler sees a pod ask for, the Kubernetes way: the containers'
// requests summed (a missing request is its limit), at least the largest init container's.
func effectiveRequests(spec *corev1.PodSpec) corev1.ResourceList {
	of := func(c *corev1.Container) corev1.ResourceList {
		out := corev1.ResourceList{}
		for name, q := range c.Resources.Limits {
			out[name] = q.DeepCopy()
		}
		for name, q := range c.Resources.Requests {
			out[name] = q.DeepCopy()
		}
		return out
	}
	sum := corev1.ResourceList{}
	for i := range spec.Containers {
		for name, q := range of(&spec.Containers[i]) {
			s := sum[name]
			s.Add(q)
			sum[name] = s
		}
	}
	for i := range spec.InitContainers {
		for name, q := range of(&spec.InitContainers[i]) {
			if s, ok := sum[name]; !ok || q.Cmp(s) > 0 {
				sum[name] = q
			}
		}
	}
	return sum
}

// podToWire writes a pod the controller created as the simulator reads CreatePod.pod;
// keepName keeps the name of its first container (AnnotationContainerName).
func podToWire(pod *corev1.Pod, keepName bool) (map[string]any, error) {
	id, err := identify(pod)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"name": pod.Name}
	if pod.Namespace != "" {
		meta["namespace"] = pod.Namespace
	}
	if len(pod.Labels) > 0 {
		meta["labels"] = pod.Labels
	}
	ann := map[string]string{}
	for k, v := range pod.Annotations {
		if !strings.HasPrefix(k, annotationPrefix) {
			ann[k] = v
		}
	}
	if keepName && len(pod.Spec.Containers) > 0 && pod.Spec.Containers[0].Name != "main" {
		ann[AnnotationContainerName] = pod.Spec.Containers[0].Name
	}
	if len(ann) > 0 {
		meta["annotations"] = ann
	}
	if refs, err := toWire(pod.OwnerReferences); err != nil {
		return nil, err
	} else if refs != nil {
		meta["ownerReferences"] = refs
	}
	spec := map[string]any{}
	if pod.Spec.NodeName != "" {
		spec["nodeName"] = pod.Spec.NodeName
	}
	if pod.Spec.SchedulerName != "" {
		spec["schedulerName"] = pod.Spec.SchedulerName
	}
	if pod.Spec.Priority != nil {
		spec["priority"] = *pod.Spec.Priority
	}
	if len(pod.Spec.NodeSelector) > 0 {
		spec["nodeSelector"] = pod.Spec.NodeSelector
	}
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		spec["terminationGracePeriodSeconds"] = *pod.Spec.TerminationGracePeriodSeconds
	}
	main := map[string]any{"name": "main"}
	if len(pod.Spec.Containers) > 0 {
		c := pod.Spec.Containers[0]
		main["name"] = c.Name
		if len(c.Command) > 0 {
			main["command"] = c.Command
		}
		if len(c.Args) > 0 {
			main["args"] = c.Args
		}
	}
	if req := effectiveRequests(&pod.Spec); len(req) > 0 {
		w := map[string]string{}
		for name, q := range req {
			w[string(name)] = q.String()
		}
		main["resources"] = map[string]any{"requests": w}
	}
	spec["containers"] = []any{main}
	ext := map[string]any{"job": id.job, "replicaType": id.replicaType, "rank": id.rank}
	put := func(member, annotation, label string) {
		if v := pod.Annotations[annotation]; v != "" {
			ext[member] = v
		} else if v := pod.Labels[label]; v != "" && label != "" {
			ext[member] = v
		}
	}
	put("queue", AnnotationQueue, labelQueue)
	put("podGroup", AnnotationPodGroup, labelGroupName)
	put("role", AnnotationRole, labelRole)
	if pod.Annotations[AnnotationDebug] == "true" {
		ext["debug"] = true
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
		"status": map[string]any{"phase": "Pending"}, "t9ksim": ext}, nil
}
