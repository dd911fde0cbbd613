// Scenario file format v1 (docs/scenario-format.md): decoding and cross-checks.
#include "scenarios/format/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "scenarios/format/detail/decode.hpp"
#include "scenarios/format/detail/files.hpp"
#include "scenarios/format/traces.hpp"

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

SimDuration DurationDistribution::draw(kernel::Rng& rng) const {
  const double s = seconds(rng);
  if (!(s > 0)) return SimDuration{0};
  return SimDuration{static_cast<std::int64_t>(std::llround(std::min(s, 1e12) * 1e6))};
}

const ScriptedRun* JobBehaviour::scripted_run(std::string_view type, std::int32_t rank,
                                              std::int32_t generation) const {
  const ReplicaScript* pick = nullptr;
  for (const auto& r : replicas) {
    if (r.type != type || (r.rank && *r.rank != rank)) continue;
    if (!pick || (r.rank && !pick->rank)) pick = &r;  // a rank's own entry wins over its type's
  }
  if (!pick || pick->runs.empty()) return nullptr;
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(std::max(generation, 0)),
                                       pick->runs.size() - 1);
  return &pick->runs[n];
}

IntDistribution IntDistribution::constant(std::int64_t v) {
  IntDistribution r;
  r.choices.emplace_back(v, 1.0);
  return r;
}

m::ResourceList NodePool::capacity() const {
  m::ResourceList r = extra_resources;
  r[m::kResourceCpu] = cpu;
  r[m::kResourceMemory] = memory;
  if (gpus_per_node > 0) r[gpu_resource] = m::Quantity::from_units(gpus_per_node);
  return r;
}

std::int32_t Cluster::node_count() const {
  std::int64_t n = 0;
  for (const auto& p : node_pools) n += p.count;
  return static_cast<std::int32_t>(std::min<std::int64_t>(n, INT32_MAX));
}

namespace {
constexpr std::string_view kOperationNames[] = {
    "pauseJob",       "resumeJob",    "setExpectedReplicas",
    "closeQueue",     "openQueue",    "drainNode",
    "cordonNode",     "uncordonNode", "addNodePool",
    "removeNodePool", "failPod",      "deletePod",
    "failNode",       "repairNode",   "failGpu",
    "failSwitch",     "setQueue",     "setJobPriority"};
constexpr std::string_view kSchedulerNames[] = {"t9k", "default"};
constexpr std::string_view kTraceFormats[] = {"philly", "alibaba-openb", "csv", "k8s-export"};
constexpr std::string_view kScalingModels[] = {"linear", "amdahl", "fixed", "table"};
// faults-and-validation §1.6, plus "none" and "custom".
constexpr std::string_view kFaultProfiles[] = {"none", "h100-frontier", "a100-research",
                                               "a100-optimistic", "custom"};
}  // namespace

std::string_view to_string(OperationType t) { return kOperationNames[static_cast<std::size_t>(t)]; }
std::string_view to_string(SchedulerKind k) { return kSchedulerNames[static_cast<std::size_t>(k)]; }
std::string_view to_string(TraceFormat f) { return kTraceFormats[static_cast<std::size_t>(f)]; }
std::string_view to_string(ScalingModel s) { return kScalingModels[static_cast<std::size_t>(s)]; }
std::string_view to_string(ArrivalKind k) {
  constexpr std::string_view kNames[] = {"interarrival", "rate", "profile", "times"};
  return kNames[static_cast<std::size_t>(k)];
}

namespace {

constexpr std::string_view kTop[] = {"apiVersion", "kind", "metadata", "spec"};
constexpr std::string_view kMeta[] = {"name", "description"};
constexpr std::string_view kSpec[] = {
    "namespace",  "cluster", "scheduler", "controllers",  "kubelet", "faults",  "workload",
    "operations", "horizon", "seed",      "replications", "expect",  "plugins", "initialState"};
constexpr std::string_view kInitialState[] = {"fromExport", "at", "remaining", "queuedRunTime"};
constexpr std::string_view kRemaining[] = {"fractionOfElapsed", "distribution", "activeDeadline"};
constexpr std::string_view kPlugins[] = {"controllers"};
constexpr std::string_view kControllerPlugin[] = {"kind", "command", "timeout", "name"};
constexpr std::string_view kPlugin[] = {"command", "timeout", "name"};
constexpr std::string_view kPolicyPlugin[] = {"plugin"};
constexpr std::string_view kCluster[] = {"nodePools", "topology", "fromTrace", "fromExport",
                                         "accelerators"};
constexpr std::string_view kPool[] = {"name", "count",  "gpusPerNode",    "gpuResource", "gpuModel",
                                      "cpu",  "memory", "extraResources", "labels"};
constexpr std::string_view kTopology[] = {"nodesPerRack", "racksPerSwitch"};
constexpr std::string_view kScheduler[] = {"name", "queues", "options"};
constexpr std::string_view kSource[] = {"manifest", "path"};
constexpr std::string_view kControllers[] = {"reconcileLatency", "options"};
constexpr std::string_view kKubelet[] = {"podStartLatency", "podStopLatency"};
constexpr std::string_view kFaults[] = {"profile", "rates", "detectionDelay", "repairTime",
                                        "weibullShape"};
constexpr std::string_view kRates[] = {"nodeFailuresPerNodeDay", "switchFailuresPerSwitchDay",
                                       "softwareFailuresPerJobHour"};
constexpr std::string_view kWorkload[] = {"jobs", "generators", "traces"};
constexpr std::string_view kJobEntry[] = {"manifest", "path", "name", "submitAt", "behaviour"};
constexpr std::string_view kBehaviour[] = {
    "runTime", "work",    "checkpointInterval", "checkpointCost", "restartOverhead", "failure",
    "scaling", "replicas"};
constexpr std::string_view kReplicaScript[] = {"type", "rank", "runs"};
constexpr std::string_view kScriptedRun[] = {"exitCode", "after"};
constexpr std::string_view kFailure[] = {"hazardPerHour", "exitCodes", "finalExitCode"};
constexpr std::string_view kExitCode[] = {"code", "weight"};
constexpr std::string_view kScaling[] = {"model", "serialFraction", "rescaleOverhead",
                                         "throughput"};
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
constexpr std::string_view kChoice[] = {"values", "weights"};
constexpr std::string_view kRestart[] = {"Always", "OnFailure", "Never", "ExitCode"};
constexpr std::string_view kGenericRestart[] = {"Always", "OnFailure",
                                                "Never"};  // no ExitCode (spec §2.1)
constexpr std::string_view kCleanUp[] = {"None", "Unfinished", "All"};
// Ranges generated integers are clamped to (docs/scenario-format.md "generators").
constexpr std::int64_t kMaxReplicas = 10000;
// Every duration drawn is cut at this many seconds (sim/common.cpp); a distribution whose mean is
// beyond it is refused rather than cut silently.
constexpr double kMaxDurationSeconds = 1e12;

bool pod_asks_for_gpus(const m::PodTemplateSpec& t) {
  for (const auto& c : t.spec.containers) {
    for (const auto* rl : {&c.resources.requests, &c.resources.limits}) {
      if (!m::get_resource(*rl, m::kResourceGpu).is_zero() ||
          !m::get_resource(*rl, m::kResourceGpuMilli).is_zero()) {
        return true;
      }
    }
  }
  return false;
}

bool asks_for_gpus(const m::Job& job) {
  if (const auto* g = std::get_if<m::GenericJob>(&job)) {
    return std::any_of(g->spec.replica_specs.begin(), g->spec.replica_specs.end(),
                       [](const auto& r) { return pod_asks_for_gpus(r.template_); });
  }
  if (const auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
    return std::any_of(p->spec.replica_specs.begin(), p->spec.replica_specs.end(),
                       [](const auto& r) { return pod_asks_for_gpus(r.template_); });
  }
  return pod_asks_for_gpus(std::get<m::DeepSpeedJob>(job).spec.worker.template_);
}
constexpr std::int64_t kMaxGpus = m::kMaxGpusPerObject;
constexpr std::int64_t kMaxLimit = 1000000;
constexpr std::int64_t kMaxBurst = 100000;
constexpr std::size_t kMaxPrefix = 52;
constexpr std::string_view kTrace[] = {"name",        "format",  "path", "limit",      "timeOffset",
                                       "queue",       "from",    "to",   "loadFactor", "sample",
                                       "skipBadRows", "options", "epoch"};
constexpr std::string_view kOperation[] = {
    "at",       "action",   "job",         "queue",       "node",     "pool",
    "replicas", "nodePool", "replicaType", "rank",        "exitCode", "repairAfter",
    "switch",   "quota",    "priority",    "preemptible", "closed",   "maxDuration"};
constexpr std::string_view kExpect[] = {"jobs", "metrics", "events"};
constexpr std::string_view kJobExpect[] = {"name",         "phase",   "reason", "restartCount",
                                           "backoffCount", "phaseAt", "pods",   "fields"};
constexpr std::string_view kPodExpect[] = {"replicaType", "rank",           "generation", "phase",
                                           "exitCode",    "deletionReason", "pods"};
constexpr std::string_view kEventExpect[] = {"type",   "job",  "pod",      "phase",
                                             "reason", "node", "exitCode", "at"};
constexpr std::string_view kExpectPhases[] = {"Pending",   "Running", "Paused",  "Resuming",
                                              "Succeeded", "Failed",  "Rejected"};
constexpr std::string_view kExpectPodPhases[] = {"Pending", "Running", "Succeeded",
                                                 "Failed",  "Unknown", "Deleted"};
constexpr std::string_view kChangeTypes[] = {
    "JobSubmitted",    "JobRejected",  "JobPhaseChanged",   "PodCreated",
    "PodBound",        "PodRunning",   "PodReleased",       "PodDeleted",
    "TrainingChanged", "ProgressLost", "ProgressCommitted", "NodeChanged",
    "QueueChanged",    "PodUnknown",   "JobStatusChanged",  "JobPending"};
constexpr std::string_view kTimeBounds[] = {"min", "max"};
constexpr std::string_view kDeletionReasons[] = {
    "Cleanup",    "Pause",       "ScaleDown",   "Deadline", "Restart",
    "Preemption", "MaxDuration", "NodeFailure", "Drain",    "User"};
constexpr std::string_view kBounds[] = {"min", "max"};
constexpr std::string_view kDistributions[] = {"constant", "uniform",       "exponential",
                                               "normal",   "lognormal",     "weibull",
                                               "gamma",    "boundedPareto", "empirical"};

constexpr double kMaxDouble = std::numeric_limits<double>::max();

class ScenarioDecoder {
 public:
  ScenarioDecoder(Report& r, std::vector<Diagnostic>& out, const LoadOptions& options)
      : r_(r), out_(out), options_(options) {}

  // A number of seconds or a duration string ("90s"), for time-valued parameters.
  std::optional<double> seconds(const Val& v) {
    if (!require(r_, v)) return std::nullopt;
    if (v.node.IsScalar() && v.node.Tag() != "?") {
      // Quoted text: a duration.
      if (auto d = read_duration(r_, v)) return static_cast<double>(d->count()) / 1e6;
      return std::nullopt;
    }
    if (v.node.IsScalar()) {
      const std::string& s = v.node.Scalar();
      const bool numeric = !s.empty() &&
                           (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' ||
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
  // `duration`: the values are durations, cut at kMaxDurationSeconds (int_dist reuses the reader).
  std::optional<DurationDistribution> duration_dist(const Val& v, bool duration = true) {
    r_.tick();
    if (!v.present()) return std::nullopt;
    if (v.node.IsScalar()) {
      if (auto d = read_duration(r_, v)) {
        if (duration && static_cast<double>(d->count()) / 1e6 > kMaxDurationSeconds) {
          r_.error(
              v.mark, v.path,
              "found more than 1e12 s; allowed: at most 1e12 s (about 31,700 years), the longest "
              "duration the simulator keeps");
          return std::nullopt;
        }
        return DurationDistribution::constant(*d);
      }
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
                     fmt::format("found {}; allowed: a pair [value, cumulative probability]",
                                 describe(item.node)));
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
      if (duration && !(out.seconds.mean() <= kMaxDurationSeconds)) {
        // The simulator cuts every draw at 1e12 s; a mean beyond it would be cut silently.
        r_.error(v.mark, v.path,
                 fmt::format("found a mean of {:.3g} s; allowed: at most 1e12 s (about 31,700 "
                             "years), the longest "
                             "duration the simulator keeps",
                             out.seconds.mean()));
        return std::nullopt;
      }
      return out;
    } catch (const kernel::DistributionError& e) {
      r_.error(params.mark, params.path, fmt::format("invalid parameters: {}", e.what()));
      return std::nullopt;
    }
  }

  std::map<std::string, std::string> options(const Val& v, Scenario* marks_of = nullptr) {
    std::map<std::string, std::string> out;
    for (const auto& [k, val] : FreeMap(r_, v).entries()) {
      out[k] = val.present() ? val.node.Scalar() : "";
      if (marks_of) mark_option(*marks_of, val);
    }
    return out;
  }
  static void mark_option(Scenario& sc, const Val& val) {
    sc.option_marks[val.path] = {val.mark.line + 1, val.mark.column + 1};
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
                               "<pool>-<index>)",
                               p.name));
        }
      }
    }
    if (require(r_, mr.get("count"))) {
      if (auto x = read_int32(r_, mr.get("count"), 0, 1'000'000)) p.count = *x;
    }
    if (auto x = read_int32(r_, mr.get("gpusPerNode"), 0,
                            static_cast<std::int32_t>(m::kMaxGpusPerObject)))
      p.gpus_per_node = *x;
    p.gpu_resource = accelerators_.front();
    if (auto x = read_string(r_, mr.get("gpuResource"))) {
      if (std::find(accelerators_.begin(), accelerators_.end(), *x) == accelerators_.end()) {
        std::string names;
        for (const auto& a : accelerators_) names += (names.empty() ? "" : ", ") + a;
        r_.error(
            mr.get("gpuResource").mark, mr.get("gpuResource").path,
            fmt::format("found \"{}\"; allowed: one of spec.cluster.accelerators ({})", *x, names));
      }
      p.gpu_resource = *x;
    }
    if (auto x = read_string(r_, mr.get("gpuModel"))) p.gpu_model = *x;
    for (const char* key : {"cpu", "memory"}) {
      const Val q = mr.get(key);
      if (!require(r_, q)) continue;
      if (auto x = read_quantity(r_, q)) {
        if (x->is_zero()) {
          r_.error(q.mark, q.path,
                   fmt::format("found {}; allowed: a quantity > 0", describe(q.node)));
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
        r_.error(val.mark, val.path,
                 fmt::format("found key \"{}\"; allowed: a qualified label key", k));
      }
    }
    if (r_.error_count() != before) return std::nullopt;
    return p;
  }

  // `manifest:` inline or `path:` to a file; returns the objects with their sources. With
  // `only`, just the object of a file with that name (explicit jobs from t9ksim generate).
  std::vector<std::pair<Object, std::string>> sources(const MapReader& mr, const Val& entry,
                                                      const std::string* only = nullptr) {
    std::vector<std::pair<Object, std::string>> out;
    const Val inline_v = mr.get("manifest");
    const Val path_v = mr.get("path");
    if (inline_v.present() == path_v.present()) {
      r_.error(
          entry.mark, entry.path,
          fmt::format("found {}; allowed: exactly one of manifest (an inline object) or path "
                      "(a manifest file)",
                      inline_v.present() ? "both manifest and path" : "neither manifest nor path"));
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
                           "off for this input)",
                           *rel));
      return out;
    }
    const std::filesystem::path p = std::filesystem::path(options_.base_dir) / *rel;
    files_.insert(p.string());
    // A file named by many entries (t9ksim generate writes one per generator) is read once.
    if (const auto cached = file_cache_.find(p.string()); cached != file_cache_.end()) {
      if (!cached->second) {
        r_.error(path_v.mark, path_v.path,
                 fmt::format("found errors in \"{}\" (reported above)", *rel));
        return out;
      }
      for (const auto& o : *cached->second) {
        if (!only || metadata_of(o.first).name == *only) out.push_back(o);
      }
      return out;
    }
    auto& cache = file_cache_[p.string()];
    std::vector<Diagnostic> diags;
    std::string text;
    if (!read_text_file(p.string(), text, diags)) {
      r_.error(path_v.mark, path_v.path,
               fmt::format("found \"{}\", which cannot be read ({}); allowed: a manifest file, "
                           "relative to the scenario's folder",
                           *rel, diags.front().message));
      return out;
    }
    const auto docs = parse_yaml(text, p.string(), diags);
    std::vector<LoadedObject> objects;
    if (docs) decode_manifest_documents(*docs, p.string(), "", objects, diags);
    const bool bad = has_errors(diags);
    for (auto& d : diags) out_.push_back(std::move(d));
    if (bad) {
      r_.error(path_v.mark, path_v.path,
               fmt::format("found errors in \"{}\" (reported above)", *rel));
      if (docs) {
        for (const auto& d : *docs) remember_broken(d.node);
      }
      return {};
    }
    if (objects.empty()) {
      r_.error(path_v.mark, path_v.path,
               fmt::format("found no objects in \"{}\"; allowed: a manifest file "
                           "with at least one object",
                           *rel));
    }
    cache.emplace();
    for (auto& o : objects) {
      cache->emplace_back(std::move(o.object),
                          objects.size() > 1 ? fmt::format("{}#{}", *rel, o.document) : *rel);
    }
    for (const auto& o : *cache) {
      if (!only || metadata_of(o.first).name == *only) out.push_back(o);
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
      r_.error(
          v.mark, v.path,
          fmt::format("found {}; allowed: exactly one of runTime (wall-clock at the initial "
                      "scale) or work (replica-time)",
                      mr.has("runTime") ? "both runTime and work" : "neither runTime nor work"));
    }
    const Val ci = mr.get("checkpointInterval");
    if (auto x = read_duration(r_, ci)) {
      if (x->count() == 0) {
        r_.error(ci.mark, ci.path,
                 "found 0; allowed: a duration > 0 (omit the field for no checkpoints)");
      } else {
        b.checkpoint_interval = *x;
      }
    }
    if (auto x = read_duration(r_, mr.get("checkpointCost"))) b.checkpoint_cost = *x;
    if (auto x = duration_dist(mr.get("restartOverhead"))) b.restart_overhead = *x;
    {
      MapReader f(r_, mr.get("failure"), kFailure);
      if (auto x = read_double(r_, f.get("hazardPerHour"), 0, kMaxDouble))
        b.failure.hazard_per_hour = *x;
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
            std::find(std::begin(kScalingModels), std::end(kScalingModels), *x) -
            std::begin(kScalingModels));
      }
      const Val sf = s.get("serialFraction");
      if (auto x = read_double(r_, sf, 0, 0.999999)) {
        if (b.scaling.model != ScalingModel::Amdahl) {
          r_.error(sf.mark, sf.path,
                   fmt::format("found serialFraction with model {}; allowed: serialFraction only "
                               "with model amdahl",
                               to_string(b.scaling.model)));
        }
        b.scaling.serial_fraction = *x;
      }
      if (auto x = read_duration(r_, s.get("rescaleOverhead"))) b.scaling.rescale_overhead = *x;
      // model: table — measured throughput by replica count, relative to one replica.
      const Val tp = s.get("throughput");
      for (const auto& [key, val] : FreeMap(r_, tp).entries()) {
        std::int32_t n = 0;
        const bool int_key =
            !key.empty() && key.size() < 7 &&
            std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (int_key) n = std::stoi(key);
        if (!int_key || n < 1) {
          r_.error(val.mark, val.path,
                   fmt::format("found key \"{}\"; allowed: a replica count >= 1", key));
          continue;
        }
        if (auto x = read_double(r_, val, 1e-9, kMaxDouble)) b.scaling.throughput[n] = *x;
      }
      if (b.scaling.model == ScalingModel::Table && b.scaling.throughput.empty() &&
          !r_.has_error_under(tp.path)) {
        r_.error(s.get("model").mark, s.get("model").path,
                 "found model table without throughput; allowed: throughput: {<replicas>: "
                 "<relative throughput>, ...}");
      }
      if (b.scaling.model != ScalingModel::Table && tp.present()) {
        r_.error(
            tp.mark, tp.path,
            fmt::format("found throughput with model {}; allowed: throughput only with model table",
                        to_string(b.scaling.model)));
      }
    }
    for (const Val& item : read_list(r_, mr.get("replicas"))) {
      MapReader rr(r_, item, kReplicaScript);
      if (!rr.ok()) continue;
      ReplicaScript script;
      if (require(r_, rr.get("type"))) {
        if (auto x = read_string(r_, rr.get("type"))) script.type = *x;
      }
      if (auto x = read_int32(r_, rr.get("rank"), 0)) script.rank = *x;
      const Val runs = rr.get("runs");
      if (require(r_, runs)) {
        for (const Val& run : read_list(r_, runs)) {
          MapReader ru(r_, run, kScriptedRun);
          ScriptedRun sr;
          if (auto x = read_int32(r_, ru.get("exitCode"), 0, 255)) sr.exit_code = *x;
          const Val after = ru.get("after");
          if (auto x = read_duration(r_, after)) {
            if (x->count() <= 0) {
              r_.error(after.mark, after.path,
                       "found 0; allowed: a duration > 0 (omit it to end with the work)");
            } else {
              sr.after = *x;
            }
          }
          script.runs.push_back(sr);
        }
        if (script.runs.empty() && !r_.has_error_under(runs.path)) {
          r_.error(runs.mark, runs.path,
                   "found an empty list; allowed: at least one run ({exitCode, after})");
        }
      }
      for (const auto& other : b.replicas) {
        if (other.type == script.type && other.rank == script.rank) {
          r_.error(
              item.mark, item.path,
              fmt::format("found type {}{} a second time; allowed: one entry per type and rank",
                          script.type,
                          script.rank ? fmt::format(" rank {}", *script.rank) : std::string()));
          break;
        }
      }
      b.replicas.push_back(std::move(script));
    }
    return b;
  }

  // The replica types of a job and how many ranks each may have (elastic: up to maxReplicas).
  static std::vector<std::pair<std::string, std::int32_t>> replica_ranks(const m::Job& job) {
    std::vector<std::pair<std::string, std::int32_t>> out;
    std::visit(
        [&](const auto& j) {
          using T = std::decay_t<decltype(j)>;
          if constexpr (std::is_same_v<T, m::DeepSpeedJob>) {
            const bool elastic = j.spec.elastic && j.spec.elastic->enabled;
            out.emplace_back(
                "worker", elastic ? std::max(j.spec.elastic->max_replicas, j.spec.worker.replicas)
                                  : j.spec.worker.replicas);
          } else {
            std::int32_t elastic_max = 0;
            if constexpr (std::is_same_v<T, m::PyTorchTrainingJob>) {
              if (j.spec.elastic && j.spec.elastic->enabled)
                elastic_max = j.spec.elastic->max_replicas;
            }
            for (const auto& r : j.spec.replica_specs)
              out.emplace_back(r.type, std::max(r.replicas, elastic_max));
          }
        },
        job);
    return out;
  }

  // Scripted runs name replica types (and ranks) of the job they belong to.
  void check_scripts(const JobBehaviour& b, const m::Job& job, const std::string& behaviour_path,
                     bool ranks) {
    if (b.replicas.empty()) return;
    const auto types = replica_ranks(job);
    for (std::size_t i = 0; i < b.replicas.size(); ++i) {
      const auto& script = b.replicas[i];
      const std::string path = fmt::format("{}.replicas[{}]", behaviour_path, i);
      if (r_.has_error_under(path)) continue;
      const auto it = std::find_if(types.begin(), types.end(),
                                   [&](const auto& t) { return t.first == script.type; });
      if (it == types.end()) {
        std::vector<std::string> names;
        for (const auto& t : types) names.push_back(t.first);
        r_.error(path + ".type",
                 fmt::format("found \"{}\", which is not a replica type of job {}; allowed: {}",
                             script.type, m::metadata_of(job).name, fmt::join(names, ", ")));
      } else if (ranks && script.rank && *script.rank >= it->second) {
        r_.error(
            path + ".rank",
            fmt::format("found {}; allowed: a rank of {} below {} (its replicas{})", *script.rank,
                        script.type, it->second, it->second > 0 ? "" : ": none"));
      }
    }
  }

  // ---- generators (docs/scenario-format.md "generators") ----

  // A whole number: an integer, {choice: {values: [...], weights: [...]}}, or a real
  // distribution (rounded). Values of `choice` must lie in [lo, hi]; real draws are clamped.
  std::optional<IntDistribution> int_dist(const Val& v, std::int64_t lo, std::int64_t hi) {
    r_.tick();
    if (!v.present()) return std::nullopt;
    if (v.node.IsScalar()) {
      if (auto x = read_int(r_, v, lo, hi)) return IntDistribution::constant(*x);
      return std::nullopt;
    }
    if (!v.node.IsMap() || v.node.size() != 1) {
      r_.error(v.mark, v.path,
               fmt::format(
                   "found {}; allowed: an integer, {{choice: {{values: [...], weights: [...]}}}} "
                   "or one distribution such as {{uniform: {{min: 1, max: 4}}}}",
                   v.node.IsMap() ? fmt::format("a mapping with {} keys", v.node.size())
                                  : describe(v.node)));
      return std::nullopt;
    }
    const YAML::Node key = v.node.begin()->first;
    if (key.IsScalar() && key.Scalar() == "choice") {
      MapReader mr(r_, v, std::array<std::string_view, 1>{"choice"});
      const Val c = mr.get("choice");
      MapReader p(r_, c, kChoice);
      if (!p.ok()) return std::nullopt;
      const std::size_t before = r_.error_count();
      IntDistribution out;
      if (require(r_, p.get("values"))) {
        for (const Val& item : read_list(r_, p.get("values"))) {
          if (auto x = read_int(r_, item, lo, hi)) out.choices.emplace_back(*x, 1.0);
        }
      }
      if (!choice_weights(p, c, out.choices) || r_.error_count() != before) return std::nullopt;
      return out;
    }
    auto d = duration_dist(v, false);
    if (!d) return std::nullopt;
    IntDistribution out;
    out.real = d->seconds;
    // Draws are rounded and clamped to [lo, hi]: say so when the distribution reaches past hi
    // (its bound, or its mean for an unbounded one), rather than change the workload silently.
    bool bounded = true;
    const double top = std::visit(
        [&bounded](const auto& x) -> double {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, kernel::Constant>)
            return x.value;
          else if constexpr (std::is_same_v<T, kernel::Uniform> ||
                             std::is_same_v<T, kernel::BoundedPareto>)
            return x.hi;
          else if constexpr (std::is_same_v<T, kernel::EmpiricalCdf>)
            return x.points.empty() ? 0 : x.points.back().first;
          else {
            bounded = false;
            return x.mean();
          }
        },
        d->seconds.variant());
    if (top > static_cast<double>(hi)) {
      r_.warning(v.mark, v.path,
                 fmt::format("{} {:g}, above {}; every draw above {} is taken as {}",
                             bounded ? "the distribution reaches" : "the distribution's mean is",
                             top, hi, hi, hi));
    }
    return out;
  }

  // Weights for `choices` (default 1 each): as many as values, >= 0, summing to > 0.
  template <class T>
  bool choice_weights(const MapReader& p, const Val& c,
                      std::vector<std::pair<T, double>>& choices) {
    if (choices.empty()) {
      if (!r_.has_error_under(c.path)) {
        r_.error(p.get("values").mark, p.get("values").path,
                 "found an empty list; allowed: at least one value");
      }
      return false;
    }
    const Val wv = p.get("weights");
    if (wv.present()) {
      const auto ws = read_list(r_, wv);
      if (ws.size() != choices.size()) {
        r_.error(wv.mark, wv.path,
                 fmt::format("found {} weights for {} values; allowed: one weight per value",
                             ws.size(), choices.size()));
        return false;
      }
      for (std::size_t i = 0; i < ws.size(); ++i) {
        const auto w = read_double(r_, ws[i], 0, kMaxDouble);
        if (!w) return false;
        choices[i].second = *w;
      }
    }
    double total = 0;
    for (const auto& [value, w] : choices) total += w;
    if (!(total > 0) || !std::isfinite(total)) {
      r_.error(wv.mark, wv.path,
               "found weights summing to 0; allowed: weights >= 0 with a positive, finite sum");
      return false;
    }
    return true;
  }

  // A name, or {choice: {values: [names], weights: [...]}}, each one of `allowed`.
  std::optional<ChoiceDistribution> name_choice(const Val& v,
                                                std::span<const std::string_view> allowed) {
    r_.tick();
    if (!v.present()) return std::nullopt;
    ChoiceDistribution out;
    if (v.node.IsScalar()) {
      auto x = read_choice(r_, v, allowed);
      if (!x) return std::nullopt;
      out.choices.emplace_back(std::move(*x), 1.0);
      return out;
    }
    MapReader mr(r_, v, std::array<std::string_view, 1>{"choice"});
    if (!mr.ok()) return std::nullopt;
    const Val c = mr.get("choice");
    if (!require(r_, c)) return std::nullopt;
    MapReader p(r_, c, kChoice);
    if (!p.ok()) return std::nullopt;
    const std::size_t before = r_.error_count();
    if (require(r_, p.get("values"))) {
      for (const Val& item : read_list(r_, p.get("values"))) {
        if (auto x = read_choice(r_, item, allowed)) out.choices.emplace_back(std::move(*x), 1.0);
      }
    }
    if (!choice_weights(p, c, out.choices) || r_.error_count() != before) return std::nullopt;
    return out;
  }

  // A real number or one distribution (parameters as numbers), e.g. a hazard per hour.
  std::optional<kernel::Distribution> real_dist(const Val& v) {
    if (!v.present()) return std::nullopt;
    if (v.node.IsScalar()) {
      if (auto x = read_double(r_, v, -kMaxDouble, kMaxDouble))
        return kernel::Distribution{kernel::Constant{*x}};
      return std::nullopt;
    }
    if (auto d = duration_dist(v, false)) return d->seconds;
    return std::nullopt;
  }

  // A positive number (jobs per hour).
  std::optional<double> positive_rate(const Val& v) {
    const auto x = read_double(r_, v, -kMaxDouble, kMaxDouble);
    if (!x) return std::nullopt;
    if (!(*x > 0) || *x > 1e9) {
      r_.error(v.mark, v.path,
               fmt::format("found {}; allowed: a rate > 0 and <= 1e9 (jobs per hour)", *x));
      return std::nullopt;
    }
    return x;
  }

  std::vector<double> multipliers(const Val& v, std::size_t n, std::string_view what) {
    std::vector<double> out;
    if (!v.present()) return out;
    if (!v.node.IsSequence() || v.node.size() != n) {
      r_.error(v.mark, v.path,
               fmt::format(
                   "found {}; allowed: a list of exactly {} multipliers >= 0 ({})",
                   v.node.IsSequence() ? fmt::format("{} values", v.node.size()) : describe(v.node),
                   n, what));
      return {};
    }
    bool ok = true;
    for (const Val& item : read_list(r_, v)) {
      const auto x = read_double(r_, item, 0, 1e9);
      ok = ok && x.has_value();
      out.push_back(x.value_or(0));
    }
    if (!ok) return {};
    if (*std::max_element(out.begin(), out.end()) <= 0) {
      r_.error(v.mark, v.path, "found only zeros; allowed: at least one multiplier > 0");
      return {};
    }
    return out;
  }

  // Exactly one of the process keys of `mr` (interarrival, rate, profile, times); `bursts` is
  // counted by the caller among `extra`.
  std::optional<ArrivalProcess> arrival_process(const MapReader& mr, const Val& owner, bool extra,
                                                std::string_view allowed) {
    std::vector<std::string_view> found;
    for (std::string_view k : {"interarrival", "rate", "profile", "times"}) {
      if (mr.has(k)) found.push_back(k);
    }
    if (found.size() + (extra ? 1 : 0) != 1) {
      r_.error(owner.mark, owner.path,
               fmt::format("found {}; allowed: exactly one of {}",
                           found.empty() && !extra ? std::string("no arrival process")
                                                   : "arrival processes " + join_names(found) +
                                                         (extra ? ", bursts" : ""),
                           allowed));
      return std::nullopt;
    }
    if (found.empty()) return std::nullopt;
    ArrivalProcess a;
    const Val v = mr.get(found.front());
    if (found.front() == "interarrival") {
      a.kind = ArrivalKind::Interarrival;
      auto d = duration_dist(v);
      if (!d) return std::nullopt;
      if (!(d->seconds.mean() > 0)) {
        r_.error(v.mark, v.path,
                 "found a distribution with mean <= 0; allowed: gaps with a positive mean");
        return std::nullopt;
      }
      a.interarrival = *d;
    } else if (found.front() == "rate") {
      a.kind = ArrivalKind::Poisson;
      const auto x = positive_rate(v);
      if (!x) return std::nullopt;
      a.rate_per_hour = *x;
    } else if (found.front() == "profile") {
      a.kind = ArrivalKind::Profile;
      MapReader p(r_, v, kProfile);
      if (!p.ok()) return std::nullopt;
      const std::size_t before = r_.error_count();
      if (require(r_, p.get("rate"))) {
        if (auto x = positive_rate(p.get("rate"))) a.rate_per_hour = *x;
      }
      a.hour_of_day =
          multipliers(p.get("hourOfDay"), 24, "hours 0..23 of the day, time zero is Monday 00:00");
      a.day_of_week = multipliers(p.get("dayOfWeek"), 7, "Monday first");
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
        if (auto t = time_point(item)) a.times.push_back(*t);
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

  // The value at `key` of a mapping node, or an undefined node (without operator[]'s zombies).
  static YAML::Node has_key(const YAML::Node& n, std::string_view key) {
    if (n.IsDefined() && n.IsMap()) {
      for (const auto& kv : n) {
        if (kv.first.IsScalar() && kv.first.Scalar() == key) return kv.second;
      }
    }
    return YAML::Node(YAML::NodeType::Undefined);
  }

  // The replica counts a template's finish rules need for `type` (a rank r needs r + 1).
  static std::int64_t replicas_needed(const m::Job& job, const std::string& type) {
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

  static std::vector<std::string> replica_types(const m::Job& job) {
    std::vector<std::string> out;
    if (const auto* g = std::get_if<m::GenericJob>(&job)) {
      for (const auto& r : g->spec.replica_specs) out.push_back(r.type);
    } else if (const auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
      for (const auto& r : p->spec.replica_specs) out.push_back(r.type);
    } else {
      out.emplace_back("worker");
    }
    return out;
  }

  static std::optional<m::ElasticConfig> elastic_of(const m::Job& job) {
    if (const auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) return p->spec.elastic;
    if (const auto* d = std::get_if<m::DeepSpeedJob>(&job)) return d->spec.elastic;
    return std::nullopt;
  }

  // The smallest and largest value an integer distribution can give after clamping to [lo, hi].
  static std::pair<std::int64_t, std::int64_t> support(const IntDistribution& d, std::int64_t lo,
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

  // One class: a template, its behaviour and what varies. `prefix` names its jobs.
  std::optional<JobClass> job_class(const MapReader& c, const Val& item, const Scenario& sc,
                                    bool legacy) {
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
    if (!is_job(objs.front().first)) {
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
    queue_ref(sched_path, m::metadata_of(jc.template_job).name, m::scheduler_of(jc.template_job),
              sc);
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
    jc.replicas = int_dist(rv, replicas_needed(jc.template_job, jc.replica_type), kMaxReplicas);
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
      ed.min_replicas = int_dist(e.get("minReplicas"), 1, kMaxReplicas);
      ed.max_replicas = int_dist(e.get("maxReplicas"), 1, kMaxReplicas);
      ed.expected_replicas = int_dist(e.get("expectedReplicas"), 1, kMaxReplicas);
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
    jc.gpus = int_dist(c.get("gpus"), 0, kMaxGpus);
    if (c.has("checkpointInterval") && jc.behaviour.checkpoint_interval) {
      r_.error(
          c.get("checkpointInterval").mark, c.get("checkpointInterval").path,
          "found checkpointInterval in both the class and its behaviour; allowed: one of them");
    }
    jc.checkpoint_interval = duration_dist(c.get("checkpointInterval"));
    jc.restart_policy = name_choice(c.get("restartPolicy"),
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
    jc.restart_limit = int_dist(c.get("restartLimit"), 0, kMaxLimit);
    jc.backoff_limit = int_dist(c.get("backoffLimit"), 0, kMaxLimit);
    jc.clean_up_policy = name_choice(c.get("cleanUpPolicy"), kCleanUp);
    jc.active_deadline = duration_dist(c.get("activeDeadline"));
    if (c.has("hazardPerHour") &&
        has_key(has_key(bv.node, "failure"), "hazardPerHour").IsDefined()) {
      r_.error(
          c.get("hazardPerHour").mark, c.get("hazardPerHour").path,
          "found hazardPerHour in both the class and its behaviour.failure; allowed: one of them");
    }
    jc.hazard_per_hour = real_dist(c.get("hazardPerHour"));
    if (r_.error_count() != before) return std::nullopt;
    return jc;
  }

  void generator(const Val& item, Scenario& sc, std::set<std::string>& names,
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
        if (require(r_, b.get("size"))) gen.burst_size = int_dist(b.get("size"), 1, kMaxBurst);
        if (auto a = arrival_process(b, bursts, false, "interarrival, rate, profile, times"))
          gen.arrivals = std::move(*a);
      }
    }
    if (auto x = read_int(r_, g.get("count"), 1, INT64_MAX)) gen.count = *x;
    if (auto x = time_point(g.get("start"))) gen.start = *x;
    if (auto x = time_point(g.get("stop"))) {
      gen.stop = *x;
      if (*x <= gen.start) {
        r_.error(g.get("stop").mark, g.get("stop").path,
                 "found a stop time not after start; allowed: stop > start");
      }
    }
    const bool single = g.has("manifest") || g.has("path");
    const Val classes = g.get("classes");
    if (single == classes.present()) {
      r_.error(
          item.mark, item.path,
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
        r_.error(
            item.mark, item.path,
            fmt::format(
                "found job name prefix \"{}\", also used by generator \"{}\"; allowed: distinct "
                "prefixes (job names are <prefix>-<index>)",
                jc.prefix, it->second));
      }
      for (const auto& j : sc.workload.jobs) {
        const auto& name = m::metadata_of(j.job).name;
        const auto dash = name.rfind('-');
        if (dash == std::string::npos || name.compare(0, dash, jc.prefix) != 0 ||
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

  std::optional<SimTime> time_point(const Val& v) {
    if (auto d = read_duration(r_, v)) return SimTime{*d};
    return std::nullopt;
  }

  void queue_ref(const std::string& path, const std::string& job, const m::SchedulePolicy& s,
                 const Scenario& sc) {
    if (sc.scheduler.kind == SchedulerKind::Default) {
      if (s.t9k_scheduler) {
        r_.error(path,
                 fmt::format("job \"{}\" asks for the T9k scheduler (spec.scheduler.t9kScheduler); "
                             "allowed: no spec.scheduler, since spec.scheduler.name is default",
                             job));
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
      r_.error(path,
               fmt::format(
                   "job \"{}\" uses queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})",
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

  // Jobs that ask for GPUs on a cluster that never has any wait for ever: a warning, since a
  // CPU-only study is legitimate but this combination is almost always a slip.
  void warn_gpu_jobs_without_gpus(MapReader& spec, const Scenario& sc) {
    std::int64_t gpus = 0;
    for (const auto& p : sc.cluster.node_pools) gpus += std::int64_t{p.count} * p.gpus_per_node;
    const bool adds_nodes =
        std::any_of(sc.operations.begin(), sc.operations.end(),
                    [](const Operation& o) { return o.type == OperationType::AddNodePool; });
    if (gpus > 0 || adds_nodes) return;
    std::string first;
    for (std::size_t i = 0; i < sc.workload.jobs.size() && first.empty(); ++i) {
      if (asks_for_gpus(sc.workload.jobs[i].job)) first = fmt::format("spec.workload.jobs[{}]", i);
    }
    for (std::size_t i = 0; i < sc.workload.generators.size() && first.empty(); ++i) {
      for (const auto& c : sc.workload.generators[i].classes) {
        if (asks_for_gpus(c.template_job) || c.gpus)
          first = fmt::format("spec.workload.generators[{}]", i);
      }
    }
    for (std::size_t i = 0; i < sc.workload.traces.size() && first.empty(); ++i) {
      const auto& d = sc.workload.traces[i].data;
      if (d && std::any_of(d->records.begin(), d->records.end(),
                           [](const TraceRecord& r) { return r.gpus > 0 || r.gpu_milli > 0; })) {
        first = fmt::format("spec.workload.traces[{}]", i);
      }
    }
    if (first.empty()) return;
    const Val cluster = spec.get("cluster");
    r_.warning(cluster.mark, cluster.present() ? cluster.path : "spec.cluster",
               fmt::format("found no GPUs in the cluster, but {} asks for GPUs: those jobs will "
                           "wait until the horizon",
                           first));
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
        if (x->count() == 0)
          r_.error(horizon.mark, horizon.path, "found 0; allowed: a duration > 0");
        if (*x > kernel::days(kMaxHorizonDays)) {
          r_.error(horizon.mark, horizon.path,
                   fmt::format("found {} days; allowed: at most {} days (1,000 years)",
                               x->count() / kernel::days(1).count(), kMaxHorizonDays));
        }
        sc.horizon = *x;
      }
    }
    if (auto x = read_int(r_, spec.get("seed"), 0, INT64_MAX))
      sc.seed = static_cast<std::uint64_t>(*x);
    if (auto x = read_int32(r_, spec.get("replications"), 1, 100000)) sc.replications = *x;

    cluster(spec.get("cluster"), sc);
    scheduler(spec.get("scheduler"), sc);
    add_export_queues(sc);
    {
      MapReader c(r_, spec.get("controllers"), kControllers);
      if (auto x = duration_dist(c.get("reconcileLatency"))) sc.controllers.reconcile_latency = *x;
      controller_options(c.get("options"), sc);
      MapReader k(r_, spec.get("kubelet"), kKubelet);
      if (auto x = duration_dist(k.get("podStartLatency"))) sc.kubelet.pod_start_latency = *x;
      if (auto x = duration_dist(k.get("podStopLatency"))) sc.kubelet.pod_stop_latency = *x;
    }
    faults(spec.get("faults"), sc);
    // A forecast may have no new jobs: the initial state is its workload then.
    if (spec.get("workload").present() || !spec.get("initialState").present())
      workload(spec.get("workload"), sc);
    operations(spec.get("operations"), sc);
    check_node_names(sc);
    initial_state(spec.get("initialState"), sc);
    expect(spec.get("expect"), sc);
    plugins(spec.get("plugins"), sc);
    warn_gpu_jobs_without_gpus(spec, sc);
    return sc;
  }

  // controllers.options: strings, except elasticPolicy, which may name a plugin.
  void controller_options(const Val& v, Scenario& sc) {
    static constexpr std::string_view kStructured[] = {"elasticPolicy"};
    for (auto& [k, val] : FreeMap(r_, v, kStructured).entries()) {
      if (k == "elasticPolicy" && val.present() && val.node.IsMap()) {
        MapReader p(r_, val, kPolicyPlugin);
        if (!require(r_, p.get("plugin"))) continue;
        if (auto spec = plugin(p.get("plugin"), "elastic-policy"))
          sc.controllers.elastic_policy_plugin = std::move(*spec);
        sc.controllers.options[k] = "plugin";
        mark_option(sc, val);
        continue;
      }
      sc.controllers.options[k] = val.present() ? val.node.Scalar() : "";
      mark_option(sc, val);
    }
  }

  std::optional<PluginSpec> plugin(const Val& v, const std::string& default_name,
                                   std::span<const std::string_view> fields = kPlugin) {
    MapReader mr(r_, v, fields);
    if (!mr.ok()) return std::nullopt;
    PluginSpec p;
    p.name = default_name;
    p.working_dir = options_.base_dir;
    const std::size_t before = r_.error_count();
    if (auto x = read_string(r_, mr.get("name"))) {
      if (!is_dns1123_label(*x)) {
        r_.error(
            mr.get("name").mark, mr.get("name").path,
            fmt::format(
                "found \"{}\"; allowed: a DNS-1123 label (its log is OUT/plugins/<name>.log)", *x));
      }
      p.name = *x;
    }
    const Val cmd = mr.get("command");
    if (require(r_, cmd)) {
      for (const Val& item : read_list(r_, cmd)) {
        if (auto x = read_string(r_, item)) p.command.push_back(*x);
      }
      if (cmd.node.IsSequence() && cmd.node.size() == 0) {
        r_.error(cmd.mark, cmd.path, "found an empty list; allowed: the program and its arguments");
      }
      if (!p.command.empty() && p.command.front().find('/') != std::string::npos &&
          options_.allow_file_references) {
        const auto path = std::filesystem::path(options_.base_dir) / p.command.front();
        files_.insert(path.string());
        if (!std::filesystem::is_regular_file(path)) {
          r_.error(cmd.mark, cmd.path + "[0]",
                   fmt::format("found \"{}\", which is not a file; allowed: a program, on PATH or "
                               "relative to the "
                               "scenario's folder",
                               p.command.front()));
        }
      }
    }
    if (auto x = read_duration(r_, mr.get("timeout"))) {
      if (x->count() <= 0) {
        r_.error(mr.get("timeout").mark, mr.get("timeout").path,
                 "found 0; allowed: a duration > 0");
      } else {
        p.timeout = *x;
      }
    }
    if (r_.error_count() != before) return std::nullopt;
    return p;
  }

  void plugins(const Val& v, Scenario& sc) {
    MapReader mr(r_, v, kPlugins);
    std::set<model::JobKind> kinds;
    for (const Val& item : read_list(r_, mr.get("controllers"))) {
      MapReader e(r_, item, kControllerPlugin);
      if (!e.ok()) continue;
      const Val kv = e.get("kind");
      if (!require(r_, kv)) continue;
      const auto kind = read_enum<model::JobKind>(r_, kv);
      if (!kind) continue;
      if (!kinds.insert(*kind).second) {
        r_.error(kv.mark, kv.path,
                 fmt::format("found {} a second time; allowed: one plugin per kind",
                             model::to_string(*kind)));
        continue;
      }
      std::string name(model::to_string(*kind));
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (auto spec = plugin(item, name + "-controller", kControllerPlugin))
        sc.controller_plugins.push_back({*kind, std::move(*spec)});
    }
  }

  // spec.cluster.accelerators: extended resources counted as GPUs (docs/scenario-format.md).
  void accelerators(const Val& v, Scenario& sc) {
    if (!v.present()) return;
    const auto names = read_string_list(r_, v);
    if (!names) return;
    if (names->empty()) {
      r_.error(v.mark, v.path,
               "found an empty list; allowed: at least one resource name, such as nvidia.com/gpu");
      return;
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < names->size(); ++i) {
      const std::string& n = (*names)[i];
      const std::string at = index_path(v.path, i);
      if (n.find('/') == std::string::npos || !is_qualified_name(n) || n == m::kResourceGpuMilli) {
        r_.error(
            at,
            fmt::format(
                "found \"{}\"; allowed: an extended resource name with its vendor domain, such as "
                "nvidia.com/gpu, amd.com/gpu, hygon.com/dcu, huawei.com/Ascend910",
                n));
      } else if (!seen.insert(n).second) {
        r_.error(at, fmt::format("found \"{}\" again; allowed: each resource once", n));
      }
    }
    sc.cluster.accelerators = *names;
    accelerators_ = *names;
  }

  // A file the scenario names, relative to its folder: the resolved path, kept as an input of the
  // run; nullopt, with the error at the field, when file references are off or it is not a file.
  std::optional<std::string> input_file(const Val& v, const std::string& rel,
                                        std::string_view allowed) {
    if (!options_.allow_file_references) {
      r_.error(v.mark, v.path,
               fmt::format("found path \"{}\"; allowed: no file references for this input", rel));
      return std::nullopt;
    }
    const auto p = std::filesystem::path(options_.base_dir) / rel;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) {
      r_.error(
          v.mark, v.path,
          fmt::format(
              "found \"{}\", which is not a file; allowed: {}, relative to the scenario's folder",
              rel, allowed));
      return std::nullopt;
    }
    files_.insert(p.string());
    return p.string();
  }

  void from_export(const Val& v, const std::string& rel, Scenario& sc) {
    const auto path = input_file(v, rel, "a kubectl export (kubectl get nodes,queues -o yaml)");
    if (!path) return;
    sc.cluster.from_export = *path;
    auto c = load_export_cluster(sc.cluster.from_export, out_);
    if (!c) {
      r_.error(v.mark, v.path, "found errors in the export (reported above)");
      return;
    }
    if (c->pools.empty()) {
      r_.error(v.mark, v.path,
               fmt::format("found no Node objects in \"{}\"; allowed: an export with its nodes "
                           "(kubectl get nodes,queues -o yaml)",
                           rel));
      return;
    }
    for (const auto& note : c->notes) r_.warning(v.mark, v.path, note);
    for (auto& pool : c->pools) sc.cluster.node_pools.push_back(std::move(pool));
    export_queues_ = std::move(c->queues);
    from_export_ = v;
  }

  // spec.initialState (docs/forecast.md): the export's unfinished jobs at time zero.
  void initial_state(const Val& v, Scenario& sc) {
    if (!v.present()) return;
    MapReader m(r_, v, kInitialState);
    if (!m.ok()) return;
    InitialState st;
    const Val from = m.get("fromExport");
    if (!require(r_, from)) return;
    const auto rel = read_string(r_, from);
    if (!rel) return;
    if (const Val at = m.get("at"); at.present()) {
      const auto text =
          at.node.IsScalar() ? std::optional<std::string>(at.node.Scalar()) : std::nullopt;
      if (const auto us = text ? parse_trace_time(*text) : std::nullopt) {
        st.at_us = *us;
      } else {
        r_.error(
            at.mark, at.path,
            fmt::format("found {}; allowed: the export's time, RFC 3339 (2024-05-02T09:00:00Z), "
                        "\"YYYY-MM-DD HH:MM:SS\" (UTC) or Unix seconds",
                        describe(at.node)));
      }
    }
    if (const Val rem = m.get("remaining"); rem.present()) {
      MapReader rm(r_, rem, kRemaining);
      if (rm.ok()) {
        const Val f = rm.get("fractionOfElapsed"), d = rm.get("distribution");
        if (f.present() && d.present()) {
          r_.error(d.mark, d.path,
                   "found both fractionOfElapsed and distribution; allowed: one of them");
        }
        if (auto x = read_double(r_, f, 0, 1e6)) st.remaining.fraction_of_elapsed = *x;
        st.remaining.distribution = duration_dist(d);
        if (auto x = read_bool(r_, rm.get("activeDeadline"))) st.remaining.active_deadline = *x;
      }
    }
    st.queued_run_time = duration_dist(m.get("queuedRunTime"));
    if (r_.has_error_under(v.path)) return;
    const auto path = input_file(
        from, *rel, "a kubectl export of the cluster's jobs and pods (docs/forecast.md)");
    if (!path) return;
    st.from_export = *path;
    st.data = load_initial_state(st.from_export, st.at_us, out_);
    if (!st.data) {
      r_.error(from.mark, from.path, "found errors in the export (reported above)");
      return;
    }
    const bool queued = std::any_of(st.data->jobs.begin(), st.data->jobs.end(),
                                    [](const InitialJob& j) { return !j.running; });
    if (queued && !st.queued_run_time && st.data->finished_run_us.empty()) {
      r_.error(v.mark, v.path + ".queuedRunTime",
               "missing queuedRunTime: the export has waiting jobs and no finished job whose "
               "median run time they could "
               "take; allowed: a duration or distribution, e.g. 2h");
      return;
    }
    for (const auto& note : st.data->notes) r_.warning(from.mark, from.path, note);
    if (queued && !st.queued_run_time) {
      auto runs = st.data->finished_run_us;
      std::sort(runs.begin(), runs.end());
      // The median (the lower middle of an even count: a run time the export recorded).
      const std::int64_t median = runs[(runs.size() - 1) / 2];
      r_.warning(
          from.mark, from.path,
          fmt::format(
              "waiting jobs run {} s each, the median run time of the export's {} finished job{} "
              "(set queuedRunTime to choose)",
              median / 1000000, runs.size(), runs.size() == 1 ? "" : "s"));
      st.queued_run_time = DurationDistribution::constant(SimDuration{median});
    }
    const bool running = std::any_of(st.data->jobs.begin(), st.data->jobs.end(),
                                     [](const InitialJob& j) { return j.running; });
    if (running) {
      const auto& rm = st.remaining;
      std::string how =
          rm.distribution
              ? "for a draw of remaining.distribution"
              : fmt::format("for {} x the time they have run (remaining.fractionOfElapsed)",
                            rm.fraction_of_elapsed);
      if (rm.active_deadline) how = "until their activeDeadlineSeconds where set, otherwise " + how;
      r_.warning(
          from.mark, from.path,
          "running jobs run on " + how + "; a deadline counts from the job's recorded start");
    }
    sc.initial_state = std::move(st);
  }

  // The export's Queues join the scheduler's, which win on a name both have.
  void add_export_queues(Scenario& sc) {
    if (export_queues_.empty()) return;
    if (sc.scheduler.kind != SchedulerKind::T9k) {
      r_.warning(
          from_export_.mark, from_export_.path,
          fmt::format("the export's {} queue{} are not used: the default scheduler has no queues",
                      export_queues_.size(), export_queues_.size() == 1 ? "" : "s"));
      return;
    }
    for (auto& q : export_queues_) {
      const bool defined =
          std::any_of(sc.scheduler.queues.begin(), sc.scheduler.queues.end(),
                      [&](const m::Queue& x) { return x.metadata.name == q.metadata.name; });
      if (!defined) sc.scheduler.queues.push_back(std::move(q));
    }
  }

  // Node names are unique: an export's own names (fromExport, fromTrace) against each other and
  // against the "<pool>-<i>" of every other pool, including pools operations add later (the
  // world would otherwise stop mid-run on a node added twice).
  void check_node_names(const Scenario& sc) {
    std::map<std::string, std::string> named;  // exported node -> its pool
    const std::string& where = from_export_.present() ? from_export_.path : from_trace_.path;
    for (const auto& p : sc.cluster.node_pools) {
      for (const auto& n : p.node_names) {
        const auto [it, fresh] = named.emplace(n, p.name);
        if (!fresh) {
          r_.error(where, fmt::format("found node \"{}\" in pools {} and {}; allowed: each "
                                      "exported node once (fromTrace and "
                                      "fromExport of one export add it twice)",
                                      n, it->second, p.name));
          return;
        }
      }
    }
    if (named.empty()) return;  // generated names are unique when pool names are
    const auto clash = [&](const NodePool& p) {
      for (std::int32_t i = 0; i < p.count; ++i) {
        const auto it = named.find(fmt::format("{}-{}", p.name, i));
        if (it == named.end()) continue;
        r_.error(
            where,
            fmt::format(
                "found node \"{}-{}\" in pool {} and in the export's pool {}; allowed: node names "
                "unique (rename the pool)",
                p.name, i, p.name, it->second));
        return true;
      }
      return false;
    };
    for (const auto& p : sc.cluster.node_pools) {
      if (p.node_names.empty() && clash(p)) return;
    }
    for (const auto& op : sc.operations) {
      if (op.node_pool && clash(*op.node_pool)) return;
    }
  }

  void cluster(const Val& v, Scenario& sc) {
    if (!require(r_, v)) return;
    MapReader c(r_, v, kCluster);
    accelerators(c.get("accelerators"), sc);
    // fromTrace: the named trace entry's cluster is added after the pools here (docs/traces.md).
    if (auto x = read_string(r_, c.get("fromTrace"))) {
      sc.cluster.from_trace = *x;
      from_trace_ = c.get("fromTrace");
    }
    const bool elsewhere = c.has("fromTrace") || c.has("fromExport");
    if (elsewhere ? c.has("nodePools") : require(r_, c.get("nodePools"))) {
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
    // fromExport: a cluster export's Nodes (names kept) after the pools here, its Queues after
    // the scheduler's (docs/traces.md "Cluster from an export").
    if (auto x = read_string(r_, c.get("fromExport"))) from_export(c.get("fromExport"), *x, sc);
    MapReader t(r_, c.get("topology"), kTopology);
    if (auto x = read_int32(r_, t.get("nodesPerRack"), 0)) sc.cluster.topology.nodes_per_rack = *x;
    if (auto x = read_int32(r_, t.get("racksPerSwitch"), 0))
      sc.cluster.topology.racks_per_switch = *x;
  }

  void scheduler(const Val& v, Scenario& sc) {
    MapReader s(r_, v, kScheduler);
    if (auto x = read_choice(r_, s.get("name"), kSchedulerNames)) {
      sc.scheduler.kind = *x == "t9k" ? SchedulerKind::T9k : SchedulerKind::Default;
    }
    sc.scheduler.options = options(s.get("options"), &sc);
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
          r_.error(item.path, fmt::format("found queue \"{}\" again; allowed: queue names unique",
                                          q.metadata.name));
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
        if (auto x = read_double(r_, r.get("nodeFailuresPerNodeDay"), 0, kMaxDouble))
          fr.node_failures_per_node_day = *x;
        if (auto x = read_double(r_, r.get("switchFailuresPerSwitchDay"), 0, kMaxDouble))
          fr.switch_failures_per_switch_day = *x;
        if (auto x = read_double(r_, r.get("softwareFailuresPerJobHour"), 0, kMaxDouble))
          fr.software_failures_per_job_hour = *x;
        sc.faults.rates = fr;
      }
    } else if (rates.present()) {
      r_.error(
          rates.mark, rates.path,
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
        r_.error(
            e.get("name").mark, e.get("name").path,
            fmt::format("found \"{}\", which is not an object of the file; allowed: the name of "
                        "one object in path",
                        *only));
      }
      for (auto& [obj, source] : objects) {
        if (!is_job(obj)) {
          r_.error(anchor,
                   fmt::format("found {} \"{}\"; allowed: GenericJob, PyTorchTrainingJob or "
                               "DeepSpeedJob objects (queues go under spec.scheduler.queues)",
                               kind_name(obj), metadata_of(obj).name));
          continue;
        }
        m::Job job = to_job(obj);
        auto& meta = m::metadata_of(job);
        if (meta.namespace_.empty()) meta.namespace_ = sc.default_namespace;
        if (!names.insert(meta.namespace_ + "/" + meta.name).second) {
          r_.error(anchor,
                   fmt::format("found job \"{}\" again; allowed: job names unique per namespace",
                               meta.name));
          continue;
        }
        const std::string sched_path =
            e.has("manifest") ? child_path(anchor, "spec.scheduler.t9kScheduler.queue") : anchor;
        queue_ref(sched_path, meta.name, m::scheduler_of(job), sc);
        check_scripts(b, job, child_path(item.path, "behaviour"), true);
        sc.workload.jobs.push_back(JobSubmission{std::move(job), submit, b, source});
      }
    }
    std::set<std::string> generator_names;
    std::map<std::string, std::string> prefixes;
    for (const Val& item : read_list(r_, w.get("generators")))
      generator(item, sc, generator_names, prefixes);
    std::set<std::string> trace_names;
    for (const Val& item : read_list(r_, w.get("traces"))) {
      MapReader t(r_, item, kTrace);
      if (!t.ok()) continue;
      TraceEntry tr;
      if (require(r_, t.get("format"))) {
        if (auto x = read_choice(r_, t.get("format"), kTraceFormats)) {
          tr.format = static_cast<TraceFormat>(
              std::find(std::begin(kTraceFormats), std::end(kTraceFormats), *x) -
              std::begin(kTraceFormats));
        }
      }
      tr.name =
          tr.format == TraceFormat::AlibabaOpenB ? "openb" : std::string(to_string(tr.format));
      if (auto x = read_string(r_, t.get("name"))) {
        tr.name = *x;
        if (!is_dns1123_label(*x)) {
          r_.error(t.get("name").mark, t.get("name").path,
                   fmt::format("found \"{}\"; allowed: a DNS-1123 label", *x));
        }
      }
      if (!trace_names.insert(tr.name).second) {
        r_.error(item.mark, item.path,
                 fmt::format("found trace name \"{}\" again; allowed: names unique (set name:)",
                             tr.name));
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
                   fmt::format("found queue \"{}\"; allowed: a queue of spec.scheduler.queues ({})",
                               *x, queue_names(sc)));
        }
      }
      tr.options = options(t.get("options"));
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
              fmt::format(
                  "found {}; allowed: a time on the trace's clock: seconds (Unix seconds; "
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
        if (tr.data && !tr.data->mapping.node_file.empty())
          files_.insert(tr.data->mapping.node_file);
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
    // One clock for every trace entry (docs/traces.md "Several files"): trace time 0 is the
    // earliest submission over all entries, unless an entry sets its own epoch.
    std::optional<std::int64_t> earliest;
    for (const auto& e : sc.workload.traces) {
      if (e.data && !e.data->records.empty()) {
        earliest = std::min(earliest.value_or(e.data->origin_us()), e.data->origin_us());
      }
    }
    for (auto& e : sc.workload.traces) e.origin_us = e.epoch_us ? e.epoch_us : earliest;
    if (!sc.cluster.from_trace.empty()) {
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
        r_.error(
            from_trace_.mark, from_trace_.path,
            fmt::format(
                "found trace \"{}\" ({}), which has no cluster; allowed: a philly trace with its "
                "philly_vc.csv, an alibaba-openb trace with its node list, or a k8s-export with "
                "Node objects",
                it->name, to_string(it->format)));
      } else if (it->data) {
        for (const auto& note : it->data->cluster_notes)
          r_.warning(from_trace_.mark, from_trace_.path, note);
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
  }

  const JobSubmission* find_job(const Scenario& sc, const std::string& name) {
    for (const auto& j : sc.workload.jobs) {
      if (m::metadata_of(j.job).name == name) return &j;
    }
    return nullptr;
  }

  static std::string job_names(const Scenario& sc) {
    std::string s;
    for (const auto& j : sc.workload.jobs)
      s += (s.empty() ? "" : ", ") + m::metadata_of(j.job).name;
    return s.empty() ? "none defined" : s;
  }

  void operations(const Val& v, Scenario& sc) {
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
          std::find(std::begin(kOperationNames), std::end(kOperationNames), *a) -
          std::begin(kOperationNames));
      // The fields each action takes; `optional` ones may be left out.
      std::vector<std::string_view> wanted, optional;
      switch (op.type) {
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
                   fmt::format("found field \"{}\" with action {}; allowed: {}", key, *a,
                               join_names(all)));
        }
      }
      bool ok = true;
      for (auto key : wanted) ok = require(r_, o.get(key)) && ok;
      if (!ok) continue;
      switch (op.type) {
        case OperationType::FailPod:
        case OperationType::DeletePod:
        case OperationType::SetJobPriority: {
          const Val jv = o.get("job");
          const JobSubmission* job = operation_job(jv, op, sc);
          if (!job) break;
          if (op.type == OperationType::SetJobPriority) {
            const Val pv = o.get("priority");
            if (auto x = read_int32(r_, pv, 0, 100, "spec §8.3")) op.priority = *x;
            if (!m::scheduler_of(job->job).t9k_scheduler) {
              r_.error(jv.mark, jv.path,
                       fmt::format("found job \"{}\", which uses the default scheduler; allowed: "
                                   "a job with spec.scheduler.t9kScheduler (spec §8.1)",
                                   op.target));
            }
            break;
          }
          const Val tv = o.get("replicaType");
          const Val kv = o.get("rank");
          if (auto x = read_string(r_, tv)) op.replica_type = *x;
          if (auto x = read_int32(r_, kv, 0)) op.rank = *x;
          if (auto x = read_int32(r_, o.get("exitCode"), 1, 255, "a failure exits non-zero"))
            op.exit_code = *x;
          if (r_.has_error_under(tv.path) || r_.has_error_under(kv.path)) break;
          const auto types = replica_ranks(job->job);
          const auto it = std::find_if(types.begin(), types.end(),
                                       [&](const auto& t) { return t.first == op.replica_type; });
          if (it == types.end()) {
            std::vector<std::string> names;
            for (const auto& t : types) names.push_back(t.first);
            r_.error(tv.mark, tv.path,
                     fmt::format("found \"{}\", which is not a replica type of job {}; allowed: {}",
                                 op.replica_type, op.target, fmt::join(names, ", ")));
          } else if (op.rank >= it->second) {
            r_.error(kv.mark, kv.path,
                     fmt::format("found {}; allowed: a rank of {} below {}", op.rank,
                                 op.replica_type, it->second));
          }
          break;
        }
        case OperationType::FailNode:
        case OperationType::RepairNode:
        case OperationType::FailGpu: {
          operation_node(o.get("node"), op, pools);
          repair_after(o, op);
          break;
        }
        case OperationType::FailSwitch: {
          // Switch names come from the topology built at run time (docs/scenario-format.md
          // "topology"); the world checks the name when the operation happens.
          if (auto name = read_string(r_, o.get("switch"))) op.target = *name;
          repair_after(o, op);
          break;
        }
        case OperationType::SetQueue: {
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
          break;
        }
        case OperationType::PauseJob:
        case OperationType::ResumeJob:
        case OperationType::SetExpectedReplicas: {
          const JobSubmission* job = operation_job(o.get("job"), op, sc);
          if (!job) break;
          if (op.type != OperationType::SetExpectedReplicas) break;
          const Val rv = o.get("replicas");
          const auto n = read_int32(r_, rv, 0);
          if (!n) break;
          op.expected_replicas = *n;
          std::optional<m::ElasticConfig> e;
          if (auto* p = std::get_if<m::PyTorchTrainingJob>(&job->job)) e = p->spec.elastic;
          if (auto* d = std::get_if<m::DeepSpeedJob>(&job->job)) e = d->spec.elastic;
          if (!e || !e->enabled) {
            r_.error(
                rv.mark, rv.path,
                fmt::format("found a replica change for job \"{}\", which is not "
                            "elastic; allowed: jobs with spec.elastic.enabled: true (spec §4.3)",
                            op.target));
          } else if (*n < e->min_replicas || *n > e->max_replicas) {
            r_.error(rv.mark, rv.path,
                     fmt::format("found {}; allowed: an integer in [minReplicas {}, "
                                 "maxReplicas {}] (spec §4.3)",
                                 *n, e->min_replicas, e->max_replicas));
          }
          break;
        }
        case OperationType::CloseQueue:
        case OperationType::OpenQueue: {
          operation_queue(o.get("queue"), op, sc);
          break;
        }
        case OperationType::DrainNode:
        case OperationType::CordonNode:
        case OperationType::UncordonNode: {
          operation_node(o.get("node"), op, pools);
          break;
        }
        case OperationType::AddNodePool: {
          if (auto p = node_pool(o.get("nodePool"))) {
            op.target = p->name;
            if (pools.count(p->name)) {
              r_.error(child_path(o.get("nodePool").path, "name"),
                       fmt::format("found \"{}\", which already exists; allowed: a new pool name",
                                   p->name));
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
            named_nodes_.erase(*name);
            if (!pools.erase(*name)) {
              r_.error(pv.mark, pv.path,
                       fmt::format("found pool \"{}\"; allowed: an existing node pool", *name));
            }
          }
          break;
        }
      }
      paths.emplace(ops.size(), item.path);
      ops.emplace_back(op.at, std::move(op));
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

  // The job an operation names, which becomes its target; nullptr when it is not a job of the
  // workload (reported, unless the job itself failed to load).
  const JobSubmission* operation_job(const Val& jv, Operation& op, const Scenario& sc) {
    const auto name = read_string(r_, jv);
    if (!name) return nullptr;
    op.target = *name;
    const JobSubmission* job = find_job(sc, *name);
    if (!job && !broken_.count(*name)) {
      r_.error(jv.mark, jv.path,
               fmt::format("found job \"{}\"; allowed: a job of spec.workload.jobs ({})", *name,
                           job_names(sc)));
    }
    return job;
  }

  // The node an operation names (<pool>-<index> of a pool existing at that point), its target.
  void operation_node(const Val& nv, Operation& op,
                      const std::map<std::string, std::int32_t>& pools) {
    const auto name = read_string(r_, nv);
    if (!name) return;
    op.target = *name;
    bool named = false;
    for (const auto& [pool, names] : named_nodes_)
      named = named || std::find(names.begin(), names.end(), *name) != names.end();
    const auto dash = name->rfind('-');
    const bool in_named_pool =
        dash != std::string::npos && named_nodes_.count(name->substr(0, dash));
    if (!named && (in_named_pool || !node_exists(pools, *name))) {
      r_.error(nv.mark, nv.path,
               fmt::format("found node \"{}\"; allowed: a node <pool>-<index> of a "
                           "node pool, index below the pool's count, or a node of an export by its "
                           "name",
                           *name));
    }
  }

  // The queue an operation names (a queue of spec.scheduler.queues), its target.
  void operation_queue(const Val& qv, Operation& op, const Scenario& sc) {
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

  void repair_after(MapReader& o, Operation& op) {
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

  static bool node_exists(const std::map<std::string, std::int32_t>& pools,
                          const std::string& node) {
    const auto dash = node.rfind('-');
    if (dash == std::string::npos || dash + 1 >= node.size() || node.size() - dash > 8)
      return false;
    const std::string pool = node.substr(0, dash);
    const std::string idx = node.substr(dash + 1);
    if (!std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
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
      r_.error(v.mark, v.path,
               "found neither min nor max; allowed: an integer, or {min, max} with at least one");
      return std::nullopt;
    }
    if (b.min && b.max && *b.min > *b.max) {
      r_.error(v.mark, v.path,
               fmt::format("found min {} > max {}; allowed: min <= max", *b.min, *b.max));
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
            r_.error(nv.mark, nv.path,
                     fmt::format("found job \"{}\"; allowed: a job of spec.workload.jobs ({})", *x,
                                 job_names(sc)));
          }
        }
      }
      if (j.has("phase")) je.phase = read_choice(r_, j.get("phase"), kExpectPhases);
      je.reason = read_string(r_, j.get("reason"));
      je.restart_count = bounds(j.get("restartCount"));
      je.backoff_count = bounds(j.get("backoffCount"));
      for (const auto& [phase, val] : FreeMap(r_, j.get("phaseAt"), kExpectPhases).entries()) {
        if (std::find(std::begin(kExpectPhases), std::end(kExpectPhases), phase) ==
            std::end(kExpectPhases)) {
          r_.error(
              val.mark, val.path,
              fmt::format("found phase \"{}\"; allowed: {}", phase, join_names(kExpectPhases)));
          continue;
        }
        if (auto tb = time_bounds(val)) je.phase_at.emplace_back(phase, *tb);
      }
      for (const auto& [path, val] : FreeMap(r_, j.get("fields")).entries()) {
        if (!valid_field_path(path)) {
          r_.error(
              val.mark, val.path,
              fmt::format(
                  "found path \"{}\"; allowed: keys separated by '.', each optionally followed by "
                  "[<index>] or [<key>=<value>] (e.g. status.conditions[type=Failed].reason)",
                  path));
          continue;
        }
        if (auto x = read_string(r_, val)) je.fields.emplace_back(path, *x);
      }
      const JobSubmission* job = find_job(sc, je.job);
      for (const Val& pv : read_list(r_, j.get("pods"))) {
        MapReader pr(r_, pv, kPodExpect);
        if (!pr.ok()) continue;
        PodExpectation pe;
        if (require(r_, pr.get("replicaType"))) {
          if (auto x = read_string(r_, pr.get("replicaType"))) pe.replica_type = *x;
        }
        if (require(r_, pr.get("rank"))) {
          if (auto x = read_int32(r_, pr.get("rank"), 0)) pe.rank = *x;
        }
        if (auto x = read_int32(r_, pr.get("generation"), 0)) pe.generation = *x;
        if (pr.has("phase")) pe.phase = read_choice(r_, pr.get("phase"), kExpectPodPhases);
        if (auto x = read_int32(r_, pr.get("exitCode"), 0, 255)) pe.exit_code = *x;
        if (pr.has("deletionReason"))
          pe.deletion_reason = read_choice(r_, pr.get("deletionReason"), kDeletionReasons);
        pe.pods = bounds(pr.get("pods"));
        if (job && !r_.has_error_under(pv.path)) {
          const auto types = replica_ranks(job->job);
          const auto it = std::find_if(types.begin(), types.end(),
                                       [&](const auto& t) { return t.first == pe.replica_type; });
          if (it == types.end()) {
            std::vector<std::string> names;
            for (const auto& t : types) names.push_back(t.first);
            r_.error(child_path(pv.path, "replicaType"),
                     fmt::format("found \"{}\", which is not a replica type of job {}; allowed: {}",
                                 pe.replica_type, je.job, fmt::join(names, ", ")));
          } else if (pe.rank >= it->second) {
            r_.error(child_path(pv.path, "rank"),
                     fmt::format("found {}; allowed: a rank of {} below {}", pe.rank,
                                 pe.replica_type, it->second));
          }
        }
        je.pods.push_back(std::move(pe));
      }
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
        r_.error(item.mark, item.path,
                 fmt::format("found min {} > max {}; allowed: min <= max", *b.min, *b.max));
      }
      ex.metrics.push_back(std::move(b));
    }
    for (const Val& item : read_list(r_, e.get("events"))) {
      MapReader er(r_, item, kEventExpect);
      if (!er.ok()) continue;
      EventExpectation ee;
      if (require(r_, er.get("type"))) {
        if (auto x = read_choice(r_, er.get("type"), kChangeTypes)) ee.type = *x;
      }
      ee.job = read_string(r_, er.get("job"));
      if (ee.job && !find_job(sc, *ee.job) && !broken_.count(*ee.job)) {
        r_.error(er.get("job").mark, er.get("job").path,
                 fmt::format("found job \"{}\"; allowed: a job of spec.workload.jobs ({})", *ee.job,
                             job_names(sc)));
      }
      ee.pod = read_string(r_, er.get("pod"));
      ee.phase = read_string(r_, er.get("phase"));
      ee.reason = read_string(r_, er.get("reason"));
      ee.node = read_string(r_, er.get("node"));
      ee.exit_code = read_int32(r_, er.get("exitCode"), 0, 255);
      if (er.has("at")) ee.at = time_bounds(er.get("at"));
      ex.events.push_back(std::move(ee));
    }
    sc.expect = std::move(ex);
  }

  // a.b[0].c[key=value].d: non-empty keys, selectors closed, nothing else.
  static bool valid_field_path(std::string_view p) {
    if (p.empty()) return false;
    std::size_t i = 0;
    while (i < p.size()) {
      const std::size_t start = i;
      while (i < p.size() && p[i] != '.' && p[i] != '[') ++i;
      if (i == start) return false;  // empty key
      while (i < p.size() && p[i] == '[') {
        const auto close = p.find(']', i);
        if (close == std::string_view::npos || close == i + 1) return false;
        i = close + 1;
      }
      if (i < p.size()) {
        if (p[i] != '.') return false;
        if (++i == p.size()) return false;  // trailing '.'
      }
    }
    return true;
  }

  // {min: 10m, max: 2h}: at least one bound, min <= max.
  std::optional<TimeBounds> time_bounds(const Val& v) {
    MapReader mr(r_, v, kTimeBounds);
    if (!mr.ok()) return std::nullopt;
    TimeBounds tb;
    tb.min = read_duration(r_, mr.get("min"));
    tb.max = read_duration(r_, mr.get("max"));
    if (!mr.has("min") && !mr.has("max")) {
      r_.error(v.mark, v.path,
               "found neither min nor max; allowed: at least one bound (durations since time 0)");
      return std::nullopt;
    }
    if (tb.min && tb.max && *tb.min > *tb.max) {
      r_.error(v.mark, v.path, "found min > max; allowed: min <= max");
      return std::nullopt;
    }
    return tb;
  }

 private:
  Report& r_;
  std::vector<Diagnostic>& out_;
  const LoadOptions& options_;
  std::set<std::string> broken_;
  bool queues_broken_ = false;
  Val from_trace_;   // spec.cluster.fromTrace, for messages
  Val from_export_;  // spec.cluster.fromExport, for messages
  std::map<std::string, std::vector<std::string>>
      named_nodes_;  // pool -> its nodes' own names (operations)
  std::vector<std::string> accelerators_{m::kResourceGpu};  // spec.cluster.accelerators, for pools
  std::vector<m::Queue> export_queues_;
  // Manifest files by resolved path: their objects, or nullopt when the file had errors.
  std::map<std::string, std::optional<std::vector<std::pair<Object, std::string>>>> file_cache_;
  std::set<std::string> files_;  // every file referenced, resolved (ScenarioResult::files)

 public:
  const std::set<std::string>& files() const { return files_; }
};

bool first_document_is_scenario(const std::vector<YamlDocument>& docs) {
  for (const auto& d : docs) {
    if (!d.node.IsDefined() || d.node.IsNull()) continue;
    if (!d.node.IsMap()) return false;
    const YAML::Node kind = d.node["kind"];
    return kind.IsDefined() && kind.IsScalar() &&
           kind.Scalar() == kScenarioKind;  // IsDefined first: see remember_broken
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
    diags.push_back(
        Diagnostic{Severity::Error, file, 0, 0, 0, "", "found no documents; allowed: a Scenario"});
    result.diagnostics = std::move(diags);
    return result;
  }
  Report r(file, diags, 0, work_budget(root->bytes));
  std::optional<Scenario> sc;
  ScenarioDecoder dec(r, diags, options);
  try {
    sc = dec.scenario(Val{root->node, root->node.Mark(), ""});
  } catch (const BudgetExceeded&) {
    add_budget_diagnostic(diags, file, 0, root->line);
  }
  result.files.assign(dec.files().begin(), dec.files().end());
  if (!has_errors(diags) && sc && options.max_jobs > 0) {
    // Refused before anything runs: a scenario that would submit more jobs than the budget would
    // otherwise fill memory or run for days (docs/reliability.md "Scenario budgets").
    const JobEstimate est = estimate_jobs(*sc);
    if (est.total > static_cast<double>(options.max_jobs)) {
      const auto biggest =
          std::max_element(est.sources.begin(), est.sources.end(),
                           [](const JobSource& a, const JobSource& b) { return a.jobs < b.jobs; });
      diags.push_back(
          Diagnostic{Severity::Error, file, 0, 0, 0, biggest->path,
                     fmt::format("found about {:.3g} jobs per replication from here ({}), {:.3g} "
                                 "in all; allowed: at most {} "
                                 "(--max-jobs): shorten spec.horizon, lower the rate, set count or "
                                 "limit, or raise --max-jobs",
                                 biggest->jobs, biggest->how, est.total, options.max_jobs)});
    }
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

namespace {

double mean_of(const IntDistribution& d) {
  if (d.real) return d.real->mean();
  double sum = 0, weight = 0;
  for (const auto& [v, w] : d.choices) {
    sum += static_cast<double>(v) * w;
    weight += w;
  }
  return weight > 0 ? sum / weight : 0;
}

double mean_or_one(const std::vector<double>& xs) {
  if (xs.empty()) return 1;
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}

}  // namespace

JobEstimate estimate_jobs(const Scenario& sc) {
  JobEstimate est;
  const auto add = [&](std::string path, std::string how, double jobs) {
    est.total += jobs;
    est.sources.push_back({std::move(path), std::move(how), jobs});
  };
  if (!sc.workload.jobs.empty()) {
    add("spec.workload.jobs", fmt::format("{} explicit jobs", sc.workload.jobs.size()),
        static_cast<double>(sc.workload.jobs.size()));
  }
  const SimTime horizon{sc.horizon};
  for (std::size_t i = 0; i < sc.workload.generators.size(); ++i) {
    const auto& g = sc.workload.generators[i];
    const SimTime end = g.stop ? std::min(*g.stop, horizon) : horizon;
    const double hours = end > g.start ? static_cast<double>((end - g.start).count()) / 3.6e9 : 0;
    const auto& a = g.arrivals;
    double arrivals = 0;
    std::string how;
    switch (a.kind) {
      case ArrivalKind::Interarrival: {
        const double gap_h = static_cast<double>(a.interarrival.mean().count()) / 3.6e9;
        arrivals = hours <= 0  ? 0
                   : gap_h > 0 ? hours / gap_h
                               : std::numeric_limits<double>::infinity();
        how = fmt::format("{:.4g} h at a mean gap of {:.4g} s", hours, gap_h * 3600);
        break;
      }
      case ArrivalKind::Poisson:
      case ArrivalKind::Profile: {
        const double rate =
            a.rate_per_hour * mean_or_one(a.hour_of_day) * mean_or_one(a.day_of_week);
        arrivals = rate * hours;
        how = fmt::format("{:.4g} h at {:.4g} per hour", hours, rate);
        break;
      }
      case ArrivalKind::Times:
        arrivals = static_cast<double>(std::count_if(
            a.times.begin(), a.times.end(), [&](SimTime t) { return t >= g.start && t < end; }));
        how = fmt::format("{:.0f} listed times", arrivals);
        break;
    }
    double jobs = arrivals;
    if (g.burst_size) {
      const double burst = std::max(1.0, mean_of(*g.burst_size));
      jobs *= burst;
      how += fmt::format(", bursts of {:.3g}", burst);
    }
    if (g.count && static_cast<double>(*g.count) < jobs) {
      jobs = static_cast<double>(*g.count);
      how += fmt::format(", count {}", *g.count);
    }
    add(fmt::format("spec.workload.generators[{}]", i), std::move(how), jobs);
  }
  for (std::size_t i = 0; i < sc.workload.traces.size(); ++i) {
    const auto& t = sc.workload.traces[i];
    if (!t.data) continue;
    const auto rows = static_cast<double>(std::max(t.data->objects.size(), t.data->records.size()));
    double jobs = rows * t.sample;
    std::string how = fmt::format("{:.0f} rows, sample {}", rows, t.sample);
    if (t.limit && static_cast<double>(*t.limit) < jobs) {
      jobs = static_cast<double>(*t.limit);
      how += fmt::format(", limit {}", *t.limit);
    }
    add(fmt::format("spec.workload.traces[{}]", i), std::move(how), jobs);
  }
  return est;
}

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

std::vector<Diagnostic> validate_text(std::string_view text, const std::string& file,
                                      LoadOptions options) {
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
  for (auto& d : lint_objects(objects)) diags.push_back(std::move(d));
  // A cluster export: its Nodes are checked as spec.cluster.fromExport reads them, and what that
  // would build is said (docs/traces.md "Cluster from an export").
  const bool has_nodes = std::any_of(docs->begin(), docs->end(), [](const auto& doc) {
    if (!is_kube_list(doc.node) || !doc.node["items"].IsSequence()) return false;
    for (const auto& item : doc.node["items"]) {
      if (item.IsMap() && item["kind"].IsDefined() && item["kind"].IsScalar() &&
          item["kind"].Scalar() == "Node")
        return true;
    }
    return false;
  });
  if (has_nodes) {
    std::vector<Diagnostic> cluster;
    const auto c = parse_export_cluster(std::string(text), file, cluster);
    for (auto& d : cluster) {
      // Queues were checked as manifests above. A Node the cluster reader refuses does not stop
      // the manifests from loading: a warning that says what it would stop.
      if (d.message.starts_with("found an invalid Queue")) continue;
      if (d.severity == Severity::Error) {
        d.severity = Severity::Warning;
        d.message = "spec.cluster.fromExport would refuse this: " + d.message;
      }
      diags.push_back(std::move(d));
    }
    if (c) {
      for (const auto& note : c->notes)
        diags.push_back(Diagnostic{Severity::Warning, file, 0, 0, 0, "", note});
    }
  }
  return diags;
}

bool read_input_file(const std::string& path, std::string& text, std::vector<Diagnostic>& out) {
  return read_text_file(path, text, out);
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
