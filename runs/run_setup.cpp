#include "runs/run_setup.hpp"

#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/units.hpp"
#include "scenarios/format/traces.hpp"

namespace t9k::runs {

namespace {

std::string trace_phrase(const scenarios::TraceEntry& t) {
  std::string s = fmt::format("{} trace {}", scenarios::to_string(t.format),
                              std::filesystem::path(t.path).filename().string());
  if (t.sample != 1) s += ", " + analysis::format_number(t.sample * 100) + " % sampled";
  if (t.load_factor != 1) s += ", load × " + analysis::format_number(t.load_factor);
  if (t.limit) s += fmt::format(", first {} jobs", *t.limit);
  return s;
}

std::string generator_phrase(const scenarios::GeneratorEntry& g) {
  std::string s = "generator " + g.name;
  if (g.classes.size() > 1) {
    std::vector<std::string> names;
    for (const auto& c : g.classes) names.push_back(c.name);
    s += fmt::format(" ({} classes: {})", g.classes.size(), fmt::join(names, ", "));
  }
  if (g.count) s += fmt::format(", {} jobs", *g.count);
  return s;
}

}  // namespace

analysis::RunSetup run_setup(const scenarios::Scenario& sc) {
  analysis::RunSetup s;
  s.present = true;
  s.description = sc.description;
  s.scheduler = std::string(scenarios::to_string(sc.scheduler.kind));
  for (const auto& p : sc.cluster.node_pools)
    s.pools.push_back(
        {p.name, p.count, p.gpus_per_node, p.gpu_model, p.price_per_node_hour, p.busy_watts});
  for (const auto& q : sc.scheduler.queues) {
    analysis::RunSetup::Queue out{q.metadata.name.str(), q.spec.priority, {}};
    if (q.spec.quota) {
      for (const auto& [k, v] : *q.spec.quota) out.quota.emplace_back(k, v.to_string());
    }
    s.queues.push_back(std::move(out));
  }
  for (const auto& g : sc.workload.generators) s.workload.push_back(generator_phrase(g));
  for (const auto& t : sc.workload.traces) s.workload.push_back(trace_phrase(t));
  if (sc.workload.demand_factor != 1) {
    s.workload.push_back("demand × " + analysis::format_number(sc.workload.demand_factor) +
                         " (every generator and trace)");
  }
  if (!sc.workload.jobs.empty()) {
    s.workload.push_back(fmt::format("{} explicit job{}", sc.workload.jobs.size(),
                                     sc.workload.jobs.size() == 1 ? "" : "s"));
  }
  if (sc.initial_state) {
    s.workload.push_back("the jobs running and waiting in " +
                         std::filesystem::path(sc.initial_state->from_export).filename().string());
    // Floor division: time zero before 1970 is not an export anyone has, but stays exact.
    if (sc.initial_state->data) {
      const std::int64_t us = sc.initial_state->data->at_us;
      s.time_zero_unix_s = us / 1000000 - (us % 1000000 < 0 ? 1 : 0);
    }
  }
  s.faults = sc.faults.profile;
  s.replications = sc.replications;
  return s;
}

}  // namespace t9k::runs
