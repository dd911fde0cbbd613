// A job's behaviour: run time or work, checkpoints, failures, scaling, scripted runs.
#include "scenarios/format/detail/decoder.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kBehaviour[] = {
    "runTime", "work",    "checkpointInterval", "checkpointCost", "restartOverhead", "failure",
    "scaling", "replicas"};
constexpr std::string_view kReplicaScript[] = {"type", "rank", "runs"};
constexpr std::string_view kScriptedRun[] = {"exitCode", "after"};
constexpr std::string_view kFailure[] = {"hazardPerHour", "exitCodes", "finalExitCode"};
constexpr std::string_view kExitCode[] = {"code", "weight"};
constexpr std::string_view kScaling[] = {"model", "serialFraction", "rescaleOverhead",
                                         "throughput"};

}  // namespace

JobBehaviour ScenarioDecoder::behaviour(const Val& v) {
  JobBehaviour b;
  MapReader mr(r_, v, kBehaviour);
  if (!v.present()) {
    r_.error(v.mark, v.path, "required field is missing (a job needs runTime or work)");
    return b;
  }
  b.run_time = duration_dist(r_, mr.get("runTime"));
  b.work = duration_dist(r_, mr.get("work"));
  if (mr.has("runTime") == mr.has("work")) {
    r_.error(v.mark, v.path,
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
  if (auto x = duration_dist(r_, mr.get("restartOverhead"))) b.restart_overhead = *x;
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
        r_.error(item.mark, item.path,
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

// Scripted runs name replica types (and ranks) of the job they belong to.
void ScenarioDecoder::check_scripts(const JobBehaviour& b, const m::Job& job,
                                    const std::string& behaviour_path, bool ranks) {
  // A plugin's own kind: check_replica_type leaves it alone; its replica types are known once its
  // plugin has declared the kind, and are checked at submission (sim/submissions.cpp).
  for (std::size_t i = 0; i < b.replicas.size(); ++i) {
    const auto& script = b.replicas[i];
    const std::string path = fmt::format("{}.replicas[{}]", behaviour_path, i);
    if (r_.has_error_under(path)) continue;
    const auto rt = check_replica_type(job, m::metadata_of(job).name, script.type);
    if (!rt.error.empty()) {
      r_.error(path + ".type", rt.error);
    } else if (ranks && script.rank && rt.ranks && *script.rank >= *rt.ranks) {
      r_.error(path + ".rank",
               fmt::format("found {}; allowed: a rank of {} below {} (its replicas{})",
                           *script.rank, script.type, *rt.ranks, *rt.ranks > 0 ? "" : ": none"));
    }
  }
}

}  // namespace t9k::scenarios::detail
