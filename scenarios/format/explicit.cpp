#include "scenarios/format/explicit.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <type_traits>
#include <variant>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace t9k::scenarios {

namespace {

using nlohmann::ordered_json;

// Seconds as the loader reads a constant duration: whole microseconds as a duration string when
// that is exact, else the number of seconds.
ordered_json seconds_json(double s) {
  const double us = std::round(s * 1e6);
  if (std::isfinite(us) && us >= 0 && us < 9e18 &&
      static_cast<double>(static_cast<std::int64_t>(us)) / 1e6 == s) {
    return kernel::format_duration(SimDuration{static_cast<std::int64_t>(us)});
  }
  return s;
}

ordered_json dist_json(const kernel::Distribution& d) {
  ordered_json out = ordered_json::object();
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, kernel::Constant>) {
          out["constant"] = {{"value", x.value}};
        } else if constexpr (std::is_same_v<T, kernel::Uniform>) {
          out["uniform"] = {{"min", x.lo}, {"max", x.hi}};
        } else if constexpr (std::is_same_v<T, kernel::Exponential>) {
          out["exponential"] = {{"rate", x.rate}};
        } else if constexpr (std::is_same_v<T, kernel::Normal>) {
          out["normal"] = {{"mu", x.mu}, {"sigma", x.sigma}};
        } else if constexpr (std::is_same_v<T, kernel::LogNormal>) {
          out["lognormal"] = {{"mu", x.mu}, {"sigma", x.sigma}};
        } else if constexpr (std::is_same_v<T, kernel::Weibull>) {
          out["weibull"] = {{"shape", x.shape}, {"scale", x.scale}};
        } else if constexpr (std::is_same_v<T, kernel::Gamma>) {
          out["gamma"] = {{"shape", x.shape}, {"scale", x.scale}};
        } else if constexpr (std::is_same_v<T, kernel::BoundedPareto>) {
          out["boundedPareto"] = {{"alpha", x.alpha}, {"min", x.lo}, {"max", x.hi}};
        } else {
          ordered_json pts = ordered_json::array();
          for (const auto& [v, q] : x.points) pts.push_back(ordered_json::array({v, q}));
          out["empirical"] = {{"points", pts}};
        }
      },
      d.variant());
  return out;
}

ordered_json duration_json(const DurationDistribution& d) {
  if (const auto* c = std::get_if<kernel::Constant>(&d.seconds.variant())) {
    const auto j = seconds_json(c->value);
    if (j.is_string()) return j;
  }
  return dist_json(d.seconds);
}

ordered_json behaviour_json(const JobBehaviour& b) {
  ordered_json out = ordered_json::object();
  if (b.run_time) out["runTime"] = duration_json(*b.run_time);
  if (b.work) out["work"] = duration_json(*b.work);
  if (b.checkpoint_interval)
    out["checkpointInterval"] = kernel::format_duration(*b.checkpoint_interval);
  if (b.checkpoint_cost.count() != 0)
    out["checkpointCost"] = kernel::format_duration(b.checkpoint_cost);
  out["restartOverhead"] = duration_json(b.restart_overhead);
  ordered_json f = ordered_json::object();
  f["hazardPerHour"] = b.failure.hazard_per_hour;
  if (!b.failure.exit_codes.empty()) {
    ordered_json codes = ordered_json::array();
    for (const auto& e : b.failure.exit_codes)
      codes.push_back({{"code", e.exit_code}, {"weight", e.weight}});
    f["exitCodes"] = codes;
  }
  f["finalExitCode"] = b.failure.final_exit_code;
  out["failure"] = f;
  ordered_json s = ordered_json::object();
  s["model"] = std::string(to_string(b.scaling.model));
  if (b.scaling.model == ScalingModel::Amdahl) s["serialFraction"] = b.scaling.serial_fraction;
  if (b.scaling.rescale_overhead.count() != 0)
    s["rescaleOverhead"] = kernel::format_duration(b.scaling.rescale_overhead);
  if (b.scaling.model == ScalingModel::Table) {
    ordered_json t = ordered_json::object();
    for (const auto& [n, x] : b.scaling.throughput) t[std::to_string(n)] = x;
    s["throughput"] = t;
  }
  out["scaling"] = s;
  if (!b.replicas.empty()) {
    ordered_json scripts = ordered_json::array();
    for (const auto& r : b.replicas) {
      ordered_json e = ordered_json::object();
      e["type"] = r.type;
      if (r.rank) e["rank"] = *r.rank;
      ordered_json runs = ordered_json::array();
      for (const auto& run : r.runs) {
        ordered_json x = ordered_json::object();
        x["exitCode"] = run.exit_code;
        if (run.after) x["after"] = kernel::format_duration(*run.after);
        runs.push_back(x);
      }
      e["runs"] = runs;
      scripts.push_back(e);
    }
    out["replicas"] = scripts;
  }
  return out;
}

// Emits a tree keeping each scalar's quoting (the reader treats a quoted "8" as a string and a
// plain 8 as a number; overlay.cpp does the same). `flow` writes a collection on one
// line.
void emit(YAML::Emitter& out, const YAML::Node& n, bool flow) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out << YAML::Null;
      break;
    case YAML::NodeType::Scalar:
      if (n.Tag() == "!") {
        out << YAML::DoubleQuoted << n.Scalar();
      } else if (n.Tag() == "?" || n.Tag().empty()) {
        out << n.Scalar();
      } else {
        out << YAML::VerbatimTag(n.Tag()) << n.Scalar();
      }
      break;
    case YAML::NodeType::Sequence:
      if (flow || n.size() == 0) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& item : n) emit(out, item, flow);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Map:
      if (flow || n.size() == 0) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& kv : n) {
        out << YAML::Key;
        emit(out, kv.first, flow);
        out << YAML::Value;
        emit(out, kv.second, flow);
      }
      out << YAML::EndMap;
      break;
  }
}

YAML::Node child(const YAML::Node& n, const char* key) {
  if (n.IsDefined() && n.IsMap()) {
    for (const auto& kv : n) {
      if (kv.first.IsScalar() && kv.first.Scalar() == key) return kv.second;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

// `path` entries of a list, relative to the old folder, made relative to the new one.
void reanchor(const YAML::Node& list, const std::filesystem::path& from,
              const std::filesystem::path& to) {
  if (!list.IsDefined() || !list.IsSequence()) return;
  for (auto item : list) {
    YAML::Node p = child(item, "path");
    if (!p.IsDefined() || !p.IsScalar()) continue;
    const std::filesystem::path old = p.Scalar();
    if (old.is_absolute()) continue;
    p = std::filesystem::proximate(std::filesystem::absolute(from / old), to).generic_string();
  }
}

// A file field (`fromExport`) of a mapping, re-anchored as reanchor() does.
void reanchor_field(const YAML::Node& map, const char* key, const std::filesystem::path& from,
                    const std::filesystem::path& to) {
  YAML::Node p = child(map, key);
  if (!p.IsDefined() || !p.IsScalar()) return;
  const std::filesystem::path old = p.Scalar();
  if (old.is_absolute()) return;
  p = std::filesystem::proximate(std::filesystem::absolute(from / old), to).generic_string();
}

}  // namespace

std::string to_scenario_json(const DurationDistribution& d) { return duration_json(d).dump(); }
std::string to_scenario_json(const JobBehaviour& b) { return behaviour_json(b).dump(); }

std::string scenario_with_explicit_jobs(std::string_view scenario_yaml,
                                        const std::string& scenario_dir, const std::string& out_dir,
                                        const std::vector<ExplicitJob>& jobs,
                                        std::vector<Diagnostic>& errors) {
  try {
    YAML::Node root = YAML::Load(std::string(scenario_yaml));
    YAML::Node spec = child(root, "spec");
    YAML::Node workload = child(spec, "workload");
    if (!spec.IsMap() || !workload.IsMap()) {
      errors.push_back(
          Diagnostic{Severity::Error, "", 0, 0, 0, "spec.workload", "found no workload mapping"});
      return {};
    }
    const auto from = std::filesystem::absolute(scenario_dir.empty() ? "." : scenario_dir);
    const auto to = std::filesystem::absolute(out_dir);
    reanchor(child(child(spec, "scheduler"), "queues"), from, to);
    reanchor(child(workload, "jobs"), from, to);
    reanchor(child(workload, "traces"), from, to);
    reanchor_field(child(spec, "cluster"), "fromExport", from, to);
    reanchor_field(child(spec, "initialState"), "fromExport", from, to);
    workload.remove("generators");
    // The jobs are one replication's draws: running more replications of them is another study.
    spec["replications"] = 1;
    YAML::Node list = child(workload, "jobs");
    if (!list.IsDefined() || !list.IsSequence()) {
      workload["jobs"] = YAML::Node(YAML::NodeType::Sequence);
      list = workload["jobs"];
    }
    const std::size_t first_generated = list.size();
    for (const auto& j : jobs) {
      ordered_json e = ordered_json::object();
      e["path"] = j.path;
      e["name"] = j.name;
      e["submitAt"] = kernel::format_duration(j.submit_at.time_since_epoch());
      e["behaviour"] = behaviour_json(j.behaviour);
      list.push_back(YAML::Load(e.dump()));
    }
    // Explicit jobs: one per line; everything else in block style.
    YAML::Emitter out;
    out << YAML::BeginMap;
    for (const auto& top : root) {
      out << YAML::Key;
      emit(out, top.first, false);
      out << YAML::Value;
      if (!top.second.IsMap() || top.first.Scalar() != "spec") {
        emit(out, top.second, false);
        continue;
      }
      out << YAML::BeginMap;
      for (const auto& s : top.second) {
        out << YAML::Key;
        emit(out, s.first, false);
        out << YAML::Value;
        if (s.first.Scalar() != "workload" || !s.second.IsMap()) {
          emit(out, s.second, false);
          continue;
        }
        out << YAML::BeginMap;
        for (const auto& w : s.second) {
          out << YAML::Key;
          emit(out, w.first, false);
          out << YAML::Value;
          if (w.first.Scalar() != "jobs") {
            emit(out, w.second, false);
            continue;
          }
          out << YAML::BeginSeq;
          std::size_t i = 0;
          for (const auto& item : w.second) emit(out, item, i++ >= first_generated);
          out << YAML::EndSeq;
        }
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
    if (!out.good()) {
      errors.push_back(Diagnostic{Severity::Error, "", 0, 0, 0, "",
                                  "cannot write the scenario: " + out.GetLastError()});
      return {};
    }
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    errors.push_back(Diagnostic{Severity::Error, "", e.mark.is_null() ? 0 : e.mark.line + 1,
                                e.mark.is_null() ? 0 : e.mark.column + 1, 0, "", e.msg});
    return {};
  }
}

}  // namespace t9k::scenarios
