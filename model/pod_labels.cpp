// The labels a pod of a built-in job kind carries (§10, and §8.1's with the T9k scheduler), which
// follow from the pod's other fields: kept implied (Pod::standard_labels), spelled out on demand.
#include <array>

#include "model/cluster.hpp"

namespace t9k::model {

namespace {

// §10's keys, interned once (label_key.hpp).
struct PodLabelKeys {
  LabelKey generic{"genericjob"};
  LabelKey generic_replica{"genericjob-replica"};
  LabelKey group{model::kLabelGroupName};
  LabelKey queue{model::kLabelQueue};
  LabelKey role{model::kLabelRole};
  LabelKey component{model::kLabelComponent};
  LabelKey component_type{model::kLabelComponentType};
  LabelKey owner{model::kLabelOwnerName};
};

const PodLabelKeys& pod_label_keys() {
  static const PodLabelKeys keys;
  return keys;
}

constexpr std::array<JobKind, 3> kBuiltInKinds{JobKind::GenericJob, JobKind::PyTorchTrainingJob,
                                               JobKind::DeepSpeedJob};

// tensorstack.dev/component: the kind's name in lower case, fixed (no allocation).
Text component_of(JobKind kind) {
  switch (kind) {
    case JobKind::GenericJob:
      return Text::fixed("genericjob");
    case JobKind::PyTorchTrainingJob:
      return Text::fixed("pytorchtrainingjob");
    case JobKind::DeepSpeedJob:
      return Text::fixed("deepspeedjob");
    case JobKind::Plugin:
      break;
  }
  return {};  // not reached: only the built-in kinds imply labels
}

// Each label §10 gives a pod of `kind` (§8.1's with the T9k scheduler, whose pods name their
// PodGroup), as the built-in controllers set them.
template <class F>
void for_each_standard_label(const Pod& p, JobKind kind, F&& f) {
  const PodLabelKeys& keys = pod_label_keys();
  if (kind == JobKind::GenericJob) f(keys.generic, p.job_name);
  if (!p.pod_group.empty()) {
    f(keys.group, p.job_name);
    f(keys.queue, p.queue);
    f(keys.role, p.role);
  }
  f(keys.component, component_of(kind));
  f(keys.component_type, Text::fixed("user"));
  f(keys.owner, p.job_name);
  if (kind == JobKind::GenericJob) f(keys.generic_replica, p.metadata.name);
}

}  // namespace

Labels pod_labels(const Pod& p) {
  Labels labels = p.metadata.labels;
  if (!p.standard_labels) return labels;
  labels.reserve(labels.size() + 8);
  for_each_standard_label(p, *p.standard_labels, [&labels](const LabelKey& key, const Text& v) {
    labels.insert_or_assign(key, v);
  });
  return labels;
}

void drop_standard_keys(Pod& p) {
  if (!p.standard_labels || p.metadata.labels.empty()) return;
  for_each_standard_label(p, *p.standard_labels,
                          [&p](const LabelKey& key, const Text&) { p.metadata.labels.erase(key); });
}

void imply_standard_labels(Pod& p) {
  if (p.standard_labels || p.job_name.empty()) return;
  const auto component = p.metadata.labels.find(pod_label_keys().component);
  if (component == p.metadata.labels.end()) return;
  for (const JobKind kind : kBuiltInKinds) {
    if (component->second != component_of(kind)) continue;
    bool all = true;
    for_each_standard_label(p, kind, [&](const LabelKey& key, const Text& v) {
      const auto it = p.metadata.labels.find(key);
      all = all && it != p.metadata.labels.end() && it->second == v;
    });
    if (!all) return;
    p.standard_labels = kind;
    drop_standard_keys(p);
    return;
  }
}

}  // namespace t9k::model
