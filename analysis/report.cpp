#include "analysis/report.hpp"

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

#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report_assets.hpp"
#include "analysis/statistics.hpp"
#include "analysis/sweep.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ---- metric names and formatting ----

struct MetricInfo {
  const char* name;
  const char* label;
};

// Headline order; metrics not listed follow in name order.
constexpr MetricInfo kMetrics[] = {
    {"jobs_submitted", "jobs submitted"},
    {"jobs_succeeded", "jobs succeeded"},
    {"jobs_failed", "jobs failed"},
    {"jobs_rejected", "jobs rejected"},
    {"jobs_unfinished", "jobs unfinished at the horizon"},
    {"jobs_never_started", "jobs that never started"},
    {"quota_share_used",
     "share of the queue's GPU quota used (allocated GPU-time / quota × horizon)"},
    {"waiting_hours", "hours with jobs of the queue waiting"},
    {"quota_share_while_waiting",
     "share of the quota held while jobs waited (≈1: the quota binds)"},
    {"utilization_while_waiting",
     "cluster allocated while the queue's jobs waited (≈1: capacity binds)"},
    {"job_hours_pending_quota", "job-hours waiting: queue at its quota"},
    {"job_hours_pending_capacity", "job-hours waiting: no node with room"},
    {"job_hours_pending_constraints",
     "job-hours waiting: every node excluded (not ready, selectors)"},
    {"job_hours_pending_preempting", "job-hours waiting: preempting, victims terminating"},
    {"job_hours_pending_queue_order", "job-hours waiting: behind a blocked job (strict FIFO)"},
    {"job_hours_pending_gang_members", "job-hours waiting: gang short of minMember pods"},
    {"wait_mean_s", "wait, mean (jobs that started)"},
    {"wait_p50_s", "wait, median (never-started jobs censored)"},
    {"wait_p90_s", "wait, p90 (never-started jobs censored)"},
    {"wait_p99_s", "wait, p99 (never-started jobs censored)"},
    {"jct_mean_s", "JCT, mean"},
    {"jct_p50_s", "JCT, median"},
    {"jct_p90_s", "JCT, p90"},
    {"slowdown_mean", "slowdown, mean"},
    {"utilization_allocated", "GPU utilisation, allocated"},
    {"utilization_productive", "GPU utilisation, productive"},
    {"goodput", "goodput (productive / allocated)"},
    {"steady_utilization_allocated", "steady-state utilisation, allocated (after MSER-5 warm-up)"},
    {"steady_utilization_productive", "steady-state utilisation, productive"},
    {"steady_pending_jobs", "steady-state pending jobs"},
    {"steady_fairness_jain", "Jain's fairness index over queues (steady state)"},
    {"warmup_s", "warm-up dropped by MSER-5"},
    {"gpu_hours_installed", "GPU-hours installed (= down + capacity)"},
    {"gpu_hours_down", "GPU-hours of capacity down (faults, drains; by cause below)"},
    {"gpu_hours_capacity", "GPU-hours, capacity (ready nodes; = unallocated + allocated)"},
    {"gpu_hours_unallocated", "GPU-hours, ready but unallocated"},
    {"gpu_hours_allocated", "GPU-hours, allocated (= productive + lost + idle)"},
    {"gpu_hours_productive", "GPU-hours, productive"},
    {"gpu_hours_idle", "GPU-hours, allocated but idle"},
    {"gpu_hours_lost_fault", "GPU-hours lost to faults"},
    {"gpu_hours_lost_software", "GPU-hours lost to software failures"},
    {"gpu_hours_lost_preemption", "GPU-hours lost to preemption"},
    {"gpu_hours_lost_scale", "GPU-hours lost to elastic rescaling"},
    {"gpu_hours_lost_pause", "GPU-hours lost to pauses"},
    {"gpu_hours_lost_maxDuration", "GPU-hours lost to maxDuration"},
    {"gpu_hours_lost_other", "GPU-hours lost, other"},
};

// The metrics the side-by-side and paired-difference charts show (those present).
constexpr const char* kCompareMetrics[] = {
    "wait_mean_s",
    "wait_p90_s",
    "jct_mean_s",
    "slowdown_mean",
    "utilization_allocated",
    "utilization_productive",
    "goodput",
    "gpu_hours_lost_fault",
    "jobs_succeeded",
};

constexpr const char* kLossCauses[] = {"fault", "software",    "preemption", "scale",
                                       "pause", "maxDuration", "other"};

std::string label_of(const std::string& metric) {
  for (const auto& m : kMetrics) {
    if (metric == m.name) return m.label;
  }
  if (metric.starts_with("gpu_hours_down_"))
    return "GPU-hours of capacity down: " + metric.substr(15);
  return metric;
}

// The metrics of one group value ("" group: the cluster-wide ones), without their prefix, in
// headline order.
std::vector<std::string> ordered_metrics(const ReportInput& in, const std::string& prefix = "") {
  std::set<std::string> all;
  for (const auto& v : in.variants) {
    for (const auto& [k, _] : v.replications.metrics) {
      if (prefix.empty() ? k.find('/') == std::string::npos : k.starts_with(prefix))
        all.insert(k.substr(prefix.size()));
    }
  }
  std::vector<std::string> out;
  for (const auto& m : kMetrics) {
    if (all.erase(m.name)) out.emplace_back(m.name);
  }
  out.insert(out.end(), all.begin(), all.end());
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "–";
  if (v == std::floor(v) && std::fabs(v) < 1e9) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

// A metric's value in the unit a reader expects: durations in s/min/h/d, shares as percentages,
// counts with thousands separators; the interval's half-width in the same unit.
std::string metric_value(const std::string& metric, const Interval& i) {
  const std::string base =
      metric.substr(metric.rfind('/') == std::string::npos ? 0 : metric.rfind('/') + 1);
  const bool duration = base.ends_with("_s");
  const bool share = base.starts_with("utilization") || base.starts_with("steady_utilization") ||
                     base == "goodput" || base.starts_with("quota_share");
  const auto f = [&](double v) {
    if (!std::isfinite(v)) return std::string("–");
    if (duration) return format_duration_s(v);
    if (share) return format_percent(v);
    if (v == std::floor(v) && std::fabs(v) < 1e15) return format_count(v);
    return std::fabs(v) >= 1000 ? format_count(std::round(v)) : fmt::format("{:.4g}", v);
  };
  if (!i.has_interval()) return f(i.mean);
  const double hw = i.half_width < 1e-9 * std::max(1.0, std::fabs(i.mean)) ? 0.0 : i.half_width;
  return fmt::format("{} ± {}", f(i.mean), f(hw));
}

double metric_mean(const ReportVariant& v, const std::string& name) {
  const auto it = v.replications.metrics.find(name);
  return it == v.replications.metrics.end() ? 0.0 : it->second.interval.mean;
}

std::string queue_label(std::string_view q) {
  return q.empty() ? std::string("(default scheduler)") : std::string(q);
}

// ---- chart data from the run tables ----

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

// Pending causes as timeseries.csv and summary.json spell them, with the words the report uses.
struct CauseInfo {
  const char* column;  // timeseries.csv pending_<column>, summary.json job_hours_pending_<column>
  const char* name;    // jobs.csv pending_cause
  const char* label;
};
constexpr CauseInfo kCauses[] = {
    {"quota", "Quota", "queue at its quota"},
    {"capacity", "Capacity", "no node with room"},
    {"constraints", "Constraints", "every node excluded"},
    {"preempting", "Preempting", "preempting, victims terminating"},
    {"queue_order", "QueueOrder", "behind a blocked job (strict FIFO)"},
    {"gang_members", "GangMembers", "gang short of minMember pods"},
};

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

// Empirical CDFs computed here rather than in the browser (a trace replay has 10^5 jobs): per
// variant and group value, the fraction of jobs with a value <= x, at most kCdfPoints points
// (evenly spaced in fraction; every point when there are fewer jobs).
constexpr std::size_t kCdfPoints = 200;

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

// ---- Vega-Lite specs ----

json tip(const char* field, const char* type, const char* title = nullptr,
         const char* format = nullptr) {
  json t = {{"field", field}, {"type", type}};
  if (title) t["title"] = title;
  if (format) t["format"] = format;
  return t;
}

json base_spec(json values) {
  return {{"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
          {"width", "container"},
          {"height", 260},
          {"data", {{"values", std::move(values)}}}};
}

// A chart that says there is nothing to draw, so every chart still shows something.
json empty_spec(const std::string& message) {
  json s = base_spec(json::array({{{"message", message}}}));
  s["height"] = 60;
  s["mark"] = {{"type", "text"}, {"fontSize", 14}, {"tooltip", true}};
  s["encoding"] = {{"text", {{"field", "message"}, {"type", "nominal"}}}};
  return s;
}

struct Chart {
  std::string title;
  std::string question;
  json spec;
};

json cdf_view(json rows, const char* group, const char* value_title, bool by_variant) {
  json v;
  v["width"] = 360;
  v["height"] = 240;
  v["data"] = {{"values", std::move(rows)}};
  v["mark"] = {{"type", "line"},
               {"interpolate", "step-after"},
               {"point", {{"size", 20}}},
               {"tooltip", true}};
  v["encoding"] = {
      {"x", {{"field", "x"}, {"type", "quantitative"}, {"title", value_title}}},
      {"y",
       {{"field", "fraction"},
        {"type", "quantitative"},
        {"title", "fraction of jobs"},
        {"axis", {{"format", "%"}}}}},
      {"color", {{"field", "group"}, {"type", "nominal"}, {"title", group}}},
      {"tooltip", json::array({tip("group", "nominal", group), tip("variant", "nominal"),
                               tip("x", "quantitative", value_title, ".3f"),
                               tip("fraction", "quantitative", "fraction ≤", ".1%"),
                               tip("jobs", "quantitative", "jobs")})}};
  if (by_variant) v["encoding"]["strokeDash"] = {{"field", "variant"}, {"type", "nominal"}};
  return v;
}

std::vector<Chart> build_charts(const ReportInput& in) {
  const bool cmp = in.kind == ReportKind::Comparison;
  std::vector<Chart> charts;
  auto variant_dash = [&](json& enc) {
    if (cmp) enc["strokeDash"] = {{"field", "variant"}, {"type", "nominal"}, {"title", "variant"}};
  };
  const char* sample_note =
      in.kind == ReportKind::Run ? "" : " (first replication of each variant)";

  // `t9ksim replay-check` (docs/traces.md "Recorded versus simulated"): per measure, one point
  // per job, recorded against simulated, with the diagonal where they agree.
  if (in.kind == ReportKind::Run && !in.variants.empty() &&
      !in.variants.front().sample.replay_check.rows.empty()) {
    const CsvTable& t = in.variants.front().sample.replay_check;
    struct Measure {
      const char* column;  // recorded_<column>_s, simulated_<column>_s
      const char* title;
      const char* unit;
      double seconds;  // per unit
      const char* question;
      const char* empty;
    };
    const Measure measures[] = {
        {"end", "Recorded versus simulated: when jobs ended", "h since the first submission", 3600,
         "Does the simulator reproduce this cluster? Each finished job's end as the cluster "
         "recorded it against the "
         "replay's: points on the dashed diagonal agree, above it the simulation ends later "
         "(replay-check.csv has every job).",
         "No job ended both in the export and in the replay"},
        {"wait", "Recorded versus simulated: how long jobs waited", "min", 60,
         "Each job's wait (creation to its first pod running) as recorded against the replay's, "
         "for the jobs whose "
         "start the export records exactly (pods or status.startTime).",
         "No exact recorded start: export the pods before the jobs' cleanup removes them"},
    };
    // The page stays small for a large export: at most kMaxPoints jobs per chart, every k-th.
    constexpr std::size_t kMaxPoints = 1000;
    for (const auto& m : measures) {
      std::vector<std::size_t> both;
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        if (t.number(i, std::string("recorded_") + m.column + "_s") &&
            t.number(i, std::string("simulated_") + m.column + "_s")) {
          both.push_back(i);
        }
      }
      const std::size_t stride = (both.size() + kMaxPoints - 1) / kMaxPoints;
      json points = json::array();
      double top = 0;
      for (std::size_t k = 0; k < both.size(); k += std::max<std::size_t>(stride, 1)) {
        const std::size_t i = both[k];
        const double rec = *t.number(i, std::string("recorded_") + m.column + "_s");
        const double sim = *t.number(i, std::string("simulated_") + m.column + "_s");
        top = std::max({top, rec / m.seconds, sim / m.seconds});
        points.push_back({{"job", std::string(t.field(i, "job"))},
                          {"recorded", rec / m.seconds},
                          {"simulated", sim / m.seconds},
                          {"error_s", sim - rec}});
      }
      std::string question = m.question;
      if (stride > 1)
        question += fmt::format(" Every {}th of {} jobs is drawn.", stride, both.size());
      json s = points.empty() ? empty_spec(m.empty) : base_spec(json::array());
      if (!points.empty()) {
        s.erase("data");
        s["height"] = 300;
        const json x = {{"field", "recorded"},
                        {"type", "quantitative"},
                        {"title", fmt::format("recorded ({})", m.unit)}};
        const json y = {{"field", "simulated"},
                        {"type", "quantitative"},
                        {"title", fmt::format("simulated ({})", m.unit)}};
        s["layer"] = json::array(
            {{{"data",
               {{"values", json::array({{{"recorded", 0}, {"simulated", 0}},
                                        {{"recorded", top}, {"simulated", top}}})}}},
              {"mark", {{"type", "line"}, {"color", "#888"}, {"strokeDash", {4, 4}}}},
              {"encoding", {{"x", x}, {"y", y}}}},
             {{"data", {{"values", std::move(points)}}},
              {"mark", {{"type", "point"}, {"filled", true}, {"size", 50}, {"tooltip", true}}},
              {"encoding",
               {{"x", x},
                {"y", y},
                {"tooltip",
                 json::array(
                     {tip("job", "nominal"), tip("recorded", "quantitative", "recorded", ".3f"),
                      tip("simulated", "quantitative", "simulated", ".3f"),
                      tip("error_s", "quantitative", "simulated − recorded (s)", ".1f")})}}}}});
      }
      charts.push_back({m.title, question, std::move(s)});
    }
  }

  {  // GPUs over time
    json rows = series_rows(in);
    json s = rows.empty() ? empty_spec("No time series in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s["mark"] = {{"type", "line"},
                   {"interpolate", "step-after"},
                   {"point", {{"size", 12}, {"opacity", 0.4}}},
                   {"tooltip", true}};
      s["encoding"] = {
          {"x", {{"field", "time_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
          {"y", {{"field", "gpus"}, {"type", "quantitative"}, {"title", "GPUs (bucket average)"}}},
          {"color",
           {{"field", "measure"},
            {"type", "nominal"},
            {"title", "GPUs"},
            {"scale", {{"domain", {"capacity", "allocated", "productive"}}}}}},
          {"tooltip", json::array({tip("variant", "nominal"), tip("measure", "nominal"),
                                   tip("time_h", "quantitative", "time (h)", ".2f"),
                                   tip("gpus", "quantitative", "GPUs", ".2f")})}};
      variant_dash(s["encoding"]);
    }
    charts.push_back(
        {"Allocated and productive GPUs over time",
         std::string(
             "How much of the cluster is handed out, and how much of that does useful training? "
             "The gap between capacity and allocated is idle capacity; between allocated and "
             "productive, overheads and lost work") +
             sample_note + ".",
         std::move(s)});
  }
  {  // pending jobs per queue
    json rows = pending_rows(in);
    json s = rows.empty() ? empty_spec("No queues in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s["mark"] = {{"type", "line"},
                   {"interpolate", "step-after"},
                   {"point", {{"size", 12}, {"opacity", 0.4}}},
                   {"tooltip", true}};
      s["encoding"] = {
          {"x", {{"field", "time_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
          {"y",
           {{"field", "pending"},
            {"type", "quantitative"},
            {"title", "pending jobs (bucket average)"}}},
          {"color", {{"field", "queue"}, {"type", "nominal"}, {"title", "queue"}}},
          {"tooltip", json::array({tip("variant", "nominal"), tip("queue", "nominal"),
                                   tip("time_h", "quantitative", "time (h)", ".2f"),
                                   tip("pending", "quantitative", "pending", ".2f"),
                                   tip("running", "quantitative", "running", ".2f")})}};
      variant_dash(s["encoding"]);
    }
    charts.push_back({"Pending jobs per queue over time",
                      "Which queues build a backlog, when, and does it drain?", std::move(s)});
  }
  {  // why jobs waited, per queue over time
    json rows = pending_cause_rows(in);
    json s = rows.empty() ? empty_spec("No job waited for the scheduler in this run")
                          : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      json domain = json::array(),
           range = json::array({"#d62728", "#1f77b4", "#9467bd", "#ff7f0e", "#8c564b", "#7f7f7f"});
      for (const auto& c : kCauses) domain.push_back(c.label);
      s.erase("width");
      s.erase("height");
      s["spec"] = {
          {"width", cmp ? 420 : 860},
          {"height", 90},
          {"mark", {{"type", "bar"}, {"tooltip", true}}},
          {"encoding",
           {{"x",
             {{"field", "time_h"},
              {"type", "ordinal"},
              {"title", "period start (h)"},
              {"axis", {{"format", ".0f"}, {"labelOverlap", true}, {"labelAngle", 0}}}}},
            {"y",
             {{"field", "jobs"},
              {"type", "quantitative"},
              {"stack", true},
              {"title", "waiting jobs"}}},
            {"color",
             {{"field", "cause"},
              {"type", "nominal"},
              {"title", "why they wait"},
              {"scale", {{"domain", domain}, {"range", range}}},
              {"legend", {{"labelLimit", 320}, {"orient", "bottom"}, {"columns", 3}}}}},
            {"tooltip",
             json::array({tip("variant", "nominal"), tip("queue", "nominal"),
                          tip("cause", "nominal"), tip("time_h", "quantitative", "from (h)", ".1f"),
                          tip("jobs", "quantitative", "waiting jobs (average)", ".2f")})}}}};
      s["facet"] = {{"row", {{"field", "queue"}, {"type", "nominal"}, {"title", nullptr}}}};
      if (cmp)
        s["facet"]["column"] = {{"field", "variant"}, {"type", "nominal"}, {"title", "variant"}};
      s["resolve"] = {{"scale", {{"y", "independent"}}}};
    }
    charts.push_back(
        {"Why jobs waited, per queue over time",
         std::string("Was it nodes or quota? Jobs waiting with none of their pods placed, by the "
                     "scheduler's last reason (bar height: average waiting jobs over the period)") +
             sample_note + ".",
         std::move(s)});
  }
  auto cdf_chart = [&](const char* column, const char* title, const char* question,
                       const char* axis) {
    json by_queue = cdf_rows(in, column, "queue");
    json s;
    if (by_queue.empty()) {
      s = empty_spec(std::string("No job has a ") + title + " in this run");
    } else {
      s = base_spec(json::array());
      s.erase("data");
      s.erase("width");
      s.erase("height");
      s["hconcat"] = json::array({cdf_view(std::move(by_queue), "queue", axis, cmp),
                                  cdf_view(cdf_rows(in, column, "kind"), "kind", axis, cmp)});
      s["resolve"] = {{"scale", {{"color", "independent"}}}};
    }
    charts.push_back(
        {std::string(title) + " CDF by queue and by job kind", question, std::move(s)});
  };
  cdf_chart("wait_s", "Wait time",
            "How long do jobs wait until all their pods first run, per queue and per job kind? "
            "Read the p90 where a curve crosses 90 %.",
            "wait (h)");
  cdf_chart(
      "jct_s", "JCT",
      "How long from submission to completion, for finished jobs, per queue and per job kind?",
      "job completion time (h)");
  {  // GPU-hours breakdown
    json s = base_spec(gpu_hour_rows(in));
    s["height"] = 50 + 30 * static_cast<int>(in.variants.size());
    s["mark"] = {{"type", "bar"}, {"tooltip", true}};
    s["encoding"] = {
        {"y", {{"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}}},
        {"x",
         {{"field", "gpu_hours"},
          {"type", "quantitative"},
          {"title",
           in.kind == ReportKind::Run ? "GPU-hours" : "GPU-hours (mean over replications)"},
          {"stack", "zero"}}},
        {"color",
         {{"field", "category"},
          {"type", "nominal"},
          {"title", "where GPU-hours went"},
          {"sort", {{"field", "order"}}}}},
        {"order", {{"field", "order"}, {"type", "quantitative"}}},
        {"tooltip", json::array({tip("variant", "nominal"), tip("category", "nominal"),
                                 tip("gpu_hours", "quantitative", "GPU-hours", ".2f")})}};
    charts.push_back({"GPU-hours: productive, lost by cause, idle",
                      "Where did the capacity go: kept training progress, progress lost (by "
                      "cause), allocated but "
                      "idle (start-up, restarts, checkpoint writes), ready but never allocated, or "
                      "down (faults, by "
                      "cause)? The bar adds up to the installed GPU-hours.",
                      std::move(s)});
  }
  {  // restarts and backoff
    json rows = restart_rows(in);
    json s = rows.empty() ? empty_spec("No jobs in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s.erase("width");
      s["mark"] = {{"type", "bar"}, {"tooltip", true}};
      s["encoding"] = {
          {"column", {{"field", "measure"}, {"type", "nominal"}, {"title", nullptr}}},
          {"x", {{"field", "value"}, {"type", "ordinal"}, {"title", "count per job"}}},
          {"y", {{"field", "jobs"}, {"type", "quantitative"}, {"title", "jobs"}}},
          {"color", {{"field", "variant"}, {"type", "nominal"}}},
          {"xOffset", {{"field", "variant"}, {"type", "nominal"}}},
          {"tooltip", json::array({tip("variant", "nominal"), tip("measure", "nominal"),
                                   tip("value", "quantitative", "count per job"),
                                   tip("jobs", "quantitative", "jobs")})}};
      s["height"] = 220;
    }
    charts.push_back(
        {"Restarts and backoff per job",
         std::string("How many jobs restart, and how often? restarts sums the tasks' restartCount; "
                     "backoffCount is the job's failure count toward backoffLimit") +
             sample_note + ".",
         std::move(s)});
  }
  {  // fault timeline
    json rows = fault_rows(in);
    json s;
    if (rows.empty()) {
      s = empty_spec("No faults in this run");
    } else {
      std::set<std::string> nodes;
      for (const auto& r : rows) nodes.insert(r["node"].get<std::string>());
      s = base_spec(std::move(rows));
      s["height"] = std::min(600, 40 + 14 * static_cast<int>(nodes.size()));
      s["mark"] = {{"type", "bar"}, {"tooltip", true}, {"minBandWidth", 2}};
      s["encoding"] = {
          {"y", {{"field", "node"}, {"type", "nominal"}, {"title", "node"}}},
          {"x", {{"field", "start_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
          {"x2", {{"field", "end_h"}}},
          {"color", {{"field", "cause"}, {"type", "nominal"}, {"title", "cause"}}},
          {"tooltip",
           json::array({tip("variant", "nominal"), tip("node", "nominal"), tip("cause", "nominal"),
                        tip("start_h", "quantitative", "down at (h)", ".2f"),
                        tip("end_h", "quantitative", "back at (h)", ".2f"),
                        tip("hours", "quantitative", "hours down", ".2f"),
                        tip("repaired", "nominal", "repaired before the horizon")})}};
      if (cmp) s["encoding"]["yOffset"] = {{"field", "variant"}, {"type", "nominal"}};
    }
    charts.push_back({"Fault timeline",
                      "When did which nodes go down, for what cause, and for how long? A GPU fault "
                      "leaves its node up "
                      "with one GPU fewer; it shows here for the time the GPU is out.",
                      std::move(s)});
  }
  {  // fairness
    json rows = fairness_rows(in);
    json s = rows.empty() ? empty_spec("No time series in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s["height"] = 180;
      s["mark"] = {{"type", "line"},
                   {"interpolate", "step-after"},
                   {"point", {{"size", 12}, {"opacity", 0.4}}},
                   {"tooltip", true}};
      s["encoding"] = {
          {"x", {{"field", "time_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
          {"y",
           {{"field", "jain"},
            {"type", "quantitative"},
            {"title", "Jain's index"},
            {"scale", {{"domain", {0, 1}}}}}},
          {"color", {{"field", "variant"}, {"type", "nominal"}}},
          {"tooltip",
           json::array({tip("variant", "nominal"), tip("time_h", "quantitative", "time (h)", ".2f"),
                        tip("jain", "quantitative", "Jain's index", ".3f"),
                        tip("queues", "quantitative", "queues with work")})}};
    }
    charts.push_back({"Fairness between queues over time",
                      "Do the queues with work get similar numbers of GPUs? Jain's index over the "
                      "allocated GPUs of "
                      "queues that have work: 1 is equal, 1/n is one queue holding everything "
                      "(unweighted by quota).",
                      std::move(s)});
  }
  if (cmp) {
    {
      json s = base_spec(comparison_rows(in, false));
      s.erase("width");
      s.erase("height");
      s["facet"] = {
          {"field", "metric"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
      s["columns"] = 3;
      s["resolve"] = {{"scale", {{"y", "independent"}}}};
      json enc_x = {
          {"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
      s["spec"] = {
          {"width", 200},
          {"height", 150},
          {"layer",
           json::array(
               {{{"mark", {{"type", "bar"}, {"tooltip", true}}},
                 {"encoding",
                  {{"x", enc_x},
                   {"y", {{"field", "mean"}, {"type", "quantitative"}, {"title", "mean"}}},
                   {"color", {{"field", "variant"}, {"type", "nominal"}, {"sort", nullptr}}},
                   {"tooltip", json::array({tip("metric", "nominal"), tip("variant", "nominal"),
                                            tip("mean", "quantitative", "mean", ".4g"),
                                            tip("lower", "quantitative", "95 % CI low", ".4g"),
                                            tip("upper", "quantitative", "95 % CI high", ".4g"),
                                            tip("n", "quantitative", "replications")})}}}},
                {{"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
                 {"encoding",
                  {{"x", enc_x},
                   {"y", {{"field", "lower"}, {"type", "quantitative"}}},
                   {"y2", {{"field", "upper"}}}}}}})}};
      charts.push_back({"Variants side by side",
                        "Each metric per variant: the bar is the mean over replications, the line "
                        "its 95 % Student-t "
                        "interval, clipped at 0 (every metric here is non-negative).",
                        std::move(s)});
    }
    {
      json rows = comparison_rows(in, true);
      json s = rows.empty() ? empty_spec("No variant to compare with the base")
                            : base_spec(std::move(rows));
      if (!s.contains("mark")) {
        s.erase("width");
        s.erase("height");
        s["facet"] = {
            {"field", "metric"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
        s["columns"] = 3;
        s["resolve"] = {{"scale", {{"x", "independent"}}}};
        json enc_y = {
            {"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
        s["spec"] = {
            {"width", 200},
            {"height", 40 + 25 * static_cast<int>(in.variants.size() - 1)},
            {"layer",
             json::array(
                 {{{"mark", {{"type", "rule"}, {"color", "#888"}, {"strokeDash", {4, 4}}}},
                   {"encoding", {{"x", {{"datum", 0}, {"type", "quantitative"}}}}}},
                  {{"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
                   {"encoding",
                    {{"y", enc_y},
                     {"x",
                      {{"field", "lower"}, {"type", "quantitative"}, {"title", "variant − base"}}},
                     {"x2", {{"field", "upper"}}},
                     {"color",
                      {{"field", "significant"}, {"type", "nominal"}, {"title", nullptr}}}}}},
                  {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"tooltip", true}}},
                   {"encoding",
                    {{"y", enc_y},
                     {"x", {{"field", "difference"}, {"type", "quantitative"}}},
                     {"color", {{"field", "significant"}, {"type", "nominal"}, {"title", nullptr}}},
                     {"tooltip",
                      json::array({tip("metric", "nominal"), tip("variant", "nominal"),
                                   tip("difference", "quantitative", "mean difference", ".4g"),
                                   tip("lower", "quantitative", "95 % CI low", ".4g"),
                                   tip("upper", "quantitative", "95 % CI high", ".4g"),
                                   tip("significant", "nominal", "paired t"),
                                   tip("n", "quantitative", "pairs")})}}}}})}};
      }
      charts.push_back(
          {"Paired differences against the base",
           "Variant minus base, replication by replication on common random numbers, with the 95 % "
           "paired-t interval: an interval clear of the dashed zero line is a significant "
           "difference.",
           std::move(s)});
    }
  }
  return charts;
}

// ---- HTML ----

// Rows of a metric table: a metric (full name and label) or a heading spanning the row.
struct TableRow {
  std::string metric;  // empty: a heading
  std::string label;
};

// Paired-t two-sided p-value of a difference (1 without spread or pairs).
double p_value(const PairedDifference& d) {
  const Interval& i = d.difference;
  if (i.n < 2 || !(i.stddev > 0)) return i.mean == 0 || i.n < 2 ? 1.0 : 0.0;
  const double t = std::fabs(i.mean) / (i.stddev / std::sqrt(static_cast<double>(i.n)));
  return 2 * (1 - student_t_cdf(t, static_cast<double>(i.n - 1)));
}

// Holm's step-down correction over one table's metrics (the family): the differences still
// significant at 95 % when that many are tested at once.
std::set<std::string> holm_significant(const std::map<std::string, PairedDifference>& diffs,
                                       const std::vector<TableRow>& family) {
  std::vector<std::pair<double, std::string>> ps;
  for (const auto& row : family) {
    if (row.metric.empty()) continue;
    const auto it = diffs.find(row.metric);
    if (it != diffs.end()) ps.emplace_back(p_value(it->second), row.metric);
  }
  std::sort(ps.begin(), ps.end());
  std::set<std::string> out;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].first > (1 - kConfidence) / static_cast<double>(ps.size() - i)) break;
    out.insert(ps[i].second);
  }
  return out;
}

// A comparison of more than kWideVariants variants gets one column per variant (mean and change
// against the base; the intervals in the cell's tooltip), so six variants fit a laptop screen.
constexpr std::size_t kWideVariants = 3;

std::string compact_metric_table(const ReportInput& in, const std::vector<TableRow>& rows) {
  std::string h =
      "<div class=\"wide\"><table class=\"headline compact\"><thead><tr><th>metric</th>";
  for (std::size_t k = 0; k < in.variants.size(); ++k) {
    const auto& v = in.variants[k];
    h += fmt::format("<th>{}<br><span class=\"sub\">{}</span></th>", html_escape(v.name),
                     k == 0 ? fmt::format("mean ± 95 % CI (n={})", v.replications.runs.size())
                            : std::string("mean; change vs base"));
  }
  h += "</tr></thead><tbody>\n";
  std::vector<std::set<std::string>> significant(in.variants.size());
  for (std::size_t k = 1; k < in.variants.size(); ++k)
    significant[k] = holm_significant(in.variants[k].vs_base, rows);
  for (const auto& row : rows) {
    if (row.metric.empty()) {
      h += fmt::format("<tr class=\"group\"><th colspan=\"{}\">{}</th></tr>\n",
                       in.variants.size() + 1, html_escape(row.label));
      continue;
    }
    const std::string& m = row.metric;
    h += fmt::format("<tr><td title=\"{}\">{}</td>", html_escape(m), html_escape(row.label));
    const auto& base = in.variants[0].replications.metrics;
    const auto b = base.find(m);
    h += "<td class=\"num\">" +
         (b == base.end() ? std::string("–") : html_escape(metric_value(m, b->second.interval))) +
         "</td>";
    for (std::size_t k = 1; k < in.variants.size(); ++k) {
      const auto& v = in.variants[k];
      const auto it = v.replications.metrics.find(m);
      const auto d = v.vs_base.find(m);
      if (it == v.replications.metrics.end()) {
        h += "<td class=\"num\">–</td>";
        continue;
      }
      Interval mean_only = it->second.interval;
      mean_only.half_width = std::nan("");
      std::string change, tip = metric_value(m, it->second.interval);
      if (d != v.vs_base.end()) {
        const double base_mean = b == base.end() ? 0 : b->second.interval.mean;
        change =
            base_mean != 0
                ? fmt::format("{:+.1f} %", 100 * d->second.difference.mean / std::fabs(base_mean))
                : metric_value(m, Interval{d->second.difference.mean, 0, std::nan(""), 1});
        tip += "; difference " + metric_value(m, d->second.difference);
      }
      const bool sig = significant[k].count(m) > 0;
      if (sig) tip += "; significant at 95 % after Holm's correction";
      h += fmt::format("<td class=\"num{}\" title=\"{}\">{}<br><span class=\"sub\">{}</span></td>",
                       sig ? " sig" : "", html_escape(tip), html_escape(metric_value(m, mean_only)),
                       html_escape(change));
    }
    h += "</tr>\n";
  }
  return h + "</tbody></table></div>\n";
}

std::string metric_table(const ReportInput& in, const std::vector<TableRow>& rows) {
  if (in.kind == ReportKind::Comparison && in.variants.size() > kWideVariants)
    return compact_metric_table(in, rows);
  std::string h = "<table class=\"headline\"><thead><tr><th>metric</th>";
  const bool run = in.kind == ReportKind::Run;
  std::size_t columns = 1;
  for (std::size_t k = 0; k < in.variants.size(); ++k) {
    const auto& v = in.variants[k];
    if (run) {
      h += "<th>value</th>";
    } else {
      h += fmt::format("<th>{}<br><span class=\"sub\">mean ± 95 % CI (n={})</span></th>",
                       html_escape(v.name), v.replications.runs.size());
    }
    ++columns;
    if (k > 0) {
      h += fmt::format("<th>{} − {}<br><span class=\"sub\">paired, 95 % CI (% of base)</span></th>",
                       html_escape(v.name), html_escape(in.variants[0].name));
      ++columns;
    }
  }
  h += "</tr></thead><tbody>\n";
  std::vector<std::set<std::string>> significant(in.variants.size());
  for (std::size_t k = 1; k < in.variants.size(); ++k)
    significant[k] = holm_significant(in.variants[k].vs_base, rows);
  for (const auto& row : rows) {
    if (row.metric.empty()) {
      h += fmt::format("<tr class=\"group\"><th colspan=\"{}\">{}</th></tr>\n", columns,
                       html_escape(row.label));
      continue;
    }
    const std::string& m = row.metric;
    h += fmt::format("<tr><td title=\"{}\">{}</td>", html_escape(m), html_escape(row.label));
    for (std::size_t k = 0; k < in.variants.size(); ++k) {
      const auto& v = in.variants[k];
      const auto it = v.replications.metrics.find(m);
      h +=
          "<td class=\"num\">" +
          (it == v.replications.metrics.end() ? std::string("–")
                                              : html_escape(metric_value(m, it->second.interval))) +
          "</td>";
      if (k > 0) {
        const auto d = v.vs_base.find(m);
        if (d == v.vs_base.end()) {
          h += "<td class=\"num\">–</td>";
        } else {
          const bool sig = significant[k].count(m) > 0;
          const auto base = in.variants[0].replications.metrics.find(m);
          const double base_mean =
              base == in.variants[0].replications.metrics.end() ? 0 : base->second.interval.mean;
          const std::string change =
              base_mean != 0 && std::isfinite(d->second.difference.mean)
                  ? fmt::format(" ({:+.1f} %)",
                                100 * d->second.difference.mean / std::fabs(base_mean))
                  : std::string();
          h += fmt::format("<td class=\"num{}\">{}{}{}</td>", sig ? " sig" : "",
                           html_escape(metric_value(m, d->second.difference)), html_escape(change),
                           sig ? " <span class=\"flag\">significant</span>" : "");
        }
      }
    }
    h += "</tr>\n";
  }
  h += "</tbody></table>\n";
  return h;
}

std::string headline_table(const ReportInput& in) {
  std::vector<TableRow> rows;
  for (const auto& m : ordered_metrics(in)) rows.push_back({m, label_of(m)});
  return metric_table(in, rows);
}

// What makes the figures misleading on their own: runs' own warnings (a fault profile with no
// fault), a warm-up that takes more than a third of the horizon, intervals from fewer than 5
// replications.
std::string warnings_block(const ReportInput& in) {
  std::vector<std::string> warnings;
  std::set<std::string> seen;
  for (const auto& v : in.variants) {
    std::size_t without = 0;
    std::string first;
    for (const auto& r : v.replications.runs) {
      for (const auto& w : r.warnings) {
        if (first.empty()) first = w;
        ++without;
      }
    }
    if (without > 0 && seen.insert(v.name + "\n" + first).second) {
      warnings.push_back(
          in.variants.size() > 1
              ? fmt::format("{}: {} ({} of {} runs)", v.name, first, without,
                            v.replications.runs.size())
              : fmt::format("{} ({} of {} runs)", first, without, v.replications.runs.size()));
    }
    const auto warm = v.replications.metrics.find("warmup_s");
    if (warm != v.replications.metrics.end() && !v.replications.runs.empty()) {
      const double horizon = v.replications.runs.front().horizon_s;
      if (horizon > 0 && warm->second.interval.mean > horizon / 3) {
        warnings.push_back(
            fmt::format("{}the warm-up MSER-5 detects is {} of the {} horizon: the steady-state "
                        "figures rest on the last part of "
                        "the run only; simulate longer",
                        in.variants.size() > 1 ? v.name + ": " : "",
                        format_duration_s(warm->second.interval.mean), format_duration_s(horizon)));
      }
    }
  }
  const std::size_t n = in.variants.front().replications.runs.size();
  if (in.kind != ReportKind::Run && n < 5) {
    warnings.push_back(
        fmt::format("{} replications: the 95 % intervals are wide (Student-t with {} degrees of "
                    "freedom); 5 or more give useful ones",
                    n, n - 1));
  }
  if (warnings.empty()) return "";
  std::string h = "<div class=\"warnings\"><strong>Read with care</strong><ul>\n";
  for (const auto& w : warnings) h += "<li>" + html_escape(w) + "</li>\n";
  return h + "</ul></div>\n";
}

// The values a group has in any variant ("queue" -> production, research), sorted.
std::vector<std::string> group_values(const ReportInput& in, const std::string& group) {
  std::set<std::string> values;
  const std::string head = group + "/";
  for (const auto& v : in.variants) {
    for (const auto& [k, _] : v.replications.metrics) {
      if (!k.starts_with(head)) continue;
      const auto slash = k.find('/', head.size());
      if (slash != std::string::npos) values.insert(k.substr(head.size(), slash - head.size()));
    }
  }
  return {values.begin(), values.end()};
}

// One heading per group value, then its metrics (docs/outputs.md "Metrics by group"). A run or
// replications: one column per value instead, so queues sit side by side.
std::string group_table(const ReportInput& in, const std::string& group,
                        const std::vector<std::string>& values) {
  if (in.kind != ReportKind::Comparison) {
    const auto& v = in.variants.front();
    std::vector<std::string> metrics;
    std::set<std::string> seen;
    for (const auto& value : values) {
      for (const auto& m : ordered_metrics(in, group + "/" + value + "/")) {
        if (seen.insert(m).second) metrics.push_back(m);
      }
    }
    // Headline order across values (ordered_metrics orders within one value).
    std::vector<std::string> ordered;
    for (const auto& info : kMetrics) {
      if (seen.count(info.name)) ordered.emplace_back(info.name);
    }
    for (const auto& m : metrics) {
      if (std::find(ordered.begin(), ordered.end(), m) == ordered.end()) ordered.push_back(m);
    }
    // Many queues (a trace replay has 15) scroll sideways instead of squeezing the labels.
    std::string h =
        "<div class=\"wide\"><table class=\"headline groups\"><thead><tr><th>metric</th>";
    for (const auto& value : values) {
      h += "<th>" + html_escape(value) +
           (in.kind == ReportKind::Run
                ? std::string()
                : fmt::format("<br><span class=\"sub\">mean ± 95 % CI (n={})</span>",
                              v.replications.runs.size())) +
           "</th>";
    }
    h += "</tr></thead><tbody>\n";
    for (const auto& m : ordered) {
      h += fmt::format("<tr><td title=\"{}\">{}</td>", html_escape(m), html_escape(label_of(m)));
      for (const auto& value : values) {
        const auto it = v.replications.metrics.find(group + "/" + value + "/" + m);
        h += "<td class=\"num\">" +
             (it == v.replications.metrics.end()
                  ? std::string("–")
                  : html_escape(metric_value(m, it->second.interval))) +
             "</td>";
      }
      h += "</tr>\n";
    }
    return h + "</tbody></table></div>\n";
  }
  std::vector<TableRow> rows;
  for (const auto& value : values) {
    const std::string prefix = group + "/" + value + "/";
    rows.push_back({"", group + " " + value});
    for (const auto& m : ordered_metrics(in, prefix)) rows.push_back({prefix + m, label_of(m)});
  }
  return metric_table(in, rows);
}

// A run's folder relative to the report's ("." for a single run); as given when unrelated.
std::string folder_name(const fs::path& dir, const fs::path& root) {
  if (root.empty()) return dir.generic_string();
  std::error_code ec;
  const fs::path rel = fs::relative(dir, root, ec);
  return (ec || rel.empty()) ? dir.generic_string() : rel.generic_string();
}

std::string runs_table(const ReportInput& in) {
  std::string h =
      "<table class=\"runs\"><thead><tr><th>variant</th><th>replication</th><th>seed</th>"
      "<th>fingerprint</th><th>invariants</th><th>directory</th></tr></thead><tbody>\n";
  for (const auto& v : in.variants) {
    for (const auto& r : v.replications.runs) {
      h += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td><td><code>{}</code></td>"
          "<td>{}</td><td><code>{}</code></td></tr>\n",
          html_escape(v.name), r.replication, r.seed, html_escape(r.fingerprint),
          r.invariants_ok ? "ok" : "<strong>violated</strong>",
          html_escape(folder_name(r.dir, in.root)));
    }
  }
  h += "</tbody></table>\n";
  return h;
}

// Per queue and cause: the job-hours waited (summary.json, with its interval), the jobs whose
// last reason it was and the reason of the longest-waiting of them (jobs.csv of the sample run).
std::string pending_reasons_table(const ReportInput& in) {
  const auto& v = in.variants.front();
  const auto& t = v.sample.jobs;
  struct Last {
    int jobs = 0;
    double longest = -1;
    std::string job, reason;
  };
  std::map<std::pair<std::string, std::string>, Last> last;  // (queue, cause) -> jobs
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string cause(t.field(i, "pending_cause"));
    if (cause.empty()) continue;
    Last& l = last[{std::string(t.field(i, "queue")), cause}];
    ++l.jobs;
    const double submit = t.number(i, "submit_s").value_or(0);
    const double waited =
        t.number(i, "wait_s").value_or(t.number(i, "end_s").value_or(v.sample.horizon_s) - submit);
    if (waited > l.longest) {
      l.longest = waited;
      l.job = t.field(i, "job");
      l.reason = t.field(i, "pending_reason");
    }
  }
  std::vector<std::string> queues = group_values(in, kGroupQueue);
  queues.insert(queues.begin(), "");  // the cluster first
  std::string body;
  for (const auto& q : queues) {
    const std::string prefix = q.empty() ? "" : std::string(kGroupQueue) + "/" + q + "/";
    double total = 0;
    for (const auto& c : kCauses)
      total += std::max(0.0, metric_mean(v, prefix + "job_hours_pending_" + c.column));
    if (total <= 0) continue;
    bool first = true;
    for (const auto& c : kCauses) {
      const std::string metric = prefix + "job_hours_pending_" + c.column;
      const auto it = v.replications.metrics.find(metric);
      if (it == v.replications.metrics.end() || it->second.interval.mean <= 0) continue;
      int jobs = 0;
      const Last* example = nullptr;
      for (const auto& [key, l] : last) {
        if (key.second != c.name || (!q.empty() && key.first != q)) continue;
        jobs += l.jobs;
        if (!example || l.longest > example->longest) example = &l;
      }
      body += fmt::format(
          "<tr><td class=\"queue\">{}</td><td>{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"reason\">{}</td></tr>\n",
          first ? html_escape(q.empty() ? std::string("all queues") : q) : "", html_escape(c.label),
          html_escape(metric_value(metric, it->second.interval)),
          html_escape(format_percent(it->second.interval.mean / total)), format_count(jobs),
          example ? "<code>" + html_escape(example->job) + "</code> (waited " +
                        html_escape(format_duration_s(example->longest)) +
                        "): " + html_escape(example->reason)
                  : std::string("–"));
      first = false;
    }
  }
  if (body.empty()) return "<p>No job waited for the scheduler.</p>\n";
  return "<div class=\"wide\"><table class=\"jobs reasons\"><thead><tr><th>queue</th><th>why it "
         "waited</th>"
         "<th>job-hours waiting</th><th>share</th><th>jobs, last reason</th><th>longest wait of "
         "those and its last "
         "reason" +
         std::string(in.kind == ReportKind::Run ? "" : " (first replication)") +
         "</th></tr></thead><tbody>\n" + body + "</tbody></table></div>\n";
}

std::string longest_waits_table(const ReportInput& in) {
  const auto& v = in.variants.front();
  const auto& t = v.sample.jobs;
  std::vector<std::pair<double, std::size_t>> waits;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (const auto w = t.number(i, "wait_s")) waits.emplace_back(*w, i);
  }
  std::stable_sort(waits.begin(), waits.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (waits.size() > 10) waits.resize(10);
  if (waits.empty()) return "<p>No job started running.</p>\n";
  std::string h =
      "<table class=\"jobs\"><thead><tr><th>job</th><th>kind</th><th>queue</th><th>wait (s)</th>"
      "<th>phase</th><th>restarts</th><th>last reason it waited</th></tr></thead><tbody>\n";
  for (const auto& [w, i] : waits) {
    h += fmt::format(
        "<tr><td class=\"job\">{}</td><td>{}</td><td class=\"queue\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td>{}</td><td class=\"num\">{}</td><td class=\"reason\">{}</td></tr>\n",
        html_escape(t.field(i, "job")), html_escape(t.field(i, "kind")),
        html_escape(queue_label(t.field(i, "queue"))), html_escape(num(w)),
        html_escape(t.field(i, "phase")), html_escape(t.field(i, "restarts")),
        html_escape(t.field(i, "pending_reason")));
  }
  h += "</tbody></table>\n";
  return h;
}

// The jobs a run from spec.initialState started with (docs/forecast.md): running ones with their
// recorded nodes and time left, waiting ones in queue order. At most kRows of each.
std::string initial_state_section(const ReportInput& in) {
  if (in.variants.empty() || in.variants.front().sample.initial_state.rows.empty()) return "";
  const CsvTable& t = in.variants.front().sample.initial_state;
  constexpr std::size_t kRows = 20;
  std::vector<std::size_t> running, waiting;
  double running_gpus = 0, waiting_gpus = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const bool r = t.field(i, "state") == "Running";
    (r ? running : waiting).push_back(i);
    (r ? running_gpus : waiting_gpus) += t.number(i, "gpus").value_or(0);
  }
  std::string h = "<h2>Starting state</h2>\n";
  h += fmt::format(
      "<p class=\"q\">Where the run started: the cluster export's jobs at time zero. {} running "
      "job{} "
      "({} GPUs) placed on their recorded nodes, with the time left that the remaining-work model "
      "gave; "
      "{} waiting job{} ({} GPUs) queued in creation order (initial-state.csv has every job; "
      "docs/forecast.md).</p>\n",
      running.size(), running.size() == 1 ? "" : "s", num(running_gpus), waiting.size(),
      waiting.size() == 1 ? "" : "s", num(waiting_gpus));
  const auto table = [&](const std::vector<std::size_t>& rows, bool run) {
    if (rows.empty()) return std::string();
    std::string s = fmt::format(
        "<table class=\"jobs\"><thead><tr><th>{}</th><th>job</th><th>kind</th><th>queue</th>"
        "<th>GPUs</th>{}</tr></thead><tbody>\n",
        run ? "running" : "queue position",
        run ? "<th>ran before time zero (h)</th><th>runs on (h)</th><th>nodes</th>"
            : "<th>run time (h)</th>");
    for (std::size_t k = 0; k < rows.size() && k < kRows; ++k) {
      const std::size_t i = rows[k];
      s += fmt::format(
          "<tr><td class=\"num\">{}</td><td class=\"job\">{}</td><td>{}</td><td "
          "class=\"queue\">{}</td>"
          "<td class=\"num\">{}</td>",
          k + 1, html_escape(t.field(i, "job")), html_escape(t.field(i, "kind")),
          html_escape(queue_label(t.field(i, "queue"))), html_escape(t.field(i, "gpus")));
      const auto hours = [&](const char* col) { return num(t.number(i, col).value_or(0) / 3600); };
      if (run) {
        s +=
            fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                        hours("elapsed_s"), hours("remaining_s"), html_escape(t.field(i, "nodes")));
      } else {
        s += fmt::format("<td class=\"num\">{}</td></tr>\n", hours("remaining_s"));
      }
    }
    s += "</tbody></table>\n";
    if (rows.size() > kRows)
      s += fmt::format("<p class=\"q\">and {} more.</p>\n", rows.size() - kRows);
    return s;
  };
  return h + table(running, true) + table(waiting, false);
}

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px 24px; color: #222; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin: 28px 0 4px; }
p.meta, p.q { color: #555; margin: 4px 0 10px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.sig { background: #fff4d6; }
span.sub { font-weight: normal; color: #666; font-size: 12px; }
span.flag { font-size: 11px; color: #8a5a00; }
section.chart { margin-bottom: 18px; }
div.vis { width: 100%; min-height: 60px; }
div.vis[data-status="error"] { color: #b00; }
details { margin: 8px 0; }
tr.group th { background: #e8eef6; }
div.wide { overflow-x: auto; max-width: 100%; }
table.groups td:first-child, table.compact td:first-child { white-space: nowrap; }
div.warnings { background: #fff4d6; border: 1px solid #e8c36a; padding: 6px 12px; margin: 10px 0; }
div.warnings ul { margin: 4px 0; }
p.answer { font-size: 18px; font-weight: 600; margin: 6px 0; }
p.answer.none { color: #a33; }
td.reason { font-size: 12px; color: #333; min-width: 320px; }
table.reasons td:first-child { white-space: nowrap; font-weight: 600; }
)css";

// Runs after the bundles. Reads the charts from the JSON data element (never from HTML), renders
// each with vega-embed as SVG and records the outcome on the element, so a headless browser can
// wait for data-charts-done and count marks.
constexpr const char* kMainScript = R"js(
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("t9k-data").textContent);
  var options = { renderer: "svg", actions: { export: true, source: false, compiled: false, editor: false } };
  var done = data.charts.map(function (chart, i) {
    var el = document.getElementById("chart-" + i);
    return vegaEmbed(el, chart.spec, options).then(function () {
      el.setAttribute("data-status", "ok");
    }).catch(function (err) {
      el.setAttribute("data-status", "error");
      el.textContent = "This chart could not be drawn: " + err;
      console.error(err);
    });
  });
  Promise.all(done).then(function () { document.body.setAttribute("data-charts-done", "true"); });
})();
)js";

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_safe_json(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < s.size() && s[i + 1] == '\x80' &&
               (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
      out += s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// The end of a page: one section per chart, the inlined bundles, the chart data and the script
// that draws them.
std::string page_end(const std::vector<Chart>& charts, const std::string& data_text) {
  std::string h;
  for (std::size_t i = 0; i < charts.size(); ++i) {
    h += fmt::format(
        "<section class=\"chart\"><h2>{}</h2><p class=\"q\">{}</p><div class=\"vis\" "
        "id=\"chart-{}\" "
        "data-chart=\"{}\"></div></section>\n",
        html_escape(charts[i].title), html_escape(charts[i].question), i, i);
  }
  for (const auto js : {assets::vega_js(), assets::vega_lite_js(), assets::vega_embed_js()}) {
    h += "<script>";
    h += js;
    h += "</script>\n";
  }
  h += "<script type=\"application/json\" id=\"t9k-data\">" + data_text + "</script>\n";
  h += "<script>";
  h += kMainScript;
  h += "</script>\n</body>\n</html>\n";
  return h;
}

}  // namespace

std::string render_report(const ReportInput& in) {
  if (in.variants.empty()) throw std::invalid_argument("report: nothing to report");
  const auto charts = build_charts(in);
  json data;
  data["title"] = in.title;
  data["charts"] = json::array();
  for (const auto& c : charts) data["charts"].push_back({{"title", c.title}, {"spec", c.spec}});
  // Replace invalid UTF-8 (names come from user files) instead of failing the report.
  const std::string data_text =
      script_safe_json(data.dump(-1, ' ', false, json::error_handler_t::replace));

  std::string kind;
  switch (in.kind) {
    case ReportKind::Run:
      kind = "single run";
      break;
    case ReportKind::Replications:
      kind = fmt::format("{} replications", in.variants.front().replications.runs.size());
      break;
    case ReportKind::Comparison:
      kind = fmt::format("comparison of {} variants, {} replications each on common random numbers",
                         in.variants.size(), in.variants.front().replications.runs.size());
      break;
  }
  std::set<std::uint64_t> seeds;
  std::vector<std::uint64_t> reps;
  for (const auto& r : in.variants.front().replications.runs) {
    seeds.insert(r.seed);
    reps.push_back(r.replication);
  }
  const auto& base = in.variants.front().replications;

  std::string h;
  h.reserve(1 << 21);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<meta name=\"generator\" content=\"t9ksim " + html_escape(base.version) + "\">\n";
  h += "<title>t9ksim report: " + html_escape(in.title) + "</title>\n<style>" + kStyle +
       "</style>\n</head>\n<body>\n";
  h += "<h1>t9ksim report: " + html_escape(in.title) + "</h1>\n";
  h += fmt::format(
      "<p class=\"meta\">{} · t9ksim {} · scenario hash <code>{}</code> · seed{} {} · "
      "replication{} {}</p>\n",
      html_escape(kind), html_escape(base.version), html_escape(base.scenario_hash),
      seeds.size() == 1 ? "" : "s", fmt::join(seeds, ", "), reps.size() == 1 ? "" : "s",
      fmt::join(reps, ", "));
  h += warnings_block(in);
  h += initial_state_section(in);
  h += "<h2>Headline metrics</h2>\n";
  h += in.kind == ReportKind::Run
           ? "<p class=\"q\">One run: no interval. Run with replications for 95 % Student-t "
             "intervals.</p>\n"
           : "<p class=\"q\">Mean ± half-width of the 95 % Student-t interval across replications. "
             "Differences are "
             "paired by replication (common random numbers), with the change in % of the base's "
             "mean; highlighted ones "
             "are significant at 95 % after Holm's correction for the number of metrics in their "
             "table (the more "
             "metrics compared, the stronger the evidence each needs).</p>\n";
  if (in.kind == ReportKind::Comparison && in.variants.size() > kWideVariants) {
    h += "<p class=\"q\">With this many variants each shows its mean and its change against the "
         "base; hover a "
         "cell for the 95 % interval and the paired difference.</p>\n";
  }
  h += headline_table(in);
  if (const auto queues = group_values(in, kGroupQueue); !queues.empty()) {
    h += "<h2>By queue</h2>\n<p class=\"q\">Each queue's own figures: the cluster's percentiles "
         "can hide a "
         "starving queue. Waits of jobs that never started count as censored at the horizon.</p>\n";
    h += group_table(in, kGroupQueue, queues);
  }
  h += "<h2>Why jobs waited</h2>\n<p class=\"q\">Was it nodes or quota? While none of a job's pods "
       "was placed, the "
       "scheduler's reason, in the words of Kubernetes' FailedScheduling event; the time before a "
       "job's first "
       "scheduling cycle counts under no cause." +
       std::string(in.kind == ReportKind::Comparison
                       ? " Base variant; the other variants' job-hours are in the "
                         "tables above."
                       : "") +
       "</p>\n" + pending_reasons_table(in);
  if (const auto kinds = group_values(in, kGroupKind); !kinds.empty()) {
    h += "<details><summary>By job kind</summary>\n" + group_table(in, kGroupKind, kinds) +
         "</details>\n";
  }
  if (const auto classes = group_values(in, kGroupClass); !classes.empty()) {
    h += "<details><summary>By generator class</summary>\n" +
         group_table(in, kGroupClass, classes) + "</details>\n";
  }
  h += "<details><summary>Runs (seeds, replications, fingerprints)</summary>\n" + runs_table(in) +
       "</details>\n";
  h += "<details><summary>Longest waits (" + html_escape(in.variants.front().name) +
       ")</summary>\n" + longest_waits_table(in) + "</details>\n";
  return h + page_end(charts, data_text);
}

RunTables load_run_tables(const fs::path& dir) {
  RunTables t;
  auto load = [&](const char* name, CsvTable& out) {
    if (fs::exists(dir / name)) out = parse_csv(read_text_file(dir / name), (dir / name).string());
  };
  load("jobs.csv", t.jobs);
  load("timeseries.csv", t.timeseries);
  load("faults.csv", t.faults);
  load("replay-check.csv", t.replay_check);
  load("initial-state.csv", t.initial_state);
  if (fs::exists(dir / "summary.json")) {
    try {
      t.horizon_s = json::parse(read_text_file(dir / "summary.json")).value("horizon_s", 0.0);
    } catch (const json::exception& e) {
      throw std::runtime_error((dir / "summary.json").string() + ": " + e.what());
    }
  }
  return t;
}

ReportInput load_report_input(const fs::path& dir) {
  const fs::path file = dir / "summary.json";
  if (!fs::exists(file))
    throw std::runtime_error(dir.string() + ": no summary.json (not a results directory)");
  json j;
  try {
    j = json::parse(read_text_file(file));
  } catch (const json::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
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
    } else if (kind == "comparison") {
      in.kind = ReportKind::Comparison;
      std::vector<std::pair<std::string, ReplicationSummary>> sums;
      for (const auto& name : j.at("variant_order")) {
        const std::string n = name.get<std::string>();
        in.variants.push_back(variant_from(n, run_dirs(j.at("variants").at(n))));
        sums.emplace_back(n, in.variants.back().replications);
      }
      const ComparisonSummary c = compare_variants(std::move(sums));
      for (std::size_t k = 0; k < c.variants.size(); ++k)
        in.variants[k].vs_base = c.variants[k].vs_base;
    } else {
      throw std::runtime_error(file.string() + ": unknown kind \"" + kind + "\"");
    }
  } catch (const json::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(dir.string() + ": " + e.what());
  }
  in.title = in.variants.front().replications.scenario;
  return in;
}

namespace {

bool all_numbers(const std::vector<std::string>& texts) {
  for (const auto& t : texts) {
    char* end = nullptr;
    std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) return false;
  }
  return true;
}

// The curves of a sweep: one chart per metric, one line (mean) and band (95 % interval, clipped at
// 0) per scope, against the first parameter; further parameters split the lines.
constexpr MetricInfo kSweepMetrics[] = {
    {"wait_p90_s", "wait, p90 (s)"},
    {"wait_mean_s", "wait, mean (s)"},
    {"jobs_never_started", "jobs that never started"},
    {"jct_mean_s", "JCT, mean (s)"},
    {"utilization_allocated", "GPU utilisation, allocated"},
    {"utilization_productive", "GPU utilisation, productive"},
    {"quota_share_used", "share of the queue's GPU quota used"},
    {"gpu_hours_lost_fault", "GPU-hours lost to faults"},
};

}  // namespace

std::string render_sweep_report(const SweepSummary& s) {
  if (s.points.empty() || s.parameters.empty())
    throw std::invalid_argument("report: the sweep has no points");
  std::vector<std::string> xs;
  for (const auto& p : s.points) xs.push_back(p.values.front());
  const bool numeric_x = all_numbers(xs);
  std::vector<Chart> charts;
  for (const auto& info : kSweepMetrics) {
    json rows = json::array();
    for (const auto& p : s.points) {
      std::string rest;
      for (std::size_t k = 1; k < s.parameters.size(); ++k)
        rest += fmt::format(", {}={}", s.parameters[k], p.values[k]);
      for (const auto& [name, ms] : p.replications.metrics) {
        const MetricName mn = split_metric_name(name);
        if (mn.metric != info.name || (mn.group != "cluster" && mn.group != kGroupQueue)) continue;
        const Interval& iv = ms.interval;
        const std::string scope =
            mn.group == "cluster" ? std::string("cluster") : "queue " + mn.value;
        json r{{"x", numeric_x ? json(std::strtod(p.values.front().c_str(), nullptr))
                               : json(p.values.front())},
               {"line", scope + rest},
               {"mean", iv.mean},
               {"n", iv.n}};
        if (iv.has_interval()) {
          r["low"] = clipped_lower(iv);
          r["high"] = iv.upper();
        } else {
          r["low"] = iv.mean;
          r["high"] = iv.mean;
        }
        rows.push_back(r);
      }
    }
    if (rows.empty()) continue;
    json x{{"field", "x"},
           {"type", numeric_x ? "quantitative" : "ordinal"},
           {"title", s.parameters.front()}};
    if (!numeric_x)
      x["sort"] = nullptr;  // the points' order (durations and names are not sorted as text)
    if (numeric_x) {
      x["scale"] = {{"zero", false}};
      x["axis"] = {{"format", "~g"}};
      const bool integers = std::all_of(xs.begin(), xs.end(), [](const std::string& v) {
        return v.find_first_not_of("-0123456789") == std::string::npos;
      });
      if (integers) x["axis"]["tickMinStep"] = 1;
    }
    const json color{{"field", "line"}, {"type", "nominal"}, {"title", "scope"}};
    const bool share = std::string_view(info.name).starts_with("utilization") ||
                       std::string_view(info.name) == "quota_share_used";
    const json y_axis{{"format", share ? ".0%" : "~s"}};
    json spec{
        {"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
        {"width", "container"},
        {"height", 220},
        {"data", {{"values", rows}}},
        {"encoding", {{"x", x}, {"color", color}}},
        {"layer",
         json::array(
             {{{"mark", {{"type", "errorband"}, {"opacity", 0.2}}},
               {"encoding",
                {{"y",
                  {{"field", "low"},
                   {"type", "quantitative"},
                   {"title", info.label},
                   {"axis", y_axis}}},
                 {"y2", {{"field", "high"}}}}}},
              {{"mark", {{"type", "line"}, {"point", {{"filled", false}, {"size", 60}}}}},
               {"encoding",
                // A queue's line can coincide with the cluster's (one queue): dashes and
                // point shapes differ by scope, so neither hides the other.
                {{"y",
                  {{"field", "mean"},
                   {"type", "quantitative"},
                   {"title", info.label},
                   {"axis", y_axis}}},
                 {"strokeDash", {{"field", "line"}, {"type", "nominal"}, {"title", "scope"}}},
                 {"shape", {{"field", "line"}, {"type", "nominal"}, {"title", "scope"}}},
                 {"tooltip", json::array({tip("line", "nominal", "scope"),
                                          tip("x", numeric_x ? "quantitative" : "ordinal", "value"),
                                          tip("mean", "quantitative", "mean", ".4g"),
                                          tip("low", "quantitative", "95 % CI low", ".4g"),
                                          tip("high", "quantitative", "95 % CI high", ".4g"),
                                          tip("n", "quantitative", "replications")})}}}}})}};
    charts.push_back(
        {info.label,
         fmt::format("Mean over replications against {}, one line per scope; the band is the 95 % "
                     "Student-t interval, clipped at 0.",
                     s.parameters.front()),
         std::move(spec)});
  }

  // The table: one row per point, the headline figures of the cluster and of each queue.
  std::set<std::string> queues;
  for (const auto& p : s.points) {
    for (const auto& [name, _] : p.replications.metrics) {
      const MetricName mn = split_metric_name(name);
      if (mn.group == kGroupQueue) queues.insert(mn.value);
    }
  }
  std::vector<std::pair<std::string, std::string>> columns{
      {"wait_p90_s", "wait p90"}, {"utilization_allocated", "utilisation, allocated"}};
  for (const auto& q : queues) {
    columns.emplace_back(fmt::format("{}/{}/wait_p90_s", kGroupQueue, q), q + ": wait p90");
    columns.emplace_back(fmt::format("{}/{}/jobs_never_started", kGroupQueue, q),
                         q + ": never started");
  }
  std::string table = "<table class=\"headline\"><thead><tr><th>point</th>";
  for (const auto& p : s.parameters) table += "<th>" + html_escape(p) + "</th>";
  for (const auto& [_, label] : columns)
    table += "<th>" + html_escape(label) + "<br><span class=\"sub\">mean ± 95 % CI</span></th>";
  table += "</tr></thead><tbody>\n";
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    table += fmt::format("<tr><td class=\"num\">{}</td>", i);
    for (const auto& v : p.values) table += "<td class=\"num\">" + html_escape(v) + "</td>";
    for (const auto& [metric, _] : columns) {
      const auto it = p.replications.metrics.find(metric);
      std::string cell = "–";
      if (it != p.replications.metrics.end()) {
        const Interval& iv = it->second.interval;
        const bool duration = metric.ends_with("_s");
        const bool share = metric.starts_with("utilization");
        const auto f = [&](double v) {
          return duration ? format_duration_s(v)
                 : share  ? format_percent(v)
                          : format_count(std::round(v * 10) / 10);
        };
        cell = iv.has_interval() ? f(iv.mean) + " ± " + f(iv.half_width) : f(iv.mean);
      }
      table += "<td class=\"num\">" + html_escape(cell) + "</td>";
    }
    table += "</tr>\n";
  }
  table += "</tbody></table>\n";

  json data;
  data["title"] = s.scenario;
  data["charts"] = json::array();
  for (const auto& c : charts) data["charts"].push_back({{"title", c.title}, {"spec", c.spec}});
  const std::string data_text =
      script_safe_json(data.dump(-1, ' ', false, json::error_handler_t::replace));
  const std::size_t reps = s.points.front().replications.runs.size();
  const std::uint64_t seed = s.points.front().replications.runs.empty()
                                 ? 0
                                 : s.points.front().replications.runs.front().seed;

  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<meta name=\"generator\" content=\"t9ksim " + html_escape(s.version) + "\">\n";
  const char* what = s.goal ? "t9ksim size" : "t9ksim sweep";
  h += fmt::format("<title>{}: {}</title>\n<style>{}</style>\n</head>\n<body>\n", what,
                   html_escape(s.scenario), kStyle);
  h += fmt::format("<h1>{}: {}</h1>\n", what, html_escape(s.scenario));
  h += fmt::format(
      "<p class=\"meta\">{} {} over {} {} · {} replication{} per {} on common random numbers "
      "(seed {}) · t9ksim {}</p>\n",
      s.goal ? "goal seeking on" : "sweep of",
      html_escape(fmt::format("{}", fmt::join(s.parameters, " × "))), s.points.size(),
      s.goal ? (s.points.size() == 1 ? "value evaluated" : "values evaluated")
             : (s.points.size() == 1 ? "point" : "points"),
      reps, reps == 1 ? "" : "s", s.goal ? "value" : "point", seed, html_escape(s.version));
  if (reps < 2) {
    h += "<p class=\"q\">One replication per point: no intervals. Run with -r 5 or more for 95 % "
         "intervals.</p>\n";
  }
  if (s.goal) {
    const GoalSummary& g = *s.goal;
    h += "<h2>Goal</h2>\n<p class=\"q\">" +
         html_escape(fmt::format("The {} {} that meets {}", g.direction, g.parameter,
                                 fmt::join(g.targets, " and "))) +
         ":</p>\n";
    h += g.answer ? "<p class=\"answer\">" + html_escape(g.parameter + " = " + *g.answer) + "</p>\n"
                  : std::string(
                        "<p class=\"answer none\">No value in the range meets every target.</p>\n");
    h += "<ul class=\"findings\">\n";
    for (const auto& f : g.findings) h += "<li>" + html_escape(f) + "</li>\n";
    h += "</ul>\n";
  }
  h += "<h2>Points</h2>\n" + table;
  return h + page_end(charts, data_text);
}

fs::path write_report(const fs::path& dir) {
  const fs::path summary = dir / "summary.json";
  bool sweep = false;
  if (fs::exists(summary)) {
    try {
      sweep = json::parse(read_text_file(summary)).value("kind", "") == "sweep";
    } catch (const json::exception&) {
      // load_report_input reports the malformed file.
    }
  }
  if (sweep) {
    const fs::path out = dir / "report.html";
    write_file_atomic(out, render_sweep_report(load_sweep_summary(dir)));
    return out;
  }
  const std::string html = render_report(load_report_input(dir));
  const fs::path out = dir / "report.html";
  write_file_atomic(out, html);
  return out;
}

}  // namespace t9k::analysis
