#include "app/sweep_command.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/goal.hpp"
#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/run_command.hpp"
#include "app/target_groups.hpp"
#include "kernel/time.hpp"
#include "runs/exit_codes.hpp"
#include "runs/work.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace {

namespace fs = std::filesystem;

}  // namespace

std::optional<std::pair<std::string, std::string>> read_scenario_arg(const std::string& scenario) {
  if (scenario.empty())
    return std::make_pair(std::string(default_scenario_text()),
                          std::string("<embedded default scenario>"));
  std::string text;
  std::vector<scenarios::Diagnostic> errors;
  if (!scenarios::read_input_file(scenario, text, errors)) {
    for (const auto& d : errors) fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
    return std::nullopt;
  }
  return std::make_pair(std::move(text), scenario);
}

namespace {

// A short name for a field (`--vary nodes=cluster.nodePools[name=h100].count=2:8:2`): a word, so
// that it cannot be a field path (those have a '.' or a '[' below spec's top level).
bool is_alias(const std::string& s) {
  if (s.empty() || s.size() > 40 || !std::isalpha(static_cast<unsigned char>(s.front())))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// The --vary fields and their values; `grid` the number of points (the product of the lists'
// lengths, or with --zip their common length); `aliases` the names given (NAME=PATH=VALUES), ""
// where none. False after printing why.
bool parse_varies(const SweepArgs& args, std::vector<std::string>& params,
                  std::vector<std::vector<std::string>>& values, std::vector<std::string>& aliases,
                  std::size_t& grid) {
  grid = 1;
  for (const auto& v : args.varies) {
    auto pv = scenarios::split_assignment(v);
    std::string alias;
    if (pv && is_alias(pv->first)) {
      if (auto inner = scenarios::split_assignment(pv->second); inner && !inner->second.empty()) {
        alias = pv->first;
        pv = std::move(inner);
      }
    }
    if (!pv || pv->second.empty()) {
      fmt::print(stderr, "t9ksim sweep: --vary {}: expected PATH=VALUES (FROM:TO:STEP or A,B,C)\n",
                 v);
      return false;
    }
    if (std::find(params.begin(), params.end(), pv->first) != params.end()) {
      fmt::print(stderr, "t9ksim sweep: --vary {}: {} is varied twice\n", v, pv->first);
      return false;
    }
    std::string error;
    auto vals = analysis::sweep_values(pv->second, error);
    if (vals.empty()) {
      fmt::print(stderr, "t9ksim sweep: --vary {}: {}\n", v, error);
      return false;
    }
    if (args.zip && !values.empty() && vals.size() != values.front().size()) {
      fmt::print(stderr,
                 "t9ksim sweep: --vary {}: {} values, but {} has {}; allowed with --zip: lists "
                 "of one length (point i takes the i-th value of each)\n",
                 v, vals.size(), params.front(), values.front().size());
      return false;
    }
    grid = args.zip ? vals.size() : grid * vals.size();
    if (grid > analysis::kMaxSweepPoints) {
      fmt::print(stderr, "t9ksim sweep: the grid has more than {} points\n",
                 analysis::kMaxSweepPoints);
      return false;
    }
    params.push_back(pv->first);
    values.push_back(std::move(vals));
    aliases.push_back(alias);
  }
  // Each column and legend must say which field it is.
  analysis::SweepSummary named;
  named.parameters = params;
  named.aliases = aliases;
  const auto labels = analysis::parameter_labels(named);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    for (std::size_t j = i + 1; j < labels.size(); ++j) {
      if (labels[i] != labels[j]) continue;
      fmt::print(stderr,
                 "t9ksim sweep: --vary: {} and {} would both be labelled \"{}\"; give them "
                 "different names (NAME=PATH=VALUES)\n",
                 params[i], params[j], labels[i]);
      return false;
    }
  }
  if (std::all_of(aliases.begin(), aliases.end(), [](const auto& a) { return a.empty(); }))
    aliases.clear();
  return true;
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  const auto input = read_scenario_arg(args.scenario);
  if (!input) return kExitUsage;
  const auto& [text, file] = *input;
  if (args.varies.empty()) {
    fmt::print(stderr, "t9ksim sweep: give at least one --vary PATH=VALUES\n");
    return kExitUsage;
  }
  const auto targets = parse_targets("sweep", args.targets);
  if (!targets) return kExitUsage;
  std::string minimise;
  if (!args.minimise.empty()) {
    std::string error;
    const auto m = analysis::parse_metric(args.minimise, error);
    if (!m) {
      fmt::print(stderr, "t9ksim sweep: --minimise '{}': {}\n", args.minimise, error);
      return kExitUsage;
    }
    if (analysis::is_pooled(*m)) {
      fmt::print(stderr,
                 "t9ksim sweep: --minimise '{}': a pooled percentile is one value per point, "
                 "without the interval a choice is shown with; minimise the per-run metric ({})\n",
                 args.minimise,
                 m->substr(0, m->find("pooled_")) + m->substr(m->find("pooled_") + 7));
      return kExitUsage;
    }
    minimise = *m;
  }
  std::vector<std::string> params;
  std::vector<std::vector<std::string>> values;
  std::vector<std::string> aliases;
  std::size_t grid = 1;
  if (!parse_varies(args, params, values, aliases, grid)) return kExitUsage;

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
      if (args.zip) {
        p.values[k] = values[k][i];
        continue;
      }
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
    const auto loaded =
        load_runnable(p.text, fmt::format("{} at {}", file, fmt::join(shown, " ")), lo);
    if (!loaded.ok()) {
      for (const auto& d :
           scenarios::point_at_sources(loaded.diagnostics, p.text, sources_of(file, text))) {
        fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
      }
      return kExitUsage;
    }
    inputs.insert(inputs.end(), loaded.files.begin(), loaded.files.end());
    if (!seed) {
      if (!targets_fit("sweep", args.targets, *loaded.scenario)) return kExitUsage;
      analysis::Target chosen;
      chosen.metric = minimise;
      if (const auto why = unknown_target_group(chosen, *loaded.scenario); !why.empty()) {
        fmt::print(stderr, "t9ksim sweep: --minimise '{}': {}\n", args.minimise, why);
        return kExitUsage;
      }
      seed = loaded.scenario->seed;
      scenario_reps = loaded.scenario->replications;
    } else if (*seed != loaded.scenario->seed) {
      fmt::print(
          stderr,
          "t9ksim sweep: the points have different seeds; a sweep compares points on common random "
          "numbers, so spec.seed cannot be varied\n");
      return kExitUsage;
    }
    points.push_back(std::move(p));
  }
  const std::uint64_t reps =
      args.replications.value_or(static_cast<std::uint64_t>(std::max(1, scenario_reps)));
  if (reps == 0) {
    fmt::print(stderr, "t9ksim sweep: --replications must be at least 1\n");
    return kExitUsage;
  }

  Work w;
  w.command = "sweep";
  w.scenario_file = file;
  w.inputs = std::move(inputs);
  w.finish = Finish::Sweep;
  w.parameters = params;
  w.targets = args.targets;
  w.minimise = minimise;
  w.zipped = args.zip;
  w.aliases = aliases;
  w.report = args.report;
  for (std::size_t i = 0; i < points.size(); ++i) {
    w.texts.push_back(points[i].text);
    w.files.emplace_back(fmt::format("point-{}/scenario.yaml", i), points[i].text);
    WorkGroup g;
    g.values = points[i].values;
    for (std::uint64_t r = 0; r < reps; ++r) {
      g.units.push_back(w.units.size());
      w.units.push_back({fmt::format("point-{}", i), i, r, fmt::format("point-{}/rep-{}", i, r)});
    }
    w.groups.push_back(std::move(g));
  }
  if (args.plan) return args.plan(w);
  const auto finished = execute_work(w, args.out_dir, args.run_one, args.threads, args.quiet);
  if (!args.quiet) print_finished(w, finished, args.out_dir);
  return finished.rc;
}

void add_sweep_command(Commands& c) {
  auto args = std::make_shared<SweepArgs>();
  auto plugins = std::make_shared<PluginOptions>();
  auto* sweep = c.add(
      "sweep",
      "Run a scenario at every point of a grid of field values (--vary), with replications on "
      "common random numbers; write sweep.csv, summary.json and a report with one curve per "
      "metric and queue");
  sweep->add_option("SCENARIO", args->scenario,
                    "Scenario file (default: the embedded default scenario)");
  sweep
      ->add_option(
          "--vary", args->varies,
          "[NAME=]PATH=FROM:TO:STEP or [NAME=]PATH=A,B,C: a field and its values (numbers or "
          "durations in a range), NAME its short name in columns and legends; several make a "
          "grid; e.g. nodes=cluster.nodePools[name=h100].count=40:96:8")
      ->required()
      ->allow_extra_args(false);
  sweep->add_flag("--zip", args->zip,
                  "Move the --vary fields together, point i taking the i-th value of each (lists "
                  "of one length: linked parameters), instead of every combination");
  add_set_option(sweep, args->sets);
  sweep
      ->add_option("--target", args->targets,
                   "[GROUP=VALUE] METRIC OP THRESHOLD [in P% of runs], as for `t9ksim size`: "
                   "checked at every point (the report marks the points meeting every target); "
                   "repeatable")
      ->allow_extra_args(false);
  sweep->add_option(
      "--minimise,--minimize", args->minimise,
      "[GROUP=VALUE] METRIC, e.g. cost_total: choose the point with its smallest mean "
      "among those meeting every --target (the cheapest mix of pools that meets an "
      "SLO)");
  sweep->add_option("-o,--out", args->out_dir, "Results directory")->capture_default_str();
  sweep
      ->add_option("-r,--replications", args->replications,
                   "Replications per point (default: the scenario's spec.replications)")
      ->transform(replications_number());
  sweep->add_option("-j,--threads", args->threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(threads_number());
  sweep->add_flag("!--no-report", args->report, "Do not write report.html");
  add_max_jobs_option(sweep, args->max_jobs);
  sweep->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
  plugins->add_to(sweep);
  c.on(sweep, [&c, args, plugins] {
    runs::RunOneOptions base;
    base.overrides = args->sets;
    if (!plugins->runner("sweep", args->run_one, {}, base)) return runs::kExitUsage;
    if (auto& plan = c.plan_request()) {
      plan->dir = args->out_dir;
      plan->plugin_specs = plugins->specs;
      plan->reference_specs = plugins->references;
      plan->plugin_timeout = plugins->timeout;
      // Captures the flag, not args: args holding a function that holds args is a cycle.
      args->plan = [&plan, quiet = args->quiet, base](const runs::Work& w) {
        return runs::write_plan(w, base, *plan, quiet);
      };
    }
    return sweep_command(*args);
  });
}

}  // namespace t9k::app
