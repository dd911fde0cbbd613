#include "app/size_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/aggregate.hpp"
#include "analysis/goal.hpp"
#include "analysis/intervals.hpp"
#include "analysis/outputs.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/run_command.hpp"
#include "app/sweep_command.hpp"
#include "app/target_groups.hpp"
#include "runs/batch.hpp"
#include "runs/exit_codes.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

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

// The search of one `t9ksim size`: its parameter's values, the scenario at each, the values
// evaluated so far, the bisection and the goal's findings.
class SizeSearch {
 public:
  SizeSearch(const SizeArgs& args, std::string text, std::string file)
      : args_(args), text_(std::move(text)), file_(std::move(file)) {}

  // --param and --target; false after saying what is wrong.
  bool parse();
  // Both ends loaded first: a bad value is reported before anything runs.
  int load_ends();
  int run();

 private:
  // Loads a value's scenario; runs are started only once every loaded value is valid.
  int prepare(std::size_t i);
  std::optional<int> evaluate(std::size_t i, const fs::path& out);
  bool met(std::size_t i) const { return done_.at(i).met(); }
  // Bisection, assuming the targets get easier to meet as the value grows (smallest) or shrinks
  // (largest).
  std::optional<int> bisect(const fs::path& out);
  // What the answer is, what binds at the value next to it, and evaluated points that contradict
  // the monotone assumption.
  analysis::GoalSummary goal() const;
  int write(analysis::ResultFolder& folder, const analysis::GoalSummary& goal) const;

  const SizeArgs& args_;
  const std::string text_;
  const std::string file_;
  std::string path_;
  std::vector<std::string> values_;
  std::vector<analysis::Target> targets_;
  scenarios::LoadOptions lo_;
  std::optional<std::uint64_t> seed_;
  std::uint64_t reps_ = 0;
  std::map<std::size_t, std::string> texts_;
  std::vector<fs::path> inputs_;
  std::map<std::size_t, Evaluation> done_;
  std::vector<std::size_t> order_;  // the values evaluated, in the order the search took them
  std::optional<std::size_t> answer_, neighbour_;
  std::size_t easy_ = 0, hard_ = 0;
};

bool SizeSearch::parse() {
  const auto pv = scenarios::split_assignment(args_.param);
  if (!pv || pv->second.empty()) {
    fmt::print(stderr,
               "t9ksim size: --param {}: expected PATH=LO:HI, PATH=LO:HI:STEP or PATH=a,b,c\n",
               args_.param);
    return false;
  }
  path_ = pv->first;
  // The syntax of sweep's --vary (analysis::sweep_values): LO:HI, LO:HI:STEP or a list, searched
  // in the order given.
  std::string error;
  values_ = analysis::sweep_values(pv->second, error);
  if (values_.size() < 2) {
    fmt::print(
        stderr, "t9ksim size: --param {}: {}\n", args_.param,
        error.empty() ? "expected at least two values: LO:HI, LO:HI:STEP or a list a,b,c" : error);
    return false;
  }
  if (args_.targets.empty()) {
    fmt::print(stderr,
               "t9ksim size: give at least one --target, e.g. --target 'queue=production wait_p90 "
               "< 1h'\n");
    return false;
  }
  auto targets = parse_targets("size", args_.targets);
  if (!targets) return false;
  targets_ = std::move(*targets);
  lo_.max_jobs = args_.max_jobs;
  if (!args_.scenario.empty()) lo_.base_dir = fs::path(args_.scenario).parent_path().string();
  inputs_ = {file_};
  return true;
}

int SizeSearch::prepare(std::size_t i) {
  std::vector<std::string> assignments = args_.sets;
  assignments.push_back(path_ + "=" + values_[i]);
  std::vector<scenarios::Diagnostic> errors;
  std::string t = scenarios::apply_sets(text_, assignments, errors);
  if (!errors.empty()) {
    for (const auto& d : errors) fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
    return kExitUsage;
  }
  const auto loaded =
      scenarios::parse_scenario(t, fmt::format("{} at {}={}", file_, path_, values_[i]), lo_);
  if (!loaded.ok()) {
    for (const auto& d :
         scenarios::point_at_sources(loaded.diagnostics, t, sources_of(file_, text_))) {
      fmt::print(stderr, "{}\n", scenarios::format_diagnostic(d));
    }
    return kExitUsage;
  }
  inputs_.insert(inputs_.end(), loaded.files.begin(), loaded.files.end());
  if (!seed_) {
    if (!targets_fit("size", args_.targets, *loaded.scenario)) return kExitUsage;
    seed_ = loaded.scenario->seed;
    reps_ = args_.replications.value_or(
        static_cast<std::uint64_t>(std::max(1, loaded.scenario->replications)));
  } else if (*seed_ != loaded.scenario->seed) {
    fmt::print(stderr,
               "t9ksim size: {} changes spec.seed; values are compared on common random numbers\n",
               path_);
    return kExitUsage;
  }
  texts_[i] = std::move(t);
  return kExitOk;
}

int SizeSearch::load_ends() {
  for (const std::size_t i : {std::size_t{0}, values_.size() - 1}) {
    if (const int rc = prepare(i); rc != kExitOk) return rc;
  }
  if (reps_ == 0) {
    fmt::print(stderr, "t9ksim size: --replications must be at least 1\n");
    return kExitUsage;
  }
  return kExitOk;
}

std::optional<int> SizeSearch::evaluate(std::size_t i, const fs::path& out) {
  if (done_.count(i)) return std::nullopt;
  if (!texts_.count(i)) {
    if (const int rc = prepare(i); rc != kExitOk) return rc;
  }
  Evaluation e;
  e.value = values_[i];
  e.dir = out / fmt::format("value-{}", values_[i]);
  std::vector<BatchRun> runs;
  try {
    fs::create_directories(e.dir);
    analysis::write_file_atomic(e.dir / "scenario.yaml", texts_.at(i));
  } catch (const std::exception& ex) {
    fmt::print(stderr, "t9ksim: error: {}\n", ex.what());
    return kExitError;
  }
  for (std::uint64_t r = 0; r < reps_; ++r) {
    e.rep_dirs.push_back(e.dir / fmt::format("rep-{}", r));
    runs.push_back({e.dir.filename().string(), &texts_.at(i), r, e.rep_dirs.back()});
  }
  if (const int rc =
          run_batch(runs, args_.run_one, args_.scenario, args_.threads, "size", args_.quiet);
      rc != kExitOk) {
    return rc;
  }
  e.summary = analysis::write_replication_summary(e.dir, e.rep_dirs);
  for (const auto& t : targets_) e.checks.push_back(analysis::check_target(t, e.summary));
  if (!args_.quiet) {
    fmt::print("  {}={}: {}\n", path_, e.value,
               e.met() ? "meets every target" : "does not meet every target");
    for (std::size_t k = 0; k < targets_.size(); ++k)
      fmt::print("    {}\n", analysis::describe_check(targets_[k], e.checks[k]));
    std::fflush(stdout);
  }
  order_.push_back(i);
  done_.emplace(i, std::move(e));
  return std::nullopt;
}

std::optional<int> SizeSearch::bisect(const fs::path& out) {
  const std::size_t last = values_.size() - 1;
  easy_ = args_.largest ? 0 : last;
  hard_ = args_.largest ? last : 0;
  if (auto rc = evaluate(easy_, out)) return rc;
  if (!met(easy_)) return std::nullopt;
  if (auto rc = evaluate(hard_, out)) return rc;
  if (met(hard_)) {
    answer_ = hard_;
    return std::nullopt;
  }
  std::size_t pass = easy_, fail = hard_;
  while (pass > fail ? pass - fail > 1 : fail - pass > 1) {
    const std::size_t mid = (pass + fail) / 2;
    if (auto rc = evaluate(mid, out)) return rc;
    (met(mid) ? pass : fail) = mid;
  }
  answer_ = pass;
  neighbour_ = fail;
  return std::nullopt;
}

analysis::GoalSummary SizeSearch::goal() const {
  analysis::GoalSummary goal;
  goal.parameter = path_;
  goal.direction = args_.largest ? "largest" : "smallest";
  goal.targets = args_.targets;
  for (const std::size_t i : order_) goal.search_path.emplace_back(values_[i], done_.at(i).met());
  if (answer_) {
    goal.answer = values_[*answer_];
    if (neighbour_) goal.neighbour = values_[*neighbour_];
    const auto& a = done_.at(*answer_);
    for (std::size_t k = 0; k < targets_.size(); ++k) {
      goal.findings.push_back(fmt::format("at {}={}: {}", path_, a.value,
                                          analysis::describe_check(targets_[k], a.checks[k])));
    }
    if (neighbour_) {
      const auto& b = done_.at(*neighbour_);
      for (std::size_t k = 0; k < targets_.size(); ++k) {
        goal.findings.push_back(fmt::format("at {}={} (just {}): {}", path_, b.value,
                                            args_.largest ? "above" : "below",
                                            analysis::describe_check(targets_[k], b.checks[k])));
        if (!b.checks[k].met) {
          goal.findings.push_back(
              fmt::format("at {}={}: {}", path_, b.value,
                          analysis::binding_constraint(targets_[k], b.summary)));
        }
      }
    }
    for (const auto& [i, e] : done_) {
      const bool beyond = args_.largest ? i < *answer_ : i > *answer_;
      if (beyond && !e.met()) {
        goal.findings.push_back(
            fmt::format("{}={} beyond the answer does not meet every target: the targets are not "
                        "monotone in {} here (noise, or a real effect); use more replications",
                        path_, e.value, path_));
      }
    }
  } else {
    const auto& e = done_.at(easy_);
    goal.findings.push_back(fmt::format("no value of {} in {}..{} meets every target; at {}={}:",
                                        path_, values_.front(), values_.back(), path_, e.value));
    for (std::size_t k = 0; k < targets_.size(); ++k) {
      goal.findings.push_back(analysis::describe_check(targets_[k], e.checks[k]));
      if (e.checks[k].present && !e.checks[k].met)
        goal.findings.push_back(analysis::binding_constraint(targets_[k], e.summary));
    }
  }
  return goal;
}

int SizeSearch::write(analysis::ResultFolder& folder, const analysis::GoalSummary& goal) const {
  const fs::path out = folder.path();
  const fs::path shown(args_.out_dir);
  try {
    std::vector<std::pair<std::vector<std::string>, std::vector<fs::path>>> points;
    for (const auto& [i, e] : done_)
      points.emplace_back(std::vector<std::string>{e.value}, e.rep_dirs);
    analysis::write_sweep_summary(out, {path_}, points, goal);
    if (args_.report) analysis::write_report(out);
    folder.commit();
    if (!args_.quiet) {
      if (answer_) {
        fmt::print("answer: {}={}\n", path_, values_[*answer_]);
      } else {
        fmt::print("answer: none in {}..{}\n", values_.front(), values_.back());
      }
      for (const auto& f : goal.findings) fmt::print("  - {}\n", f);
      fmt::print("{}\n", (shown / "summary.json").string());
      if (args_.report) fmt::print("{}\n", (shown / "report.html").string());
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return kExitError;
  }
  return kExitOk;
}

int SizeSearch::run() {
  analysis::ResultFolder folder(args_.out_dir, {"size", analysis::kSummaryMarker, inputs_});
  if (!args_.quiet) {
    fmt::print("size: the {} {} in {}..{} that meets {} ({} replications per value, seed {})\n",
               args_.largest ? "largest" : "smallest", path_, values_.front(), values_.back(),
               fmt::join(args_.targets, " and "), reps_, *seed_);
  }
  if (auto rc = bisect(folder.path())) return *rc;
  return write(folder, goal());
}

}  // namespace

int size_command(const SizeArgs& args) {
  const auto input = read_scenario_arg(args.scenario);
  if (!input) return kExitUsage;
  SizeSearch search(args, input->first, input->second);
  if (!search.parse()) return kExitUsage;
  if (const int rc = search.load_ends(); rc != kExitOk) return rc;
  return search.run();
}

void add_size_command(Commands& c) {
  auto args = std::make_shared<SizeArgs>();
  auto plugins = std::make_shared<PluginOptions>();
  auto* size = c.add(
      "size",
      "Goal seeking: the smallest (or largest) value of one scenario field that meets targets, by "
      "bisection with replications on common random numbers; says what binds when none does");
  size->add_option("SCENARIO", args->scenario,
                   "Scenario file (default: the embedded default scenario)");
  size->add_option("--param", args->param,
                   "PATH=LO:HI, PATH=LO:HI:STEP or PATH=a,b,c (as sweep's --vary), e.g. "
                   "cluster.nodePools[name=h100].count=32:96")
      ->required();
  size->add_option("--target", args->targets,
                   "[GROUP=VALUE] METRIC OP THRESHOLD, e.g. 'queue=production wait_p90 < 1h' or "
                   "'utilisation_allocated > 0.7'; repeatable (all must hold)")
      ->required()
      ->allow_extra_args(false);
  size->add_flag("--largest", args->largest,
                 "The largest value that meets the targets (default: the smallest)");
  add_set_option(size, args->sets);
  size->add_option("-o,--out", args->out_dir, "Results directory")->capture_default_str();
  size->add_option("-r,--replications", args->replications,
                   "Replications per value (default: the scenario's spec.replications)")
      ->transform(replications_number());
  size->add_option("-j,--threads", args->threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(threads_number());
  size->add_flag("!--no-report", args->report, "Do not write report.html");
  add_max_jobs_option(size, args->max_jobs);
  size->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
  plugins->add_to(size);
  c.on(size, [args, plugins] {
    runs::RunOneOptions base;
    base.overrides = args->sets;
    if (!plugins->runner("size", args->run_one, {}, base)) return runs::kExitUsage;
    return size_command(*args);
  });
}

}  // namespace t9k::app
