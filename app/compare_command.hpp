// `t9ksim compare BASE --variant NAME=OVERLAY ...`: runs the base scenario and each variant (the
// base with an overlay merged onto it, scenarios/format/overlay.hpp) for R replications on common
// random numbers (replication i of every variant has the same seed and replication number), then
// writes OUT/<variant>/rep-<i>/ per run, OUT/<variant>/summary.json, the comparison
// OUT/summary.json and OUT/report.html (docs/reports.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "runs/loading.hpp"
#include "runs/run_one.hpp"
#include "runs/work.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

struct CompareArgs {
  std::string base;                                           // the base scenario file
  std::vector<std::pair<std::string, std::string>> variants;  // (NAME, OVERLAY file), in order
  std::string out_dir = "t9ksim-compare";
  std::optional<std::uint64_t> replications;  // default: the base scenario's spec.replications
  std::vector<std::string> sets;     // --set PATH=VALUE, applied to every variant after its overlay
  std::vector<std::string> targets;  // --target, checked for every variant
  unsigned threads = 0;              // 0: one per hardware thread
  bool quiet = false;
  std::int64_t max_jobs = scenarios::kDefaultMaxJobs;  // --max-jobs (docs/reliability.md)
  runs::RunOne run_one;  // add_compare_command wires this to the real run (plugins bound)
  // What the world refuses of the base and each variant, checked before anything runs;
  // add_compare_command wires it to runs::settings_problems (runs/loading.hpp).
  runs::SettingsCheck check_settings;
  // `t9ksim plan compare`: set, it is given the work and writes the plan instead of running it
  // (runs/plan.hpp); its result is the exit code.
  std::function<int(const runs::Work&)> plan;
};

// "NAME=OVERLAY" -> (NAME, OVERLAY); nullopt when there is no '=' or either side is empty.
std::optional<std::pair<std::string, std::string>> parse_variant(std::string_view arg);

// Exit code: 0 ok, 1 a run failed, 2 bad input (files, overlays, names).
int compare_command(const CompareArgs& args);

}  // namespace t9k::app
