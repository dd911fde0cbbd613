// kubectl exports (docs/traces.md "k8s-export", docs/forecast.md): jobs with the run times their
// status and pods record, and the unfinished ones as an initial state.
#include "scenarios/format/detail/trace_readers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios {

namespace m = t9k::model;

namespace detail {

namespace {

// The latest time an export records (docs/forecast.md "Time zero"): any object's
// creationTimestamp, condition transition or heartbeat, start, finish or completion, or write
// of a field manager (managedFields[].time).
void latest_time(const YAML::Node& n, std::int64_t& latest, int depth = 0) {
  if (depth > 64) return;
  if (n.IsSequence()) {
    for (const auto& x : n) latest_time(x, latest, depth + 1);
    return;
  }
  if (!n.IsMap()) return;
  for (const auto& kv : n) {
    const YAML::Node& v = kv.second;
    if (v.IsScalar() && kv.first.IsScalar()) {
      static const std::set<std::string> keys = {
          "creationTimestamp", "lastTransitionTime", "lastHeartbeatTime", "startTime",
          "startedAt",         "finishedAt",         "completionTime",    "time"};
      if (keys.count(kv.first.Scalar())) {
        m::SimTime t{};
        if (parse_timestamp(v.Scalar(), t)) latest = std::max(latest, t.time_since_epoch().count());
      }
    } else {
      latest_time(v, latest, depth + 1);
    }
  }
}

// When a job's pods started and finished, from the export's Pods, by the job that owns them
// (metadata.ownerReferences): for jobs whose own status has no times.
struct PodTimes {
  std::optional<std::int64_t> first_start;
  std::optional<std::int64_t> last_finish;
  bool unfinished = false;                                  // a container not terminated
  std::vector<std::pair<std::string, std::string>> placed;  // live pods on a node: (name, node)
};

// What a time of an export may be (the zero time 0001-01-01T00:00:00Z counts as unset).
constexpr const char* kExportTime =
    "an RFC 3339 time at or after 1970-01-01T00:00:00Z, or 0001-01-01T00:00:00Z for unset";

std::optional<std::int64_t> scalar_time(const YAML::Node& n) {
  if (!n.IsDefined() || !n.IsScalar()) return std::nullopt;
  m::SimTime t{};
  if (!parse_timestamp(n.Scalar(), t)) return std::nullopt;
  return t.time_since_epoch().count();
}

std::string namespace_of(const YAML::Node& item) {
  const YAML::Node ns = map_at(map_at(item, "metadata"), "namespace");
  return ns.IsDefined() && ns.IsScalar() && !ns.Scalar().empty() ? ns.Scalar()
                                                                 : std::string("default");
}

bool is_job_kind(const std::string& k) {
  return k == "GenericJob" || k == "PyTorchTrainingJob" || k == "DeepSpeedJob";
}

// "namespace/Kind/name" of the owning job -> its pods' times.
std::map<std::string, PodTimes> pod_times(const std::vector<Val>& items) {
  std::map<std::string, PodTimes> pods;
  for (const auto& item : items) {
    const std::string kind = kind_of(item.node);
    if (kind != "Pod") continue;
    const YAML::Node owners = map_at(map_at(item.node, "metadata"), "ownerReferences");
    if (!owners.IsDefined() || !owners.IsSequence()) continue;
    for (const auto& o : owners) {
      const std::string okind = kind_of(o);
      const YAML::Node oname = map_at(o, "name");
      if (!is_job_kind(okind) || !oname.IsDefined() || !oname.IsScalar()) continue;
      PodTimes& t = pods[namespace_of(item.node) + "/" + okind + "/" + oname.Scalar()];
      const YAML::Node status = map_at(item.node, "status");
      // Where it runs (spec.initialState): a pod bound to a node and not finished.
      const YAML::Node pod_phase = map_at(status, "phase"),
                       node_name = map_at(map_at(item.node, "spec"), "nodeName");
      const YAML::Node pod_name = map_at(map_at(item.node, "metadata"), "name");
      if (pod_phase.IsDefined() && pod_phase.IsScalar() &&
          (pod_phase.Scalar() == "Running" || pod_phase.Scalar() == "Pending") &&
          node_name.IsDefined() && node_name.IsScalar() && !node_name.Scalar().empty() &&
          pod_name.IsDefined() && pod_name.IsScalar()) {
        t.placed.emplace_back(pod_name.Scalar(), node_name.Scalar());
      }
      if (const auto st = scalar_time(map_at(status, "startTime"))) {
        t.first_start = t.first_start ? std::min(*t.first_start, *st) : *st;
      }
      const YAML::Node containers = map_at(status, "containerStatuses");
      if (containers.IsDefined() && containers.IsSequence()) {
        for (const auto& c : containers) {
          const auto finished =
              scalar_time(map_at(map_at(map_at(c, "state"), "terminated"), "finishedAt"));
          if (finished) {
            t.last_finish = t.last_finish ? std::max(*t.last_finish, *finished) : *finished;
          } else {
            t.unfinished = true;
          }
        }
      } else {
        t.unfinished = true;
      }
    }
  }
  return pods;
}

// The times a job's status records. A field that is present must be a time (else the row is
// bad); an absent one falls through to the next source.
struct StatusTimes {
  const YAML::Node& status;
  const std::string& prefix;
  RowErrors& errors;
  bool bad = false;

  std::optional<std::int64_t> field(const YAML::Node& n, const std::string& path) {
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    if (n.IsScalar() && is_unset_time(n.Scalar())) return std::nullopt;  // Go's "never set"
    if (auto t = scalar_time(n)) return t;
    errors.bad(n.Mark().line + 1, n.Mark().column + 1, path,
               fmt::format("found \"{}\"; allowed: {}", n.IsScalar() ? n.Scalar() : describe(n),
                           kExportTime));
    bad = true;
    return std::nullopt;
  }
  // The lastTransitionTime of a condition of this type with status True.
  std::optional<std::int64_t> condition(const char* type) {
    const YAML::Node conds = map_at(status, "conditions");
    if (!conds.IsDefined() || !conds.IsSequence()) return std::nullopt;
    for (std::size_t i = 0; i < conds.size(); ++i) {
      const YAML::Node c = conds[i];
      const YAML::Node t = map_at(c, "type"), st = map_at(c, "status");
      if (t.IsDefined() && t.IsScalar() && t.Scalar() == type && st.IsDefined() && st.IsScalar() &&
          st.Scalar() == "True") {
        return field(map_at(c, "lastTransitionTime"),
                     fmt::format("{}status.conditions[{}].lastTransitionTime", prefix, i));
      }
    }
    return std::nullopt;
  }
};

// A job's start and end, and where each came from (docs/traces.md "k8s-export").
struct RunTimes {
  std::optional<std::int64_t> start, end;
  std::string start_from, end_from;
};

RunTimes run_times(StatusTimes& st, const PodTimes* pt, std::int64_t created) {
  RunTimes rt;
  // The end: status.completionTime, else the Completed or Failed condition's lastTransitionTime,
  // else the last container of its pods to finish.
  rt.end = st.field(map_at(st.status, "completionTime"), st.prefix + "status.completionTime");
  rt.end_from = "status.completionTime";
  if (!rt.end && !st.bad) {
    const auto completed = st.condition("Completed");
    const auto failed = st.condition("Failed");
    if (completed || failed) {
      rt.end = std::max(completed.value_or(INT64_MIN), failed.value_or(INT64_MIN));
      rt.end_from = "conditions";
    } else if (pt && pt->last_finish && !pt->unfinished) {
      rt.end = pt->last_finish;
      rt.end_from = "pods";
    }
  }
  // The start: status.startTime, else its pods' first startTime, else the Initialized condition
  // (pods created: includes the wait for nodes), else the creation time (the whole time in the
  // cluster counts as run time).
  rt.start = st.field(map_at(st.status, "startTime"), st.prefix + "status.startTime");
  rt.start_from = "status.startTime";
  if (!rt.start && !st.bad) {
    if (pt && pt->first_start) {
      rt.start = pt->first_start;
      rt.start_from = "pods";
    } else if (const auto init = st.condition("Initialized")) {
      rt.start = init;
      rt.start_from = "Initialized condition (approximate: includes the wait)";
    } else if (!st.bad) {
      rt.start = created;
      rt.start_from = "creationTimestamp (approximate: includes the wait)";
    }
  }
  return rt;
}

// An exported job as a model job: its spec as exported, status and server fields dropped.
std::optional<m::Job> export_job(const std::string& file, const Val& item,
                                 std::vector<Diagnostic>& diags) {
  Report r(file, diags, 0);
  std::optional<Object> obj;
  try {
    obj = decode_object(r, Val{without_server_fields(item.node), item.mark, item.path});
  } catch (const BudgetExceeded&) {
    obj.reset();
  }
  if (!obj || has_errors(diags) || !is_job(*obj)) return std::nullopt;
  return to_job(*obj);
}

// The jobs of an export, one item at a time, and what reading them assumed.
class ExportJobsReader {
 public:
  ExportJobsReader(TraceData& d, RowErrors& errors, std::map<std::string, PodTimes> pods)
      : d_(d), errors_(errors), pods_(std::move(pods)) {}
  void item(const Val& item);
  // Where run times came from, what was not replayed and why.
  void notes(std::vector<Diagnostic>& out) const;

 private:
  // A job the export saw unfinished: not replayed; kept for spec.initialState.
  void unfinished(const Val& item, const std::string& phase, const std::string& job_name,
                  std::int64_t created, const RunTimes& rt, StatusTimes& st, const PodTimes* pt);
  // The creation time (the submission), or nullopt after reporting the row bad.
  std::optional<std::int64_t> created(const Val& item, const YAML::Node& meta,
                                      const std::string& prefix);

  TraceData& d_;
  RowErrors& errors_;
  std::map<std::string, PodTimes> pods_;
  std::set<std::string> queues_;
  std::map<std::string, std::vector<std::string>> unfinished_;  // phase -> job names
  std::map<std::string, std::int64_t> sources_;  // how run times were derived -> jobs
  std::map<std::string, int> other_kinds_;
};

std::optional<std::int64_t> ExportJobsReader::created(const Val& item, const YAML::Node& meta,
                                                      const std::string& prefix) {
  const int line = item.mark.line + 1, column = item.mark.column + 1;
  // Times from the raw document: the T9k status decoder does not keep them.
  const YAML::Node created_node = map_at(meta, "creationTimestamp");
  const auto created = scalar_time(created_node);
  if (created) return created;
  const bool at_meta = meta.IsDefined() && meta.IsMap();
  errors_.bad(
      created_node.IsDefined() ? created_node.Mark().line + 1
      : at_meta                ? meta.Mark().line + 1
                               : line,
      created_node.IsDefined() ? created_node.Mark().column + 1
      : at_meta                ? meta.Mark().column + 1
                               : column,
      prefix + "metadata.creationTimestamp",
      created_node.IsDefined() && created_node.IsScalar() && is_unset_time(created_node.Scalar())
          ? std::string("found the zero time 0001-01-01T00:00:00Z (never set); allowed: the time "
                        "the job was created")
      : created_node.IsDefined()
          ? fmt::format("found \"{}\"; allowed: {}",
                        created_node.IsScalar() ? created_node.Scalar() : describe(created_node),
                        kExportTime)
          : "missing metadata.creationTimestamp; allowed: an RFC 3339 time (when the "
            "job was submitted)");
  return std::nullopt;
}

void ExportJobsReader::item(const Val& item) {
  const int line = item.mark.line + 1, column = item.mark.column + 1;
  if (!item.node.IsMap()) {
    errors_.bad(line, column, item.path,
                "found " + describe(item.node) + "; allowed: a job object");
    return;
  }
  const std::string kind = kind_of(item.node);
  if (!kind.empty() && !is_job_kind(kind)) {
    // Pods (read above), PodGroups: the cluster's state, not jobs to replay. Nodes and Queues
    // were read as the export's cluster.
    if (kind != "Node" && kind != "Queue") ++other_kinds_[kind];
    return;
  }
  const std::string prefix = item.path.empty() ? "" : item.path + ".";
  const YAML::Node meta = map_at(item.node, "metadata");
  const YAML::Node status = map_at(item.node, "status");
  const auto created_at = created(item, meta, prefix);
  if (!created_at) return;
  StatusTimes st{status, prefix, errors_};
  const YAML::Node phase_node = map_at(status, "phase");
  const std::string phase =
      phase_node.IsDefined() && phase_node.IsScalar() ? phase_node.Scalar() : "";
  const YAML::Node name_node = map_at(meta, "name");
  const std::string job_name =
      name_node.IsDefined() && name_node.IsScalar() ? name_node.Scalar() : item.path;
  const PodTimes* pt = nullptr;
  if (const auto it = pods_.find(namespace_of(item.node) + "/" + kind + "/" + job_name);
      it != pods_.end())
    pt = &it->second;
  const RunTimes rt = run_times(st, pt, *created_at);
  if (st.bad) return;
  if (!rt.end) {
    if (phase == "Succeeded" || phase == "Failed") {
      errors_.bad(
          status.IsDefined() ? status.Mark().line + 1 : line,
          status.IsDefined() ? status.Mark().column + 1 : column, prefix + "status",
          fmt::format(
              "found a {} job with no end time: no status.completionTime, no Completed or Failed "
              "condition with status True, and no pod of it whose containers all terminated",
              phase));
    } else {
      // Still running (or pending, paused) when the export was taken: its run time is unknown.
      unfinished(item, phase, job_name, *created_at, rt, st, pt);
    }
    return;
  }
  if (*rt.end < *rt.start) {
    errors_.bad(line, column, prefix + "status",
                fmt::format("found an end ({}) before the start ({}): a negative run time",
                            rt.end_from, rt.start_from));
    return;
  }
  std::vector<Diagnostic> item_diags;
  auto job = export_job(d_.file, item, item_diags);
  if (!job) {
    errors_.bad(
        line, column, item.path,
        "found an invalid job: " +
            first_error(item_diags, "not a GenericJob, PyTorchTrainingJob or DeepSpeedJob"));
    return;
  }
  ++sources_[rt.start_from == rt.end_from
                 ? "start and end from " + rt.start_from
                 : "start from " + rt.start_from + ", end from " + rt.end_from];
  TraceRecord rec;
  rec.line = line;
  rec.submit_us = *created_at;
  rec.duration_us = *rt.end - *rt.start;
  // Recorded waits are exact only from a start the cluster recorded (t9ksim replay-check).
  rec.start_us = *rt.start;
  rec.start_exact = rt.start_from == "status.startTime" || rt.start_from == "pods";
  rec.object = static_cast<std::int32_t>(d_.objects.size());
  rec.name = static_cast<std::int32_t>(d_.raw_names.size());
  d_.raw_names.push_back(m::metadata_of(*job).name.str());
  if (const auto& s = m::scheduler_of(*job).t9k_scheduler;
      s && !s->queue.empty() && s->queue != m::kDefaultQueue) {
    if (queues_.insert(s->queue.str()).second) d_.groups.push_back(s->queue.str());
  }
  d_.objects.push_back(std::move(*job));
  d_.records.push_back(rec);
}

void ExportJobsReader::unfinished(const Val& item, const std::string& phase,
                                  const std::string& job_name, std::int64_t created,
                                  const RunTimes& rt, StatusTimes& st, const PodTimes* pt) {
  unfinished_[phase.empty() ? "without a phase" : phase].push_back(job_name);
  // Kept for spec.initialState, which reports a job that does not decode (a replay does not).
  TraceData::Unfinished u;
  u.path = item.path;
  u.line = item.mark.line + 1;
  u.phase = phase;
  u.created_us = created;
  // A job the export records as Running without any pod of it (pods not exported, or kubectl get
  // without pods) runs: its phase says so, and only its nodes are unknown (docs/forecast.md).
  u.running_without_pods = !pt && phase == "Running";
  if ((pt && !pt->placed.empty()) || u.running_without_pods) {
    if (pt) u.placed = pt->placed;
    u.start_us = rt.start;
    u.start_from = rt.start_from;
    if (const auto running = st.condition("Running");
        running && (rt.start_from.starts_with("creationTimestamp") ||
                    rt.start_from.starts_with("Initialized"))) {
      u.start_us = running;
      u.start_from = "Running condition";
    }
  }
  std::vector<Diagnostic> item_diags;
  if (auto job = export_job(d_.file, item, item_diags)) {
    u.job = std::move(*job);
  } else {
    u.error = first_error(item_diags, "not a GenericJob, PyTorchTrainingJob or DeepSpeedJob");
  }
  d_.unfinished.push_back(std::move(u));
}

void ExportJobsReader::notes(std::vector<Diagnostic>& out) const {
  if (!sources_.empty() &&
      !(sources_.size() == 1 && sources_.begin()->first == "start and end from status.startTime")) {
    std::string how;
    for (const auto& [what, n] : sources_)
      how += fmt::format("{}{} job{}: {}", how.empty() ? "" : "; ", n, n == 1 ? "" : "s", what);
    out.push_back(Diagnostic{Severity::Note, d_.file, 0, 0, 0, "",
                             "run times derived (docs/traces.md): " + how});
  }
  for (const auto& [phase, names] : unfinished_) {
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) list += (i ? ", " : "") + names[i];
    if (names.size() > 5) list += fmt::format(", and {} more", names.size() - 5);
    out.push_back(Diagnostic{
        Severity::Warning, d_.file, 0, 0, 0, "",
        fmt::format("{} job{} {} at the export ({}): not replayed, a replay needs the run time "
                    "of a finished job",
                    names.size(), names.size() == 1 ? "" : "s",
                    phase == "without a phase" ? "without a phase" : "still " + phase, list)});
  }
  if (!other_kinds_.empty()) {
    std::string kinds;
    for (const auto& [k, n] : other_kinds_)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, k);
    out.push_back(Diagnostic{
        Severity::Warning, d_.file, 0, 0, 0, "",
        fmt::format("not replayed: {} (the cluster's objects; pods give their jobs' run times)",
                    kinds)});
  }
}

}  // namespace

// `kubectl get <kinds> -o yaml` (docs/traces.md "k8s-export"): each job of the List keeps its
// spec, is submitted at its creationTimestamp and runs for end - start as its status, its
// pods and its conditions record them; Nodes and Queues make the export's cluster.
void read_k8s_export(TraceData& d, RowErrors& errors, std::vector<Diagnostic>& out) {
  std::vector<Val> items;
  if (!export_items(d.file, errors, out, items)) return;
  read_export_cluster(d.file, items, errors, d.pools, d.queues, d.cluster_notes);
  d.latest_us = INT64_MIN;
  for (const auto& item : items) latest_time(item.node, d.latest_us);
  ExportJobsReader reader(d, errors, pod_times(items));
  for (const auto& item : items) reader.item(item);
  reader.notes(out);
}

}  // namespace detail

using namespace detail;

std::shared_ptr<const InitialStateData> load_initial_state(const std::string& path,
                                                           std::optional<std::int64_t> at_us,
                                                           std::vector<Diagnostic>& out) {
  // The replay's reader finds every job, its times and its pods; its warnings are about replaying
  // finished jobs, so only its errors are kept.
  TraceData d;
  d.file = path;
  d.format = TraceFormat::K8sExport;
  std::vector<Diagnostic> found;
  RowErrors errors(path, false, found);
  read_k8s_export(d, errors, found);
  bool failed = false;
  for (auto& x : found) {
    if (x.severity != Severity::Error) continue;
    out.push_back(std::move(x));
    failed = true;
  }
  auto st = std::make_shared<InitialStateData>();
  st->file = path;
  st->at_us = at_us ? *at_us : d.latest_us;
  if (!at_us && d.latest_us == INT64_MIN) {
    // No time anywhere in the export (empty, or Nodes only): nothing to measure time zero from.
    if (!d.unfinished.empty()) {
      out.push_back(Diagnostic{Severity::Error, path, 1, 1, 0, "",
                               "found unfinished jobs but no time in the export; allowed: an "
                               "export with times, or spec.initialState.at"});
      return nullptr;
    }
    st->at_us = 0;
  }
  for (const auto& r : d.records) st->finished_run_us.push_back(r.duration_us);
  std::set<std::string> nodes;
  for (const auto& p : d.pools) nodes.insert(p.node_names.begin(), p.node_names.end());
  std::vector<std::string> later, unknown_nodes, paused, without_pods;
  for (const auto& u : d.unfinished) {
    if (!u.error.empty()) {
      out.push_back(Diagnostic{Severity::Error, path, u.line, 1, 0, u.path,
                               "found a job that spec.initialState cannot start from: " + u.error});
      failed = true;
      continue;
    }
    const std::string name = m::metadata_of(u.job).name.str();
    if (u.created_us > st->at_us) {
      later.push_back(name);
      continue;
    }
    InitialJob j;
    j.job = u.job;
    j.path = u.path;
    j.line = u.line;
    j.created_us = u.created_us;
    j.running = !u.placed.empty() || u.running_without_pods;
    if (u.running_without_pods) without_pods.push_back(name);
    if (j.running) {
      j.pins = u.placed;
      j.elapsed_us = std::max<std::int64_t>(0, st->at_us - u.start_us.value_or(u.created_us));
      j.elapsed_from = u.start_from;
      for (const auto& [pod, node] : u.placed) {
        if (!nodes.empty() && !nodes.count(node)) unknown_nodes.push_back(pod + " on " + node);
      }
    } else if (u.phase == "Paused") {
      paused.push_back(name);
    }
    st->jobs.push_back(std::move(j));
  }
  if (failed) return nullptr;
  std::stable_sort(st->jobs.begin(), st->jobs.end(), [](const InitialJob& a, const InitialJob& b) {
    return std::tuple(!a.running, a.created_us, a.line) <
           std::tuple(!b.running, b.created_us, b.line);
  });
  const auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > 5) s += fmt::format(", and {} more", names.size() - 5);
    return s;
  };
  const auto plural = [](std::size_t n) { return n == 1 ? "" : "s"; };
  std::int64_t running = 0;
  for (const auto& j : st->jobs) running += j.running;
  const std::int64_t queued = static_cast<std::int64_t>(st->jobs.size()) - running;
  const std::int64_t placed = running - static_cast<std::int64_t>(without_pods.size());
  if (st->jobs.empty()) {
    st->notes.push_back(
        {Severity::Note,
         "found no unfinished job in the export: spec.initialState starts from an empty cluster"});
  }
  st->notes.push_back(
      {Severity::Note,
       fmt::format("time zero is {}{}: {} running job{} placed on their recorded nodes, {} waiting "
                   "job{} queued in creation order",
                   format_trace_time(st->at_us),
                   at_us                      ? ""
                   : d.latest_us == INT64_MIN ? " (the export records no time)"
                                              : " (the latest time the export records)",
                   placed, plural(static_cast<std::size_t>(placed)), queued,
                   plural(static_cast<std::size_t>(queued)))});
  if (!without_pods.empty()) {
    st->notes.push_back(
        {Severity::Note,
         fmt::format("{} job{} Running at the export without any pod of {} in it: running, placed "
                     "by the scheduler at time zero ahead of the waiting jobs (quota checked), "
                     "their elapsed time from their recorded start: {}",
                     without_pods.size(), plural(without_pods.size()),
                     without_pods.size() == 1 ? "it" : "theirs", list(without_pods))});
  }
  if (!later.empty()) {
    st->notes.push_back(
        {Severity::Note, fmt::format("{} job{} created after time zero left out: {}", later.size(),
                                     plural(later.size()), list(later))});
  }
  if (!unknown_nodes.empty()) {
    // The recorded placement cannot be kept: a warning.
    st->notes.push_back(
        {Severity::Warning,
         fmt::format("{} pod{} on nodes the export has no Node object for (placed by the scheduler "
                     "if the cluster has no such node): {}",
                     unknown_nodes.size(), plural(unknown_nodes.size()), list(unknown_nodes))});
  }
  if (!paused.empty()) {
    st->notes.push_back(
        {Severity::Note,
         fmt::format("{} paused job{} start paused (resume them with a resumeJob operation): {}",
                     paused.size(), plural(paused.size()), list(paused))});
  }
  return st;
}

}  // namespace t9k::scenarios
