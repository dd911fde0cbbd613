// spec.operations.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kOperation[] = {
    "at",       "action",   "job",         "queue",       "node",     "pool",
    "replicas", "nodePool", "replicaType", "rank",        "exitCode", "repairAfter",
    "switch",   "quota",    "priority",    "preemptible", "closed",   "maxDuration"};

bool node_exists(const std::map<std::string, std::int32_t>& pools, const std::string& node) {
  const auto dash = node.rfind('-');
  if (dash == std::string::npos || dash + 1 >= node.size() || node.size() - dash > 8) return false;
  const std::string pool = node.substr(0, dash);
  const std::string idx = node.substr(dash + 1);
  if (!std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  if (idx.size() > 1 && idx[0] == '0') return false;
  const auto it = pools.find(pool);
  return it != pools.end() && std::stol(idx) < it->second;
}

}  // namespace

void ScenarioDecoder::operations(const Val& v, Scenario& sc) {
  // Pools as they exist over time: addNodePool/removeNodePool change the set.
  std::map<std::string, std::int32_t> pools;
  for (const auto& p : sc.cluster.node_pools) pools[p.name] = p.count;
  // Pools from an export keep their nodes' own names (docs/traces.md "Cluster from an export").
  named_nodes_.clear();
  for (const auto& p : sc.cluster.node_pools) {
    if (!p.node_names.empty()) named_nodes_[p.name] = p.node_names;
  }
  std::vector<std::pair<SimTime, Operation>> ops;
  std::map<std::size_t, std::string> paths;
  for (const Val& item : read_list(r_, v)) {
    auto op = operation(item, sc, pools);
    if (!op) continue;
    paths.emplace(ops.size(), item.path);
    ops.emplace_back(op->at, std::move(*op));
  }
  std::vector<std::size_t> order(ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return ops[a].first < ops[b].first; });
  // repairNode ends a failNode without repairAfter that came before it.
  std::map<std::string, int> down;
  for (const std::size_t i : order) {
    const Operation& op = ops[i].second;
    if (op.type == OperationType::FailNode && !op.repair_after) ++down[op.target];
    if (op.type == OperationType::RepairNode && down[op.target]-- <= 0) {
      r_.error(child_path(paths[i], "node"),
               fmt::format("found node \"{}\", which no earlier failNode without repairAfter "
                           "took down; allowed: "
                           "repairNode after failNode of the same node",
                           op.target));
    }
  }
  for (const std::size_t i : order) sc.operations.push_back(std::move(ops[i].second));
}

// One entry of spec.operations; nullopt when it names no valid action or misses a field the
// action needs.
std::optional<Operation> ScenarioDecoder::operation(const Val& item, const Scenario& sc,
                                                    std::map<std::string, std::int32_t>& pools) {
  MapReader o(r_, item, kOperation);
  if (!o.ok()) return std::nullopt;
  Operation op;
  const Val at = o.get("at");
  if (require(r_, at)) {
    if (auto x = time_point(r_, at)) {
      op.at = *x;
      if (sc.horizon.count() > 0 && x->time_since_epoch() > sc.horizon) {
        r_.warning(at.mark, at.path, "the operation is after the horizon and never happens");
      }
    }
  }
  const Val action = o.get("action");
  if (!require(r_, action)) return std::nullopt;
  const auto a = read_choice(r_, action, kOperationNames);
  if (!a) return std::nullopt;
  op.type = static_cast<OperationType>(
      std::find(std::begin(kOperationNames), std::end(kOperationNames), *a) -
      std::begin(kOperationNames));
  if (!operation_fields(o, op.type, *a)) return std::nullopt;
  switch (op.type) {
    case OperationType::FailPod:
    case OperationType::DeletePod:
    case OperationType::SetJobPriority:
      operation_pod(o, op, sc);
      break;
    case OperationType::FailNode:
    case OperationType::RepairNode:
    case OperationType::FailGpu:
      operation_node(o.get("node"), op, pools);
      repair_after(o, op);
      break;
    case OperationType::FailSwitch:
      // Switch names come from the topology built at run time (docs/scenario-format.md
      // "topology"); the world checks the name when the operation happens.
      if (auto name = read_string(r_, o.get("switch"))) op.target = *name;
      repair_after(o, op);
      break;
    case OperationType::SetQueue:
      operation_queue_edit(o, item, op, sc);
      break;
    case OperationType::PauseJob:
    case OperationType::ResumeJob:
    case OperationType::SetExpectedReplicas:
      operation_replicas(o, op, sc);
      break;
    case OperationType::CloseQueue:
    case OperationType::OpenQueue:
      operation_queue(o.get("queue"), op, sc);
      break;
    case OperationType::DrainNode:
    case OperationType::CordonNode:
    case OperationType::UncordonNode:
      operation_node(o.get("node"), op, pools);
      break;
    case OperationType::AddNodePool:
      operation_add_pool(o, op, pools);
      break;
    case OperationType::RemoveNodePool:
      operation_remove_pool(o, op, pools);
      break;
  }
  return op;
}

// Every field other than those action `type` takes is an error; false when one it needs is
// missing.
bool ScenarioDecoder::operation_fields(const MapReader& o, OperationType type,
                                       std::string_view action) {
  // The fields each action takes; `optional` ones may be left out.
  std::vector<std::string_view> wanted, optional;
  switch (type) {
    case OperationType::PauseJob:
    case OperationType::ResumeJob:
      wanted = {"job"};
      break;
    case OperationType::SetExpectedReplicas:
      wanted = {"job", "replicas"};
      break;
    case OperationType::CloseQueue:
    case OperationType::OpenQueue:
      wanted = {"queue"};
      break;
    case OperationType::DrainNode:
    case OperationType::CordonNode:
    case OperationType::UncordonNode:
      wanted = {"node"};
      break;
    case OperationType::AddNodePool:
      wanted = {"nodePool"};
      break;
    case OperationType::RemoveNodePool:
      wanted = {"pool"};
      break;
    case OperationType::FailPod:
      wanted = {"job", "replicaType", "rank"};
      optional = {"exitCode"};
      break;
    case OperationType::DeletePod:
      wanted = {"job", "replicaType", "rank"};
      break;
    case OperationType::FailNode:
    case OperationType::FailGpu:
      wanted = {"node"};
      optional = {"repairAfter"};
      break;
    case OperationType::RepairNode:
      wanted = {"node"};
      break;
    case OperationType::FailSwitch:
      wanted = {"switch"};
      optional = {"repairAfter"};
      break;
    case OperationType::SetQueue:
      wanted = {"queue"};
      optional = {"quota", "priority", "preemptible", "closed", "maxDuration"};
      break;
    case OperationType::SetJobPriority:
      wanted = {"job", "priority"};
      break;
  }
  for (const auto& [key, val] : o.entries()) {
    if (key == "at" || key == "action") continue;
    if (std::find(wanted.begin(), wanted.end(), key) == wanted.end() &&
        std::find(optional.begin(), optional.end(), key) == optional.end()) {
      std::vector<std::string_view> all = wanted;
      all.insert(all.end(), optional.begin(), optional.end());
      r_.error(val.mark, val.path,
               fmt::format("found field \"{}\" with action {}; allowed: {}", key, action,
                           join_names(all)));
    }
  }
  bool ok = true;
  for (auto key : wanted) ok = require(r_, o.get(key)) && ok;
  return ok;
}

// failPod, deletePod and setJobPriority: a job, and a replica type and rank of it, or a priority.
void ScenarioDecoder::operation_pod(const MapReader& o, Operation& op, const Scenario& sc) {
  const Val jv = o.get("job");
  const JobSubmission* job = operation_job(jv, op, sc);
  if (!job) return;
  if (op.type == OperationType::SetJobPriority) {
    const Val pv = o.get("priority");
    if (auto x = read_int32(r_, pv, 0, 100, "spec §8.3")) op.priority = *x;
    if (!m::scheduler_of(job->job).t9k_scheduler) {
      r_.error(jv.mark, jv.path,
               fmt::format("found job \"{}\", which uses the default scheduler; allowed: "
                           "a job with spec.scheduler.t9kScheduler (spec §8.1)",
                           op.target));
    }
    return;
  }
  const Val tv = o.get("replicaType");
  const Val kv = o.get("rank");
  if (auto x = read_string(r_, tv)) op.replica_type = *x;
  if (auto x = read_int32(r_, kv, 0)) op.rank = *x;
  if (auto x = read_int32(r_, o.get("exitCode"), 1, 255, "a failure exits non-zero"))
    op.exit_code = *x;
  if (r_.has_error_under(tv.path) || r_.has_error_under(kv.path)) return;
  const auto rt = check_replica_type(job->job, op.target, op.replica_type);
  if (!rt.error.empty()) {
    r_.error(tv.mark, tv.path, rt.error);
  } else if (rt.ranks && op.rank >= *rt.ranks) {
    r_.error(kv.mark, kv.path,
             fmt::format("found {}; allowed: a rank of {} below {}", op.rank, op.replica_type,
                         *rt.ranks));
  }
}

// setQueue: what changes in the queue.
void ScenarioDecoder::operation_queue_edit(const MapReader& o, const Val& item, Operation& op,
                                           const Scenario& sc) {
  operation_queue(o.get("queue"), op, sc);
  QueueEdit edit;
  const Val quota = o.get("quota");
  if (quota.present()) {
    m::ResourceList rl;
    for (const auto& [key, val] : FreeMap(r_, quota).entries()) {
      if (auto q = read_quantity(r_, val)) rl[key] = *q;
    }
    edit.quota = std::move(rl);
  }
  if (auto x = read_int32(r_, o.get("priority"), 0, 100, "spec §8.2")) edit.priority = *x;
  if (auto x = read_bool(r_, o.get("preemptible"))) edit.preemptible = *x;
  if (auto x = read_bool(r_, o.get("closed"))) edit.closed = *x;
  const Val md = o.get("maxDuration");
  if (auto x = read_string(r_, md)) {
    try {
      (void)kernel::parse_max_duration(*x);
      edit.max_duration = *x;
    } catch (const kernel::DurationError& e) {
      r_.error(md.mark, md.path, e.what());
    }
  }
  if (!quota.present() && !o.has("priority") && !o.has("preemptible") && !o.has("closed") &&
      !o.has("maxDuration")) {
    r_.error(item.mark, item.path,
             "found setQueue without a change; allowed: one or more of quota, "
             "priority, preemptible, closed, maxDuration");
  }
  op.queue_edit = std::move(edit);
}

// pauseJob, resumeJob and setExpectedReplicas: a job (elastic, for a replica change).
void ScenarioDecoder::operation_replicas(const MapReader& o, Operation& op, const Scenario& sc) {
  const JobSubmission* job = operation_job(o.get("job"), op, sc);
  if (!job) return;
  if (op.type != OperationType::SetExpectedReplicas) return;
  const Val rv = o.get("replicas");
  const auto n = read_int32(r_, rv, 0);
  if (!n) return;
  op.expected_replicas = *n;
  std::optional<m::ElasticConfig> e;
  if (auto* p = std::get_if<m::PyTorchTrainingJob>(&job->job)) e = p->spec.elastic;
  if (auto* d = std::get_if<m::DeepSpeedJob>(&job->job)) e = d->spec.elastic;
  if (!e || !e->enabled) {
    r_.error(rv.mark, rv.path,
             fmt::format("found a replica change for job \"{}\", which is not "
                         "elastic; allowed: jobs with spec.elastic.enabled: true (spec §4.3)",
                         op.target));
  } else if (*n < e->min_replicas || *n > e->max_replicas) {
    r_.error(rv.mark, rv.path,
             fmt::format("found {}; allowed: an integer in [minReplicas {}, "
                         "maxReplicas {}] (spec §4.3)",
                         *n, e->min_replicas, e->max_replicas));
  }
}

// addNodePool: a new pool from this point on.
void ScenarioDecoder::operation_add_pool(const MapReader& o, Operation& op,
                                         std::map<std::string, std::int32_t>& pools) {
  if (auto p = node_pool(o.get("nodePool"))) {
    op.target = p->name;
    if (pools.count(p->name)) {
      r_.error(
          child_path(o.get("nodePool").path, "name"),
          fmt::format("found \"{}\", which already exists; allowed: a new pool name", p->name));
    }
    pools[p->name] = p->count;
    op.node_pool = std::move(*p);
  }
}

// removeNodePool: an existing pool, gone from this point on.
void ScenarioDecoder::operation_remove_pool(const MapReader& o, Operation& op,
                                            std::map<std::string, std::int32_t>& pools) {
  const Val pv = o.get("pool");
  if (auto name = read_string(r_, pv)) {
    op.target = *name;
    named_nodes_.erase(*name);
    if (!pools.erase(*name)) {
      r_.error(pv.mark, pv.path,
               fmt::format("found pool \"{}\"; allowed: an existing node pool", *name));
    }
  }
}

// The job an operation names, which becomes its target; nullptr when it is not a job of the
// workload (reported, unless the job itself failed to load).
const JobSubmission* ScenarioDecoder::operation_job(const Val& jv, Operation& op,
                                                    const Scenario& sc) {
  const auto name = read_string(r_, jv);
  if (!name) return nullptr;
  op.target = *name;
  const JobSubmission* job = find_job(sc, *name);
  if (!job && !broken_.count(*name)) {
    r_.error(jv.mark, jv.path,
             fmt::format("found job \"{}\"; allowed: a job of spec.workload.jobs ({})", *name,
                         job_names(sc)));
  }
  const bool pauses = op.type == OperationType::PauseJob || op.type == OperationType::ResumeJob ||
                      op.type == OperationType::SetExpectedReplicas;
  if (job && pauses && m::kind_of(job->job) == m::JobKind::Plugin) {
    // The world cannot tell a kind it does not know to pause or scale (model::PluginJobSpec).
    r_.error(jv.mark, jv.path,
             fmt::format("found {} \"{}\"; allowed: a GenericJob, PyTorchTrainingJob or "
                         "DeepSpeedJob (only a plugin knows what pausing or scaling a {} means)",
                         m::kind_name(job->job), *name, m::kind_name(job->job)));
    return nullptr;
  }
  return job;
}

// The node an operation names (<pool>-<index> of a pool existing at that point), its target.
void ScenarioDecoder::operation_node(const Val& nv, Operation& op,
                                     const std::map<std::string, std::int32_t>& pools) {
  const auto name = read_string(r_, nv);
  if (!name) return;
  op.target = *name;
  bool named = false;
  for (const auto& [pool, names] : named_nodes_)
    named = named || std::find(names.begin(), names.end(), *name) != names.end();
  const auto dash = name->rfind('-');
  const bool in_named_pool = dash != std::string::npos && named_nodes_.count(name->substr(0, dash));
  if (!named && (in_named_pool || !node_exists(pools, *name))) {
    r_.error(nv.mark, nv.path,
             fmt::format("found node \"{}\"; allowed: a node <pool>-<index> of a "
                         "node pool, index below the pool's count, or a node of an export by its "
                         "name",
                         *name));
  }
}

// The queue an operation names (a queue of spec.scheduler.queues), its target.
void ScenarioDecoder::operation_queue(const Val& qv, Operation& op, const Scenario& sc) {
  const auto name = read_string(r_, qv);
  if (!name) return;
  op.target = *name;
  const bool found = std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                                 [&](const m::Queue& q) { return q.metadata.name == *name; });
  if (!found) {
    r_.error(qv.mark, qv.path,
             fmt::format("found queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})",
                         *name, queue_names(sc)));
  }
}

void ScenarioDecoder::repair_after(const MapReader& o, Operation& op) {
  const Val ra = o.get("repairAfter");
  if (auto x = read_duration(r_, ra)) {
    if (x->count() <= 0) {
      r_.error(ra.mark, ra.path,
               "found 0; allowed: a duration > 0 (omit it to stay down until repairNode)");
    } else {
      op.repair_after = *x;
    }
  }
}

}  // namespace t9k::scenarios::detail
