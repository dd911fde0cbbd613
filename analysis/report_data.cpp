// Chart data from the runs' tables (jobs.csv, timeseries.csv, faults.csv), and reading a results
// folder back (docs/reports.md).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "analysis/detail/report.hpp"
#include "analysis/detail/summary_file.hpp"
#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report_assets.hpp"
#include "analysis/statistics.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace detail {

json series_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.timeseries;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      if (t.field(i, "scope") != "cluster") continue;
      const double th = t.number(i, "time_s").value_or(0) / 3600.0;
      const std::pair<const char*, const char*> measures[] = {{"allocated", "allocated_gpus"},
                                                              {"productive", "productive_gpus"},
                                                              {"capacity", "capacity_gpus"}};
      for (const auto& [label, col] : measures) {
        rows.push_back({{"variant", v.name},
                        {"time_h", th},
                        {"measure", label},
                        {"gpus", t.number(i, col).value_or(0)}});
      }
    }
  }
  return rows;
}

json pending_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.timeseries;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const std::string_view scope = t.field(i, "scope");
      if (scope == "cluster") continue;
      const std::string name =
          scope.starts_with("queue:") ? std::string(scope.substr(6)) : std::string(scope);
      rows.push_back({{"variant", v.name},
                      {"time_h", t.number(i, "time_s").value_or(0) / 3600.0},
                      {"queue", name},
                      {"pending", t.number(i, "pending_jobs").value_or(0)},
                      {"running", t.number(i, "running_jobs").value_or(0)}});
    }
  }
  return rows;
}

// Waiting jobs by cause per queue, averaged over at most 48 periods of the horizon: the stacked
// chart of "why did this queue wait, and when".
json pending_cause_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.timeseries;
    std::map<std::string, std::vector<std::size_t>> by_scope;  // scope -> its rows in time order
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const std::string_view scope = t.field(i, "scope");
      if (scope != "cluster") by_scope[std::string(scope)].push_back(i);
    }
    for (const auto& [scope, idx] : by_scope) {
      const std::string queue = scope.starts_with("queue:") ? scope.substr(6) : scope;
      const std::size_t n = idx.size();
      const std::size_t periods = std::min<std::size_t>(48, n);
      // The causes this queue ever waited under (a queue that never waited gets no row).
      bool seen[std::size(kCauses)] = {};
      bool any = false;
      for (const std::size_t i : idx)
        for (std::size_t k = 0; k < std::size(kCauses); ++k)
          if (t.number(i, std::string("pending_") + kCauses[k].column).value_or(0) > 0)
            seen[k] = any = true;
      if (!any) continue;
      for (std::size_t p = 0; p < periods; ++p) {
        const std::size_t from = p * n / periods, to = (p + 1) * n / periods;
        if (to <= from) continue;
        const double time_h = t.number(idx[from], "time_s").value_or(0) / 3600.0;
        // Every period gets its rows, zeros included, so the bars sit at their place in time.
        for (std::size_t k = 0; k < std::size(kCauses); ++k) {
          if (!seen[k]) continue;
          double sum = 0;
          for (std::size_t i = from; i < to; ++i)
            sum += t.number(idx[i], std::string("pending_") + kCauses[k].column).value_or(0);
          rows.push_back({{"variant", v.name},
                          {"queue", queue_label(queue)},
                          {"time_h", time_h},
                          {"cause", kCauses[k].label},
                          {"jobs", sum / static_cast<double>(to - from)}});
        }
      }
    }
  }
  return rows;
}

json fairness_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.timeseries;
    std::map<double, std::vector<double>> per_time;
    std::set<double> times;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const double time = t.number(i, "time_s").value_or(0);
      times.insert(time);
      if (!t.field(i, "scope").starts_with("queue:")) continue;
      const double a = t.number(i, "allocated_gpus").value_or(0);
      if (a > 0 || t.number(i, "pending_jobs").value_or(0) > 0) per_time[time].push_back(a);
    }
    for (const double time : times) {
      const auto it = per_time.find(time);
      const double j = it == per_time.end() ? 1.0 : jain_fairness(it->second);
      rows.push_back({{"variant", v.name},
                      {"time_h", time / 3600.0},
                      {"jain", j},
                      {"queues", it == per_time.end() ? 0 : it->second.size()}});
    }
  }
  return rows;
}

json cdf_rows(const ReportInput& in, const char* column, const char* group) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.jobs;
    std::map<std::string, std::vector<double>> by_group;
    // Wait CDFs count every job that was not rejected, so a queue whose jobs never started does
    // not reach 100 % (as the censored percentiles say); JCT CDFs are over finished jobs.
    std::map<std::string, std::size_t> extra;
    const bool waits = std::string_view(column) == "wait_s";
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto x = t.number(i, column);
      const std::string g = std::string_view(group) == "queue" ? queue_label(t.field(i, "queue"))
                                                               : std::string(t.field(i, group));
      if (!x) {
        if (waits && t.field(i, "phase") != "Rejected") ++extra[g];
        continue;
      }
      by_group[g].push_back(*x / 3600.0);
    }
    for (auto& [g, xs] : by_group) {
      std::sort(xs.begin(), xs.end());
      const std::size_t n = xs.size();
      const std::size_t total = n + extra[g];
      const std::size_t points = std::min(n, kCdfPoints);
      for (std::size_t k = 1; k <= points; ++k) {
        // The k-th of `points` evenly spaced ranks; ties take the last rank (fraction <= x).
        std::size_t idx = (k * n + points - 1) / points - 1;
        while (idx + 1 < n && xs[idx + 1] == xs[idx]) ++idx;
        if (k > 1 && rows.back().value("x", -1.0) == xs[idx] &&
            rows.back().value("group", "") == g && rows.back().value("variant", "") == v.name) {
          continue;
        }
        rows.push_back({{"variant", v.name},
                        {"group", g},
                        {"x", xs[idx]},
                        {"fraction", static_cast<double>(idx + 1) / static_cast<double>(total)},
                        {"jobs", total}});
      }
    }
  }
  return rows;
}

json gpu_hour_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    int order = 0;
    auto add = [&](const std::string& cat, double h) {
      rows.push_back(
          {{"variant", v.name}, {"category", cat}, {"order", order++}, {"gpu_hours", h}});
    };
    add("productive", metric_mean(v, "gpu_hours_productive"));
    for (const char* cause : kLossCauses)
      add(std::string("lost: ") + cause, metric_mean(v, std::string("gpu_hours_lost_") + cause));
    add("idle (allocated)", metric_mean(v, "gpu_hours_idle"));
    add("unallocated capacity", std::max(0.0, metric_mean(v, "gpu_hours_capacity") -
                                                  metric_mean(v, "gpu_hours_allocated")));
    // Capacity that was down, by cause: the bar then reaches the installed GPU-hours.
    std::set<std::string> down;
    for (const auto& [m, _] : v.replications.metrics) {
      if (m.starts_with("gpu_hours_down_")) down.insert(m.substr(15));
    }
    for (const auto& cause : down) add("down: " + cause, metric_mean(v, "gpu_hours_down_" + cause));
  }
  return rows;
}

json restart_rows(const ReportInput& in) {
  // Counted in C++ so the chart gets one bar per (variant, measure, value).
  std::map<std::tuple<std::string, std::string, double>, int> counts;
  for (const auto& v : in.variants) {
    const auto& t = v.sample.jobs;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      ++counts[{v.name, "restarts", t.number(i, "restarts").value_or(0)}];
      ++counts[{v.name, "backoffCount", t.number(i, "backoff_count").value_or(0)}];
    }
  }
  json rows = json::array();
  for (const auto& [key, n] : counts) {
    rows.push_back({{"variant", std::get<0>(key)},
                    {"measure", std::get<1>(key)},
                    {"value", std::get<2>(key)},
                    {"jobs", n}});
  }
  return rows;
}

json fault_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.faults;
    // A node's down record opens an interval that its next up record closes; the cause is the
    // down record's. Unrepaired faults run to the horizon.
    std::map<std::string, std::vector<std::pair<double, std::string>>> open;
    auto close = [&](const std::string& node, double start, const std::string& cause, double end,
                     bool repaired) {
      rows.push_back({{"variant", v.name},
                      {"node", node},
                      {"cause", cause},
                      {"start_h", start / 3600.0},
                      {"end_h", end / 3600.0},
                      {"hours", (end - start) / 3600.0},
                      {"repaired", repaired}});
    };
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const std::string node(t.field(i, "node"));
      const double time = t.number(i, "time_s").value_or(0);
      if (t.field(i, "state") == "down") {
        open[node].emplace_back(time, std::string(t.field(i, "cause")));
      } else if (!open[node].empty()) {
        const auto [start, cause] = open[node].front();
        open[node].erase(open[node].begin());
        close(node, start, cause, time, true);
      }
    }
    for (const auto& [node, list] : open) {
      for (const auto& [start, cause] : list)
        close(node, start, cause, std::max(start, v.sample.horizon_s), false);
    }
  }
  return rows;
}

json comparison_rows(const ReportInput& in, bool differences) {
  json rows = json::array();
  for (const char* metric : kCompareMetrics) {
    for (std::size_t k = 0; k < in.variants.size(); ++k) {
      const auto& v = in.variants[k];
      if (differences) {
        if (k == 0) continue;
        const auto it = v.vs_base.find(metric);
        if (it == v.vs_base.end()) continue;
        const Interval& d = it->second.difference;
        rows.push_back({{"metric", label_of(metric)},
                        {"variant", v.name},
                        {"difference", d.mean},
                        {"lower", d.has_interval() ? json(d.lower()) : json(nullptr)},
                        {"upper", d.has_interval() ? json(d.upper()) : json(nullptr)},
                        {"n", d.n},
                        {"significant", it->second.significant ? "significant at 95 % (unadjusted)"
                                                               : "not significant (unadjusted)"}});
      } else {
        const auto it = v.replications.metrics.find(metric);
        if (it == v.replications.metrics.end()) continue;
        const Interval& i = it->second.interval;
        rows.push_back(
            {{"metric", label_of(metric)},
             {"variant", v.name},
             {"mean", i.mean},
             // Every metric here is non-negative: the interval is clipped at 0.
             {"lower", i.has_interval() ? json(std::max(0.0, i.lower())) : json(nullptr)},
             {"upper", i.has_interval() ? json(i.upper()) : json(nullptr)},
             {"n", i.n}});
      }
    }
  }
  return rows;
}

}  // namespace detail

using namespace detail;

RunTables load_run_tables(const fs::path& dir) {
  RunTables t;
  auto load = [&](const char* name, CsvTable& out) {
    if (fs::exists(dir / name)) out = parse_csv(read_text_file(dir / name), (dir / name).string());
  };
  load("jobs.csv", t.jobs);
  load("timeseries.csv", t.timeseries);
  load("faults.csv", t.faults);
  load("occupancy.csv", t.occupancy);
  load("replay-check.csv", t.replay_check);
  load("initial-state.csv", t.initial_state);
  if (fs::exists(dir / "summary.json")) {
    const json j = read_summary_file(dir / "summary.json");
    try {
      t.horizon_s = j.value("horizon_s", 0.0);
    } catch (const json::exception& e) {
      bad_summary(dir / "summary.json", json_reason(e));
    }
  }
  return t;
}

namespace {
ReportInput report_input_from(const fs::path& dir, const fs::path& file, const json& j) {
  const std::string kind = j.value("kind", "run");
  auto run_dirs = [&](const json& body) {
    std::vector<fs::path> dirs;
    for (const auto& r : body.at("runs")) dirs.push_back(dir / r.at("dir").get<std::string>());
    if (dirs.empty()) throw std::runtime_error(file.string() + ": lists no runs");
    return dirs;
  };
  auto variant_from = [&](const std::string& name, const std::vector<fs::path>& dirs) {
    ReportVariant v;
    v.name = name;
    std::vector<RunSummary> runs;
    for (const auto& d : dirs) runs.push_back(load_run_summary(d));
    v.replications = summarize_replications(std::move(runs));
    v.sample = load_run_tables(v.replications.runs.front().dir);
    return v;
  };
  ReportInput in;
  in.root = dir;
  try {
    if (kind == "run") {
      in.kind = ReportKind::Run;
      in.variants.push_back(variant_from("run", {dir}));
    } else if (kind == "replications") {
      in.kind = ReportKind::Replications;
      in.variants.push_back(variant_from("replications", run_dirs(j)));
      read_pooled(j, in.variants.back().replications);
    } else if (kind == "comparison") {
      in.kind = ReportKind::Comparison;
      std::vector<std::pair<std::string, ReplicationSummary>> sums;
      for (const auto& name : j.at("variant_order")) {
        const std::string n = name.get<std::string>();
        in.variants.push_back(variant_from(n, run_dirs(j.at("variants").at(n))));
        read_pooled(j.at("variants").at(n), in.variants.back().replications);
        if (j.contains("overlays") && j.at("overlays").contains(n)) {
          const json& o = j.at("overlays").at(n);
          in.variants.back().overlay =
              Overlay{o.at("file").get<std::string>(), o.at("text").get<std::string>()};
        }
        sums.emplace_back(n, in.variants.back().replications);
      }
      const ComparisonSummary c = compare_variants(std::move(sums));
      for (std::size_t k = 0; k < c.variants.size(); ++k)
        in.variants[k].vs_base = c.variants[k].vs_base;
    } else {
      bad_summary(file,
                  fmt::format("found kind \"{}\"; allowed: run, replications or comparison", kind));
    }
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(dir.string() + ": " + e.what());
  }
  in.title = in.variants.front().replications.scenario;
  if (fs::exists(dir / "job-forecast.csv")) {
    in.job_forecast =
        parse_csv(read_text_file(dir / "job-forecast.csv"), (dir / "job-forecast.csv").string());
  }
  return in;
}
}  // namespace

ReportInput load_report_input(const fs::path& dir) {
  const fs::path file = dir / "summary.json";
  if (!fs::exists(file))
    throw std::runtime_error(dir.string() + ": no summary.json (not a results directory)");
  const json j = read_summary_file(file);
  try {
    return report_input_from(dir, file, j);
  } catch (const json::exception& e) {
    bad_summary(file, json_reason(e));
  }
}

}  // namespace t9k::analysis
