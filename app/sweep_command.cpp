#include "app/sweep_command.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/exit_codes.hpp"
#include "analysis/result_folder.hpp"
#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"
#include "app/batch.hpp"
#include "app/run_command.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/kernel/time.hpp"

namespace t9k::app {

namespace {

namespace fs = std::filesystem;


}  // namespace

std::optional<std::pair<std::string, std::string>> read_scenario_arg(const std::string& scenario) {
  if (scenario.empty()) return std::make_pair(std::string(default_scenario_text()), std::string("<embedded default scenario>"));
  std::string text;
  std::vector<scenarios::Diagnostic> errors;
  if (!scenarios::read_input_file(scenario, text, errors)) {
    for (const auto& d : errors) fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
    return std::nullopt;
  }
  return std::make_pair(std::move(text), scenario);
}

int sweep_command(const SweepArgs& args) {
  const auto input = read_scenario_arg(args.scenario);
  if (!input) return kExitUsage;
  const auto& [text, file] = *input;
  if (args.varies.empty()) {
    fmt::print(stderr, "t9ksim sweep: give at least one --vary PATH=VALUES\n");
    return kExitUsage;
  }
  std::vector<std::string> params;
  std::vector<std::vector<std::string>> values;
  std::size_t grid = 1;
  for (const auto& v : args.varies) {
    const auto pv = scenarios::split_assignment(v);
    if (!pv || pv->second.empty()) {
      fmt::print(stderr, "t9ksim sweep: --vary {}: expected PATH=VALUES (FROM:TO:STEP or A,B,C)\n", v);
      return kExitUsage;
    }
    if (std::find(params.begin(), params.end(), pv->first) != params.end()) {
      fmt::print(stderr, "t9ksim sweep: --vary {}: {} is varied twice\n", v, pv->first);
      return kExitUsage;
    }
    std::string error;
    auto vals = analysis::sweep_values(pv->second, error);
    if (vals.empty()) {
      fmt::print(stderr, "t9ksim sweep: --vary {}: {}\n", v, error);
      return kExitUsage;
    }
    grid *= vals.size();
    if (grid > analysis::kMaxSweepPoints) {
      fmt::print(stderr, "t9ksim sweep: the grid has more than {} points\n", analysis::kMaxSweepPoints);
      return kExitUsage;
    }
    params.push_back(pv->first);
    values.push_back(std::move(vals));
  }

  // Every point's scenario, loaded before anything runs: a bad value is an error naming its point.
  struct Point {
    std::vector<std::string> values;
    std::string text;
  };
  std::vector<Point> points;
  std::vector<fs::path> inputs{file};
  std::optional<std::uint64_t> seed;
  std::int32_t scenario_reps = 1;
  scenarios::LoadOptions lo;
  lo.max_jobs = args.max_jobs;
  if (!args.scenario.empty()) lo.base_dir = fs::path(args.scenario).parent_path().string();
  for (std::size_t i = 0; i < grid; ++i) {
    Point p;
    std::vector<std::string> assignments = args.sets;
    std::size_t rest = i;
    std::vector<std::string> shown;
    p.values.resize(params.size());
    for (std::size_t k = params.size(); k-- > 0;) {
      p.values[k] = values[k][rest % values[k].size()];
      rest /= values[k].size();
    }
    for (std::size_t k = 0; k < params.size(); ++k) {
      assignments.push_back(params[k] + "=" + p.values[k]);
      shown.push_back(params[k] + "=" + p.values[k]);
    }
    std::vector<scenarios::Diagnostic> errors;
    p.text = scenarios::apply_sets(text, assignments, errors);
    if (!errors.empty()) {
      for (const auto& d : errors) fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
      return kExitUsage;
    }
    const auto loaded = scenarios::parse_scenario(p.text, fmt::format("{} at {}", file, fmt::join(shown, " ")), lo);
    if (!loaded.ok()) {
      for (const auto& d : scenarios::point_at_sources(loaded.diagnostics, p.text, sources_of(file, text))) {
        fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
      }
      return kExitUsage;
    }
    inputs.insert(inputs.end(), loaded.files.begin(), loaded.files.end());
    if (!seed) {
      seed = loaded.scenario->seed;
      scenario_reps = loaded.scenario->replications;
    } else if (*seed != loaded.scenario->seed) {
      fmt::print(stderr, "t9ksim sweep: the points have different seeds; a sweep compares points on common random "
                         "numbers, so spec.seed cannot be varied\n");
      return kExitUsage;
    }
    points.push_back(std::move(p));
  }
  const std::uint64_t reps = args.replications.value_or(static_cast<std::uint64_t>(std::max(1, scenario_reps)));
  if (reps == 0) {
    fmt::print(stderr, "t9ksim sweep: --replications must be at least 1\n");
    return kExitUsage;
  }

  analysis::ResultFolder folder(args.out_dir, {"sweep", analysis::kSummaryMarker, inputs});
  const fs::path out = folder.path();
  const fs::path shown(args.out_dir);
  std::vector<BatchRun> runs;
  std::vector<std::pair<std::vector<std::string>, std::vector<fs::path>>> point_dirs;
  try {
    for (std::size_t i = 0; i < points.size(); ++i) {
      const fs::path dir = out / fmt::format("point-{}", i);
      fs::create_directories(dir);
      analysis::write_file_atomic(dir / "scenario.yaml", points[i].text);
      std::vector<fs::path> reps_dirs;
      for (std::uint64_t r = 0; r < reps; ++r) {
        reps_dirs.push_back(dir / fmt::format("rep-{}", r));
        runs.push_back({fmt::format("point-{}", i), &points[i].text, r, reps_dirs.back()});
      }
      point_dirs.emplace_back(points[i].values, std::move(reps_dirs));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return kExitError;
  }
  const int worst = run_batch(runs, args.run_one, args.scenario, args.threads, "sweep", args.quiet);
  if (worst != kExitOk) return worst;

  try {
    const auto s = analysis::write_sweep_summary(out, params, point_dirs);
    if (args.report) analysis::write_report(out);
    folder.commit();
    if (!args.quiet) {
      fmt::print("sweep: {} points x {} replications (seed {}), common random numbers\n", points.size(), reps, *seed);
      // One line per point: the cluster's p90 wait and utilisation, then each queue's p90 wait.
      for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto& m = s.points[i].replications.metrics;
        const auto show = [&](const std::string& name, bool duration) {
          const auto it = m.find(name);
          if (it == m.end()) return std::string("–");
          const auto& iv = it->second.interval;
          const auto f = [&](double x) { return duration ? analysis::format_duration_s(x) : analysis::format_percent(x); };
          return iv.has_interval() ? fmt::format("{} ± {}", f(iv.mean), f(iv.half_width)) : f(iv.mean);
        };
        std::vector<std::string> vals;
        for (std::size_t k = 0; k < params.size(); ++k) vals.push_back(params[k] + "=" + s.points[i].values[k]);
        fmt::print("  point-{} {}: wait p90 {}, utilisation {}", i, fmt::join(vals, " "), show("wait_p90_s", true),
                   show("utilization_allocated", false));
        for (const auto& [name, _] : m) {
          const auto mn = analysis::split_metric_name(name);
          if (mn.group == analysis::kGroupQueue && mn.metric == "wait_p90_s") {
            fmt::print("; {} p90 {}", mn.value, show(name, true));
          }
        }
        fmt::print("\n");
      }
      fmt::print("{}\n{}\n", (shown / "sweep.csv").string(), (shown / "summary.json").string());
      if (args.report) fmt::print("{}\n", (shown / "report.html").string());
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return kExitError;
  }
  return kExitOk;
}

}  // namespace t9k::app
