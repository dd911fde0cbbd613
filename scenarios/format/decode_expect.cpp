// spec.expect (docs/regression-testing.md).
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace t9k::scenarios::detail {

namespace {

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

std::optional<IntBounds> bounds(Report& r, const Val& v) {
  if (!v.present()) return std::nullopt;
  IntBounds b;
  if (v.node.IsScalar()) {
    const auto x = read_int(r, v, 0, INT64_MAX);
    if (!x) return std::nullopt;
    b.min = b.max = *x;
    return b;
  }
  MapReader mr(r, v, kBounds);
  if (!mr.ok()) return std::nullopt;
  b.min = read_int(r, mr.get("min"), 0, INT64_MAX);
  b.max = read_int(r, mr.get("max"), 0, INT64_MAX);
  if (!b.min && !b.max) {
    r.error(v.mark, v.path,
            "found neither min nor max; allowed: an integer, or {min, max} with at least one");
    return std::nullopt;
  }
  if (b.min && b.max && *b.min > *b.max) {
    r.error(v.mark, v.path,
            fmt::format("found min {} > max {}; allowed: min <= max", *b.min, *b.max));
    return std::nullopt;
  }
  return b;
}

// a.b[0].c[key=value].d: non-empty keys, selectors closed, nothing else.
bool valid_field_path(std::string_view p) {
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
std::optional<TimeBounds> time_bounds(Report& r, const Val& v) {
  MapReader mr(r, v, kTimeBounds);
  if (!mr.ok()) return std::nullopt;
  TimeBounds tb;
  tb.min = read_duration(r, mr.get("min"));
  tb.max = read_duration(r, mr.get("max"));
  if (!mr.has("min") && !mr.has("max")) {
    r.error(v.mark, v.path,
            "found neither min nor max; allowed: at least one bound (durations since time 0)");
    return std::nullopt;
  }
  if (tb.min && tb.max && *tb.min > *tb.max) {
    r.error(v.mark, v.path, "found min > max; allowed: min <= max");
    return std::nullopt;
  }
  return tb;
}

}  // namespace

void ScenarioDecoder::expect(const Val& v, Scenario& sc) {
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
    je.restart_count = bounds(r_, j.get("restartCount"));
    je.backoff_count = bounds(r_, j.get("backoffCount"));
    for (const auto& [phase, val] : FreeMap(r_, j.get("phaseAt"), kExpectPhases).entries()) {
      if (std::find(std::begin(kExpectPhases), std::end(kExpectPhases), phase) ==
          std::end(kExpectPhases)) {
        r_.error(val.mark, val.path,
                 fmt::format("found phase \"{}\"; allowed: {}", phase, join_names(kExpectPhases)));
        continue;
      }
      if (auto tb = time_bounds(r_, val)) je.phase_at.emplace_back(phase, *tb);
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
      pe.pods = bounds(r_, pr.get("pods"));
      if (job && !r_.has_error_under(pv.path)) {
        const auto rt = check_replica_type(job->job, je.job, pe.replica_type);
        if (!rt.error.empty()) {
          r_.error(child_path(pv.path, "replicaType"), rt.error);
        } else if (rt.ranks && pe.rank >= *rt.ranks) {
          r_.error(child_path(pv.path, "rank"),
                   fmt::format("found {}; allowed: a rank of {} below {}", pe.rank, pe.replica_type,
                               *rt.ranks));
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
    if (er.has("at")) ee.at = time_bounds(r_, er.get("at"));
    ex.events.push_back(std::move(ee));
  }
  sc.expect = std::move(ex);
}

}  // namespace t9k::scenarios::detail
