#include "analysis/report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/outputs.hpp"
#include "analysis/report_assets.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
    {"wait_mean_s", "wait, mean (s)"},
    {"wait_p50_s", "wait, median (s)"},
    {"wait_p90_s", "wait, p90 (s)"},
    {"wait_p99_s", "wait, p99 (s)"},
    {"jct_mean_s", "JCT, mean (s)"},
    {"jct_p50_s", "JCT, median (s)"},
    {"jct_p90_s", "JCT, p90 (s)"},
    {"slowdown_mean", "slowdown, mean"},
    {"utilization_allocated", "GPU utilisation, allocated"},
    {"utilization_productive", "GPU utilisation, productive"},
    {"goodput", "goodput (productive / allocated)"},
    {"steady_utilization_allocated", "steady-state utilisation, allocated (after MSER-5 warm-up)"},
    {"steady_utilization_productive", "steady-state utilisation, productive"},
    {"steady_pending_jobs", "steady-state pending jobs"},
    {"steady_fairness_jain", "Jain's fairness index over queues (steady state)"},
    {"warmup_s", "warm-up dropped by MSER-5 (s)"},
    {"gpu_hours_capacity", "GPU-hours, capacity"},
    {"gpu_hours_allocated", "GPU-hours, allocated"},
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
    "wait_mean_s",  "wait_p90_s", "jct_mean_s", "slowdown_mean", "utilization_allocated", "utilization_productive",
    "goodput",      "gpu_hours_lost_fault", "jobs_succeeded",
};

constexpr const char* kLossCauses[] = {"fault", "software", "preemption", "scale", "pause", "maxDuration", "other"};

std::string label_of(const std::string& metric) {
  for (const auto& m : kMetrics) {
    if (metric == m.name) return m.label;
  }
  return metric;
}

std::vector<std::string> ordered_metrics(const ReportInput& in) {
  std::set<std::string> all;
  for (const auto& v : in.variants) {
    for (const auto& [k, _] : v.replications.metrics) all.insert(k);
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

std::string with_interval(const Interval& i) {
  if (!i.has_interval()) return num(i.mean);
  // Rounding noise of a constant metric is no interval width worth printing.
  const double hw = i.half_width < 1e-9 * std::max(1.0, std::fabs(i.mean)) ? 0.0 : i.half_width;
  return fmt::format("{} ± {}", num(i.mean), num(hw));
}

double metric_mean(const ReportVariant& v, const std::string& name) {
  const auto it = v.replications.metrics.find(name);
  return it == v.replications.metrics.end() ? 0.0 : it->second.interval.mean;
}

std::string queue_label(std::string_view q) { return q.empty() ? std::string("(default scheduler)") : std::string(q); }

// ---- chart data from the run tables ----

json nullable(std::optional<double> v, double scale = 1) { return v ? json(*v / scale) : json(nullptr); }

json series_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.timeseries;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      if (t.field(i, "scope") != "cluster") continue;
      const double th = t.number(i, "time_s").value_or(0) / 3600.0;
      const std::pair<const char*, const char*> measures[] = {
          {"allocated", "allocated_gpus"}, {"productive", "productive_gpus"}, {"capacity", "capacity_gpus"}};
      for (const auto& [label, col] : measures) {
        rows.push_back({{"variant", v.name}, {"time_h", th}, {"measure", label}, {"gpus", t.number(i, col).value_or(0)}});
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
      const std::string name = scope.starts_with("queue:") ? std::string(scope.substr(6)) : std::string(scope);
      rows.push_back({{"variant", v.name},
                      {"time_h", t.number(i, "time_s").value_or(0) / 3600.0},
                      {"queue", name},
                      {"pending", t.number(i, "pending_jobs").value_or(0)},
                      {"running", t.number(i, "running_jobs").value_or(0)}});
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
      rows.push_back({{"variant", v.name}, {"time_h", time / 3600.0}, {"jain", j},
                      {"queues", it == per_time.end() ? 0 : it->second.size()}});
    }
  }
  return rows;
}

json job_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const auto& t = v.sample.jobs;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      rows.push_back({{"variant", v.name},
                      {"job", t.field(i, "job")},
                      {"kind", t.field(i, "kind")},
                      {"queue", queue_label(t.field(i, "queue"))},
                      {"phase", t.field(i, "phase")},
                      {"wait_h", nullable(t.number(i, "wait_s"), 3600)},
                      {"jct_h", nullable(t.number(i, "jct_s"), 3600)},
                      {"restarts", t.number(i, "restarts").value_or(0)},
                      {"backoff", t.number(i, "backoff_count").value_or(0)}});
    }
  }
  return rows;
}

json gpu_hour_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    int order = 0;
    auto add = [&](const std::string& cat, double h) {
      rows.push_back({{"variant", v.name}, {"category", cat}, {"order", order++}, {"gpu_hours", h}});
    };
    add("productive", metric_mean(v, "gpu_hours_productive"));
    for (const char* cause : kLossCauses) add(std::string("lost: ") + cause, metric_mean(v, std::string("gpu_hours_lost_") + cause));
    add("idle (allocated)", metric_mean(v, "gpu_hours_idle"));
    add("unallocated capacity",
        std::max(0.0, metric_mean(v, "gpu_hours_capacity") - metric_mean(v, "gpu_hours_allocated")));
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
    rows.push_back({{"variant", std::get<0>(key)}, {"measure", std::get<1>(key)}, {"value", std::get<2>(key)}, {"jobs", n}});
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
    auto close = [&](const std::string& node, double start, const std::string& cause, double end, bool repaired) {
      rows.push_back({{"variant", v.name}, {"node", node}, {"cause", cause}, {"start_h", start / 3600.0},
                      {"end_h", end / 3600.0}, {"hours", (end - start) / 3600.0}, {"repaired", repaired}});
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
      for (const auto& [start, cause] : list) close(node, start, cause, std::max(start, v.sample.horizon_s), false);
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
                        {"significant", it->second.significant ? "significant at 95 %" : "not significant"}});
      } else {
        const auto it = v.replications.metrics.find(metric);
        if (it == v.replications.metrics.end()) continue;
        const Interval& i = it->second.interval;
        rows.push_back({{"metric", label_of(metric)},
                        {"variant", v.name},
                        {"mean", i.mean},
                        {"lower", i.has_interval() ? json(i.lower()) : json(nullptr)},
                        {"upper", i.has_interval() ? json(i.upper()) : json(nullptr)},
                        {"n", i.n}});
      }
    }
  }
  return rows;
}

// ---- Vega-Lite specs ----

json tip(const char* field, const char* type, const char* title = nullptr, const char* format = nullptr) {
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

json cdf_view(const char* value, const char* group, const char* value_title, bool by_variant) {
  json groupby = json::array({group});
  if (by_variant) groupby.push_back("variant");
  json v;
  v["width"] = 360;
  v["height"] = 240;
  v["transform"] = json::array({{{"filter", fmt::format("datum.{} != null", value)}},
                                {{"window", json::array({{{"op", "cume_dist"}, {"as", "fraction"}}})},
                                 {"sort", json::array({{{"field", value}}})},
                                 {"groupby", groupby}}});
  v["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"point", {{"size", 20}}}, {"tooltip", true}};
  v["encoding"] = {{"x", {{"field", value}, {"type", "quantitative"}, {"title", value_title}}},
                   {"y", {{"field", "fraction"}, {"type", "quantitative"}, {"title", "fraction of jobs"},
                          {"axis", {{"format", "%"}}}}},
                   {"color", {{"field", group}, {"type", "nominal"}, {"title", group}}},
                   {"tooltip", json::array({tip("job", "nominal"), tip(group, "nominal"), tip("variant", "nominal"),
                                            tip(value, "quantitative", value_title, ".3f"),
                                            tip("fraction", "quantitative", "fraction ≤", ".1%")})}};
  if (by_variant) v["encoding"]["strokeDash"] = {{"field", "variant"}, {"type", "nominal"}};
  return v;
}

std::vector<Chart> build_charts(const ReportInput& in) {
  const bool cmp = in.kind == ReportKind::Comparison;
  std::vector<Chart> charts;
  auto variant_dash = [&](json& enc) {
    if (cmp) enc["strokeDash"] = {{"field", "variant"}, {"type", "nominal"}, {"title", "variant"}};
  };
  const char* sample_note = in.kind == ReportKind::Run ? "" : " (first replication of each variant)";

  {  // GPUs over time
    json rows = series_rows(in);
    json s = rows.empty() ? empty_spec("No time series in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"point", {{"size", 12}, {"opacity", 0.4}}},
                   {"tooltip", true}};
      s["encoding"] = {{"x", {{"field", "time_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
                       {"y", {{"field", "gpus"}, {"type", "quantitative"}, {"title", "GPUs (bucket average)"}}},
                       {"color", {{"field", "measure"}, {"type", "nominal"}, {"title", "GPUs"},
                                  {"scale", {{"domain", {"capacity", "allocated", "productive"}}}}}},
                       {"tooltip", json::array({tip("variant", "nominal"), tip("measure", "nominal"),
                                                tip("time_h", "quantitative", "time (h)", ".2f"),
                                                tip("gpus", "quantitative", "GPUs", ".2f")})}};
      variant_dash(s["encoding"]);
    }
    charts.push_back({"Allocated and productive GPUs over time",
                      std::string("How much of the cluster is handed out, and how much of that does useful training? "
                                  "The gap between capacity and allocated is idle capacity; between allocated and "
                                  "productive, overheads and lost work") + sample_note + ".",
                      std::move(s)});
  }
  {  // pending jobs per queue
    json rows = pending_rows(in);
    json s = rows.empty() ? empty_spec("No queues in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"point", {{"size", 12}, {"opacity", 0.4}}},
                   {"tooltip", true}};
      s["encoding"] = {{"x", {{"field", "time_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
                       {"y", {{"field", "pending"}, {"type", "quantitative"}, {"title", "pending jobs (bucket average)"}}},
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
  const json jobs = job_rows(in);
  auto cdf_chart = [&](const char* value, const char* title, const char* question, const char* axis) {
    bool any = false;
    for (const auto& r : jobs) any = any || !r[value].is_null();
    json s;
    if (!any) {
      s = empty_spec(std::string("No job has a ") + title + " in this run");
    } else {
      s = base_spec(jobs);
      s.erase("width");
      s.erase("height");
      s["hconcat"] = json::array({cdf_view(value, "queue", axis, cmp), cdf_view(value, "kind", axis, cmp)});
      s["resolve"] = {{"scale", {{"color", "independent"}}}};
    }
    charts.push_back({std::string(title) + " CDF by queue and by job kind", question, std::move(s)});
  };
  cdf_chart("wait_h", "Wait time", "How long do jobs wait until all their pods first run, per queue and per job kind? "
                                   "Read the p90 where a curve crosses 90 %.", "wait (h)");
  cdf_chart("jct_h", "JCT", "How long from submission to completion, for finished jobs, per queue and per job kind?",
            "job completion time (h)");
  {  // GPU-hours breakdown
    json s = base_spec(gpu_hour_rows(in));
    s["height"] = 50 + 30 * static_cast<int>(in.variants.size());
    s["mark"] = {{"type", "bar"}, {"tooltip", true}};
    s["encoding"] = {{"y", {{"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}}},
                     {"x", {{"field", "gpu_hours"}, {"type", "quantitative"}, {"title", "GPU-hours (mean over replications)"},
                            {"stack", "zero"}}},
                     {"color", {{"field", "category"}, {"type", "nominal"}, {"title", "where GPU-hours went"},
                                {"sort", {{"field", "order"}}}}},
                     {"order", {{"field", "order"}, {"type", "quantitative"}}},
                     {"tooltip", json::array({tip("variant", "nominal"), tip("category", "nominal"),
                                              tip("gpu_hours", "quantitative", "GPU-hours", ".2f")})}};
    charts.push_back({"GPU-hours: productive, lost by cause, idle",
                      "Where did the capacity go: kept training progress, progress lost (by cause), allocated but "
                      "idle (start-up, restarts, checkpoint writes), or never allocated?",
                      std::move(s)});
  }
  {  // restarts and backoff
    json rows = restart_rows(in);
    json s = rows.empty() ? empty_spec("No jobs in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s.erase("width");
      s["mark"] = {{"type", "bar"}, {"tooltip", true}};
      s["encoding"] = {{"column", {{"field", "measure"}, {"type", "nominal"}, {"title", nullptr}}},
                       {"x", {{"field", "value"}, {"type", "ordinal"}, {"title", "count per job"}}},
                       {"y", {{"field", "jobs"}, {"type", "quantitative"}, {"title", "jobs"}}},
                       {"color", {{"field", "variant"}, {"type", "nominal"}}},
                       {"xOffset", {{"field", "variant"}, {"type", "nominal"}}},
                       {"tooltip", json::array({tip("variant", "nominal"), tip("measure", "nominal"),
                                                tip("value", "quantitative", "count per job"),
                                                tip("jobs", "quantitative", "jobs")})}};
      s["height"] = 220;
    }
    charts.push_back({"Restarts and backoff per job",
                      std::string("How many jobs restart, and how often? restarts sums the tasks' restartCount; "
                                  "backoffCount is the job's failure count toward backoffLimit") + sample_note + ".",
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
      s["encoding"] = {{"y", {{"field", "node"}, {"type", "nominal"}, {"title", "node"}}},
                       {"x", {{"field", "start_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
                       {"x2", {{"field", "end_h"}}},
                       {"color", {{"field", "cause"}, {"type", "nominal"}, {"title", "cause"}}},
                       {"tooltip", json::array({tip("variant", "nominal"), tip("node", "nominal"), tip("cause", "nominal"),
                                                tip("start_h", "quantitative", "down at (h)", ".2f"),
                                                tip("end_h", "quantitative", "back at (h)", ".2f"),
                                                tip("hours", "quantitative", "hours down", ".2f"),
                                                tip("repaired", "nominal", "repaired before the horizon")})}};
      if (cmp) s["encoding"]["yOffset"] = {{"field", "variant"}, {"type", "nominal"}};
    }
    charts.push_back({"Fault timeline",
                      "When did which nodes go down, for what cause, and for how long? A GPU fault leaves its node up "
                      "with one GPU fewer; it shows here for the time the GPU is out.",
                      std::move(s)});
  }
  {  // fairness
    json rows = fairness_rows(in);
    json s = rows.empty() ? empty_spec("No time series in this run") : base_spec(std::move(rows));
    if (!s.contains("mark")) {
      s["height"] = 180;
      s["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"point", {{"size", 12}, {"opacity", 0.4}}},
                   {"tooltip", true}};
      s["encoding"] = {{"x", {{"field", "time_h"}, {"type", "quantitative"}, {"title", "time (h)"}}},
                       {"y", {{"field", "jain"}, {"type", "quantitative"}, {"title", "Jain's index"},
                              {"scale", {{"domain", {0, 1}}}}}},
                       {"color", {{"field", "variant"}, {"type", "nominal"}}},
                       {"tooltip", json::array({tip("variant", "nominal"), tip("time_h", "quantitative", "time (h)", ".2f"),
                                                tip("jain", "quantitative", "Jain's index", ".3f"),
                                                tip("queues", "quantitative", "queues with work")})}};
    }
    charts.push_back({"Fairness between queues over time",
                      "Do the queues with work get similar numbers of GPUs? Jain's index over the allocated GPUs of "
                      "queues that have work: 1 is equal, 1/n is one queue holding everything (unweighted by quota).",
                      std::move(s)});
  }
  if (cmp) {
    {
      json s = base_spec(comparison_rows(in, false));
      s.erase("width");
      s.erase("height");
      s["facet"] = {{"field", "metric"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
      s["columns"] = 3;
      s["resolve"] = {{"scale", {{"y", "independent"}}}};
      json enc_x = {{"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
      s["spec"] = {{"width", 200},
                   {"height", 150},
                   {"layer",
                    json::array({{{"mark", {{"type", "bar"}, {"tooltip", true}}},
                                  {"encoding", {{"x", enc_x},
                                                {"y", {{"field", "mean"}, {"type", "quantitative"}, {"title", "mean"}}},
                                                {"color", {{"field", "variant"}, {"type", "nominal"}, {"sort", nullptr}}},
                                                {"tooltip", json::array({tip("metric", "nominal"), tip("variant", "nominal"),
                                                                         tip("mean", "quantitative", "mean", ".4g"),
                                                                         tip("lower", "quantitative", "95 % CI low", ".4g"),
                                                                         tip("upper", "quantitative", "95 % CI high", ".4g"),
                                                                         tip("n", "quantitative", "replications")})}}}},
                                 {{"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
                                  {"encoding", {{"x", enc_x},
                                                {"y", {{"field", "lower"}, {"type", "quantitative"}}},
                                                {"y2", {{"field", "upper"}}}}}}})}};
      charts.push_back({"Variants side by side",
                        "Each metric per variant: the bar is the mean over replications, the line its 95 % Student-t "
                        "interval.",
                        std::move(s)});
    }
    {
      json rows = comparison_rows(in, true);
      json s = rows.empty() ? empty_spec("No variant to compare with the base") : base_spec(std::move(rows));
      if (!s.contains("mark")) {
        s.erase("width");
        s.erase("height");
        s["facet"] = {{"field", "metric"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
        s["columns"] = 3;
        s["resolve"] = {{"scale", {{"x", "independent"}}}};
        json enc_y = {{"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
        s["spec"] = {
            {"width", 200},
            {"height", 40 + 25 * static_cast<int>(in.variants.size() - 1)},
            {"layer",
             json::array({{{"mark", {{"type", "rule"}, {"color", "#888"}, {"strokeDash", {4, 4}}}},
                           {"encoding", {{"x", {{"datum", 0}, {"type", "quantitative"}}}}}},
                          {{"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
                           {"encoding", {{"y", enc_y},
                                         {"x", {{"field", "lower"}, {"type", "quantitative"}, {"title", "variant − base"}}},
                                         {"x2", {{"field", "upper"}}},
                                         {"color", {{"field", "significant"}, {"type", "nominal"}, {"title", nullptr}}}}}},
                          {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"tooltip", true}}},
                           {"encoding", {{"y", enc_y},
                                         {"x", {{"field", "difference"}, {"type", "quantitative"}}},
                                         {"color", {{"field", "significant"}, {"type", "nominal"}, {"title", nullptr}}},
                                         {"tooltip", json::array({tip("metric", "nominal"), tip("variant", "nominal"),
                                                                  tip("difference", "quantitative", "mean difference", ".4g"),
                                                                  tip("lower", "quantitative", "95 % CI low", ".4g"),
                                                                  tip("upper", "quantitative", "95 % CI high", ".4g"),
                                                                  tip("significant", "nominal", "paired t"),
                                                                  tip("n", "quantitative", "pairs")})}}}}})}};
      }
      charts.push_back({"Paired differences against the base",
                        "Variant minus base, replication by replication on common random numbers, with the 95 % "
                        "paired-t interval: an interval clear of the dashed zero line is a significant difference.",
                        std::move(s)});
    }
  }
  return charts;
}

// ---- HTML ----

std::string headline_table(const ReportInput& in) {
  const auto metrics = ordered_metrics(in);
  std::string h = "<table class=\"headline\"><thead><tr><th>metric</th>";
  const bool run = in.kind == ReportKind::Run;
  for (std::size_t k = 0; k < in.variants.size(); ++k) {
    const auto& v = in.variants[k];
    if (run) {
      h += "<th>value</th>";
    } else {
      h += fmt::format("<th>{}<br><span class=\"sub\">mean ± 95 % CI (n={})</span></th>", html_escape(v.name),
                       v.replications.runs.size());
    }
    if (k > 0) h += fmt::format("<th>{} − {}<br><span class=\"sub\">paired, 95 % CI</span></th>", html_escape(v.name),
                                html_escape(in.variants[0].name));
  }
  h += "</tr></thead><tbody>\n";
  for (const auto& m : metrics) {
    h += fmt::format("<tr><td title=\"{}\">{}</td>", html_escape(m), html_escape(label_of(m)));
    for (std::size_t k = 0; k < in.variants.size(); ++k) {
      const auto& v = in.variants[k];
      const auto it = v.replications.metrics.find(m);
      h += "<td class=\"num\">" + (it == v.replications.metrics.end() ? std::string("–") : html_escape(with_interval(it->second.interval))) + "</td>";
      if (k > 0) {
        const auto d = v.vs_base.find(m);
        if (d == v.vs_base.end()) {
          h += "<td class=\"num\">–</td>";
        } else {
          h += fmt::format("<td class=\"num{}\">{}{}</td>", d->second.significant ? " sig" : "",
                           html_escape(with_interval(d->second.difference)),
                           d->second.significant ? " <span class=\"flag\">significant</span>" : "");
        }
      }
    }
    h += "</tr>\n";
  }
  h += "</tbody></table>\n";
  return h;
}

std::string runs_table(const ReportInput& in) {
  std::string h = "<table class=\"runs\"><thead><tr><th>variant</th><th>replication</th><th>seed</th>"
                  "<th>fingerprint</th><th>invariants</th><th>directory</th></tr></thead><tbody>\n";
  for (const auto& v : in.variants) {
    for (const auto& r : v.replications.runs) {
      h += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td><code>{}</code></td>"
                       "<td>{}</td><td><code>{}</code></td></tr>\n",
                       html_escape(v.name), r.replication, r.seed, html_escape(r.fingerprint),
                       r.invariants_ok ? "ok" : "<strong>violated</strong>", html_escape(r.dir.generic_string()));
    }
  }
  h += "</tbody></table>\n";
  return h;
}

std::string longest_waits_table(const ReportInput& in) {
  const auto& v = in.variants.front();
  const auto& t = v.sample.jobs;
  std::vector<std::pair<double, std::size_t>> waits;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (const auto w = t.number(i, "wait_s")) waits.emplace_back(*w, i);
  }
  std::stable_sort(waits.begin(), waits.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (waits.size() > 10) waits.resize(10);
  if (waits.empty()) return "<p>No job started running.</p>\n";
  std::string h = "<table class=\"jobs\"><thead><tr><th>job</th><th>kind</th><th>queue</th><th>wait (s)</th>"
                  "<th>phase</th><th>restarts</th></tr></thead><tbody>\n";
  for (const auto& [w, i] : waits) {
    h += fmt::format("<tr><td class=\"job\">{}</td><td>{}</td><td class=\"queue\">{}</td><td class=\"num\">{}</td>"
                     "<td>{}</td><td class=\"num\">{}</td></tr>\n",
                     html_escape(t.field(i, "job")), html_escape(t.field(i, "kind")),
                     html_escape(queue_label(t.field(i, "queue"))), html_escape(num(w)), html_escape(t.field(i, "phase")),
                     html_escape(t.field(i, "restarts")));
  }
  h += "</tbody></table>\n";
  return h;
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
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
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
    } else if (c == '\xE2' && i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
      out += s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_report(const ReportInput& in) {
  if (in.variants.empty()) throw std::invalid_argument("report: nothing to report");
  const auto charts = build_charts(in);
  json data;
  data["title"] = in.title;
  data["charts"] = json::array();
  for (const auto& c : charts) data["charts"].push_back({{"title", c.title}, {"spec", c.spec}});
  // Replace invalid UTF-8 (names come from user files) instead of failing the report.
  const std::string data_text = script_safe_json(data.dump(-1, ' ', false, json::error_handler_t::replace));

  std::string kind;
  switch (in.kind) {
    case ReportKind::Run: kind = "single run"; break;
    case ReportKind::Replications: kind = fmt::format("{} replications", in.variants.front().replications.runs.size()); break;
    case ReportKind::Comparison:
      kind = fmt::format("comparison of {} variants, {} replications each on common random numbers", in.variants.size(),
                         in.variants.front().replications.runs.size());
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
  h += "<title>t9ksim report: " + html_escape(in.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<h1>t9ksim report: " + html_escape(in.title) + "</h1>\n";
  h += fmt::format("<p class=\"meta\">{} · t9ksim {} · scenario hash <code>{}</code> · seed{} {} · replication{} {}</p>\n",
                   html_escape(kind), html_escape(base.version), html_escape(base.scenario_hash),
                   seeds.size() == 1 ? "" : "s", fmt::join(seeds, ", "), reps.size() == 1 ? "" : "s", fmt::join(reps, ", "));
  h += "<h2>Headline metrics</h2>\n";
  h += in.kind == ReportKind::Run
           ? "<p class=\"q\">One run: no interval. Run with replications for 95 % Student-t intervals.</p>\n"
           : "<p class=\"q\">Mean ± half-width of the 95 % Student-t interval across replications. Differences are "
             "paired by replication (common random numbers); highlighted ones are significant at 95 %.</p>\n";
  h += headline_table(in);
  h += "<details><summary>Runs (seeds, replications, fingerprints)</summary>\n" + runs_table(in) + "</details>\n";
  h += "<details><summary>Longest waits (" + html_escape(in.variants.front().name) + ")</summary>\n" +
       longest_waits_table(in) + "</details>\n";
  for (std::size_t i = 0; i < charts.size(); ++i) {
    h += fmt::format("<section class=\"chart\"><h2>{}</h2><p class=\"q\">{}</p><div class=\"vis\" id=\"chart-{}\" "
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

RunTables load_run_tables(const fs::path& dir) {
  RunTables t;
  auto load = [&](const char* name, CsvTable& out) {
    if (fs::exists(dir / name)) out = parse_csv(read_text(dir / name), (dir / name).string());
  };
  load("jobs.csv", t.jobs);
  load("timeseries.csv", t.timeseries);
  load("faults.csv", t.faults);
  if (fs::exists(dir / "summary.json")) {
    try {
      t.horizon_s = json::parse(read_text(dir / "summary.json")).value("horizon_s", 0.0);
    } catch (const json::exception& e) {
      throw std::runtime_error((dir / "summary.json").string() + ": " + e.what());
    }
  }
  return t;
}

ReportInput load_report_input(const fs::path& dir) {
  const fs::path file = dir / "summary.json";
  if (!fs::exists(file)) throw std::runtime_error(dir.string() + ": no summary.json (not a results directory)");
  json j;
  try {
    j = json::parse(read_text(file));
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
      for (std::size_t k = 0; k < c.variants.size(); ++k) in.variants[k].vs_base = c.variants[k].vs_base;
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

fs::path write_report(const fs::path& dir) {
  const std::string html = render_report(load_report_input(dir));
  const fs::path out = dir / "report.html";
  write_file_atomic(out, html);
  return out;
}

}  // namespace t9k::analysis
