package genericjob

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1beta1 "t9ksim.dev/sdk/api/batch/v1beta1"
	schedulerv1beta1 "t9ksim.dev/sdk/api/scheduler/v1beta1"
)

// The job's PodGroup for the T9k scheduler (§8.1): desired_pod_group_spec,
// pod_group_spec_is_current of controllers/pods.cpp and Reconcile::pod_group of
// controllers/reconcile.cpp.

// desiredPodGroupSpec: §8.1, minMember = the sum of replicas, one role per replica type (a
// GenericJob is never elastic), the job's queue and priority.
func desiredPodGroupSpec(t9k *batchv1beta1.T9kScheduler, types []typeView) schedulerv1beta1.PodGroupSpec {
	spec := schedulerv1beta1.PodGroupSpec{Queue: queueOf(t9k), Priority: new(int32)}
	for _, t := range types {
		spec.MinMember += t.replicas
		spec.Roles = append(spec.Roles, schedulerv1beta1.Role{Name: t.typ, MinMember: t.replicas})
	}
	if t9k.Priority != nil {
		*spec.Priority = *t9k.Priority
	}
	return spec
}

// podGroupSpecIsCurrent: the observed spec equals the desired one; topologyPolicy and finished
// are not compared (they are not the controller's).
func podGroupSpecIsCurrent(have, want *schedulerv1beta1.PodGroupSpec) bool {
	if have.MinMember != want.MinMember || len(have.Roles) != len(want.Roles) {
		return false
	}
	for i := range want.Roles {
		if have.Roles[i] != want.Roles[i] {
			return false
		}
	}
	queue := have.Queue
	if queue == "" {
		queue = defaultQueue
	}
	var priority int32
	if have.Priority != nil {
		priority = *have.Priority
	}
	return queue == want.Queue && priority == *want.Priority
}

// ensurePodGroup: §8.1, one PodGroup named after the job, created before its pods; updated in
// place when the desired spec differs, its metadata (creation time, §11 Q20) and status kept.
func (s *step) ensurePodGroup() {
	t9k := t9kScheduler(s.job)
	if t9k == nil {
		return
	}
	want := desiredPodGroupSpec(t9k, s.types)
	if s.podGroup == nil {
		s.out.createPodGroup = &schedulerv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{
				Name:      s.job.Name,
				Namespace: s.job.Namespace,
				// The simulator takes the creation time from the object (§11 Q20); an API
				// server would set it itself.
				CreationTimestamp: metav1.NewTime(s.now),
				OwnerReferences:   []metav1.OwnerReference{*ownerReference(s.job)},
			},
			Spec: want,
		}
		return
	}
	if podGroupSpecIsCurrent(&s.podGroup.Spec, &want) {
		return
	}
	// The whole spec is replaced but its topologyPolicy, which is the scheduler's; `finished`
	// is not kept (Reconcile::pod_group).
	pg := s.podGroup.DeepCopy()
	want.TopologyPolicy = pg.Spec.TopologyPolicy
	pg.Spec = want
	s.out.updatePodGroup = pg
}
