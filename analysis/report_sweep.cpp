// The page of `t9ksim sweep` and `t9ksim size` (docs/reports.md): one chart per metric against the
// first parameter, and the table of points.
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
#include "analysis/intervals.hpp"
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

}  // namespace detail

using namespace detail;

namespace {

// One chart per metric of kSweepMetrics: the mean over replications against the first parameter,
// one line per scope (the cluster, each queue) and other parameters' values, with its interval.
std::vector<Chart> sweep_charts(const SweepSummary& s, const std::vector<std::string>& xs,
                                bool numeric_x) {
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
        r["low"] = interval_low(name, iv);
        r["high"] = interval_high(name, iv);
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
                                          tip("mean", "quantitative", "mean", ",.4~r"),
                                          tip("low", "quantitative", "95 % CI low", ",.4~r"),
                                          tip("high", "quantitative", "95 % CI high", ",.4~r"),
                                          tip("n", "quantitative", "replications")})}}}}})}};
    charts.push_back(
        {info.label,
         fmt::format("Mean over replications against {}, one line per scope; the band is the 95 % "
                     "Student-t interval, clipped at 0.",
                     s.parameters.front()),
         std::move(spec)});
  }
  return charts;
}

// The table of points: the headline figures of the cluster and of each queue.
std::string sweep_table(const SweepSummary& s) {
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
        cell = metric_interval_text(metric, it->second.interval);
      }
      table += "<td class=\"num\">" + html_escape(cell) + "</td>";
    }
    table += "</tr>\n";
  }
  table += "</tbody></table>\n";
  return table;
}

}  // namespace

std::string render_sweep_report(const SweepSummary& s) {
  if (s.points.empty() || s.parameters.empty())
    throw std::invalid_argument("report: the sweep has no points");
  std::vector<std::string> xs;
  for (const auto& p : s.points) xs.push_back(p.values.front());
  const bool numeric_x = all_numbers(xs);
  const std::vector<Chart> charts = sweep_charts(s, xs, numeric_x);
  const std::string table = sweep_table(s);
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
  // What was simulated: the first point's runs, with the swept fields named (they differ by point).
  std::vector<std::string> at;
  for (std::size_t k = 0; k < s.parameters.size(); ++k)
    at.push_back(s.parameters[k] + "=" + s.points.front().values[k]);
  h += setup_section(
      s.points.front().replications.runs,
      fmt::format("As at the first {} ({}); {} take{} the values in the table below.",
                  s.goal ? "value evaluated" : "point", fmt::join(at, ", "),
                  fmt::join(s.parameters, " and "), s.parameters.size() == 1 ? "s" : ""));
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

}  // namespace t9k::analysis
