#include "app/size_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/aggregate.hpp"
#include "analysis/goal.hpp"
#include "analysis/outputs.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"
#include "app/batch.hpp"
#include "app/exit_codes.hpp"
#include "app/run_command.hpp"
#include "app/sweep_command.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

namespace {

namespace fs = std::filesystem;

struct Evaluation {
  std::string value;
  fs::path dir;
  std::vector<fs::path> rep_dirs;
  analysis::ReplicationSummary summary;
  std::vector<analysis::TargetCheck> checks;
  bool met() const {
    return std::all_of(checks.begin(), checks.end(),
                       [](const analysis::TargetCheck& c) { return c.present && c.met; });
  }
};

std::string show_value(const std::string& metric, double v) {
  if (!std::isfinite(v)) return "–";
  if (metric.ends_with("_s")) return analysis::format_duration_s(v);
  if (metric.ends_with("utilization_allocated") || metric.ends_with("utilization_productive") ||
      metric.ends_with("quota_share_used") || metric.ends_with("goodput")) {
    return analysis::format_percent(v);
  }
  return fmt::format("{:.4g}", v);
}

std::string describe(const analysis::Target& t, const analysis::TargetCheck& c) {
  if (!c.present) return fmt::format("{}: no run has metric {}", t.text, t.metric);
  const std::string mean = show_value(t.metric, c.mean);
  const std::string hw =
      std::isfinite(c.half_width) ? " ± " + show_value(t.metric, c.half_width) : "";
  return fmt::format("{} is {}{} (n={}): {}, confidence that it is met {}", t.metric, mean, hw, c.n,
                     c.met ? "met" : "not met", analysis::format_percent(c.confidence));
}

}  // namespace

int size_command(const SizeArgs& args) {
  const auto input = read_scenario_arg(args.scenario);
  if (!input) return kExitUsage;
  const auto& [text, file] = *input;
  const auto pv = scenarios::split_assignment(args.param);
  if (!pv || pv->second.empty()) {
    fmt::print(stderr, "t9ksim size: --param {}: expected PATH=LO:HI or PATH=LO:HI:STEP\n",
               args.param);
    return kExitUsage;
  }
  const std::string path = pv->first;
  std::string range = pv->second;
  if (std::count(range.begin(), range.end(), ':') == 1) {
    const std::string lo = range.substr(0, range.find(':'));
    if (lo.find_first_not_of("+-0123456789.") != std::string::npos) {
      fmt::print(stderr,
                 "t9ksim size: --param {}: a range of durations needs a step, e.g. 1h:4h:30m\n",
                 args.param);
      return kExitUsage;
    }
    range += ":1";
  }
  std::string error;
  const std::vector<std::string> values = analysis::sweep_values(range, error);
  if (values.empty() || std::count(range.begin(), range.end(), ':') != 2) {
    fmt::print(stderr, "t9ksim size: --param {}: {}\n", args.param,
               error.empty() ? "expected a range LO:HI or LO:HI:STEP" : error);
    return kExitUsage;
  }
  if (args.targets.empty()) {
    fmt::print(stderr,
               "t9ksim size: give at least one --target, e.g. --target 'queue=production wait_p90 "
               "< 1h'\n");
    return kExitUsage;
  }
  std::vector<analysis::Target> targets;
  for (const auto& t : args.targets) {
    auto parsed = analysis::parse_target(t, error);
    if (!parsed) {
      fmt::print(stderr, "t9ksim size: --target '{}': {}\n", t, error);
      return kExitUsage;
    }
    targets.push_back(std::move(*parsed));
  }

  // Loads a value's scenario; runs are started only once every loaded value is valid.
  scenarios::LoadOptions lo;
  lo.max_jobs = args.max_jobs;
  if (!args.scenario.empty()) lo.base_dir = fs::path(args.scenario).parent_path().string();
  std::optional<std::uint64_t> seed;
  std::uint64_t reps = 0;
  std::map<std::size_t, std::string> texts;
  std::vector<fs::path> inputs{file};
  auto prepare = [&](std::size_t i) -> int {
    std::vector<std::string> assignments = args.sets;
    assignments.push_back(path + "=" + values[i]);
    std::vector<scenarios::Diagnostic> errors;
    std::string t = scenarios::apply_sets(text, assignments, errors);
    if (!errors.empty()) {
      for (const auto& d : errors) fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
      return kExitUsage;
    }
    const auto loaded =
        scenarios::parse_scenario(t, fmt::format("{} at {}={}", file, path, values[i]), lo);
    if (!loaded.ok()) {
      for (const auto& d :
           scenarios::point_at_sources(loaded.diagnostics, t, sources_of(file, text))) {
        fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
      }
      return kExitUsage;
    }
    inputs.insert(inputs.end(), loaded.files.begin(), loaded.files.end());
    if (!seed) {
      seed = loaded.scenario->seed;
      reps = args.replications.value_or(
          static_cast<std::uint64_t>(std::max(1, loaded.scenario->replications)));
    } else if (*seed != loaded.scenario->seed) {
      fmt::print(
          stderr,
          "t9ksim size: {} changes spec.seed; values are compared on common random numbers\n",
          path);
      return kExitUsage;
    }
    texts[i] = std::move(t);
    return kExitOk;
  };
  // Both ends first: a bad value is reported before anything runs.
  for (const std::size_t i : {std::size_t{0}, values.size() - 1}) {
    if (const int rc = prepare(i); rc != kExitOk) return rc;
  }
  if (reps == 0) {
    fmt::print(stderr, "t9ksim size: --replications must be at least 1\n");
    return kExitUsage;
  }

  analysis::ResultFolder folder(args.out_dir, {"size", analysis::kSummaryMarker, inputs});
  const fs::path out = folder.path();
  const fs::path shown(args.out_dir);
  if (!args.quiet) {
    fmt::print("size: the {} {} in {}..{} that meets {} ({} replications per value, seed {})\n",
               args.largest ? "largest" : "smallest", path, values.front(), values.back(),
               fmt::join(args.targets, " and "), reps, *seed);
  }
  std::map<std::size_t, Evaluation> done;
  auto evaluate = [&](std::size_t i) -> std::optional<int> {
    if (done.count(i)) return std::nullopt;
    if (!texts.count(i)) {
      if (const int rc = prepare(i); rc != kExitOk) return rc;
    }
    Evaluation e;
    e.value = values[i];
    e.dir = out / fmt::format("value-{}", values[i]);
    std::vector<BatchRun> runs;
    try {
      fs::create_directories(e.dir);
      analysis::write_file_atomic(e.dir / "scenario.yaml", texts.at(i));
    } catch (const std::exception& ex) {
      fmt::print(stderr, "t9ksim: error: {}\n", ex.what());
      return kExitError;
    }
    for (std::uint64_t r = 0; r < reps; ++r) {
      e.rep_dirs.push_back(e.dir / fmt::format("rep-{}", r));
      runs.push_back({e.dir.filename().string(), &texts.at(i), r, e.rep_dirs.back()});
    }
    if (const int rc =
            run_batch(runs, args.run_one, args.scenario, args.threads, "size", args.quiet);
        rc != kExitOk) {
      return rc;
    }
    e.summary = analysis::write_replication_summary(e.dir, e.rep_dirs);
    for (const auto& t : targets) e.checks.push_back(analysis::check_target(t, e.summary));
    if (!args.quiet) {
      fmt::print("  {}={}: {}\n", path, e.value,
                 e.met() ? "meets every target" : "does not meet every target");
      for (std::size_t k = 0; k < targets.size(); ++k)
        fmt::print("    {}\n", describe(targets[k], e.checks[k]));
      std::fflush(stdout);
    }
    done.emplace(i, std::move(e));
    return std::nullopt;
  };
  auto met = [&](std::size_t i) { return done.at(i).met(); };

  // Bisection, assuming the targets get easier to meet as the value grows (smallest) or shrinks
  // (largest); evaluated points that contradict that are reported below.
  const std::size_t last = values.size() - 1;
  std::optional<std::size_t> answer, neighbour;
  const std::size_t easy = args.largest ? 0 : last, hard = args.largest ? last : 0;
  if (auto rc = evaluate(easy)) return *rc;
  if (met(easy)) {
    if (auto rc = evaluate(hard)) return *rc;
    if (met(hard)) {
      answer = hard;
    } else {
      std::size_t pass = easy, fail = hard;
      while (pass > fail ? pass - fail > 1 : fail - pass > 1) {
        const std::size_t mid = (pass + fail) / 2;
        if (auto rc = evaluate(mid)) return *rc;
        (met(mid) ? pass : fail) = mid;
      }
      answer = pass;
      neighbour = fail;
    }
  }

  analysis::GoalSummary goal;
  goal.parameter = path;
  goal.direction = args.largest ? "largest" : "smallest";
  goal.targets = args.targets;
  if (answer) {
    goal.answer = values[*answer];
    if (neighbour) goal.neighbour = values[*neighbour];
    const auto& a = done.at(*answer);
    for (std::size_t k = 0; k < targets.size(); ++k) {
      goal.findings.push_back(
          fmt::format("at {}={}: {}", path, a.value, describe(targets[k], a.checks[k])));
    }
    if (neighbour) {
      const auto& b = done.at(*neighbour);
      for (std::size_t k = 0; k < targets.size(); ++k) {
        goal.findings.push_back(fmt::format("at {}={} (just {}): {}", path, b.value,
                                            args.largest ? "above" : "below",
                                            describe(targets[k], b.checks[k])));
        if (!b.checks[k].met) {
          goal.findings.push_back(fmt::format("at {}={}: {}", path, b.value,
                                              analysis::binding_constraint(targets[k], b.summary)));
        }
      }
    }
    for (const auto& [i, e] : done) {
      const bool beyond = args.largest ? i < *answer : i > *answer;
      if (beyond && !e.met()) {
        goal.findings.push_back(
            fmt::format("{}={} beyond the answer does not meet every target: the targets are not "
                        "monotone in {} here (noise, or a real effect); use more replications",
                        path, e.value, path));
      }
    }
  } else {
    const auto& e = done.at(easy);
    goal.findings.push_back(fmt::format("no value of {} in {}..{} meets every target; at {}={}:",
                                        path, values.front(), values.back(), path, e.value));
    for (std::size_t k = 0; k < targets.size(); ++k) {
      goal.findings.push_back(describe(targets[k], e.checks[k]));
      if (e.checks[k].present && !e.checks[k].met)
        goal.findings.push_back(analysis::binding_constraint(targets[k], e.summary));
    }
  }

  try {
    std::vector<std::pair<std::vector<std::string>, std::vector<fs::path>>> points;
    for (const auto& [i, e] : done)
      points.emplace_back(std::vector<std::string>{e.value}, e.rep_dirs);
    analysis::write_sweep_summary(out, {path}, points, goal);
    if (args.report) analysis::write_report(out);
    folder.commit();
    if (!args.quiet) {
      if (answer) {
        fmt::print("answer: {}={}\n", path, values[*answer]);
      } else {
        fmt::print("answer: none in {}..{}\n", values.front(), values.back());
      }
      for (const auto& f : goal.findings) fmt::print("  - {}\n", f);
      fmt::print("{}\n", (shown / "summary.json").string());
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
