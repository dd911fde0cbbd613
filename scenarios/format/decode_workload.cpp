// spec.workload: explicit jobs and trace entries (generators: decode_generators.cpp).
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "scenarios/format/traces.hpp"

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kWorkload[] = {"jobs", "generators", "traces", "demandFactor"};
constexpr std::string_view kJobEntry[] = {"manifest", "path",     "name",
                                          "as",       "submitAt", "behaviour"};
constexpr std::string_view kTrace[] = {"name",        "format",  "path", "limit",      "timeOffset",
                                       "queue",       "from",    "to",   "loadFactor", "sample",
                                       "skipBadRows", "options", "epoch"};

bool served(const m::Job& job, const Scenario& sc) {
  return std::any_of(sc.controller_plugins.begin(), sc.controller_plugins.end(),
                     [&](const ControllerPlugin& c) { return c.serves(job); });
}

}  // namespace

void ScenarioDecoder::workload(const Val& v, Scenario& sc) {
  if (!require(r_, v)) return;
  MapReader w(r_, v, kWorkload);
  jobs(w.get("jobs"), sc);
  std::set<std::string> generator_names;
  std::map<std::string, std::string> prefixes;
  for (const Val& item : read_list(r_, w.get("generators")))
    generator(item, sc, generator_names, prefixes);
  std::set<std::string> trace_names;
  for (const Val& item : read_list(r_, w.get("traces"))) trace(item, sc, trace_names);
  // One clock for every trace entry (docs/traces.md "Trace time"): trace time 0 is the
  // earliest submission over all entries, unless an entry sets its own epoch.
  std::optional<std::int64_t> earliest;
  for (const auto& e : sc.workload.traces) {
    if (e.data && !e.data->records.empty()) {
      earliest = std::min(earliest.value_or(e.data->origin_us()), e.data->origin_us());
    }
  }
  for (auto& e : sc.workload.traces) e.origin_us = e.epoch_us ? e.epoch_us : earliest;
  cluster_from_trace(sc);
  demand_factor(w.get("demandFactor"), sc);
}

// spec.workload.demandFactor: one knob for the whole demand (a linked parameter: sweeping it
// scales every source together). Generators arrive f times as often (Poisson and profile rates
// times f, interarrival gaps divided by f) and traces' loadFactor is multiplied by f; explicit
// jobs and `times` arrivals stay as written. Sizes, mixes and run times do not change.
void ScenarioDecoder::demand_factor(const Val& v, Scenario& sc) {
  const auto f = read_double(r_, v, 1e-6, 1e6);
  if (!f || *f == 1) return;
  sc.workload.demand_factor = *f;
  for (auto& g : sc.workload.generators) {
    g.arrivals.rate_per_hour *= *f;
    g.arrivals.gap_scale /= *f;
  }
  for (auto& t : sc.workload.traces) t.load_factor *= *f;
}

// spec.workload.jobs: explicit jobs, inline or from files.
void ScenarioDecoder::jobs(const Val& v, Scenario& sc) {
  std::set<std::string> names;
  for (const Val& item : read_list(r_, v)) {
    MapReader e(r_, item, kJobEntry);
    if (!e.ok()) continue;
    SimTime submit{};
    if (auto x = time_point(r_, e.get("submitAt"))) submit = *x;
    if (submit.time_since_epoch() >= sc.horizon && sc.horizon.count() > 0) {
      r_.warning(e.get("submitAt").mark, e.get("submitAt").path,
                 "the job is submitted at or after the horizon and never runs");
    }
    JobBehaviour b = behaviour(e.get("behaviour"));
    const std::string anchor =
        e.has("manifest") ? child_path(item.path, "manifest") : child_path(item.path, "path");
    // `name` picks one object of a multi-object file (t9ksim generate writes those).
    std::optional<std::string> only;
    if (e.has("name")) {
      only = read_string(r_, e.get("name"));
      if (only && e.has("manifest")) {
        r_.error(e.get("name").mark, e.get("name").path,
                 "found name with manifest; allowed: name only with path");
        only.reset();
      }
    }
    auto objects = sources(e, item, only ? &*only : nullptr);
    if (only && objects.empty() && !r_.has_error_under(item.path)) {
      r_.error(e.get("name").mark, e.get("name").path,
               fmt::format("found \"{}\", which is not an object of the file; allowed: the name of "
                           "one object in path",
                           *only));
    }
    // `as` submits the entry's one manifest under another name, so many jobs can share one
    // manifest (t9ksim import writes one manifest per distinct job shape).
    std::optional<std::string> as;
    if (e.has("as")) as = renamed_as(e.get("as"), objects.size());
    for (auto& [obj, source] : objects) {
      if (!is_job(obj)) {
        r_.error(anchor, fmt::format("found {} \"{}\"; allowed: GenericJob, PyTorchTrainingJob or "
                                     "DeepSpeedJob objects (queues go under spec.scheduler.queues)",
                                     kind_name(obj), metadata_of(obj).name));
        continue;
      }
      m::Job job = to_job(obj);
      if (m::kind_of(job) == m::JobKind::Plugin && !served(job, sc)) {
        r_.error(anchor,
                 fmt::format("found {} {} \"{}\", a kind no plugin serves; allowed: "
                             "GenericJob, PyTorchTrainingJob or DeepSpeedJob, or a kind of "
                             "spec.plugins.controllers (apiVersion: {}, kind: {}, command: ...)",
                             m::api_version_of(job), m::kind_name(job), metadata_of(obj).name,
                             m::api_version_of(job), m::kind_name(job)));
        continue;
      }
      auto& meta = m::metadata_of(job);
      if (as) meta.name = *as;
      if (meta.namespace_.empty()) meta.namespace_ = sc.default_namespace;
      if (!names.insert(model::object_key(meta.namespace_, meta.name)).second) {
        const auto msg = fmt::format(
            "found job \"{}\" again; allowed: job names unique per namespace", meta.name);
        if (as) {
          r_.error(e.get("as").mark, e.get("as").path, msg);
        } else {
          r_.error(anchor, msg);
        }
        continue;
      }
      const std::string sched_path =
          e.has("manifest") ? child_path(anchor, "spec.scheduler.t9kScheduler.queue") : anchor;
      queue_ref(sched_path, meta.name, m::scheduler_of(job), sc);
      check_scripts(b, job, child_path(item.path, "behaviour"), true);
      sc.workload.jobs.push_back(JobSubmission{std::move(job), submit, b, source});
    }
  }
}

// A job entry's `as`: a job name, for an entry that yields exactly one manifest.
std::optional<std::string> ScenarioDecoder::renamed_as(const Val& v, std::size_t objects) {
  auto x = read_string(r_, v);
  if (!x) return std::nullopt;
  if (!is_dns1123_label(*x)) {
    r_.error(v.mark, v.path,
             fmt::format("found \"{}\"; allowed: a job name (a DNS-1123 label)", *x));
    return std::nullopt;
  }
  if (objects > 1) {
    r_.error(v.mark, v.path,
             fmt::format("found as with {} objects in path; allowed: as with one object (add name: "
                         "to pick one)",
                         objects));
    return std::nullopt;
  }
  return x;
}

// One entry of spec.workload.traces, read now: bad rows stop the load (file:line:column), and
// the trace's queues exist before anything refers to them.
void ScenarioDecoder::trace(const Val& item, Scenario& sc, std::set<std::string>& names) {
  MapReader t(r_, item, kTrace);
  if (!t.ok()) return;
  TraceEntry tr;
  if (require(r_, t.get("format"))) {
    if (auto x = read_choice(r_, t.get("format"), kTraceFormats)) {
      tr.format = static_cast<TraceFormat>(
          std::find(std::begin(kTraceFormats), std::end(kTraceFormats), *x) -
          std::begin(kTraceFormats));
    }
  }
  tr.name = tr.format == TraceFormat::AlibabaOpenB ? "openb" : std::string(to_string(tr.format));
  if (auto x = read_string(r_, t.get("name"))) {
    tr.name = *x;
    if (!is_dns1123_label(*x)) {
      r_.error(t.get("name").mark, t.get("name").path,
               fmt::format("found \"{}\"; allowed: a DNS-1123 label", *x));
    }
  }
  if (!names.insert(tr.name).second) {
    r_.error(
        item.mark, item.path,
        fmt::format("found trace name \"{}\" again; allowed: names unique (set name:)", tr.name));
  }
  const Val path = t.get("path");
  if (require(r_, path)) {
    if (auto x = read_string(r_, path)) {
      if (auto p = input_file(path, *x, "a trace file")) tr.path = *p;
    }
  }
  if (auto x = read_int(r_, t.get("limit"), 1, INT64_MAX)) tr.limit = *x;
  if (auto x = read_duration(r_, t.get("timeOffset"))) tr.time_offset = *x;
  if (auto x = read_string(r_, t.get("queue"))) {
    tr.queue = *x;
    const bool found = *x == m::kDefaultQueue ||  // always exists (spec §8.2)
                       std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                                   [&](const m::Queue& q) { return q.metadata.name == *x; });
    if (!found) {
      r_.error(t.get("queue").mark, t.get("queue").path,
               fmt::format("found queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})", *x,
                           queue_names(sc)));
    }
  }
  tr.options = options(r_, t.get("options"));
  const auto window = [&](const char* key) -> std::optional<SimDuration> {
    return read_duration(r_, t.get(key));
  };
  tr.from = window("from");
  tr.to = window("to");
  if (tr.from && tr.to && *tr.to <= *tr.from) {
    r_.error(t.get("to").mark, t.get("to").path, "found to not after from; allowed: to > from");
  }
  if (auto x = read_double(r_, t.get("loadFactor"), 1e-6, 1e6)) tr.load_factor = *x;
  if (auto x = read_double(r_, t.get("sample"), 1e-9, 1)) tr.sample = *x;
  if (auto x = read_bool(r_, t.get("skipBadRows"))) tr.skip_bad_rows = *x;
  if (const Val ep = t.get("epoch"); ep.present()) {
    const auto text =
        ep.node.IsScalar() ? std::optional<std::string>(ep.node.Scalar()) : std::nullopt;
    if (const auto us = text ? parse_trace_time(*text) : std::nullopt) {
      tr.epoch_us = *us;
    } else {
      r_.error(
          ep.mark, ep.path,
          fmt::format("found {}; allowed: a time on the trace's clock: seconds (Unix seconds; "
                      "seconds since the trace's start for alibaba-openb), \"YYYY-MM-DD HH:MM:SS\" "
                      "(UTC) or RFC 3339",
                      describe(ep.node)));
    }
  }
  // The trace is read now, so bad rows stop the load (file:line:column) and the trace's
  // queues and cluster exist before anything refers to them.
  if (!tr.path.empty() && !r_.has_error_under(item.path)) {
    tr.data = load_trace(tr, options_.skip_bad_trace_rows, r_.file(), item.path, out_);
    // The files read beside the trace (philly_vc.csv, the openb node list) are inputs too.
    if (tr.data && !tr.data->mapping.vc_file.empty()) files_.insert(tr.data->mapping.vc_file);
    if (tr.data && !tr.data->mapping.node_file.empty()) files_.insert(tr.data->mapping.node_file);
    if (tr.data && tr.data->records.empty() && tr.data->objects.empty()) {
      r_.warning(path.mark, path.path,
                 "found no jobs in the trace (a header without rows, or an empty export); this "
                 "entry submits "
                 "nothing");
    }
    if (!tr.data) {
      r_.error(path.mark, path.path, "found errors in the trace (reported above)");
    } else if (sc.scheduler.kind == SchedulerKind::T9k) {
      for (const auto& q : tr.data->queues) {
        const bool defined =
            std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                        [&](const m::Queue& x) { return x.metadata.name == q.metadata.name; });
        if (!defined)
          sc.scheduler.queues.push_back(q);  // a queue of the file overrides the trace's
      }
    }
  }
  sc.workload.traces.push_back(std::move(tr));
}

// spec.cluster.fromTrace: the named trace entry's cluster, after the pools of the file.
void ScenarioDecoder::cluster_from_trace(Scenario& sc) {
  if (sc.cluster.from_trace.empty()) return;
  const auto it =
      std::find_if(sc.workload.traces.begin(), sc.workload.traces.end(),
                   [&](const TraceEntry& e) { return e.name == sc.cluster.from_trace; });
  std::string names;
  for (const auto& e : sc.workload.traces) names += (names.empty() ? "" : ", ") + e.name;
  if (it == sc.workload.traces.end()) {
    r_.error(from_trace_.mark, from_trace_.path,
             fmt::format("found \"{}\"; allowed: the name of a workload.traces entry ({})",
                         sc.cluster.from_trace, names.empty() ? "none defined" : names));
  } else if (it->data && it->data->pools.empty()) {
    r_.error(from_trace_.mark, from_trace_.path,
             fmt::format(
                 "found trace \"{}\" ({}), which has no cluster; allowed: a philly trace with its "
                 "philly_vc.csv, an alibaba-openb trace with its node list, or a k8s-export with "
                 "Node objects",
                 it->name, to_string(it->format)));
  } else if (it->data) {
    for (const auto& n : it->data->cluster_notes) {
      if (n.severity == Severity::Warning)
        r_.warning(from_trace_.mark, from_trace_.path, n.message);
      else
        r_.note(from_trace_.mark, from_trace_.path, n.message);
    }
    for (const auto& p : it->data->pools) {
      const bool clash = std::any_of(sc.cluster.node_pools.begin(), sc.cluster.node_pools.end(),
                                     [&](const NodePool& x) { return x.name == p.name; });
      if (clash) {
        r_.error(from_trace_.mark, from_trace_.path,
                 fmt::format("found node pool \"{}\" in both the file and the trace; allowed: "
                             "distinct names",
                             p.name));
        continue;
      }
      sc.cluster.node_pools.push_back(p);
    }
  }
}

}  // namespace t9k::scenarios::detail
