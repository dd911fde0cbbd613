#include "controllers/engine.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <numeric>
#include <span>
#include <string>

#include <fmt/format.h>

// Performance notes (docs/performance.md "Controllers"): the world reconciles a job after every
// pod change, so this step is on the simulator's hot path and dominated by allocation. It builds
// the result's strings once (slot names are moved into the status, not copied), formats messages
// into stack buffers and assigns them into the previous status's strings, indexes pods in one
// sorted vector instead of std::map, compares the PodGroup spec in place and builds one pod per
// replica type that is then copied per rank. The result is identical to the straightforward
// version (tests/controllers/equivalence_tests.cpp compares it with a frozen copy).

namespace t9k::controllers::detail {
namespace {

using model::ConditionStatus;
using model::DeletionReason;
using model::JobConditionType;
using model::JobPhase;
using model::JobStatus;
using model::Pod;
using model::PodPhase;
using model::ReplicaPhase;
using model::RestartPolicyType;

constexpr std::string_view kMsgAllRunning = "All pods are running normally.";     // §1.2 snapshot
constexpr std::string_view kMsgSucceeded = "The job has finished successfully.";  // §1.2 snapshot

// A condition text of static storage (a literal or one of the constants above): never copied.
model::Text fixed(std::string_view literal) { return model::Text::fixed(literal); }

// Where a replica slot stands after this step's decisions.
enum class Outcome {
  Missing,         // no pod: create one
  Terminating,     // pod on its way out (deletion_timestamp set): wait, then recreate
  Active,          // Pending, Running or Unknown
  SucceededFinal,  // exited 0 and will not be restarted
  FailedFinal,     // failed and will not be restarted ("failed" for rules, §3.1 [INFERRED])
  Restart,         // deleted now, to be replaced: a counted restart (§2.3, §11 Q4)
  Recreate,        // maxDuration pod deleted now and recreated, not counted (§11 Q12 option)
  BackoffWait,     // restart decided, waiting out the back-off delay (§11 Q5)
  ScaledDown,      // rank beyond the target: deleted now (§4.3)
};

struct Slot {
  std::size_t type_index = 0;
  std::int32_t rank = 0;
  std::string name;  // moved into the replica status once the actions are built
  const Pod* pod = nullptr;
  bool desired = false;  // rank < the type's desired replicas
  Outcome outcome = Outcome::Missing;
  std::int32_t prev_restarts = 0;
  std::int32_t restarts = 0;  // counted restarts of this rank (§11 Q3)
  bool create = false;
  std::optional<DeletionReason> del;
};

// A reconcile's scratch lists, inline for the usual job (a few replica types, a few pods): one
// allocation fewer each per reconcile, of the dozens a reconcile made.
using Slots = boost::container::small_vector<Slot, 4>;

struct Verdict {
  JobPhase phase = JobPhase::Failed;
  model::Text failed_reason;  // reason of the Failed condition
  model::Text message;
};

bool terminating(const Pod& p) { return p.deletion_timestamp.has_value(); }

// §1.3 `failed` includes "stopped by the system"; the world's contract gives every Failed pod an
// exit code and a missing one reads as SIGKILL.
std::int32_t exit_code_of(const Pod& p) { return p.exit_code.value_or(137); }

bool is_retryable(std::int32_t code, const ControllerOptions& opt) {  // §2.2
  if (opt.retryable_exit_codes == ControllerOptions::RetryableExitCodes::KubeflowAtLeast128)
    return code >= 128;
  const auto& set = opt.t9k_retryable_exit_codes;
  return std::find(set.begin(), set.end(), code) != set.end();
}

// Does the policy ask for a new pod after this pod ended? (§2.2)
bool policy_restarts(RestartPolicyType policy, const Pod& p, const ControllerOptions& opt) {
  if (p.phase == PodPhase::Succeeded) return policy == RestartPolicyType::Always;
  switch (policy) {
    case RestartPolicyType::Never:
      return false;
    case RestartPolicyType::OnFailure:
    case RestartPolicyType::Always:
      return true;
    case RestartPolicyType::ExitCode:
      return is_retryable(exit_code_of(p), opt);
  }
  return false;
}

// §11 Q5: the n-th restart of a rank waits min(cap, base * 2^(n-1)).
SimDuration backoff_delay(std::int32_t restarts_so_far, const ControllerOptions& opt) {
  SimDuration d = opt.restart_backoff_base;
  for (std::int32_t i = 0; i < restarts_so_far && d < opt.restart_backoff_cap; ++i) d *= 2;
  return std::min(d, opt.restart_backoff_cap);
}

model::JobCondition* find_condition(JobStatus& st, JobConditionType type) {
  for (auto& c : st.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// lastTransitionTime moves only when the status flips; conditions are kept in §1.2's order.
// Literal reasons and messages are passed as fixed(...): condition texts then never allocate.
void set_condition(JobStatus& st, JobConditionType type, ConditionStatus status, model::Text reason,
                   model::Text message, SimTime now) {
  if (auto* c = find_condition(st, type)) {
    if (c->status != status) {
      c->status = status;
      c->last_transition_time = now;
    }
    c->reason = std::move(reason);
    c->message = std::move(message);
    return;
  }
  model::JobCondition c{type, status, now, std::move(reason), std::move(message)};
  auto it = std::find_if(st.conditions.begin(), st.conditions.end(),
                         [&](const model::JobCondition& x) { return x.type > type; });
  st.conditions.insert(it, std::move(c));
}

// One `"worker":["0","1"]` entry of a rule: string ranks, as in the UC failure message (§3.1).
void append_rule_entry(std::string& out, std::string_view type,
                       std::span<const std::int32_t> ranks) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "\"{}\":[", type);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    fmt::format_to(it, "{}\"{}\"", i ? "," : "", ranks[i]);
  out += ']';
}

// {"worker":["0"]}: the whole rule (FinishRule keeps its types ordered).
std::string rule_text(const std::map<std::string, std::vector<std::int32_t>>& replicas) {
  std::string out = "{";
  bool first_type = true;
  for (const auto& [type, ranks] : replicas) {
    if (!first_type) out += ",";
    first_type = false;
    append_rule_entry(out, type, ranks);
  }
  return out + "}";
}

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

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& ch : r) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  return r;
}

const model::Container* training_container(const model::PodSpec& spec, std::string_view preferred) {
  for (const auto& c : spec.containers) {
    if (!preferred.empty() && c.name == preferred) return &c;
  }
  return spec.containers.empty() ? nullptr : &spec.containers.front();
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
      cs.state = "waiting";
      break;
    case PodPhase::Running:
      cs.state = "running";
      break;
    case PodPhase::Succeeded:
    case PodPhase::Failed:
      cs.state = "terminated";
      cs.exit_code = s.pod->phase == PodPhase::Succeeded ? 0 : exit_code_of(*s.pod);
      break;
    case PodPhase::Unknown:
      cs.state = "waiting";
      break;
  }
}

// The pod of a replica type, without what depends on the rank (metadata.name, rank and the
// genericjob-replica label: see name_pod). Every rank's pod of a type is the same otherwise, so
// a reconcile builds this once per type and copies it. Built into `p`, a default Pod where it
// is to stay (a Pod is large: each move of one was a visible share of a reconcile).
void make_pod(Pod& p, const JobView& v, const TypeView& t, bool resumed) {
  const std::string& job = v.meta->name;
  const model::PodSpec& spec = t.template_->spec;
  p.metadata.namespace_ = v.meta->namespace_;
  p.metadata.labels = t.template_->metadata.labels;
  p.metadata.annotations = t.template_->metadata.annotations;
  p.metadata.owner_references.push_back(model::OwnerReference{
      model::kBatchApiVersion, std::string(v.kind_name), job, v.meta->uid, true});
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
  // §10 labels (and §8.1's for the T9k scheduler), set over the template's in ascending key
  // order with the end as hint: each lands at the end of the map, without a search, unless the
  // template has later keys.
  auto& labels = p.metadata.labels;
  labels.reserve(labels.size() +
                 8);  // the seven below and name_pod's genericjob-replica: one allocation
  const auto set_label = [&labels](const char* key, std::string value) {
    labels.insert_or_assign(labels.end(), key, std::move(value));
  };
  static_assert(std::string_view("genericjob") < model::kLabelGroupName &&
                std::string_view(model::kLabelGroupName) < model::kLabelQueue &&
                std::string_view(model::kLabelQueue) < model::kLabelRole &&
                std::string_view(model::kLabelRole) < model::kLabelComponent &&
                std::string_view(model::kLabelComponent) < model::kLabelComponentType &&
                std::string_view(model::kLabelComponentType) < model::kLabelOwnerName);
  if (v.kind == model::JobKind::GenericJob)
    set_label("genericjob", job);  // genericjob-replica: name_pod
  if (t9k) {
    set_label(model::kLabelGroupName, job);
    set_label(model::kLabelQueue, p.queue);
    set_label(model::kLabelRole, std::string(t.type));
  }
  set_label(model::kLabelComponent, lower(v.kind_name));
  set_label(model::kLabelComponentType, "user");
  set_label(model::kLabelOwnerName, job);
  if (v.kind == model::JobKind::DeepSpeedJob) {
    p.metadata.annotations["t9ksim.io/slots-per-worker"] =
        std::to_string(v.slots_per_worker);  // §5
  }
}

// The rank's part of a pod built by make_pod. `name` is the slot's "<job>-<type>-<rank>".
void name_pod(Pod& p, const JobView& v, const std::string& name, std::int32_t rank) {
  p.metadata.name = name;
  p.rank = rank;
  if (v.kind == model::JobKind::GenericJob) p.metadata.labels["genericjob-replica"] = name;  // §10
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
      t9k.queue.empty() ? std::string_view(model::kDefaultQueue) : t9k.queue;
  return have.queue == queue && have.priority == t9k.priority;
}

// Deletions once the job is terminal (level-based: repeated every reconcile until done).
// §6.1, §11 Q6: on a deadline the unfinished pods are stopped whatever the policy;
// §6.2: All deletes every pod, Unfinished the Pending/Running/Unknown ones, None nothing.
void terminal_deletions(Slots& slots, model::CleanUpPolicy policy, bool deadline) {
  for (auto& s : slots) {
    s.create = false;
    s.del.reset();
    if (!s.pod || terminating(*s.pod)) continue;
    const bool unfinished = s.pod->phase == PodPhase::Pending ||
                            s.pod->phase == PodPhase::Running || s.pod->phase == PodPhase::Unknown;
    if (deadline && unfinished) {
      s.del = DeletionReason::Deadline;
    } else if (policy == model::CleanUpPolicy::All ||
               (policy == model::CleanUpPolicy::Unfinished && unfinished)) {
      s.del = DeletionReason::Cleanup;
    }
  }
}

void apply_terminal_conditions(JobStatus& st, const Verdict& v,
                               SimTime now) {  // §1.2, UC snapshots
  if (v.phase == JobPhase::Succeeded) {
    set_condition(st, JobConditionType::Running, ConditionStatus::False, fixed("Succeeded"),
                  fixed(kMsgSucceeded), now);
    set_condition(st, JobConditionType::Completed, ConditionStatus::True, fixed("Succeeded"),
                  fixed(kMsgSucceeded), now);
    set_condition(st, JobConditionType::Failed, ConditionStatus::False, fixed("Succeeded"),
                  fixed(kMsgSucceeded), now);
  } else {
    set_condition(st, JobConditionType::Running, ConditionStatus::False, fixed("Failed"), v.message,
                  now);
    set_condition(st, JobConditionType::Completed, ConditionStatus::True, fixed("Failed"),
                  v.message, now);
    set_condition(st, JobConditionType::Failed, ConditionStatus::True, v.failed_reason, v.message,
                  now);
  }
}

std::string master_failure_message(const JobView& v,
                                   const Pod& p) {  // UC DeepSpeedJob example (§1.2)
  if (p.deletion_reason == DeletionReason::MaxDuration) {
    return fmt::format("{} {} has failed: {} exceeded the queue's maxDuration", v.kind_name,
                       v.meta->name, p.metadata.name);
  }
  return fmt::format("{} {} has failed: {} failed with exit code {}", v.kind_name, v.meta->name,
                     p.metadata.name, exit_code_of(p));
}

// §3.1 and §11 Q2 for GenericJob; failure is evaluated before success.
std::optional<Verdict> decide_generic(const JobView& v, const Slots& slots) {
  auto find = [&](const std::string& type, std::int32_t rank) -> const Slot* {
    for (const auto& s : slots) {
      if (s.desired && v.types[s.type_index].type == type && s.rank == rank) return &s;
    }
    return nullptr;
  };
  auto all_named = [&](const model::FinishRule& rule, Outcome want) {
    bool any = false;
    for (const auto& [type, ranks] : rule.replicas) {
      for (auto rank : ranks) {
        const Slot* s = find(type, rank);
        if (!s || s->outcome != want) return false;
        any = true;
      }
    }
    return any;  // an empty rule names nothing and is never fulfilled
  };
  const auto& spec = *v.generic;
  const Slot* first_failed = nullptr;
  for (const auto& s : slots) {
    if (s.desired && s.outcome == Outcome::FailedFinal) {
      first_failed = &s;
      break;
    }
  }
  if (spec.failure_rules.empty()) {
    if (first_failed) {  // §11 Q2: any replica failing terminally; the message names it as a rule
      std::string text = "The job is failed with rule: {";
      append_rule_entry(text, v.types[first_failed->type_index].type,
                        std::span(&first_failed->rank, 1));
      text += '}';
      return Verdict{JobPhase::Failed, fixed("Failed"), std::move(text)};
    }
  } else {
    for (const auto& rule : spec.failure_rules) {
      if (all_named(rule, Outcome::FailedFinal)) {
        return Verdict{JobPhase::Failed, fixed("Failed"),
                       "The job is failed with rule: " + rule_text(rule.replicas)};
      }
    }
  }
  // UC-1500: restarts exhausted and no success rule can still be fulfilled.
  if (first_failed) {
    bool reachable = false;
    for (const auto& rule : spec.success_rules) {
      bool ok = !rule.replicas.empty();
      for (const auto& [type, ranks] : rule.replicas) {
        for (auto rank : ranks) {
          const Slot* s = find(type, rank);
          if (!s || s->outcome == Outcome::FailedFinal) ok = false;
        }
      }
      reachable = reachable || ok;
    }
    if (!reachable) {  // with no successRules the default "all replicas" rule is unreachable too
      return Verdict{
          JobPhase::Failed, fixed("Failed"),
          fmt::format("The job is failed because the restarts of {} are exhausted and no success "
                      "rule can be fulfilled",
                      first_failed->name)};
    }
  }
  if (spec.success_rules.empty()) {  // §11 Q2: all replicas succeeded
    bool any = false, all = true;
    for (const auto& s : slots) {
      if (!s.desired) continue;
      any = true;
      all = all && s.outcome == Outcome::SucceededFinal;
    }
    if (any && all) return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
  } else {
    for (const auto& rule : spec.success_rules) {
      if (all_named(rule, Outcome::SucceededFinal)) {
        return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
      }
    }
  }
  return std::nullopt;
}

// §4.1, §5, §11 Q7 for PyTorchTrainingJob and DeepSpeedJob.
std::optional<Verdict> decide_master(const JobView& v, const Slots& slots,
                                     const ControllerOptions& opt, const Pod* backoff_limit_pod) {
  const Slot* master = nullptr;
  for (const auto& s : slots) {
    if (s.desired && s.type_index == 0 && s.rank == 0) master = &s;
  }
  if (master && master->outcome == Outcome::FailedFinal) {
    return Verdict{JobPhase::Failed, fixed("Failed"), master_failure_message(v, *master->pod)};
  }
  if (opt.permanent_failure_scope == ControllerOptions::PermanentFailureScope::AnyReplica) {
    for (const auto& s : slots) {
      if (s.desired && s.outcome == Outcome::FailedFinal) {
        return Verdict{JobPhase::Failed, fixed("Failed"), master_failure_message(v, *s.pod)};
      }
    }
  }
  if (backoff_limit_pod) {  // §11 Q4 Kubeflow option
    return Verdict{
        JobPhase::Failed, fixed("BackoffLimitExceeded"),
        fmt::format("{} {} has failed because it has reached the specified backoff limit",
                    v.kind_name, v.meta->name)};
  }
  if (master && master->outcome == Outcome::SucceededFinal) {
    return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
  }
  if (v.elastic && opt.elastic_success == ControllerOptions::ElasticSuccess::AnyReplica) {
    for (const auto& s : slots) {
      if (s.desired && s.outcome == Outcome::SucceededFinal) {
        return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::int32_t> split_by_weight(std::int32_t total,
                                          const std::vector<std::int32_t>& weights) {
  std::vector<std::int64_t> w(weights.begin(), weights.end());
  for (auto& x : w) x = std::max<std::int64_t>(x, 0);
  std::int64_t sum = std::accumulate(w.begin(), w.end(), std::int64_t{0});
  if (sum == 0) {  // all weights zero: split evenly
    std::fill(w.begin(), w.end(), 1);
    sum = static_cast<std::int64_t>(w.size());
  }
  std::vector<std::int32_t> out(w.size(), 0);
  if (w.empty() || total <= 0) return out;
  std::vector<std::int64_t> rem(w.size());
  std::int64_t given = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    out[i] = static_cast<std::int32_t>(total * w[i] / sum);
    rem[i] = total * w[i] % sum;
    given += out[i];
  }
  std::vector<std::size_t> order(w.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rem[a] > rem[b]; });
  for (std::size_t k = 0; given < total; ++k, ++given) ++out[order[k % order.size()]];
  return out;
}

// A pod of the job, indexed by name (sorted; see reconcile_job).
struct NamedPod {
  std::string_view name;
  const Pod* pod = nullptr;
  std::size_t type_index = 0;  // the first replica type named like the pod's; types.size() if none
};

// Counted restarts of a replica type: before this step and after its decisions (§11 Q3).
struct TypeRestarts {
  std::int32_t prev = 0;
  std::int32_t now = 0;
};

ReconcileResult reconcile_job(const JobView& v, const ReconcileInput& in) {
  const ControllerOptions& opt = in.options;
  const SimTime now = in.now;
  const std::string& job = v.meta->name;
  const JobStatus& prev = *v.status;
  ReconcileResult res;
  JobStatus& st = res.status;
  // The previous status except its tasks, which finish() rebuilds from the slots: copying them
  // only to clear them was a large share of a reconcile's allocations.
  st.phase = prev.phase;
  // Room for every condition type (JobConditionType has six): set_condition may insert some.
  st.conditions.reserve(std::max<std::size_t>(prev.conditions.size(), 6));
  st.conditions.assign(prev.conditions.begin(), prev.conditions.end());
  st.aggregate = prev.aggregate;
  st.backoff_count = prev.backoff_count;
  st.tensorboard = prev.tensorboard;
  st.start_time = prev.start_time;
  st.completion_time = prev.completion_time;
  st.active_since = prev.active_since;
  st.elastic_replicas = prev.elastic_replicas;

  if (!st.phase) {  // first reconcile: the deadline clock starts (§11 Q6)
    st.phase = JobPhase::Pending;
    st.start_time = now;
    st.active_since = now;
  }
  if (v.has_backoff_limit && !st.backoff_count) st.backoff_count = 0;
  if (!v.has_backoff_limit) st.backoff_count.reset();  // GenericJob has no backoffCount (§1.3)

  // ---- Observe: replica slots = desired ranks plus ranks that still have a pod (§1.3). ----
  // The job's pods by name: sorted by (name, position in the input) and deduplicated keeping the
  // first, i.e. what std::map::emplace in input order gives, without a node per pod.
  boost::container::small_vector<NamedPod, 8> by_name;
  by_name.reserve(in.pods.size());
  for (const Pod& p : in.pods) {
    if (p.job_name != job) continue;
    std::size_t ti = 0;
    while (ti < v.types.size() && v.types[ti].type != p.replica_type) ++ti;
    by_name.push_back({p.metadata.name, &p, ti});
  }
  std::sort(by_name.begin(), by_name.end(), [](const NamedPod& a, const NamedPod& b) {
    return a.name != b.name ? a.name < b.name
                            : a.pod < b.pod;  // the span is contiguous: address = order
  });
  by_name.erase(std::unique(by_name.begin(), by_name.end(),
                            [](const NamedPod& a, const NamedPod& b) { return a.name == b.name; }),
                by_name.end());
  auto find_pod = [&](std::string_view name) -> const Pod* {
    auto it = std::lower_bound(by_name.begin(), by_name.end(), name,
                               [](const NamedPod& a, std::string_view n) { return a.name < n; });
    return it != by_name.end() && it->name == name ? it->pod : nullptr;
  };

  std::size_t desired_slots = 0;
  for (const auto& t : v.types) desired_slots += static_cast<std::size_t>(std::max(t.replicas, 0));
  Slots slots;
  slots.reserve(desired_slots);  // slots beyond the desired ranks (scale-down) are rare
  boost::container::small_vector<TypeRestarts, 4> type_restarts(v.types.size());
  std::vector<std::string_view> stray_pods;  // pods of a replica type no longer in the spec
  for (const auto& [name, p, type_index] : by_name) {
    if (type_index == v.types.size() && !terminating(*p)) stray_pods.push_back(name);
  }
  std::vector<std::pair<std::int32_t, const Pod*>> extra;  // (rank, pod) beyond the desired ranks
  for (std::size_t ti = 0; ti < v.types.size(); ++ti) {
    const TypeView& t = v.types[ti];
    const model::TaskStatus* prev_task = nullptr;
    for (const auto& task : prev.tasks) {
      if (task.type == t.type) prev_task = &task;
    }
    if (prev_task) type_restarts[ti].prev = type_restarts[ti].now = prev_task->restart_count;
    auto prev_restarts = [&](const std::string& name) {
      if (prev_task) {
        for (const auto& r : prev_task->replicas) {
          if (r.name == name) return r.restart_count;
        }
      }
      return 0;
    };
    // Pods of ranks beyond the desired ones, by rank; of several pods with one rank the first by
    // name counts (std::map::emplace in name order).
    extra.clear();
    std::size_t first_of_name =
        0;  // pods of this type: NamedPod::type_index is the first such type
    while (v.types[first_of_name].type != t.type) ++first_of_name;
    for (const auto& [name, p, type_index] : by_name) {
      if (type_index == first_of_name && p->rank >= t.replicas) extra.emplace_back(p->rank, p);
    }
    std::sort(extra.begin(), extra.end(),
              [](const auto& a, const auto& b) {  // names are unique here
                return a.first != b.first ? a.first < b.first
                                          : a.second->metadata.name < b.second->metadata.name;
              });
    extra.erase(std::unique(extra.begin(), extra.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                extra.end());
    for (std::int32_t rank = 0; rank < t.replicas; ++rank) {
      Slot& s = slots.emplace_back();
      s.type_index = ti;
      s.rank = rank;
      s.name = replica_name(job, t.type, rank);
      s.pod = find_pod(s.name);
      s.desired = true;
      s.prev_restarts = s.restarts = prev_restarts(s.name);
    }
    for (const auto& [rank, p] : extra) {
      Slot& s = slots.emplace_back();
      s.type_index = ti;
      s.rank = rank;
      s.name = p->metadata.name;
      s.pod = p;
      s.prev_restarts = s.restarts = prev_restarts(s.name);
    }
  }

  auto finish = [&](bool commit_counters) {
    // Actions: deletions, then creations (a name is free only once its old pod is gone). Built
    // before the status so that the slot names can then be moved into the replica statuses.
    // Reserved exactly: an Action holds a whole Pod (growing would move them), and an
    // over-sized block of two or more Actions is a large request, which makes glibc's malloc
    // consolidate its fast bins.
    std::size_t more = stray_pods.size();
    for (const auto& s : slots) more += (s.del ? 1 : 0) + (s.create ? 1 : 0);
    if (v.tensorboard && !in.tensorboard && !model::is_terminal(*st.phase))
      ++more;  // CreateTensorBoard
    res.actions.reserve(res.actions.size() + more);
    for (const auto& name : stray_pods)
      res.actions.emplace_back(DeletePod{std::string(name), DeletionReason::ScaleDown});
    for (const auto& s : slots) {
      if (s.del) res.actions.emplace_back(DeletePod{s.name, *s.del});
    }
    const bool resumed = find_condition(st, JobConditionType::Paused) != nullptr;
    // One pod per replica type, copied for each rank created and moved into the type's last one
    // (a type's slots are contiguous, so it is empty again when the next type starts); a type
    // with one pod to create builds it in its action.
    std::optional<Pod> type_pod;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const Slot& s = slots[i];
      if (!s.create) continue;
      bool last_of_type = true;
      for (std::size_t j = i + 1; j < slots.size() && slots[j].type_index == s.type_index; ++j) {
        last_of_type = last_of_type && !slots[j].create;
      }
      Pod& p = std::get<CreatePod>(res.actions.emplace_back(std::in_place_type<CreatePod>)).pod;
      if (!type_pod && last_of_type) {
        make_pod(p, v, v.types[s.type_index], resumed);
      } else {
        if (!type_pod) make_pod(type_pod.emplace(), v, v.types[s.type_index], resumed);
        p = last_of_type ? std::move(*type_pod) : *type_pod;
        if (last_of_type) type_pod.reset();
      }
      name_pod(p, v, s.name, s.rank);
    }
    // Status: tasks with replica statuses, and the aggregate counted from them (§1.3).
    st.tasks.clear();
    st.tasks.reserve(v.types.size());
    st.aggregate = {};
    for (std::size_t ti = 0; ti < v.types.size(); ++ti) {
      model::TaskStatus& task = st.tasks.emplace_back();
      task.type = v.types[ti].type;
      task.restart_count = commit_counters ? type_restarts[ti].now : type_restarts[ti].prev;
      task.replicas.reserve(static_cast<std::size_t>(std::count_if(
          slots.begin(), slots.end(), [&](const Slot& s) { return s.type_index == ti; })));
      for (auto& s : slots) {
        if (s.type_index != ti) continue;
        model::ReplicaStatus& r = task.replicas.emplace_back();
        r.name = std::move(s.name);  // the actions above were the last users of the slot name
        if (s.pod && !s.create) r.uid = s.pod->metadata.uid;
        r.phase = replica_phase(s);
        fill_container_status(r.containers, s, v);
        r.restart_count = commit_counters ? s.restarts : s.prev_restarts;
        switch (r.phase) {
          case ReplicaPhase::Creating:
            ++st.aggregate.creating;
            break;
          case ReplicaPhase::Pending:
            ++st.aggregate.pending;
            break;
          case ReplicaPhase::Running:
            ++st.aggregate.running;
            break;
          case ReplicaPhase::Succeeded:
            ++st.aggregate.succeeded;
            break;
          case ReplicaPhase::Failed:
            ++st.aggregate.failed;
            break;
          case ReplicaPhase::Unknown:
            ++st.aggregate.unknown;
            break;
          case ReplicaPhase::Deleted:
            ++st.aggregate.deleted;
            break;
        }
      }
    }
    // TensorBoard dependent (§9): its state never affects the phase.
    if (v.tensorboard && (in.tensorboard || !model::is_terminal(*st.phase))) {
      model::DependentStatus d;
      d.name = job;
      d.dependent = {"tensorstack.dev/v1beta1", "TensorBoard", job, v.meta->namespace_,
                     in.tensorboard ? in.tensorboard->uid : std::string{}};
      d.type = "Normal";
      if (!in.tensorboard) {  // created while the job is live only
        res.actions.emplace_back(CreateTensorBoard{
            job, v.meta->namespace_, *v.tensorboard,
            model::OwnerReference{model::kBatchApiVersion, std::string(v.kind_name), job,
                                  v.meta->uid, true}});
        d.action = "Create";
        d.reason = "DependentCreating";
        d.note = fmt::format("TensorBoard [{}] is being created", job);
      } else {
        d.action = "NOP";
        d.ready = in.tensorboard->ready;
        d.reason = d.ready ? "DependentReady" : "DependentNotReady";
        d.note = fmt::format("TensorBoard [{}] is {}", job, d.ready ? "ready" : "not ready");
      }
      st.tensorboard = std::move(d);
    }
    return std::move(res);
  };

  // ---- Terminal phases never change; cleanup continues until done (§1.1, §6.2). ----
  if (model::is_terminal(*st.phase)) {
    const auto* failed = find_condition(st, JobConditionType::Failed);
    const bool deadline =
        failed && failed->status == ConditionStatus::True && failed->reason == "DeadlineExceeded";
    terminal_deletions(slots, v.clean_up, deadline);
    return finish(false);
  }

  // ---- Pause (§7.2): graceful deletion of every pod; the deadline clock stops (§11 Q6). ----
  if (v.run_mode->pause.enabled) {
    for (auto& s : slots) {
      if (s.pod && !terminating(*s.pod)) s.del = DeletionReason::Pause;
    }
    st.phase = JobPhase::Paused;
    st.active_since.reset();
    set_condition(st, JobConditionType::Paused, ConditionStatus::True, fixed("Paused"),
                  fixed("All replicas are deleted or being deleted."), now);
    if (auto* c = find_condition(st, JobConditionType::Running);
        c && c->status == ConditionStatus::True) {
      set_condition(st, JobConditionType::Running, ConditionStatus::False, fixed("Paused"),
                    fixed("The job is paused."), now);
    }
    return finish(false);
  }
  if (*st.phase == JobPhase::Paused) {  // resume: Resuming until all replicas are back (§7.2)
    st.phase = JobPhase::Resuming;
    st.active_since = now;  // §11 Q6: the clock restarts on resume (Kubeflow reset)
    set_condition(st, JobConditionType::Paused, ConditionStatus::False, fixed("Resumed"),
                  fixed("The job is resuming."), now);
  }

  // ---- activeDeadlineSeconds (§6.1, §11 Q6) ----
  std::optional<Verdict> verdict;
  std::optional<SimDuration> requeue;
  auto requeue_in = [&](SimDuration d) { requeue = requeue ? std::min(*requeue, d) : d; };
  if (v.active_deadline_seconds && st.active_since) {
    const SimTime deadline = *st.active_since + std::chrono::seconds(*v.active_deadline_seconds);
    if (now >= deadline) {
      verdict = Verdict{
          JobPhase::Failed, fixed("DeadlineExceeded"),
          fmt::format("{} {} has failed because it was active longer than specified deadline",
                      v.kind_name, job)};
    } else {
      requeue_in(deadline - now);
    }
  }

  // ---- Per-slot restart decisions, in slot order (the shared budget is spent in that order). ----
  std::int32_t backoff = st.backoff_count.value_or(0);
  const Pod* backoff_limit_pod = nullptr;  // §11 Q4 Kubeflow option fired
  const Pod* first_failed_pod = nullptr;
  const bool kubeflow_rule =
      opt.backoff_limit_rule == ControllerOptions::BackoffLimitRule::KubeflowReachLimit;
  for (auto& s : slots) {
    const TypeView& t = v.types[s.type_index];
    if (!s.pod) {
      s.outcome = Outcome::Missing;
      continue;
    }
    const Pod& p = *s.pod;
    if (p.phase == PodPhase::Failed && !first_failed_pod) first_failed_pod = &p;
    if (terminating(p)) {
      s.outcome = Outcome::Terminating;
      continue;
    }
    if (!s.desired) {  // §4.3: scale-down deletes the highest ranks
      s.outcome = Outcome::ScaledDown;
      s.del = DeletionReason::ScaleDown;
      continue;
    }
    if (p.phase == PodPhase::Pending || p.phase == PodPhase::Running ||
        p.phase == PodPhase::Unknown) {
      s.outcome = Outcome::Active;
      continue;
    }
    const bool failed = p.phase == PodPhase::Failed;
    if (failed && p.deletion_reason == DeletionReason::MaxDuration) {  // §11 Q12
      if (opt.max_duration == ControllerOptions::MaxDurationHandling::Recreate) {
        s.outcome = Outcome::Recreate;
        s.del = DeletionReason::Restart;
      } else {
        s.outcome = Outcome::FailedFinal;
      }
      continue;
    }
    const Outcome final_outcome = failed ? Outcome::FailedFinal : Outcome::SucceededFinal;
    if (!policy_restarts(t.policy, p, opt)) {
      s.outcome = final_outcome;
      continue;
    }
    // Budget: GenericJob limit per rank or type (§2.3, §11 Q3); backoffLimit shared by the job.
    const bool uses_backoff = v.has_backoff_limit && !(t.policy == RestartPolicyType::ExitCode &&
                                                       opt.exit_code_ignores_backoff_limit);
    bool budget = true;
    if (v.kind == model::JobKind::GenericJob) {
      const std::int32_t used =
          opt.generic_limit_scope == ControllerOptions::GenericLimitScope::PerReplica
              ? s.restarts
              : type_restarts[s.type_index].now;
      budget = used < t.limit;
    } else if (uses_backoff) {
      budget = backoff < v.backoff_limit;  // §11 Q4 boundary
    }
    if (!budget) {
      s.outcome = final_outcome;  // the master failing now fails the job (§2.3)
      if (failed && uses_backoff && kubeflow_rule && !backoff_limit_pod) backoff_limit_pod = &p;
      continue;
    }
    if (opt.restart_backoff) {  // §11 Q5
      const SimTime since = p.finish_time.value_or(now);
      const SimTime at = since + backoff_delay(s.restarts, opt);
      if (now < at) {
        s.outcome = Outcome::BackoffWait;
        requeue_in(at - now);
        continue;
      }
    }
    s.outcome = Outcome::Restart;
    s.del = DeletionReason::Restart;
    ++s.restarts;
    ++type_restarts[s.type_index].now;
    if (uses_backoff) {
      ++backoff;
      if (failed && kubeflow_rule && backoff >= v.backoff_limit && !backoff_limit_pod)
        backoff_limit_pod = &p;
    }
  }

  // ReplicaFailure (§1.2): True once any pod has exited non-zero; it stays True.
  if (first_failed_pod) {
    // Formatted on the stack and assigned into the condition's existing message: no allocation
    // when it is unchanged, which is the case on every reconcile after the first failure.
    fmt::memory_buffer msg;
    fmt::format_to(std::back_inserter(msg), "Pod[{}] exited with error code {}",
                   first_failed_pod->metadata.name, exit_code_of(*first_failed_pod));
    set_condition(st, JobConditionType::ReplicaFailure, ConditionStatus::True, fixed("ErrorInPod"),
                  std::string_view(msg.data(), msg.size()), now);
  }

  // ---- Job-level decision: rules are not evaluated in debug mode (§7.1, §11 Q19). ----
  if (!verdict && !v.run_mode->debug.enabled) {
    verdict = v.kind == model::JobKind::GenericJob
                  ? decide_generic(v, slots)
                  : decide_master(v, slots, opt, backoff_limit_pod);
  }
  if (verdict) {
    // Restarts decided in this step are not carried out; only the Kubeflow limit rule keeps the
    // restart that reached the limit in the count (its restarts reached backoffLimit).
    const bool keep = verdict->failed_reason == "BackoffLimitExceeded";
    st.phase = verdict->phase;
    st.completion_time = now;
    st.active_since.reset();
    if (v.has_backoff_limit) st.backoff_count = keep ? backoff : prev.backoff_count.value_or(0);
    apply_terminal_conditions(st, *verdict, now);
    terminal_deletions(slots, v.clean_up, verdict->failed_reason == "DeadlineExceeded");
    res.requeue_after.reset();
    return finish(keep);
  }
  if (v.has_backoff_limit) st.backoff_count = backoff;

  // ---- Non-terminal: PodGroup, creations, elastic membership, phase. ----
  if (v.scheduler->t9k_scheduler) {  // §8.1: one PodGroup named after the job, before its pods
    if (!in.pod_group) {             // built in its action: a PodGroup is large
      model::PodGroup& pg =
          std::get<CreatePodGroup>(res.actions.emplace_back(std::in_place_type<CreatePodGroup>))
              .pod_group;
      pg.metadata.name = job;
      pg.metadata.namespace_ = v.meta->namespace_;
      pg.metadata.creation_timestamp = now;
      pg.metadata.owner_references.push_back(model::OwnerReference{
          model::kBatchApiVersion, std::string(v.kind_name), job, v.meta->uid, true});
      pg.spec = desired_pod_group_spec(v);
    } else if (!pod_group_spec_is_current(in.pod_group->spec, v)) {
      model::PodGroup pg = *in.pod_group;  // metadata (creation time) unchanged, §11 Q20
      std::string topology = std::move(pg.spec.topology_policy);
      pg.spec = desired_pod_group_spec(v);
      pg.spec.topology_policy = std::move(topology);
      res.actions.emplace_back(UpdatePodGroup{std::move(pg)});
    }
  }
  for (auto& s : slots) s.create = s.desired && s.outcome == Outcome::Missing;

  if (v.elastic) {  // §4.3, §5, §11 Q8: a scale event restarts training on the surviving pods
    std::int32_t target = 0;
    for (const auto& t : v.types) target += t.replicas;
    if (st.elastic_replicas && *st.elastic_replicas != target) {
      RestartTraining rt;
      for (const auto& s : slots) {
        if (s.desired && running_now(s)) rt.pods.push_back(s.name);
      }
      rt.replicas = target;
      rt.world_size = target * (v.kind == model::JobKind::DeepSpeedJob ? v.slots_per_worker : 1);
      rt.reason = target > *st.elastic_replicas ? "ScaleUp" : "ScaleDown";
      if (!rt.pods.empty()) res.actions.emplace_back(std::move(rt));
    }
    st.elastic_replicas = target;
  }

  set_condition(st, JobConditionType::Initialized, ConditionStatus::True, fixed(""),
                fixed("All sub-resources are created."), now);
  if (!find_condition(st, JobConditionType::ReplicaFailure)) {
    set_condition(st, JobConditionType::ReplicaFailure, ConditionStatus::False, fixed(""),
                  fixed(kMsgAllRunning), now);
  }
  if (*st.phase == JobPhase::Pending || *st.phase == JobPhase::Resuming) {  // §11 Q1
    std::int32_t desired = 0, running = 0;
    bool master_running = false;
    for (const auto& s : slots) {
      if (!s.desired) continue;
      ++desired;
      if (running_now(s)) {
        ++running;
        if (s.type_index == 0 && s.rank == 0) master_running = true;
      }
    }
    bool is_running = false;
    if (opt.running_when == ControllerOptions::RunningWhen::MasterRunning) {
      is_running = master_running;
    } else if (v.elastic) {
      is_running = running > 0 && running >= std::min(v.elastic_min, desired);
    } else {
      is_running = desired > 0 && running == desired;
    }
    if (is_running) {
      st.phase = JobPhase::Running;
      set_condition(st, JobConditionType::Running, ConditionStatus::True, fixed("Running"),
                    fixed(kMsgAllRunning), now);
    }
  }
  res.requeue_after = requeue;
  return finish(true);
}

}  // namespace t9k::controllers::detail
