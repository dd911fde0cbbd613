package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// keptJob is what the plugin keeps of one job between reconciles (docs/protocol-v2.md §2, "What
// the plugin keeps per job"), as the simulator sent it: generic JSON, converted to typed objects
// for each reconcile.
type keptJob struct {
	job         map[string]any   // without status
	status      json.RawMessage  // the status as JSON text; nil: the job has no status yet
	pods        []map[string]any // in creation order
	podGroup    map[string]any
	tensorBoard map[string]any
	// metadata the reconciler changed that the simulator does not carry (finalizers, labels,
	// annotations written with Update): kept here so that the next reconcile sees them.
	localMeta map[string]any
	// The job's Services, ConfigMaps and Secrets (inertGVKs), which only the SDK keeps.
	inert []client.Object
	// The objects of watched kinds as the watches last saw them (watch.go).
	seen []seenObject

	// The typed objects decoded from the above, kept until what they come from changes (decoding
	// JSON into Go types is most of the SDK's cost): the job without its status, its status, each
	// pod (nil: to decode again).
	typedJob      client.Object
	typedStatus   any
	typedPods     []*corev1.Pod
	typedPodGroup client.Object
}

// setStatus replaces the kept status.
func (k *keptJob) setStatus(st json.RawMessage) {
	k.status = st
	k.typedStatus = nil
}

// A jobUpdate of a reconcile's params; a member's presence matters, so the optional ones stay raw.
type jobUpdate struct {
	UID         string            `json:"uid"`
	Resync      bool              `json:"resync"`
	Job         json.RawMessage   `json:"job"`
	Status      json.RawMessage   `json:"status"`
	Pods        []json.RawMessage `json:"pods"`
	PodPatches  []json.RawMessage `json:"podPatches"`
	RemovedPods []string          `json:"removedPods"`
	PodGroup    json.RawMessage   `json:"podGroup"`
	TensorBoard json.RawMessage   `json:"tensorBoard"`
}

// errLost: what the plugin keeps of the job cannot take the update (a patch or removal for a pod
// it does not have, or no state at all): the job is answered with resync.
type errLost struct{ why string }

func (e errLost) Error() string { return e.why }

func decodeObject(raw json.RawMessage, what string) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // integers such as microseconds stay exact
	if err := d.Decode(&m); err != nil {
		return nil, invalidParams("%s: %v", what, err)
	}
	return m, nil
}

func podUID(p map[string]any) string {
	meta, _ := p["metadata"].(map[string]any)
	uid, _ := meta["uid"].(string)
	return uid
}

// apply applies one update to what is kept (nil when the job was never sent).
func apply(k *keptJob, u *jobUpdate) (*keptJob, error) {
	var err error
	if u.Resync {
		k = &keptJob{}
		if k.job, err = decodeObject(u.Job, "job"); err != nil {
			return nil, err
		}
		if k.job == nil {
			return nil, invalidParams("job %s: a resync without its job", u.UID)
		}
		delete(k.job, "status")
	} else if k == nil {
		return nil, errLost{"the plugin has no state for it"}
	} else if len(u.Job) > 0 {
		j, err := decodeObject(u.Job, "job")
		if err != nil {
			return nil, err
		}
		delete(j, "status")
		k.job = j
		k.typedJob = nil
	}
	if len(u.Status) > 0 {
		var st json.RawMessage
		if string(u.Status) != "null" {
			if !json.Valid(u.Status) || bytes.TrimSpace(u.Status)[0] != '{' {
				return nil, invalidParams("status: not a JSON object")
			}
			st = append(json.RawMessage(nil), u.Status...)
		}
		k.setStatus(st)
	}
	if err := applyPods(k, u); err != nil {
		return nil, err
	}
	if len(u.PodGroup) > 0 {
		if k.podGroup, err = decodeObject(u.PodGroup, "podGroup"); err != nil {
			return nil, err
		}
		k.typedPodGroup = nil
	}
	if len(u.TensorBoard) > 0 {
		if k.tensorBoard, err = decodeObject(u.TensorBoard, "tensorBoard"); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func applyPods(k *keptJob, u *jobUpdate) error {
	index := func(uid string) int {
		for i, p := range k.pods {
			if podUID(p) == uid {
				return i
			}
		}
		return -1
	}
	for _, uid := range u.RemovedPods {
		i := index(uid)
		if i < 0 {
			return errLost{fmt.Sprintf("removal of pod %s, which the plugin does not have", uid)}
		}
		k.pods = append(k.pods[:i], k.pods[i+1:]...)
		k.typedPods = append(k.typedPods[:i], k.typedPods[i+1:]...)
	}
	for n, raw := range u.PodPatches {
		patch, err := decodeObject(raw, fmt.Sprintf("podPatches[%d]", n))
		if err != nil {
			return err
		}
		i := index(podUID(patch))
		if i < 0 {
			return errLost{fmt.Sprintf("a patch of pod %s, which the plugin does not have", podUID(patch))}
		}
		k.pods[i] = mergePatch(k.pods[i], patch).(map[string]any)
		k.typedPods[i] = nil
	}
	for n, raw := range u.Pods {
		pod, err := decodeObject(raw, fmt.Sprintf("pods[%d]", n))
		if err != nil {
			return err
		}
		if pod == nil {
			return invalidParams("pods[%d]: null", n)
		}
		if i := index(podUID(pod)); i >= 0 {
			k.pods[i] = pod
			k.typedPods[i] = nil
		} else {
			k.pods = append(k.pods, pod)
			k.typedPods = append(k.typedPods, nil)
		}
	}
	return nil
}
