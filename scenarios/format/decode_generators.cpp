// spec.workload.generators: arrival processes and job classes.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

#include <fmt/format.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kGenerator[] = {
    "name",  "manifest", "path",  "interarrival", "rate", "profile",  "bursts",
    "times", "classes",  "count", "start",        "stop", "behaviour"};
constexpr std::string_view kProfile[] = {"rate", "hourOfDay", "dayOfWeek", "weekOffset"};
constexpr std::string_view kBursts[] = {"size", "interarrival", "rate", "profile", "times"};
constexpr std::string_view kClass[] = {
    "name",          "weight",       "manifest",     "path",          "behaviour",
    "replicaType",   "replicas",     "elastic",      "gpus",          "checkpointInterval",
    "restartPolicy", "restartLimit", "backoffLimit", "cleanUpPolicy", "activeDeadline",
    "hazardPerHour"};
constexpr std::string_view kElasticDraw[] = {"minReplicas", "maxReplicas", "expectedReplicas"};
constexpr std::string_view kRestart[] = {"Always", "OnFailure", "Never", "ExitCode"};
constexpr std::string_view kGenericRestart[] = {"Always", "OnFailure",
                                                "Never"};  // no ExitCode (spec §2.1)

constexpr std::string_view kCleanUp[] = {"None", "Unfinished", "All"};

// Ranges generated integers are clamped to (docs/scenario-format.md "generators").
constexpr std::int64_t kMaxReplicas = 10000;
constexpr std::int64_t kMaxGpus = m::kMaxGpusPerObject;
constexpr std::int64_t kMaxLimit = 1000000;
constexpr std::int64_t kMaxBurst = 100000;
constexpr std::size_t kMaxPrefix = 52;

// A positive number (jobs per hour).
std::optional<double> positive_rate(Report& r, const Val& v) {
  const auto x = read_double(r, v, -kMaxDouble, kMaxDouble);
  if (!x) return std::nullopt;
  if (!(*x > 0) || *x > 1e9) {
    r.error(v.mark, v.path,
            fmt::format("found {}; allowed: a rate > 0 and <= 1e9 (jobs per hour)", *x));
    return std::nullopt;
  }
  return x;
}

std::vector<double> multipliers(Report& r, const Val& v, std::size_t n, std::string_view what) {
  std::vector<double> out;
  if (!v.present()) return out;
  if (!v.node.IsSequence() || v.node.size() != n) {
    r.error(v.mark, v.path,
            fmt::format(
                "found {}; allowed: a list of exactly {} multipliers >= 0 ({})",
                v.node.IsSequence() ? fmt::format("{} values", v.node.size()) : describe(v.node), n,
                what));
    return {};
  }
  bool ok = true;
  for (const Val& item : read_list(r, v)) {
    const auto x = read_double(r, item, 0, 1e9);
    ok = ok && x.has_value();
    out.push_back(x.value_or(0));
  }
  if (!ok) return {};
  if (*std::max_element(out.begin(), out.end()) <= 0) {
    r.error(v.mark, v.path, "found only zeros; allowed: at least one multiplier > 0");
    return {};
  }
  return out;
}

// The value at `key` of a mapping node, or an undefined node (without operator[]'s zombies).
YAML::Node value_at(const YAML::Node& n, std::string_view key) {
  if (n.IsDefined() && n.IsMap()) {
    for (const auto& kv : n) {
      if (kv.first.IsScalar() && kv.first.Scalar() == key) return kv.second;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

// The replica counts a template's finish rules need for `type` (a rank r needs r + 1).
std::int64_t replicas_needed(const m::Job& job, const std::string& type) {
  std::int64_t need = 1;
  if (const auto* g = std::get_if<m::GenericJob>(&job)) {
    for (const auto* rules : {&g->spec.success_rules, &g->spec.failure_rules}) {
      for (const auto& rule : *rules) {
        const auto it = rule.replicas.find(type);
        if (it == rule.replicas.end()) continue;
        for (auto rank : it->second) need = std::max<std::int64_t>(need, rank + 1);
      }
    }
  }
  return need;
}

std::vector<std::string> replica_types(const m::Job& job) {
  std::vector<std::string> out;
  if (const auto* g = std::get_if<m::GenericJob>(&job)) {
    for (const auto& r : g->spec.replica_specs) out.push_back(r.type.str());
  } else if (const auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
    for (const auto& r : p->spec.replica_specs) out.push_back(r.type);
  } else {
    out.emplace_back("worker");
  }
  return out;
}

std::optional<m::ElasticConfig> elastic_of(const m::Job& job) {
  if (const auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) return p->spec.elastic;
  if (const auto* d = std::get_if<m::DeepSpeedJob>(&job)) return d->spec.elastic;
  return std::nullopt;
}

// The smallest and largest value an integer distribution can give after clamping to [lo, hi].
std::pair<std::int64_t, std::int64_t> support(const IntDistribution& d, std::int64_t lo,
                                              std::int64_t hi) {
  if (d.real) {
    if (const auto* c = std::get_if<kernel::Constant>(&d.real->variant())) {
      const auto x = std::clamp<double>(std::round(c->value), static_cast<double>(lo),
                                        static_cast<double>(hi));
      return {static_cast<std::int64_t>(x), static_cast<std::int64_t>(x)};
    }
    return {lo, hi};
  }
  std::int64_t a = hi, b = lo;
  for (const auto& [value, w] : d.choices) {
    if (w <= 0) continue;
    a = std::min(a, value);
    b = std::max(b, value);
  }
  return {a, b};
}

}  // namespace

// Exactly one of the process keys of `mr` (interarrival, rate, profile, times); `bursts` is
// counted by the caller among `extra`.
std::optional<ArrivalProcess> ScenarioDecoder::arrival_process(const MapReader& mr,
                                                               const Val& owner, bool extra,
                                                               std::string_view allowed) {
  std::vector<std::string_view> found;
  for (std::string_view k : {"interarrival", "rate", "profile", "times"}) {
    if (mr.has(k)) found.push_back(k);
  }
  if (found.size() + (extra ? 1 : 0) != 1) {
    r_.error(owner.mark, owner.path,
             fmt::format("found {}; allowed: exactly one of {}",
                         found.empty() && !extra
                             ? std::string("no arrival process")
                             : "arrival processes " + join_names(found) + (extra ? ", bursts" : ""),
                         allowed));
    return std::nullopt;
  }
  if (found.empty()) return std::nullopt;
  ArrivalProcess a;
  const Val v = mr.get(found.front());
  if (found.front() == "interarrival") {
    a.kind = ArrivalKind::Interarrival;
    auto d = duration_dist(r_, v);
    if (!d) return std::nullopt;
    if (!(d->seconds.mean() > 0)) {
      r_.error(v.mark, v.path,
               "found a distribution with mean <= 0; allowed: gaps with a positive mean");
      return std::nullopt;
    }
    a.interarrival = *d;
  } else if (found.front() == "rate") {
    a.kind = ArrivalKind::Poisson;
    const auto x = positive_rate(r_, v);
    if (!x) return std::nullopt;
    a.rate_per_hour = *x;
  } else if (found.front() == "profile") {
    a.kind = ArrivalKind::Profile;
    MapReader p(r_, v, kProfile);
    if (!p.ok()) return std::nullopt;
    const std::size_t before = r_.error_count();
    if (require(r_, p.get("rate"))) {
      if (auto x = positive_rate(r_, p.get("rate"))) a.rate_per_hour = *x;
    }
    a.hour_of_day = multipliers(r_, p.get("hourOfDay"), 24,
                                "hours 0..23 of the day, time zero is Monday 00:00");
    a.day_of_week = multipliers(r_, p.get("dayOfWeek"), 7, "Monday first");
    if (const Val w = p.get("weekOffset"); w.present()) {
      if (auto d = read_duration(r_, w)) {
        if (*d < SimDuration{0} || *d >= std::chrono::hours(24 * 7)) {
          r_.error(w.mark, w.path,
                   "found a duration outside [0, 7d); allowed: how long after Monday 00:00 time "
                   "zero is");
        } else {
          a.week_offset = *d;
        }
      }
    }
    if (r_.error_count() != before) return std::nullopt;
  } else {
    a.kind = ArrivalKind::Times;
    const std::size_t before = r_.error_count();
    for (const Val& item : read_list(r_, v)) {
      if (auto t = time_point(r_, item)) a.times.push_back(*t);
    }
    if (r_.error_count() != before) return std::nullopt;
    if (a.times.empty()) {
      r_.error(v.mark, v.path,
               "found no times; allowed: a list of at least one duration since time zero");
      return std::nullopt;
    }
    std::stable_sort(a.times.begin(), a.times.end());
  }
  return a;
}

// One class: a template, its behaviour and what varies. `prefix` names its jobs.
std::optional<JobClass> ScenarioDecoder::job_class(const MapReader& c, const Val& item,
                                                   const Scenario& sc, bool legacy) {
  JobClass jc;
  const std::size_t before = r_.error_count();
  const Val bv = c.get("behaviour");
  jc.behaviour = behaviour(bv);
  auto objs = sources(c, item);
  if (objs.size() > 1) {
    r_.error(child_path(item.path, "path"),
             fmt::format("found {} objects; allowed: exactly one job template", objs.size()));
    return std::nullopt;
  }
  if (objs.empty()) return std::nullopt;
  if (!is_job(objs.front().first) || std::holds_alternative<m::PluginJob>(objs.front().first)) {
    // A plugin's own kind has no replicas or resources the generator could vary.
    r_.error(item.path,
             fmt::format("found {}; allowed: a job template (GenericJob, PyTorchTrainingJob or "
                         "DeepSpeedJob)",
                         kind_name(objs.front().first)));
    return std::nullopt;
  }
  jc.template_job = to_job(objs.front().first);
  const std::string sched_path =
      c.has("manifest") ? child_path(item.path, "manifest.spec.scheduler.t9kScheduler.queue")
                        : child_path(item.path, "path");
  queue_ref(sched_path, m::metadata_of(jc.template_job).name, m::scheduler_of(jc.template_job), sc);
  // Types only: the generator may vary the replica count.
  check_scripts(jc.behaviour, jc.template_job, bv.path, false);
  if (legacy)
    return r_.error_count() == before ? std::optional<JobClass>(std::move(jc)) : std::nullopt;

  const auto kind = m::kind_of(jc.template_job);
  const bool generic = kind == m::JobKind::GenericJob;
  // replicaType: default the last replica spec (PyTorch: the workers after the master).
  const auto types = replica_types(jc.template_job);
  jc.replica_type = types.back();
  if (auto x = read_string(r_, c.get("replicaType"))) {
    if (std::find(types.begin(), types.end(), *x) == types.end()) {
      std::vector<std::string_view> names(types.begin(), types.end());
      r_.error(c.get("replicaType").mark, c.get("replicaType").path,
               fmt::format("found \"{}\"; allowed: a replica type of the template ({})", *x,
                           join_names(names)));
    } else {
      jc.replica_type = *x;
    }
  }
  const auto template_elastic = elastic_of(jc.template_job);
  const bool elastic_template = template_elastic && template_elastic->enabled;
  const Val rv = c.get("replicas");
  jc.replicas = int_dist(r_, rv, replicas_needed(jc.template_job, jc.replica_type), kMaxReplicas);
  if (rv.present() && (elastic_template || c.has("elastic"))) {
    r_.error(rv.mark, rv.path,
             "found replicas for an elastic job; allowed: elastic: {minReplicas, maxReplicas, "
             "expectedReplicas} (the scale of an elastic job is its expectedReplicas)");
  }
  const Val ev = c.get("elastic");
  if (ev.present()) {
    if (generic) {
      r_.error(ev.mark, ev.path,
               "found elastic with a GenericJob template; allowed: elastic only for "
               "PyTorchTrainingJob and DeepSpeedJob (spec §4.3)");
    }
    MapReader e(r_, ev, kElasticDraw);
    ElasticDraw ed;
    ed.min_replicas = int_dist(r_, e.get("minReplicas"), 1, kMaxReplicas);
    ed.max_replicas = int_dist(r_, e.get("maxReplicas"), 1, kMaxReplicas);
    ed.expected_replicas = int_dist(r_, e.get("expectedReplicas"), 1, kMaxReplicas);
    if (ed.min_replicas && ed.max_replicas) {
      const auto lo = support(*ed.min_replicas, 1, kMaxReplicas);
      const auto hi = support(*ed.max_replicas, 1, kMaxReplicas);
      if (lo.first > hi.second) {
        r_.error(ev.mark, ev.path,
                 fmt::format("found minReplicas >= {} > maxReplicas <= {}; allowed: "
                             "minReplicas <= maxReplicas",
                             lo.first, hi.second));
      }
    }
    jc.elastic = std::move(ed);
  }
  jc.gpus = int_dist(r_, c.get("gpus"), 0, kMaxGpus);
  if (c.has("checkpointInterval") && jc.behaviour.checkpoint_interval) {
    r_.error(c.get("checkpointInterval").mark, c.get("checkpointInterval").path,
             "found checkpointInterval in both the class and its behaviour; allowed: one of them");
  }
  jc.checkpoint_interval = duration_dist(r_, c.get("checkpointInterval"));
  jc.restart_policy = name_choice(r_, c.get("restartPolicy"),
                                  generic ? std::span<const std::string_view>(kGenericRestart)
                                          : std::span<const std::string_view>(kRestart));
  for (const char* key : {"restartLimit", "backoffLimit", "activeDeadline"}) {
    const bool wrong = std::string_view(key) == "restartLimit" ? !generic : generic;
    if (c.has(key) && wrong) {
      r_.error(c.get(key).mark, c.get(key).path,
               fmt::format("found {} with a {} template; allowed: {}", key, m::to_string(kind),
                           std::string_view(key) == "restartLimit"
                               ? "restartLimit only for GenericJob (restartPolicy.limit)"
                               : "only for PyTorchTrainingJob and DeepSpeedJob (runPolicy)"));
    }
  }
  jc.restart_limit = int_dist(r_, c.get("restartLimit"), 0, kMaxLimit);
  jc.backoff_limit = int_dist(r_, c.get("backoffLimit"), 0, kMaxLimit);
  jc.clean_up_policy = name_choice(r_, c.get("cleanUpPolicy"), kCleanUp);
  jc.active_deadline = duration_dist(r_, c.get("activeDeadline"));
  if (c.has("hazardPerHour") &&
      value_at(value_at(bv.node, "failure"), "hazardPerHour").IsDefined()) {
    r_.error(
        c.get("hazardPerHour").mark, c.get("hazardPerHour").path,
        "found hazardPerHour in both the class and its behaviour.failure; allowed: one of them");
  }
  jc.hazard_per_hour = real_dist(r_, c.get("hazardPerHour"));
  if (r_.error_count() != before) return std::nullopt;
  return jc;
}

void ScenarioDecoder::generator(const Val& item, Scenario& sc, std::set<std::string>& names,
                                std::map<std::string, std::string>& prefixes) {
  MapReader g(r_, item, kGenerator);
  if (!g.ok()) return;
  GeneratorEntry gen;
  const std::size_t before = r_.error_count();
  if (require(r_, g.get("name"))) {
    if (auto x = read_string(r_, g.get("name"))) {
      gen.name = *x;
      if (!is_dns1123_label(gen.name)) {
        r_.error(g.get("name").mark, g.get("name").path,
                 fmt::format("found \"{}\"; allowed: a DNS-1123 label (it prefixes job names and "
                             "stream names)",
                             *x));
      } else if (!names.insert(gen.name).second) {
        r_.error(g.get("name").mark, g.get("name").path,
                 fmt::format("found \"{}\" again; allowed: generator names unique", gen.name));
      }
    }
  }
  const Val bursts = g.get("bursts");
  constexpr std::string_view kArrivalNames = "interarrival, rate, profile, bursts, times";
  if (auto a = arrival_process(g, item, bursts.present(), kArrivalNames))
    gen.arrivals = std::move(*a);
  if (bursts.present()) {
    MapReader b(r_, bursts, kBursts);
    if (b.ok()) {
      if (require(r_, b.get("size"))) gen.burst_size = int_dist(r_, b.get("size"), 1, kMaxBurst);
      if (auto a = arrival_process(b, bursts, false, "interarrival, rate, profile, times"))
        gen.arrivals = std::move(*a);
    }
  }
  if (auto x = read_int(r_, g.get("count"), 1, INT64_MAX)) gen.count = *x;
  if (auto x = time_point(r_, g.get("start"))) gen.start = *x;
  if (auto x = time_point(r_, g.get("stop"))) {
    gen.stop = *x;
    if (*x <= gen.start) {
      r_.error(g.get("stop").mark, g.get("stop").path,
               "found a stop time not after start; allowed: stop > start");
    }
  }
  const bool single = g.has("manifest") || g.has("path");
  const Val classes = g.get("classes");
  if (single == classes.present()) {
    r_.error(item.mark, item.path,
             fmt::format(
                 "found {}; allowed: exactly one of manifest or path (one job template) or classes "
                 "(a weighted mix)",
                 single ? "both a template and classes" : "neither a template nor classes"));
  } else if (single) {
    if (auto jc = job_class(g, item, sc, true)) {
      // One template: jobs keep the historical names "<template name>-<i>".
      const auto& tname = m::metadata_of(jc->template_job).name;
      jc->name = tname.empty() ? gen.name : tname;
      jc->prefix = jc->name;
      gen.classes.push_back(std::move(*jc));
    }
  } else {
    if (g.has("behaviour")) {
      r_.error(g.get("behaviour").mark, g.get("behaviour").path,
               "found behaviour with classes; allowed: behaviour inside each class");
    }
    const auto items = read_list(r_, classes);
    if (items.empty() && classes.node.IsSequence()) {
      r_.error(classes.mark, classes.path, "found an empty list; allowed: at least one class");
    }
    std::set<std::string> class_names;
    double total = 0;
    for (const Val& ci : items) {
      MapReader c(r_, ci, kClass);
      if (!c.ok()) continue;
      std::string cname;
      if (require(r_, c.get("name"))) {
        if (auto x = read_string(r_, c.get("name"))) {
          cname = *x;
          if (!is_dns1123_label(cname)) {
            r_.error(c.get("name").mark, c.get("name").path,
                     fmt::format("found \"{}\"; allowed: a DNS-1123 label (job names are "
                                 "<generator>-<class>-<i>)",
                                 cname));
          } else if (!class_names.insert(cname).second) {
            r_.error(c.get("name").mark, c.get("name").path,
                     fmt::format("found \"{}\" again; allowed: class names unique in a generator",
                                 cname));
          }
        }
      }
      double weight = 1;
      if (auto x = read_double(r_, c.get("weight"), 0, 1e12)) weight = *x;
      auto jc = job_class(c, ci, sc, false);
      if (!jc) continue;
      jc->name = cname;
      jc->prefix = gen.name + "-" + cname;
      jc->weight = weight;
      total += weight;
      gen.classes.push_back(std::move(*jc));
    }
    if (!items.empty() && !(total > 0) && !r_.has_error_under(classes.path)) {
      r_.error(classes.mark, classes.path,
               "found class weights summing to 0; allowed: weights >= 0 with a positive sum");
    }
  }
  // Names are "<prefix>-<i>": distinct prefixes keep them unique, and a 52-character prefix
  // leaves room for 10 digits within a 63-character DNS-1123 label.
  for (const auto& jc : gen.classes) {
    if (jc.prefix.size() > kMaxPrefix) {
      r_.error(
          item.mark, item.path,
          fmt::format("found job name prefix \"{}\" ({} characters); allowed: at most {} so that "
                      "<prefix>-<index> is a DNS-1123 label",
                      jc.prefix, jc.prefix.size(), kMaxPrefix));
    }
    const auto [it, fresh] = prefixes.emplace(jc.prefix, gen.name);
    if (!fresh) {
      r_.error(item.mark, item.path,
               fmt::format(
                   "found job name prefix \"{}\", also used by generator \"{}\"; allowed: distinct "
                   "prefixes (job names are <prefix>-<index>)",
                   jc.prefix, it->second));
    }
    for (const auto& j : sc.workload.jobs) {
      const std::string_view name = m::metadata_of(j.job).name;
      const auto dash = name.rfind('-');
      if (dash == std::string_view::npos || name.compare(0, dash, jc.prefix) != 0 ||
          dash + 1 == name.size())
        continue;
      if (std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dash) + 1, name.end(),
                      [](char ch) { return ch >= '0' && ch <= '9'; })) {
        r_.error(
            item.mark, item.path,
            fmt::format(
                "found explicit job \"{}\", a name this generator may produce; allowed: explicit "
                "job names outside <prefix>-<index> for prefix \"{}\"",
                name, jc.prefix));
      }
    }
  }
  if (r_.error_count() == before) sc.workload.generators.push_back(std::move(gen));
}

}  // namespace t9k::scenarios::detail
