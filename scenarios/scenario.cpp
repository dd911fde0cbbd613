// Scenario file format v1 (docs/scenario-format.md): decoding and cross-checks.
#include "scenarios/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "scenarios/detail/decode.hpp"
#include "scenarios/detail/files.hpp"

namespace t9k::scenarios {

namespace m = t9k::model;
using namespace detail;

// ---- small public helpers ----

DurationDistribution DurationDistribution::constant(SimDuration d) {
  DurationDistribution r;
  r.seconds = kernel::Constant{static_cast<double>(d.count()) / 1e6};
  return r;
}

SimDuration DurationDistribution::mean() const {
  const double us = seconds.mean() * 1e6;
  if (!std::isfinite(us) || us <= 0) return SimDuration{0};
  if (us >= 9.2e18) return SimDuration{INT64_MAX};
  return SimDuration{static_cast<std::int64_t>(std::llround(us))};
}

m::ResourceList NodePool::capacity() const {
  m::ResourceList r = extra_resources;
  r[m::kResourceCpu] = cpu;
  r[m::kResourceMemory] = memory;
  if (gpus_per_node > 0) r[m::kResourceGpu] = m::Quantity::from_units(gpus_per_node);
  return r;
}

std::int32_t Cluster::node_count() const {
  std::int64_t n = 0;
  for (const auto& p : node_pools) n += p.count;
  return static_cast<std::int32_t>(std::min<std::int64_t>(n, INT32_MAX));
}

namespace {
constexpr std::string_view kOperationNames[] = {
    "pauseJob", "resumeJob", "setExpectedReplicas", "closeQueue", "openQueue",
    "drainNode", "cordonNode", "uncordonNode", "addNodePool", "removeNodePool"};
constexpr std::string_view kSchedulerNames[] = {"t9k", "default"};
constexpr std::string_view kTraceFormats[] = {"philly", "alibaba-openb"};
constexpr std::string_view kScalingModels[] = {"linear", "amdahl", "fixed", "table"};
// faults-and-validation §1.6, plus "none" and "custom".
constexpr std::string_view kFaultProfiles[] = {"none", "h100-frontier", "a100-research",
                                               "a100-optimistic", "custom"};
}  // namespace

std::string_view to_string(OperationType t) { return kOperationNames[static_cast<std::size_t>(t)]; }
std::string_view to_string(SchedulerKind k) { return kSchedulerNames[static_cast<std::size_t>(k)]; }
std::string_view to_string(TraceFormat f) { return kTraceFormats[static_cast<std::size_t>(f)]; }
std::string_view to_string(ScalingModel s) { return kScalingModels[static_cast<std::size_t>(s)]; }

namespace {

constexpr std::string_view kTop[] = {"apiVersion", "kind", "metadata", "spec"};
constexpr std::string_view kMeta[] = {"name", "description"};
constexpr std::string_view kSpec[] = {"namespace", "cluster", "scheduler", "controllers", "kubelet",
                                      "faults", "workload", "operations", "horizon", "seed",
                                      "replications", "expect"};
constexpr std::string_view kCluster[] = {"nodePools", "topology"};
constexpr std::string_view kPool[] = {"name", "count", "gpusPerNode", "gpuModel", "cpu", "memory",
                                      "extraResources", "labels"};
constexpr std::string_view kTopology[] = {"nodesPerRack", "racksPerSwitch"};
constexpr std::string_view kScheduler[] = {"name", "queues", "options"};
constexpr std::string_view kSource[] = {"manifest", "path"};
constexpr std::string_view kControllers[] = {"reconcileLatency", "options"};
constexpr std::string_view kKubelet[] = {"podStartLatency", "podStopLatency"};
constexpr std::string_view kFaults[] = {"profile", "rates", "detectionDelay", "repairTime", "weibullShape"};
constexpr std::string_view kRates[] = {"nodeFailuresPerNodeDay", "switchFailuresPerSwitchDay",
                                       "softwareFailuresPerJobHour"};
constexpr std::string_view kWorkload[] = {"jobs", "generators", "traces"};
constexpr std::string_view kJobEntry[] = {"manifest", "path", "submitAt", "behaviour"};
constexpr std::string_view kBehaviour[] = {"runTime", "work", "checkpointInterval", "checkpointCost",
                                           "restartOverhead", "failure", "scaling"};
constexpr std::string_view kFailure[] = {"hazardPerHour", "exitCodes", "finalExitCode"};
constexpr std::string_view kExitCode[] = {"code", "weight"};
constexpr std::string_view kScaling[] = {"model", "serialFraction", "rescaleOverhead", "throughput"};
constexpr std::string_view kGenerator[] = {"name", "manifest", "path", "interarrival", "count",
                                           "start", "stop", "behaviour"};
constexpr std::string_view kTrace[] = {"format", "path", "limit", "timeOffset", "queue", "options"};
constexpr std::string_view kOperation[] = {"at", "action", "job", "queue", "node", "pool",
                                           "replicas", "nodePool"};
constexpr std::string_view kExpect[] = {"jobs", "metrics"};
constexpr std::string_view kJobExpect[] = {"name", "phase", "reason", "restartCount", "backoffCount"};
constexpr std::string_view kBounds[] = {"min", "max"};
constexpr std::string_view kDistributions[] = {"constant", "uniform", "exponential", "normal",
                                               "lognormal", "weibull", "gamma", "boundedPareto",
                                               "empirical"};

constexpr double kMaxDouble = std::numeric_limits<double>::max();

class ScenarioDecoder {
 public:
  ScenarioDecoder(Report& r, std::vector<Diagnostic>& out, const LoadOptions& options)
      : r_(r), out_(out), options_(options) {}

  // A number of seconds or a duration string ("90s"), for time-valued parameters.
  std::optional<double> seconds(const Val& v) {
    if (!require(r_, v)) return std::nullopt;
    if (v.node.IsScalar() && v.node.Tag() != "?" ) {
      // Quoted text: a duration.
      if (auto d = read_duration(r_, v)) return static_cast<double>(d->count()) / 1e6;
      return std::nullopt;
    }
    if (v.node.IsScalar()) {
      const std::string& s = v.node.Scalar();
      const bool numeric = !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' ||
                                          s[0] == '+' || s[0] == '.') &&
                           std::all_of(s.begin(), s.end(), [](char c) {
                             return std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
                                    c == 'e' || c == 'E' || c == '-' || c == '+';
                           });
      if (!numeric) {
        if (auto d = read_duration(r_, v)) return static_cast<double>(d->count()) / 1e6;
        return std::nullopt;
      }
    }
    return read_double(r_, v, -kMaxDouble, kMaxDouble);
  }

  std::optional<double> number(const Val& v) {
    if (!require(r_, v)) return std::nullopt;
    return read_double(r_, v, -kMaxDouble, kMaxDouble);
  }

  // A duration string ("30s") is a constant; a single-key mapping names a distribution, e.g.
  // {lognormal: {mu: 1.5, sigma: 0.4}} (parameters in seconds where they are times).
  std::optional<DurationDistribution> duration_dist(const Val& v) {
    r_.tick();
    if (!v.present()) return std::nullopt;
    if (v.node.IsScalar()) {
      if (auto d = read_duration(r_, v)) return DurationDistribution::constant(*d);
      return std::nullopt;
    }
    if (!v.node.IsMap() || v.node.size() != 1) {
      r_.error(v.mark, v.path,
               fmt::format("found {}; allowed: a duration such as 30s, or a mapping with one "
                           "distribution, e.g. {{lognormal: {{mu: 1.5, sigma: 0.4}}}}",
                           v.node.IsMap() ? fmt::format("a mapping with {} keys", v.node.size())
                                          : describe(v.node)));
      return std::nullopt;
    }
    MapReader mr(r_, v, kDistributions);
    if (mr.entries().empty()) return std::nullopt;
    const auto& [name, params] = mr.entries().front();
    try {
      DurationDistribution out;
      if (name == "constant") {
        MapReader p(r_, params, std::array<std::string_view, 1>{"value"});
        const auto x = seconds(p.get("value"));
        if (!x) return std::nullopt;
        out.seconds = kernel::Constant{*x};
      } else if (name == "uniform") {
        MapReader p(r_, params, std::array<std::string_view, 2>{"min", "max"});
        const auto lo = seconds(p.get("min"));
        const auto hi = seconds(p.get("max"));
        if (!lo || !hi) return std::nullopt;
        out.seconds = kernel::Uniform{*lo, *hi};
      } else if (name == "exponential") {
        MapReader p(r_, params, std::array<std::string_view, 2>{"mean", "rate"});
        if (p.has("mean") == p.has("rate")) {
          r_.error(params.mark, params.path,
                   "found both or neither of mean and rate; allowed: exactly one (mean in "
                   "seconds or as a duration, rate per second)");
          return std::nullopt;
        }
        if (p.has("mean")) {
          const auto mean = seconds(p.get("mean"));
          if (!mean) return std::nullopt;
          out.seconds = kernel::Exponential{*mean > 0 ? 1 / *mean : 0};
        } else {
          const auto rate = number(p.get("rate"));
          if (!rate) return std::nullopt;
          out.seconds = kernel::Exponential{*rate};
        }
      } else if (name == "normal") {
        MapReader p(r_, params, std::array<std::string_view, 2>{"mu", "sigma"});
        const auto mu = seconds(p.get("mu"));
        const auto sigma = seconds(p.get("sigma"));
        if (!mu || !sigma) return std::nullopt;
        out.seconds = kernel::Normal{*mu, *sigma};
      } else if (name == "lognormal") {
        MapReader p(r_, params, std::array<std::string_view, 2>{"mu", "sigma"});
        const auto mu = number(p.get("mu"));
        const auto sigma = number(p.get("sigma"));
        if (!mu || !sigma) return std::nullopt;
        out.seconds = kernel::LogNormal{*mu, *sigma};
      } else if (name == "weibull" || name == "gamma") {
        MapReader p(r_, params, std::array<std::string_view, 2>{"shape", "scale"});
        const auto shape = number(p.get("shape"));
        const auto scale = seconds(p.get("scale"));
        if (!shape || !scale) return std::nullopt;
        if (name == "weibull") {
          out.seconds = kernel::Weibull{*shape, *scale};
        } else {
          out.seconds = kernel::Gamma{*shape, *scale};
        }
      } else if (name == "boundedPareto") {
        MapReader p(r_, params, std::array<std::string_view, 3>{"alpha", "min", "max"});
        const auto alpha = number(p.get("alpha"));
        const auto lo = seconds(p.get("min"));
        const auto hi = seconds(p.get("max"));
        if (!alpha || !lo || !hi) return std::nullopt;
        out.seconds = kernel::BoundedPareto{*alpha, *lo, *hi};
      } else {  // empirical
        MapReader p(r_, params, std::array<std::string_view, 1>{"points"});
        const Val pts = p.get("points");
        if (!require(r_, pts)) return std::nullopt;
        std::vector<std::pair<double, double>> points;
        for (const Val& item : read_list(r_, pts)) {
          if (!item.node.IsSequence() || item.node.size() != 2) {
            r_.error(item.mark, item.path,
                     fmt::format("found {}; allowed: a pair [value, cumulative probability]", describe(item.node)));
            return std::nullopt;
          }
          const auto pair = read_list(r_, item);
          const auto x = seconds(pair[0]);
          const auto q = number(pair[1]);
          if (!x || !q) return std::nullopt;
          points.emplace_back(*x, *q);
        }
        out.seconds = kernel::EmpiricalCdf{std::move(points)};
      }
      return out;
    } catch (const kernel::DistributionError& e) {
      r_.error(params.mark, params.path, fmt::format("invalid parameters: {}", e.what()));
      return std::nullopt;
    }
  }

  std::map<std::string, std::string> options(const Val& v) {
    std::map<std::string, std::string> out;
    for (const auto& [k, val] : FreeMap(r_, v).entries()) out[k] = val.present() ? val.node.Scalar() : "";
    return out;
  }

  std::optional<NodePool> node_pool(const Val& v) {
    MapReader mr(r_, v, kPool);
    if (!mr.ok() || !v.present()) return std::nullopt;
    NodePool p;
    const std::size_t before = r_.error_count();
    if (require(r_, mr.get("name"))) {
      if (auto x = read_string(r_, mr.get("name"))) {
        p.name = *x;
        if (!is_dns1123_label(p.name)) {
          r_.error(mr.get("name").mark, mr.get("name").path,
                   fmt::format("found \"{}\"; allowed: a DNS-1123 label (node names are "
                               "<pool>-<index>)", p.name));
        }
      }
    }
    if (require(r_, mr.get("count"))) {
      if (auto x = read_int32(r_, mr.get("count"), 0, 1'000'000)) p.count = *x;
    }
    if (auto x = read_int32(r_, mr.get("gpusPerNode"), 0, 1024)) p.gpus_per_node = *x;
    if (auto x = read_string(r_, mr.get("gpuModel"))) p.gpu_model = *x;
    for (const char* key : {"cpu", "memory"}) {
      const Val q = mr.get(key);
      if (!require(r_, q)) continue;
      if (auto x = read_quantity(r_, q)) {
        if (x->is_zero()) {
          r_.error(q.mark, q.path, fmt::format("found {}; allowed: a quantity > 0", describe(q.node)));
        }
        (std::string_view(key) == "cpu" ? p.cpu : p.memory) = *x;
      }
    }
    for (const auto& [k, val] : FreeMap(r_, mr.get("extraResources")).entries()) {
      if (!val.present()) {
        r_.error(val.mark, val.path, "found null; allowed: a quantity such as 1, 8");
        continue;
      }
      if (auto q = read_quantity(r_, val)) p.extra_resources[k] = *q;
    }
    for (const auto& [k, val] : FreeMap(r_, mr.get("labels")).entries()) {
      p.labels[k] = val.present() ? val.node.Scalar() : "";
      if (!is_qualified_name(k)) {
        r_.error(val.mark, val.path, fmt::format("found key \"{}\"; allowed: a qualified label key", k));
      }
    }
    if (r_.error_count() != before) return std::nullopt;
    return p;
  }

  // `manifest:` inline or `path:` to a file; returns the objects with their sources.
  std::vector<std::pair<Object, std::string>> sources(const MapReader& mr, const Val& entry) {
    std::vector<std::pair<Object, std::string>> out;
    const Val inline_v = mr.get("manifest");
    const Val path_v = mr.get("path");
    if (inline_v.present() == path_v.present()) {
      r_.error(entry.mark, entry.path,
               fmt::format("found {}; allowed: exactly one of manifest (an inline object) or path "
                           "(a manifest file)", inline_v.present() ? "both manifest and path"
                                                                    : "neither manifest nor path"));
      remember_broken(inline_v.node);
      return out;
    }
    if (inline_v.present()) {
      if (auto obj = decode_object(r_, inline_v)) {
        out.emplace_back(std::move(*obj), r_.file());
      } else {
        remember_broken(inline_v.node);
      }
      return out;
    }
    const auto rel = read_string(r_, path_v);
    if (!rel) return out;
    if (!options_.allow_file_references) {
      r_.error(path_v.mark, path_v.path,
               fmt::format("found path \"{}\"; allowed: inline manifests only (file references are "
                           "off for this input)", *rel));
      return out;
    }
    const std::filesystem::path p = std::filesystem::path(options_.base_dir) / *rel;
    std::vector<Diagnostic> diags;
    std::string text;
    if (!read_text_file(p.string(), text, diags)) {
      r_.error(path_v.mark, path_v.path,
               fmt::format("found \"{}\", which cannot be read ({}); allowed: a manifest file, "
                           "relative to the scenario's folder", *rel, diags.front().message));
      return out;
    }
    const auto docs = parse_yaml(text, p.string(), diags);
    std::vector<LoadedObject> objects;
    if (docs) decode_manifest_documents(*docs, p.string(), "", objects, diags);
    const bool bad = has_errors(diags);
    for (auto& d : diags) out_.push_back(std::move(d));
    if (bad) {
      r_.error(path_v.mark, path_v.path, fmt::format("found errors in \"{}\" (reported above)", *rel));
      if (docs) {
        for (const auto& d : *docs) remember_broken(d.node);
      }
      return {};
    }
    if (objects.empty()) {
      r_.error(path_v.mark, path_v.path, fmt::format("found no objects in \"{}\"; allowed: a manifest file "
                                                     "with at least one object", *rel));
    }
    for (auto& o : objects) {
      out.emplace_back(std::move(o.object), objects.size() > 1 ? fmt::format("{}#{}", *rel, o.document) : *rel);
    }
    return out;
  }

  // Names of objects that failed to load, so references to them are not reported again.
  void remember_broken(const YAML::Node& doc) {
    // operator[] on a missing key yields an invalid node whose type queries throw; check
    // IsDefined() before anything else.
    if (!doc.IsDefined() || !doc.IsMap()) return;
    const YAML::Node meta = doc["metadata"];
    if (!meta.IsDefined() || !meta.IsMap()) return;
    const YAML::Node name = meta["name"];
    if (name.IsDefined() && name.IsScalar()) broken_.insert(name.Scalar());
  }

  JobBehaviour behaviour(const Val& v) {
    JobBehaviour b;
    MapReader mr(r_, v, kBehaviour);
    if (!v.present()) {
      r_.error(v.mark, v.path, "required field is missing (a job needs runTime or work)");
      return b;
    }
    b.run_time = duration_dist(mr.get("runTime"));
    b.work = duration_dist(mr.get("work"));
    if (mr.has("runTime") == mr.has("work")) {
      r_.error(v.mark, v.path,
               fmt::format("found {}; allowed: exactly one of runTime (wall-clock at the initial "
                           "scale) or work (replica-time)",
                           mr.has("runTime") ? "both runTime and work" : "neither runTime nor work"));
    }
    const Val ci = mr.get("checkpointInterval");
    if (auto x = read_duration(r_, ci)) {
      if (x->count() == 0) {
        r_.error(ci.mark, ci.path, "found 0; allowed: a duration > 0 (omit the field for no checkpoints)");
      } else {
        b.checkpoint_interval = *x;
      }
    }
    if (auto x = read_duration(r_, mr.get("checkpointCost"))) b.checkpoint_cost = *x;
    if (auto x = duration_dist(mr.get("restartOverhead"))) b.restart_overhead = *x;
    {
      MapReader f(r_, mr.get("failure"), kFailure);
      if (auto x = read_double(r_, f.get("hazardPerHour"), 0, kMaxDouble)) b.failure.hazard_per_hour = *x;
      for (const Val& item : read_list(r_, f.get("exitCodes"))) {
        MapReader e(r_, item, kExitCode);
        ExitCodeWeight w;
        if (require(r_, e.get("code"))) {
          // A failure exits non-zero; 255 is the largest exit status.
          if (auto x = read_int32(r_, e.get("code"), 1, 255)) w.exit_code = *x;
        }
        if (auto x = read_double(r_, e.get("weight"), 0, kMaxDouble)) w.weight = *x;
        b.failure.exit_codes.push_back(w);
      }
      if (auto x = read_int32(r_, f.get("finalExitCode"), 0, 255)) b.failure.final_exit_code = *x;
    }
    {
      MapReader s(r_, mr.get("scaling"), kScaling);
      if (auto x = read_choice(r_, s.get("model"), kScalingModels)) {
        b.scaling.model = static_cast<ScalingModel>(
            std::find(std::begin(kScalingModels), std::end(kScalingModels), *x) - std::begin(kScalingModels));
      }
      const Val sf = s.get("serialFraction");
      if (auto x = read_double(r_, sf, 0, 0.999999)) {
        if (b.scaling.model != ScalingModel::Amdahl) {
          r_.error(sf.mark, sf.path,
                   fmt::format("found serialFraction with model {}; allowed: serialFraction only "
                               "with model amdahl", to_string(b.scaling.model)));
        }
        b.scaling.serial_fraction = *x;
      }
      if (auto x = read_duration(r_, s.get("rescaleOverhead"))) b.scaling.rescale_overhead = *x;
      // model: table — measured throughput by replica count, relative to one replica.
      const Val tp = s.get("throughput");
      for (const auto& [key, val] : FreeMap(r_, tp).entries()) {
        std::int32_t n = 0;
        const bool int_key = !key.empty() && key.size() < 7 &&
                             std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (int_key) n = std::stoi(key);
        if (!int_key || n < 1) {
          r_.error(val.mark, val.path, fmt::format("found key \"{}\"; allowed: a replica count >= 1", key));
          continue;
        }
        if (auto x = read_double(r_, val, 1e-9, kMaxDouble)) b.scaling.throughput[n] = *x;
      }
      if (b.scaling.model == ScalingModel::Table && b.scaling.throughput.empty() && !r_.has_error_under(tp.path)) {
        r_.error(s.get("model").mark, s.get("model").path,
                 "found model table without throughput; allowed: throughput: {<replicas>: <relative throughput>, ...}");
      }
      if (b.scaling.model != ScalingModel::Table && tp.present()) {
        r_.error(tp.mark, tp.path,
                 fmt::format("found throughput with model {}; allowed: throughput only with model table",
                             to_string(b.scaling.model)));
      }
    }
    return b;
  }

  std::optional<SimTime> time_point(const Val& v) {
    if (auto d = read_duration(r_, v)) return SimTime{*d};
    return std::nullopt;
  }

  void queue_ref(const std::string& path, const std::string& job, const m::SchedulePolicy& s,
                 const Scenario& sc) {
    if (sc.scheduler.kind == SchedulerKind::Default) {
      if (s.t9k_scheduler) {
        r_.error(path, fmt::format("job \"{}\" asks for the T9k scheduler (spec.scheduler.t9kScheduler); "
                                   "allowed: no spec.scheduler, since spec.scheduler.name is default", job));
      }
      return;
    }
    // Jobs without spec.scheduler run on the Kubernetes default scheduler, which the world
    // simulates beside the T9k scheduler (docs/scheduler.md).
    if (!s.t9k_scheduler) return;
    const auto& q = s.t9k_scheduler->queue;
    if (queues_broken_) return;
    // A queue named "default" always exists (spec §8.2, §8.3); the world creates it when the
    // scenario does not define it.
    const bool found = q == m::kDefaultQueue ||
                       std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                                   [&](const m::Queue& x) { return x.metadata.name == q; });
    if (!found) {
      r_.error(path, fmt::format("job \"{}\" uses queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})",
                                 job, q, queue_names(sc)));
    }
  }

  static std::string queue_names(const Scenario& sc) {
    std::string s;
    for (const auto& q : sc.scheduler.queues) s += (s.empty() ? "" : ", ") + q.metadata.name;
    if (std::none_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                     [](const m::Queue& x) { return x.metadata.name == m::kDefaultQueue; })) {
      s += (s.empty() ? "" : ", ") + std::string(m::kDefaultQueue) + " (implicit)";
    }
    return s;
  }

  std::optional<Scenario> scenario(const Val& root) {
    MapReader top(r_, root, kTop);
    if (!top.ok()) return std::nullopt;
    const std::string_view api[] = {kScenarioApiVersion};
    if (require(r_, top.get("apiVersion"))) read_choice(r_, top.get("apiVersion"), api);
    const std::string_view kind[] = {kScenarioKind};
    if (require(r_, top.get("kind"))) read_choice(r_, top.get("kind"), kind);
    Scenario sc;
    MapReader meta(r_, top.get("metadata"), kMeta);
    if (require(r_, top.get("metadata")) && require(r_, meta.get("name"))) {
      if (auto x = read_string(r_, meta.get("name"))) sc.name = *x;
    }
    if (auto x = read_string(r_, meta.get("description"))) sc.description = *x;
    const Val spec_v = top.get("spec");
    if (!require(r_, spec_v)) return std::nullopt;
    MapReader spec(r_, spec_v, kSpec);
    if (!spec.ok()) return std::nullopt;

    if (auto x = read_string(r_, spec.get("namespace"))) {
      sc.default_namespace = *x;
      if (!is_dns1123_label(*x)) {
        r_.error(spec.get("namespace").mark, spec.get("namespace").path,
                 fmt::format("found \"{}\"; allowed: a DNS-1123 label", *x));
      }
    }
    const Val horizon = spec.get("horizon");
    if (require(r_, horizon)) {
      if (auto x = read_duration(r_, horizon)) {
        if (x->count() == 0) r_.error(horizon.mark, horizon.path, "found 0; allowed: a duration > 0");
        sc.horizon = *x;
      }
    }
    if (auto x = read_int(r_, spec.get("seed"), 0, INT64_MAX)) sc.seed = static_cast<std::uint64_t>(*x);
    if (auto x = read_int32(r_, spec.get("replications"), 1, 100000)) sc.replications = *x;

    cluster(spec.get("cluster"), sc);
    scheduler(spec.get("scheduler"), sc);
    {
      MapReader c(r_, spec.get("controllers"), kControllers);
      if (auto x = duration_dist(c.get("reconcileLatency"))) sc.controllers.reconcile_latency = *x;
      sc.controllers.options = options(c.get("options"));
      MapReader k(r_, spec.get("kubelet"), kKubelet);
      if (auto x = duration_dist(k.get("podStartLatency"))) sc.kubelet.pod_start_latency = *x;
      if (auto x = duration_dist(k.get("podStopLatency"))) sc.kubelet.pod_stop_latency = *x;
    }
    faults(spec.get("faults"), sc);
    workload(spec.get("workload"), sc);
    operations(spec.get("operations"), sc);
    expect(spec.get("expect"), sc);
    return sc;
  }

  void cluster(const Val& v, Scenario& sc) {
    if (!require(r_, v)) return;
    MapReader c(r_, v, kCluster);
    if (require(r_, c.get("nodePools"))) {
      const auto pools = read_list(r_, c.get("nodePools"));
      if (pools.empty() && c.get("nodePools").node.IsSequence()) {
        r_.error(c.get("nodePools").mark, c.get("nodePools").path,
                 "found an empty list; allowed: at least one node pool");
      }
      std::set<std::string> names;
      for (const Val& item : pools) {
        if (auto p = node_pool(item)) {
          if (!names.insert(p->name).second) {
            r_.error(child_path(item.path, "name"),
                     fmt::format("found \"{}\" again; allowed: node pool names unique", p->name));
            continue;
          }
          sc.cluster.node_pools.push_back(std::move(*p));
        }
      }
    }
    MapReader t(r_, c.get("topology"), kTopology);
    if (auto x = read_int32(r_, t.get("nodesPerRack"), 0)) sc.cluster.topology.nodes_per_rack = *x;
    if (auto x = read_int32(r_, t.get("racksPerSwitch"), 0)) sc.cluster.topology.racks_per_switch = *x;
  }

  void scheduler(const Val& v, Scenario& sc) {
    MapReader s(r_, v, kScheduler);
    if (auto x = read_choice(r_, s.get("name"), kSchedulerNames)) {
      sc.scheduler.kind = *x == "t9k" ? SchedulerKind::T9k : SchedulerKind::Default;
    }
    sc.scheduler.options = options(s.get("options"));
    const Val queues = s.get("queues");
    if (queues.present() && sc.scheduler.kind == SchedulerKind::Default) {
      r_.error(queues.mark, queues.path,
               "found queues with the default scheduler; allowed: queues only with name: t9k");
      return;
    }
    std::set<std::string> names;
    for (const Val& item : read_list(r_, queues)) {
      MapReader e(r_, item, kSource);
      if (!e.ok()) continue;
      for (auto& [obj, source] : sources(e, item)) {
        if (!std::holds_alternative<m::Queue>(obj)) {
          r_.error(item.path, fmt::format("found {} \"{}\"; allowed: Queue objects", kind_name(obj),
                                          metadata_of(obj).name));
          continue;
        }
        auto& q = std::get<m::Queue>(obj);
        if (!names.insert(q.metadata.name).second) {
          r_.error(item.path, fmt::format("found queue \"{}\" again; allowed: queue names unique", q.metadata.name));
          continue;
        }
        sc.scheduler.queues.push_back(std::move(q));
      }
    }
    queues_broken_ = r_.has_error_under(queues.path);
  }

  void faults(const Val& v, Scenario& sc) {
    MapReader f(r_, v, kFaults);
    if (auto x = read_choice(r_, f.get("profile"), kFaultProfiles)) sc.faults.profile = *x;
    const Val rates = f.get("rates");
    if (sc.faults.profile == "custom") {
      if (require(r_, rates)) {
        MapReader r(r_, rates, kRates);
        FaultRates fr;
        if (auto x = read_double(r_, r.get("nodeFailuresPerNodeDay"), 0, kMaxDouble)) fr.node_failures_per_node_day = *x;
        if (auto x = read_double(r_, r.get("switchFailuresPerSwitchDay"), 0, kMaxDouble)) fr.switch_failures_per_switch_day = *x;
        if (auto x = read_double(r_, r.get("softwareFailuresPerJobHour"), 0, kMaxDouble)) fr.software_failures_per_job_hour = *x;
        sc.faults.rates = fr;
      }
    } else if (rates.present()) {
      r_.error(rates.mark, rates.path,
               fmt::format("found rates with profile \"{}\"; allowed: rates only with profile: custom",
                           sc.faults.profile));
    }
    sc.faults.detection_delay = duration_dist(f.get("detectionDelay"));
    sc.faults.repair_time = duration_dist(f.get("repairTime"));
    // Weibull inter-failure times with this shape, same mean (faults-and-validation §1.7).
    if (auto x = read_double(r_, f.get("weibullShape"), 1e-3, 1e3)) sc.faults.weibull_shape = *x;
  }

  void workload(const Val& v, Scenario& sc) {
    if (!require(r_, v)) return;
    MapReader w(r_, v, kWorkload);
    std::set<std::string> names;
    for (const Val& item : read_list(r_, w.get("jobs"))) {
      MapReader e(r_, item, kJobEntry);
      if (!e.ok()) continue;
      SimTime submit{};
      if (auto x = time_point(e.get("submitAt"))) submit = *x;
      if (submit.time_since_epoch() >= sc.horizon && sc.horizon.count() > 0) {
        r_.warning(e.get("submitAt").mark, e.get("submitAt").path,
                   "the job is submitted at or after the horizon and never runs");
      }
      JobBehaviour b = behaviour(e.get("behaviour"));
      const std::string anchor = e.has("manifest") ? child_path(item.path, "manifest") : child_path(item.path, "path");
      for (auto& [obj, source] : sources(e, item)) {
        if (!is_job(obj)) {
          r_.error(anchor, fmt::format("found {} \"{}\"; allowed: GenericJob, PyTorchTrainingJob or "
                                       "DeepSpeedJob objects (queues go under spec.scheduler.queues)",
                                       kind_name(obj), metadata_of(obj).name));
          continue;
        }
        m::Job job = to_job(obj);
        auto& meta = m::metadata_of(job);
        if (meta.namespace_.empty()) meta.namespace_ = sc.default_namespace;
        if (!names.insert(meta.namespace_ + "/" + meta.name).second) {
          r_.error(anchor, fmt::format("found job \"{}\" again; allowed: job names unique per namespace", meta.name));
          continue;
        }
        const std::string sched_path = e.has("manifest") ? child_path(anchor, "spec.scheduler.t9kScheduler.queue") : anchor;
        queue_ref(sched_path, meta.name, m::scheduler_of(job), sc);
        sc.workload.jobs.push_back(JobSubmission{std::move(job), submit, b, source});
      }
    }
    std::set<std::string> generator_names;
    for (const Val& item : read_list(r_, w.get("generators"))) {
      MapReader g(r_, item, kGenerator);
      if (!g.ok()) continue;
      GeneratorEntry gen;
      if (require(r_, g.get("name"))) {
        if (auto x = read_string(r_, g.get("name"))) gen.name = *x;
        if (!generator_names.insert(gen.name).second) {
          r_.error(g.get("name").mark, g.get("name").path,
                   fmt::format("found \"{}\" again; allowed: generator names unique", gen.name));
        }
      }
      if (require(r_, g.get("interarrival"))) {
        if (auto x = duration_dist(g.get("interarrival"))) gen.interarrival = *x;
      }
      if (auto x = read_int(r_, g.get("count"), 1, INT64_MAX)) gen.count = *x;
      if (auto x = time_point(g.get("start"))) gen.start = *x;
      if (auto x = time_point(g.get("stop"))) {
        gen.stop = *x;
        if (*x <= gen.start) {
          r_.error(g.get("stop").mark, g.get("stop").path, "found a stop time not after start; allowed: stop > start");
        }
      }
      gen.behaviour = behaviour(g.get("behaviour"));
      auto objs = sources(g, item);
      if (objs.size() > 1) {
        r_.error(child_path(item.path, "path"),
                 fmt::format("found {} objects; allowed: exactly one job template", objs.size()));
      } else if (objs.size() == 1) {
        if (!is_job(objs.front().first)) {
          r_.error(item.path, fmt::format("found {}; allowed: a job template", kind_name(objs.front().first)));
        } else {
          gen.template_job = to_job(objs.front().first);
          const std::string sched_path =
              g.has("manifest") ? child_path(item.path, "manifest.spec.scheduler.t9kScheduler.queue")
                                : child_path(item.path, "path");
          queue_ref(sched_path, m::metadata_of(gen.template_job).name, m::scheduler_of(gen.template_job), sc);
        }
      }
      sc.workload.generators.push_back(std::move(gen));
    }
    for (const Val& item : read_list(r_, w.get("traces"))) {
      MapReader t(r_, item, kTrace);
      if (!t.ok()) continue;
      TraceEntry tr;
      if (require(r_, t.get("format"))) {
        if (auto x = read_choice(r_, t.get("format"), kTraceFormats)) {
          tr.format = *x == "philly" ? TraceFormat::Philly : TraceFormat::AlibabaOpenB;
        }
      }
      const Val path = t.get("path");
      if (require(r_, path)) {
        if (auto x = read_string(r_, path)) {
          if (options_.allow_file_references) {
            const auto p = std::filesystem::path(options_.base_dir) / *x;
            std::error_code ec;
            if (!std::filesystem::is_regular_file(p, ec)) {
              r_.error(path.mark, path.path,
                       fmt::format("found \"{}\", which is not a file; allowed: a trace file, "
                                   "relative to the scenario's folder", *x));
            }
            tr.path = p.string();
          } else {
            r_.error(path.mark, path.path,
                     fmt::format("found path \"{}\"; allowed: no file references for this input", *x));
          }
        }
      }
      if (auto x = read_int(r_, t.get("limit"), 1, INT64_MAX)) tr.limit = *x;
      if (auto x = read_duration(r_, t.get("timeOffset"))) tr.time_offset = *x;
      if (auto x = read_string(r_, t.get("queue"))) {
        tr.queue = *x;
        const bool found = std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                                       [&](const m::Queue& q) { return q.metadata.name == *x; });
        if (!found) {
          r_.error(t.get("queue").mark, t.get("queue").path,
                   fmt::format("found queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})", *x, queue_names(sc)));
        }
      }
      tr.options = options(t.get("options"));
      sc.workload.traces.push_back(std::move(tr));
    }
  }

  const JobSubmission* find_job(const Scenario& sc, const std::string& name) {
    for (const auto& j : sc.workload.jobs) {
      if (m::metadata_of(j.job).name == name) return &j;
    }
    return nullptr;
  }

  static std::string job_names(const Scenario& sc) {
    std::string s;
    for (const auto& j : sc.workload.jobs) s += (s.empty() ? "" : ", ") + m::metadata_of(j.job).name;
    return s.empty() ? "none defined" : s;
  }

  void operations(const Val& v, Scenario& sc) {
    // Pools as they exist over time: addNodePool/removeNodePool change the set.
    std::map<std::string, std::int32_t> pools;
    for (const auto& p : sc.cluster.node_pools) pools[p.name] = p.count;
    std::vector<std::pair<SimTime, Operation>> ops;
    for (const Val& item : read_list(r_, v)) {
      MapReader o(r_, item, kOperation);
      if (!o.ok()) continue;
      Operation op;
      const Val at = o.get("at");
      if (require(r_, at)) {
        if (auto x = time_point(at)) {
          op.at = *x;
          if (sc.horizon.count() > 0 && x->time_since_epoch() > sc.horizon) {
            r_.warning(at.mark, at.path, "the operation is after the horizon and never happens");
          }
        }
      }
      const Val action = o.get("action");
      if (!require(r_, action)) continue;
      const auto a = read_choice(r_, action, kOperationNames);
      if (!a) continue;
      op.type = static_cast<OperationType>(
          std::find(std::begin(kOperationNames), std::end(kOperationNames), *a) - std::begin(kOperationNames));
      // The fields each action takes.
      std::vector<std::string_view> wanted;
      switch (op.type) {
        case OperationType::PauseJob:
        case OperationType::ResumeJob: wanted = {"job"}; break;
        case OperationType::SetExpectedReplicas: wanted = {"job", "replicas"}; break;
        case OperationType::CloseQueue:
        case OperationType::OpenQueue: wanted = {"queue"}; break;
        case OperationType::DrainNode:
        case OperationType::CordonNode:
        case OperationType::UncordonNode: wanted = {"node"}; break;
        case OperationType::AddNodePool: wanted = {"nodePool"}; break;
        case OperationType::RemoveNodePool: wanted = {"pool"}; break;
      }
      for (const auto& [key, val] : o.entries()) {
        if (key == "at" || key == "action") continue;
        if (std::find(wanted.begin(), wanted.end(), key) == wanted.end()) {
          r_.error(val.mark, val.path, fmt::format("found field \"{}\" with action {}; allowed: {}", key,
                                                   *a, join_names(wanted)));
        }
      }
      bool ok = true;
      for (auto key : wanted) ok = require(r_, o.get(key)) && ok;
      if (!ok) continue;
      switch (op.type) {
        case OperationType::PauseJob:
        case OperationType::ResumeJob:
        case OperationType::SetExpectedReplicas: {
          const Val jv = o.get("job");
          const auto name = read_string(r_, jv);
          if (!name) break;
          op.target = *name;
          const JobSubmission* job = find_job(sc, *name);
          if (!job && broken_.count(*name)) break;
          if (!job) {
            r_.error(jv.mark, jv.path, fmt::format("found job \"{}\"; allowed: a job of spec.workload.jobs ({})",
                                                   *name, job_names(sc)));
            break;
          }
          if (op.type != OperationType::SetExpectedReplicas) break;
          const Val rv = o.get("replicas");
          const auto n = read_int32(r_, rv, 0);
          if (!n) break;
          op.expected_replicas = *n;
          std::optional<m::ElasticConfig> e;
          if (auto* p = std::get_if<m::PyTorchTrainingJob>(&job->job)) e = p->spec.elastic;
          if (auto* d = std::get_if<m::DeepSpeedJob>(&job->job)) e = d->spec.elastic;
          if (!e || !e->enabled) {
            r_.error(rv.mark, rv.path, fmt::format("found a replica change for job \"{}\", which is not "
                                                   "elastic; allowed: jobs with spec.elastic.enabled: true (spec §4.3)", *name));
          } else if (*n < e->min_replicas || *n > e->max_replicas) {
            r_.error(rv.mark, rv.path, fmt::format("found {}; allowed: an integer in [minReplicas {}, "
                                                   "maxReplicas {}] (spec §4.3)", *n, e->min_replicas, e->max_replicas));
          }
          break;
        }
        case OperationType::CloseQueue:
        case OperationType::OpenQueue: {
          const Val qv = o.get("queue");
          if (auto name = read_string(r_, qv)) {
            op.target = *name;
            const bool found = std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                                           [&](const m::Queue& q) { return q.metadata.name == *name; });
            if (!found) {
              r_.error(qv.mark, qv.path, fmt::format("found queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})",
                                                     *name, queue_names(sc)));
            }
          }
          break;
        }
        case OperationType::DrainNode:
        case OperationType::CordonNode:
        case OperationType::UncordonNode: {
          const Val nv = o.get("node");
          if (auto name = read_string(r_, nv)) {
            op.target = *name;
            if (!node_exists(pools, *name)) {
              r_.error(nv.mark, nv.path, fmt::format("found node \"{}\"; allowed: a node <pool>-<index> of a "
                                                     "node pool, index below the pool's count", *name));
            }
          }
          break;
        }
        case OperationType::AddNodePool: {
          if (auto p = node_pool(o.get("nodePool"))) {
            op.target = p->name;
            if (pools.count(p->name)) {
              r_.error(child_path(o.get("nodePool").path, "name"),
                       fmt::format("found \"{}\", which already exists; allowed: a new pool name", p->name));
            }
            pools[p->name] = p->count;
            op.node_pool = std::move(*p);
          }
          break;
        }
        case OperationType::RemoveNodePool: {
          const Val pv = o.get("pool");
          if (auto name = read_string(r_, pv)) {
            op.target = *name;
            if (!pools.erase(*name)) {
              r_.error(pv.mark, pv.path, fmt::format("found pool \"{}\"; allowed: an existing node pool", *name));
            }
          }
          break;
        }
      }
      ops.emplace_back(op.at, std::move(op));
    }
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [t, op] : ops) sc.operations.push_back(std::move(op));
  }

  static bool node_exists(const std::map<std::string, std::int32_t>& pools, const std::string& node) {
    const auto dash = node.rfind('-');
    if (dash == std::string::npos || dash + 1 >= node.size() || node.size() - dash > 8) return false;
    const std::string pool = node.substr(0, dash);
    const std::string idx = node.substr(dash + 1);
    if (!std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    if (idx.size() > 1 && idx[0] == '0') return false;
    const auto it = pools.find(pool);
    return it != pools.end() && std::stol(idx) < it->second;
  }

  std::optional<IntBounds> bounds(const Val& v) {
    if (!v.present()) return std::nullopt;
    IntBounds b;
    if (v.node.IsScalar()) {
      const auto x = read_int(r_, v, 0, INT64_MAX);
      if (!x) return std::nullopt;
      b.min = b.max = *x;
      return b;
    }
    MapReader mr(r_, v, kBounds);
    if (!mr.ok()) return std::nullopt;
    b.min = read_int(r_, mr.get("min"), 0, INT64_MAX);
    b.max = read_int(r_, mr.get("max"), 0, INT64_MAX);
    if (!b.min && !b.max) {
      r_.error(v.mark, v.path, "found neither min nor max; allowed: an integer, or {min, max} with at least one");
      return std::nullopt;
    }
    if (b.min && b.max && *b.min > *b.max) {
      r_.error(v.mark, v.path, fmt::format("found min {} > max {}; allowed: min <= max", *b.min, *b.max));
      return std::nullopt;
    }
    return b;
  }

  void expect(const Val& v, Scenario& sc) {
    if (!v.present()) return;
    MapReader e(r_, v, kExpect);
    Expectations ex;
    for (const Val& item : read_list(r_, e.get("jobs"))) {
      MapReader j(r_, item, kJobExpect);
      JobExpectation je;
      const Val nv = j.get("name");
      if (require(r_, nv)) {
        if (auto x = read_string(r_, nv)) {
          je.job = *x;
          if (!find_job(sc, *x) && !broken_.count(*x)) {
            r_.error(nv.mark, nv.path, fmt::format("found job \"{}\"; allowed: a job of spec.workload.jobs ({})",
                                                   *x, job_names(sc)));
          }
        }
      }
      if (j.has("phase")) je.phase = read_enum<m::JobPhase>(r_, j.get("phase"));
      je.reason = read_string(r_, j.get("reason"));
      je.restart_count = bounds(j.get("restartCount"));
      je.backoff_count = bounds(j.get("backoffCount"));
      ex.jobs.push_back(std::move(je));
    }
    for (const Val& item : read_list(r_, e.get("metrics"))) {
      MapReader mb(r_, item, std::array<std::string_view, 3>{"name", "min", "max"});
      MetricBound b;
      if (require(r_, mb.get("name"))) {
        if (auto x = read_string(r_, mb.get("name"))) b.metric = *x;
      }
      b.min = read_double(r_, mb.get("min"), -kMaxDouble, kMaxDouble);
      b.max = read_double(r_, mb.get("max"), -kMaxDouble, kMaxDouble);
      if (!mb.has("min") && !mb.has("max")) {
        r_.error(item.mark, item.path, "found neither min nor max; allowed: at least one bound");
      } else if (b.min && b.max && *b.min > *b.max) {
        r_.error(item.mark, item.path, fmt::format("found min {} > max {}; allowed: min <= max", *b.min, *b.max));
      }
      ex.metrics.push_back(std::move(b));
    }
    sc.expect = std::move(ex);
  }

 private:
  Report& r_;
  std::vector<Diagnostic>& out_;
  const LoadOptions& options_;
  std::set<std::string> broken_;
  bool queues_broken_ = false;
};

bool first_document_is_scenario(const std::vector<YamlDocument>& docs) {
  for (const auto& d : docs) {
    if (!d.node.IsDefined() || d.node.IsNull()) continue;
    if (!d.node.IsMap()) return false;
    const YAML::Node kind = d.node["kind"];
    return kind.IsDefined() && kind.IsScalar() && kind.Scalar() == kScenarioKind;  // IsDefined first: see remember_broken
  }
  return false;
}

ScenarioResult decode_scenario_docs(const std::vector<YamlDocument>& docs, const std::string& file,
                                    const LoadOptions& options, std::vector<Diagnostic> diags) {
  ScenarioResult result;
  int index = -1;
  const YamlDocument* root = nullptr;
  for (const auto& d : docs) {
    ++index;
    if (!d.node.IsDefined() || d.node.IsNull()) continue;
    if (root) {
      diags.push_back(Diagnostic{Severity::Error, file, d.line, 1, index, "",
                                 "found a second document; allowed: one Scenario per file (put "
                                 "manifests in files referenced by path)"});
      continue;
    }
    root = &d;
  }
  if (!root) {
    diags.push_back(Diagnostic{Severity::Error, file, 0, 0, 0, "", "found no documents; allowed: a Scenario"});
    result.diagnostics = std::move(diags);
    return result;
  }
  Report r(file, diags, 0);
  std::optional<Scenario> sc;
  try {
    ScenarioDecoder dec(r, diags, options);
    sc = dec.scenario(Val{root->node, root->node.Mark(), ""});
  } catch (const BudgetExceeded&) {
    add_budget_diagnostic(diags, file, 0, root->line);
  }
  if (!has_errors(diags)) result.scenario = std::move(sc);
  result.diagnostics = std::move(diags);
  return result;
}

std::string folder_of(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

ScenarioResult parse_scenario(std::string_view text, const std::string& file, LoadOptions options) {
  if (options.base_dir.empty()) options.base_dir = ".";
  std::vector<Diagnostic> diags;
  const auto docs = parse_yaml(text, file, diags);
  if (!docs) {
    ScenarioResult r;
    r.diagnostics = std::move(diags);
    return r;
  }
  return decode_scenario_docs(*docs, file, options, std::move(diags));
}

ScenarioResult load_scenario(const std::string& path, LoadOptions options) {
  if (options.base_dir.empty()) options.base_dir = folder_of(path);
  std::string text;
  std::vector<Diagnostic> diags;
  if (!read_text_file(path, text, diags)) {
    ScenarioResult r;
    r.diagnostics = std::move(diags);
    return r;
  }
  return parse_scenario(text, path, options);
}

std::vector<Diagnostic> validate_text(std::string_view text, const std::string& file, LoadOptions options) {
  if (options.base_dir.empty()) options.base_dir = ".";
  std::vector<Diagnostic> diags;
  const auto docs = parse_yaml(text, file, diags);
  if (!docs) return diags;
  if (first_document_is_scenario(*docs)) {
    return decode_scenario_docs(*docs, file, options, std::move(diags)).diagnostics;
  }
  std::vector<LoadedObject> objects;
  decode_manifest_documents(*docs, file, "", objects, diags);
  if (objects.empty() && !has_errors(diags)) {
    diags.push_back(Diagnostic{Severity::Error, file, 0, 0, 0, "",
                               "found no objects; allowed: a Scenario, or one or more T9k objects "
                               "separated by \"---\""});
  }
  return diags;
}

std::vector<Diagnostic> validate_file(const std::string& path) {
  std::string text;
  std::vector<Diagnostic> diags;
  if (!read_text_file(path, text, diags)) return diags;
  LoadOptions options;
  options.base_dir = folder_of(path);
  return validate_text(text, path, options);
}

}  // namespace t9k::scenarios
