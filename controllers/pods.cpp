// The pods and the PodGroup a job asks for (§8.1, §10 labels, §7 run modes) and what its replica
// statuses say of them (§1.3).
#include "controllers/detail/slots.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace t9k::controllers::detail {

namespace {

const model::Container* training_container(const model::PodSpec& spec, std::string_view preferred) {
  for (const auto& c : spec.containers) {
    if (!preferred.empty() && c.name == preferred) return &c;
  }
  return spec.containers.empty() ? nullptr : &spec.containers.front();
}

}  // namespace

// "<job>-<type>-<rank>" (§2.3 [INFERRED] naming), as fmt::format("{}-{}-{}") writes it, in one
// exactly sized allocation.
std::string replica_name(std::string_view job, std::string_view type, std::int32_t rank) {
  char digits[16];
  const auto end = std::to_chars(digits, digits + sizeof digits, rank).ptr;
  std::string out;
  out.reserve(job.size() + type.size() + 2 + static_cast<std::size_t>(end - digits));
  out.append(job).append(1, '-').append(type).append(1, '-').append(digits, end);
  return out;
}

bool running_now(const Slot& s) {
  return s.pod && !terminating(*s.pod) && !s.del && s.pod->phase == PodPhase::Running;
}

ReplicaPhase replica_phase(const Slot& s) {  // §1.3 mapping
  if (s.del || (s.pod && terminating(*s.pod))) return ReplicaPhase::Deleted;
  if (s.create) return ReplicaPhase::Creating;
  if (!s.pod) return ReplicaPhase::Deleted;  // slot whose pod is gone and not (yet) recreated
  switch (s.pod->phase) {
    case PodPhase::Pending:
      return s.pod->node_name.empty() ? ReplicaPhase::Creating : ReplicaPhase::Pending;
    case PodPhase::Running:
      return ReplicaPhase::Running;
    case PodPhase::Succeeded:
      return ReplicaPhase::Succeeded;
    case PodPhase::Failed:
      return ReplicaPhase::Failed;
    case PodPhase::Unknown:
      return ReplicaPhase::Unknown;
  }
  return ReplicaPhase::Unknown;
}

void fill_container_status(std::vector<model::ContainerStatus>& out, const Slot& s,
                           const JobView& v) {
  if (!s.pod || s.create) return;
  const auto* c = training_container(v.types[s.type_index].template_->spec, v.training_container);
  out.reserve(1);
  model::ContainerStatus& cs = out.emplace_back();
  if (c) cs.name = c->name;
  switch (s.pod->phase) {
    case PodPhase::Pending:
      cs.state = model::Text::fixed("waiting");
      break;
    case PodPhase::Running:
      cs.state = model::Text::fixed("running");
      break;
    case PodPhase::Succeeded:
    case PodPhase::Failed:
      cs.state = model::Text::fixed("terminated");
      cs.exit_code = s.pod->phase == PodPhase::Succeeded ? 0 : exit_code_of(*s.pod);
      break;
    case PodPhase::Unknown:
      cs.state = model::Text::fixed("waiting");
      break;
  }
}

// The pod of a replica type, without what depends on the rank (metadata.name and rank: see
// name_pod). Every rank's pod of a type is the same otherwise, so a reconcile builds this once per
// type and copies it. Built into `p`, a default Pod where it is to stay (a Pod is large: each move
// of one was a visible share of a reconcile).
void make_pod(Pod& p, const JobView& v, const TypeView& t, const model::OwnerReferences& owners,
              bool resumed) {
  const model::Text& job = v.meta->name;
  const model::PodSpec& spec = t.template_->spec;
  p.metadata.namespace_ = v.meta->namespace_;
  p.metadata.labels = t.template_->metadata.labels;
  p.metadata.annotations = t.template_->metadata.annotations;
  p.metadata.owner_references = owners;
  p.job_name = job;
  p.replica_type = t.type;

  const auto* container = training_container(spec, v.training_container);
  if (container) {
    p.command = container->command;
    p.args = container->args;
  }
  bool skip_init = false;
  const model::RunMode& mode = *v.run_mode;
  if (mode.debug.enabled) {  // §7.1: the debug command replaces training
    p.debug = true;
    p.command = model::default_debug_command(v.kind);
    p.args.clear();
    for (const auto& d : mode.debug.replica_specs) {
      if (d.type != t.type) continue;
      skip_init = d.skip_init_container;
      if (!d.command.empty()) p.command = d.command;
    }
  } else if (resumed) {  // §7.2: resumeSpecs apply to pods created after a resume
    for (const auto& r : mode.pause.resume_specs) {
      if (r.type != t.type) continue;
      skip_init = r.skip_init_container;
      if (!r.command.empty()) p.command = r.command;
      if (!r.args.empty()) p.args = r.args;
    }
  }
  if (skip_init) {
    model::PodSpec no_init;  // pod_requests reads only the containers and init containers
    no_init.containers = spec.containers;
    p.requests = model::pod_requests(no_init);
  } else {
    p.requests = model::pod_requests(spec);
  }
  p.node_selector = spec.node_selector;
  p.priority = spec.priority.value_or(0);
  p.termination_grace_period_seconds = spec.termination_grace_period_seconds.value_or(30);
  const auto& t9k = v.scheduler->t9k_scheduler;
  if (t9k) {  // §8.1
    p.scheduler_name = model::kT9kSchedulerName;
    p.queue = t9k->queue.empty() ? model::kDefaultQueue : t9k->queue;
    p.pod_group = job;
    p.role = t.type;
  } else {
    p.scheduler_name =
        spec.scheduler_name.empty() ? model::kDefaultSchedulerName : spec.scheduler_name;
  }
  // §10's labels (and §8.1's with the T9k scheduler) over the template's: implied by the fields
  // set above and by name_pod's name, not stored (model::pod_labels).
  p.standard_labels = v.kind;
  model::drop_standard_keys(p);  // a template's label of such a key is overridden (§10)
  if (v.kind == model::JobKind::DeepSpeedJob) {
    static const model::LabelKey slots_per_worker("t9ksim.io/slots-per-worker");  // interned once
    p.metadata.annotations.edit()[slots_per_worker] = std::to_string(v.slots_per_worker);  // §5
  }
}

void name_pod(Pod& p, const std::string& name, std::int32_t rank) {
  p.metadata.name = name;
  p.rank = rank;
}

model::PodGroupSpec desired_pod_group_spec(const JobView& v) {  // §8.1, §4.3
  model::PodGroupSpec s;
  std::int32_t total = 0;
  for (const auto& t : v.types) total += t.replicas;
  s.min_member = v.elastic ? v.elastic_min : total;
  s.roles.reserve(v.types.size());
  for (const auto& t : v.types)
    s.roles.push_back({std::string(t.type), v.elastic ? t.min_replicas : t.replicas});
  const auto& t9k = *v.scheduler->t9k_scheduler;
  s.queue = t9k.queue.empty() ? model::kDefaultQueue : t9k.queue;
  s.priority = t9k.priority;
  return s;
}

// have == desired_pod_group_spec(v) with have's topologyPolicy kept (it is not the controller's),
// compared in place: this runs on every reconcile of a T9k-scheduled job and nearly always holds.
bool pod_group_spec_is_current(const model::PodGroupSpec& have, const JobView& v) {
  std::int32_t total = 0;
  for (const auto& t : v.types) total += t.replicas;
  if (have.min_member != (v.elastic ? v.elastic_min : total)) return false;
  if (have.roles.size() != v.types.size()) return false;
  for (std::size_t i = 0; i < v.types.size(); ++i) {
    const auto& t = v.types[i];
    if (have.roles[i].name != t.type ||
        have.roles[i].min_member != (v.elastic ? t.min_replicas : t.replicas)) {
      return false;
    }
  }
  const auto& t9k = *v.scheduler->t9k_scheduler;
  const std::string_view queue =
      t9k.queue.empty() ? std::string_view(model::kDefaultQueue) : t9k.queue.view();
  return have.queue == queue && have.priority == t9k.priority;
}

}  // namespace t9k::controllers::detail
