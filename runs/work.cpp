#include "runs/work.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/goal.hpp"
#include "analysis/intervals.hpp"
#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report.hpp"
#include "analysis/units.hpp"
#include "runs/batch.hpp"
#include "runs/exit_codes.hpp"

namespace t9k::runs {

namespace fs = std::filesystem;

const char* to_string(Finish f) {
  switch (f) {
    case Finish::Single:
      return "single";
    case Finish::Replications:
      return "replications";
    case Finish::Comparison:
      return "comparison";
    case Finish::Sweep:
      return "sweep";
  }
  return "single";
}

std::optional<Finish> parse_finish(const std::string& s) {
  for (const Finish f : {Finish::Single, Finish::Replications, Finish::Comparison, Finish::Sweep}) {
    if (s == to_string(f)) return f;
  }
  return std::nullopt;
}

namespace {

fs::path unit_dir(const fs::path& root, const WorkUnit& u) {
  return u.dir.empty() ? root : root / fs::path(u.dir);
}

std::vector<fs::path> group_dirs(const Work& w, const fs::path& root, const WorkGroup& g) {
  std::vector<fs::path> dirs;
  for (const auto i : g.units) dirs.push_back(unit_dir(root, w.units[i]));
  return dirs;
}

}  // namespace

void write_work_files(const Work& w, const fs::path& dir) {
  for (const auto& [rel, bytes] : w.files) {
    const fs::path file = dir / fs::path(rel);
    fs::create_directories(file.parent_path());
    analysis::write_file_atomic(file, bytes);
  }
}

namespace {

// A failed command keeps its plugins' logs (docs/plugins.md: always in OUT/plugins/): the folder
// is committed holding them only. False when there are none.
bool keep_plugin_logs(const Work& w, analysis::ResultFolder& folder, Finished& f) {
  const fs::path out = folder.path();
  std::vector<fs::path> logs;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && it->path().parent_path().filename() == "plugins")
      logs.push_back(it->path().lexically_relative(out));
  }
  if (logs.empty()) return false;
  std::string hidden = ".";  // appended, not concatenated: GCC 12's -Wrestrict misfires on that
  hidden += out.filename().string();
  hidden += ".logs";
  const fs::path kept = out.parent_path() / hidden;
  fs::remove_all(kept, ec);
  for (const auto& rel : logs) {
    fs::create_directories((kept / rel).parent_path());
    fs::rename(out / rel, kept / rel);
  }
  // Everything else of the failed runs goes; the logs take their places.
  for (const auto& e : fs::directory_iterator(out)) fs::remove_all(e.path());
  for (const auto& e : fs::directory_iterator(kept))
    fs::rename(e.path(), out / e.path().filename());
  fs::remove_all(kept, ec);
  folder.commit_listing(w.command + " (failed: the plugin logs only)");
  f.committed = true;
  f.logs_only = true;
  return true;
}

}  // namespace

Finished finish_work(const Work& w, analysis::ResultFolder& folder, const std::vector<int>& codes,
                     const ExtraFiles& extra) {
  Finished f;
  const fs::path out = folder.path();
  int worst = kExitOk;
  for (const int c : codes) worst = std::max(worst, c);
  f.rc = worst;
  try {
    switch (w.finish) {
      case Finish::Single:
        // A run that stopped before its outputs (bad input, a crash) leaves the target as it was;
        // one that ran but failed a check or an invariant is kept, so the user can see why.
        if (worst != kExitOk && worst != kExitError) return f;
        if (!fs::exists(out / analysis::kSummaryMarker)) {
          keep_plugin_logs(w, folder, f);
          return f;
        }
        if (worst == kExitOk && extra) extra(out);
        if (worst == kExitOk && w.report) analysis::write_report(out);
        break;
      case Finish::Replications:
        if (worst == kExitUsage) return f;
        if (worst != kExitOk && keep_plugin_logs(w, folder, f)) return f;
        f.replications =
            analysis::write_replication_summary(out, group_dirs(w, out, w.groups.front()));
        if (worst == kExitOk && extra) extra(out);
        if (w.report) analysis::write_report(out);
        break;
      case Finish::Comparison: {
        if (worst != kExitOk) {
          if (worst == kExitError) keep_plugin_logs(w, folder, f);
          return f;
        }
        std::vector<std::pair<std::string, std::vector<fs::path>>> dirs;
        std::map<std::string, analysis::Overlay> overlays;
        for (const auto& g : w.groups) {
          dirs.emplace_back(g.name, group_dirs(w, out, g));
          if (!g.overlay.file.empty()) overlays[g.name] = g.overlay;
        }
        f.comparison = analysis::write_comparison_summary(out, dirs, overlays);
        analysis::write_report(out);
        break;
      }
      case Finish::Sweep: {
        if (worst != kExitOk) {
          if (worst == kExitError) keep_plugin_logs(w, folder, f);
          return f;
        }
        std::vector<std::pair<std::vector<std::string>, std::vector<fs::path>>> points;
        for (const auto& g : w.groups) points.emplace_back(g.values, group_dirs(w, out, g));
        f.sweep = analysis::write_sweep_summary(out, w.parameters, points, std::nullopt, w.targets,
                                                w.minimise, w.zipped, w.aliases);
        if (w.report) analysis::write_report(out);
        break;
      }
    }
    folder.commit();
    f.committed = true;
  } catch (const analysis::OutputError&) {
    throw;
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    f.rc = kExitError;
  }
  return f;
}

Finished execute_work(const Work& w, const std::string& out_dir, const RunOne& run_one,
                      unsigned threads, bool quiet, const ExtraFiles& extra) {
  analysis::ResultFolder folder(out_dir, {w.command, analysis::kSummaryMarker, w.inputs});
  const fs::path out = folder.path();
  try {
    write_work_files(w, out);
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    Finished f;
    f.rc = kExitError;
    return f;
  }
  std::vector<int> codes;
  if (w.finish == Finish::Single) {
    // One run, on this thread: its own progress and closing lines are run_one's.
    const auto& u = w.units.front();
    codes.push_back(run_one(w.texts[u.text], w.scenario_file, u.replication,
                            unit_dir(out, u).string(), u.label));
  } else {
    std::vector<BatchRun> runs;
    for (const auto& u : w.units)
      runs.push_back({u.label, &w.texts[u.text], u.replication, unit_dir(out, u)});
    const int worst = run_batch(runs, run_one, w.scenario_file, threads, w.command.c_str(), quiet);
    // run_batch reports the worst code; every unit's own is only needed for Single.
    codes.assign(w.units.size(), kExitOk);
    if (!codes.empty()) codes.front() = worst;
  }
  return finish_work(w, folder, codes, extra);
}

namespace {

// A metric's mean and 95 % half-width in its unit: durations (names ending in _s), shares
// (utilisation, goodput), counts and GPU-hours.
void print_interval(const std::string& name, const analysis::Interval& iv) {
  if (!name.starts_with("gpu_hours")) {
    fmt::print("  {:<28} {}\n", name, analysis::metric_interval_text(name, iv, "95 % CI"));
    return;
  }
  const double hw = iv.has_interval() ? iv.half_width : 0.0;
  const auto value = [&](double v) { return analysis::format_number(v, hw) + " GPU-h"; };
  fmt::print("  {:<28} {}\n", name, analysis::interval_text(name, iv, value, "95 % CI"));
}

// The cluster's and each queue's p90 wait over every replication's jobs together (the
// planner's "p90 over the weeks", analysis/pooled.hpp), under the intervals.
void print_pooled(const analysis::ReplicationSummary& s) {
  if (s.pooled.empty()) return;
  fmt::print("  pooled over the {} replications' {} jobs:\n", s.runs.size(),
             analysis::format_count(static_cast<double>(s.pooled_jobs)));
  const std::string queue = std::string(analysis::kGroupQueue) + "/";
  for (const auto& [m, v] : s.pooled) {
    if (m == "pooled_wait_p90_s" || (m.starts_with(queue) && m.ends_with("/pooled_wait_p90_s")))
      fmt::print("  {:<28} {}\n", m, analysis::format_metric(m, v));
  }
}

void print_targets(const analysis::ReplicationSummary& s, const std::string& who);

// Replications: the headline intervals, each queue's p90 wait, the pooled p90s and the targets.
void print_replications(const analysis::ReplicationSummary& summary) {
  fmt::print("{} replications of {} (seed {}):\n", summary.runs.size(), summary.scenario,
             summary.runs.front().seed);
  for (const char* m : {"jobs_succeeded", "wait_p90_s", "jct_p50_s", "utilization_allocated",
                        "goodput", "gpu_hours_lost_fault"}) {
    const auto it = summary.metrics.find(m);
    if (it != summary.metrics.end()) print_interval(m, it->second.interval);
  }
  // Each queue's p90 wait beside the cluster's.
  for (const auto& [m, ms] : summary.metrics) {
    if (!m.starts_with(std::string(analysis::kGroupQueue) + "/") || !m.ends_with("/wait_p90_s"))
      continue;
    print_interval(m, ms.interval);
  }
  print_pooled(summary);
  print_targets(summary, "");
}

// The command's --target (kept in the runs' summaries) checked over these replications, one line
// each saying which form it is checked in.
void print_targets(const analysis::ReplicationSummary& s, const std::string& who) {
  if (s.runs.empty()) return;
  for (const auto& t : analysis::parse_stored_targets(s.runs.front().setup.targets)) {
    fmt::print("  {}target {}\n    {}\n", who, t.text,
               analysis::describe_check(t, analysis::check_target(t, s)));
  }
}

}  // namespace

void print_finished(const Work& w, const Finished& f, const std::string& shown) {
  const fs::path where(shown);
  if (f.logs_only) {
    fmt::print(stderr, "t9ksim: the plugin logs are in {} (the run's outputs were not written)\n",
               shown);
    return;
  }
  switch (w.finish) {
    case Finish::Single:
      if (!f.committed) return;
      if (f.rc == kExitOk && fs::exists(where / "summary.json")) {
        print_targets(analysis::summarize_replications({analysis::load_run_summary(where)}), "");
      }
      if (f.rc == kExitOk && w.report) fmt::print("report: {}\n", (where / "report.html").string());
      fmt::print("results in {}\n", shown);
      break;
    case Finish::Replications: {
      if (!f.replications) return;
      print_replications(*f.replications);
      if (f.rc == kExitOk && w.report) fmt::print("report: {}\n", (where / "report.html").string());
      fmt::print("results in {}\n", shown);
      break;
    }
    case Finish::Comparison: {
      if (!f.comparison) return;
      const auto& c = *f.comparison;
      const auto& base = c.variants.front();
      // The headline differences; the report and summary.json have every metric.
      fmt::print("compare: {} variants x {} replications (seed {}), common random numbers\n",
                 c.variants.size(), base.replications.runs.size(),
                 base.replications.runs.front().seed);
      for (const auto& v : c.variants) {
        if (v.vs_base.empty()) continue;
        std::vector<std::string> names{"wait_mean_s", "jct_mean_s", "utilization_allocated",
                                       "goodput"};
        // Each queue's p90 wait: a change can help one queue and starve another.
        for (const auto& [m, _] : v.vs_base) {
          if (m.starts_with(std::string(analysis::kGroupQueue) + "/") && m.ends_with("/wait_p90_s"))
            names.push_back(m);
        }
        for (const auto& m : names) {
          const auto it = v.vs_base.find(m);
          if (it == v.vs_base.end()) continue;
          const auto& d = it->second.difference;
          fmt::print("  {} - {}: {} {}{}{}\n", v.name, base.name, m, d.mean > 0 ? "+" : "",
                     analysis::metric_difference_text(m, d),
                     it->second.significant ? " (significant at 95 %)" : "");
        }
      }
      for (const auto& v : c.variants) print_targets(v.replications, v.name + ": ");
      fmt::print("{}\n{}\n", (where / "summary.json").string(), (where / "report.html").string());
      break;
    }
    case Finish::Sweep: {
      if (!f.sweep) return;
      const auto& s = *f.sweep;
      const auto& first = s.points.front().replications;
      fmt::print("sweep: {} points x {} replications (seed {}), common random numbers\n",
                 s.points.size(), first.runs.size(), first.runs.front().seed);
      // Points by short labels, each named once in full (issue 48: nine lines that look alike).
      const std::vector<std::string> labels = analysis::parameter_labels(s);
      for (std::size_t k = 0; k < s.parameters.size(); ++k) {
        if (labels[k] != s.parameters[k])
          fmt::print("parameter: {} = {}\n", labels[k], s.parameters[k]);
      }
      const std::vector<analysis::Target> targets = analysis::parse_stored_targets(s.targets);
      for (const auto& t : targets) {
        fmt::print("target: {} ({})\n", t.text,
                   t.runs_share ? "the share of runs meeting the bound" : "the mean over runs");
      }
      // One line per point: the cluster's p90 wait and utilisation, then each queue's p90 wait.
      for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto& m = s.points[i].replications.metrics;
        const auto show = [&](const std::string& name) {
          const auto it = m.find(name);
          if (it == m.end()) return std::string("–");
          return analysis::metric_interval_text(name, it->second.interval);
        };
        std::vector<std::string> vals;
        for (std::size_t k = 0; k < s.parameters.size(); ++k)
          vals.push_back(labels[k] + "=" + s.points[i].values[k]);
        fmt::print("  point-{} {}: wait p90 {}, utilisation {}", i, fmt::join(vals, " "),
                   show("wait_p90_s"), show("utilization_allocated"));
        for (const auto& [name, _] : m) {
          const auto mn = analysis::split_metric_name(name);
          if (mn.group == analysis::kGroupQueue && mn.metric == "wait_p90_s") {
            fmt::print("; {} p90 {}", mn.value, show(name));
          }
        }
        if (!targets.empty()) {
          std::size_t met = 0;
          for (const auto& t : targets) {
            const auto c = analysis::check_target(t, s.points[i].replications);
            met += c.present && c.met;
          }
          if (met == targets.size()) {
            fmt::print("; every target met");
          } else {
            fmt::print("; {} of {} targets met", met, targets.size());
          }
        }
        fmt::print("\n");
      }
      if (!s.minimise.empty()) {
        if (const auto c = analysis::chosen_point(s)) {
          const auto& m = s.points[*c].replications.metrics.at(s.minimise);
          std::vector<std::string> at;
          for (std::size_t k = 0; k < labels.size(); ++k)
            at.push_back(labels[k] + "=" + s.points[*c].values[k]);
          fmt::print("chosen: point-{} {}: the smallest {} ({}){}\n", *c, fmt::join(at, " "),
                     s.minimise, analysis::metric_interval_text(s.minimise, m.interval),
                     targets.empty() ? "" : " of the points meeting every target");
        } else {
          fmt::print("chosen: none: {}\n", targets.empty()
                                               ? "no point has " + s.minimise
                                               : std::string("no point meets every target"));
        }
      }
      fmt::print("{}\n{}\n", (where / "sweep.csv").string(), (where / "summary.json").string());
      if (w.report) fmt::print("{}\n", (where / "report.html").string());
      break;
    }
  }
  std::fflush(stdout);
}

}  // namespace t9k::runs
