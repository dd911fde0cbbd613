// The charts of a sweep or size report (docs/reports.md "Sweeps"): lines against the first
// parameter, heatmaps over two; labels short and distinct, durations in the unit that fits,
// shares on 0–100 %, targets drawn where they apply.
#include "analysis/detail/sweep_charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/intervals.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis::detail {

namespace {

// The metrics a sweep draws, without units (durations get theirs from the values drawn).
constexpr MetricInfo kSweepMetrics[] = {
    {"wait_p90_s", "wait, p90"},
    {"wait_mean_s", "wait, mean"},
    {"jobs_never_started", "jobs that never started"},
    {"jct_mean_s", "JCT, mean"},
    {"utilization_allocated", "GPU utilisation, allocated"},
    {"utilization_productive", "GPU utilisation, productive"},
    {"quota_share_used", "share of the queue's GPU quota used"},
    {"gpu_hours_lost_fault", "GPU-hours lost to faults"},
    // With prices or power only (docs/outputs.md "Cost and energy").
    {"cost_total", "cost, total"},
    {"cost_total_per_productive_gpu_hour", "cost, total, per productive GPU-hour"},
    {"cost_per_productive_gpu_hour", "cost allocated per productive GPU-hour"},
    {"energy_total_kwh", "energy, total (kWh)"},
};

bool is_share(std::string_view metric) {
  return metric.starts_with("utilization") || metric == "quota_share_used";
}
bool is_duration(std::string_view metric) { return metric.ends_with("_s"); }
// Colour schemes read "darker is more": waits and losses in oranges, utilisation in blues.
const char* scheme_of(std::string_view metric) { return is_share(metric) ? "blues" : "oranges"; }

bool all_numbers(const std::vector<std::string>& texts) {
  for (const auto& t : texts) {
    char* end = nullptr;
    std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) return false;
  }
  return true;
}

// One metric of one point and scope, as drawn.
struct Cell {
  std::size_t point = 0;
  std::string scope;   // "cluster" or "queue NAME"
  std::string metric;  // full summary.json name
  Interval iv;
};

std::vector<Cell> cells_of(const SweepSummary& s, std::string_view metric) {
  std::vector<Cell> out;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    for (const auto& [name, ms] : s.points[i].replications.metrics) {
      const MetricName mn = split_metric_name(name);
      if (mn.metric != metric || (mn.group != "cluster" && mn.group != kGroupQueue)) continue;
      out.push_back({i, mn.group == "cluster" ? std::string("cluster") : "queue " + mn.value, name,
                     ms.interval});
    }
  }
  return out;
}

// How a metric's values are drawn: the divisor into the axis unit and the axis title.
struct Scale {
  double divisor = 1;
  std::string title;
  json axis;
};
Scale scale_of(const MetricInfo& info, const std::vector<Cell>& cells) {
  Scale sc;
  sc.title = info.label;
  if (is_share(info.name)) {
    sc.axis = {{"format", ".0%"}};
  } else if (is_duration(info.name)) {
    double largest = 0;
    for (const auto& c : cells) largest = std::max(largest, interval_high(c.metric, c.iv));
    const DurationUnit u = duration_unit(largest);
    sc.divisor = u.seconds;
    sc.title += fmt::format(" ({})", u.name);
    sc.axis = {{"format", ",.4~r"}};
  } else {
    sc.axis = {{"format", ",.4~r"}};
  }
  return sc;
}

// The targets on this metric (of the cluster or a queue), as rules at their thresholds in the
// axis unit.
json target_rules(const std::vector<Target>& targets, std::string_view metric, double divisor) {
  json rows = json::array();
  for (const auto& t : targets) {
    const MetricName mn = split_metric_name(t.metric);
    if (mn.metric != metric || (mn.group != "cluster" && mn.group != kGroupQueue)) continue;
    const std::string scope = mn.group == "cluster" ? std::string("cluster") : "queue " + mn.value;
    rows.push_back({{"y", t.threshold / divisor}, {"target", t.text}, {"scope", scope}});
  }
  return rows;
}

// One line chart per metric against the first parameter: one line per scope and value of the
// other parameters, with its 95 % band.
Chart line_chart(const SweepSummary& s, const MetricInfo& info, const std::vector<Cell>& cells,
                 const std::vector<Target>& targets, std::optional<std::size_t> chosen,
                 const std::vector<std::string>& labels) {
  std::vector<std::string> xs;
  for (const auto& p : s.points) xs.push_back(p.values.front());
  const bool numeric_x = all_numbers(xs);
  const Scale sc = scale_of(info, cells);
  json rows = json::array();
  for (const auto& c : cells) {
    const auto& p = s.points[c.point];
    std::string line = c.scope;
    // Zipped parameters move with the first: one line, not one per combination.
    for (std::size_t k = 1; k < s.parameters.size() && !s.zipped; ++k)
      line += fmt::format(", {}={}", labels[k], p.values[k]);
    json r{{"x", numeric_x ? json(std::strtod(p.values.front().c_str(), nullptr))
                           : json(p.values.front())},
           {"line", line},
           {"mean", c.iv.mean / sc.divisor},
           {"text", metric_interval_text(c.metric, c.iv)},
           {"n", c.iv.n}};
    r["low"] = interval_low(c.metric, c.iv) / sc.divisor;
    r["high"] = interval_high(c.metric, c.iv) / sc.divisor;
    rows.push_back(r);
  }
  json x{
      {"field", "x"}, {"type", numeric_x ? "quantitative" : "ordinal"}, {"title", labels.front()}};
  if (s.zipped && labels.size() > 1) {
    std::vector<std::string> with(labels.begin() + 1, labels.end());
    x["title"] = fmt::format("{} (with {})", labels.front(), fmt::join(with, ", "));
  }
  if (!numeric_x) x["sort"] = nullptr;  // the points' order (durations are not sorted as text)
  if (numeric_x) {
    x["scale"] = {{"zero", false}};
    x["axis"] = {{"format", ",.4~r"}};
    if (std::all_of(xs.begin(), xs.end(), [](const std::string& v) {
          return v.find_first_not_of("-0123456789") == std::string::npos;
        })) {
      x["axis"]["tickMinStep"] = 1;
    }
  }
  json y{{"type", "quantitative"}, {"title", sc.title}, {"axis", sc.axis}};
  if (is_share(info.name)) y["scale"] = {{"domain", {0, 1}}};
  json band_y = y;
  band_y["field"] = "low";
  json line_y = y;
  line_y["field"] = "mean";
  // Legend swatches at full strength, not as pale as the band (issue 48).
  const json scope{{"field", "line"},
                   {"type", "nominal"},
                   {"title", "scope"},
                   {"legend", {{"symbolOpacity", 1}, {"symbolStrokeWidth", 2}}}};
  json layers = json::array(
      {{{"mark", {{"type", "errorband"}, {"opacity", 0.2}}},
        {"encoding", {{"x", x}, {"y", band_y}, {"y2", {{"field", "high"}}}, {"color", scope}}}},
       {{"mark", {{"type", "line"}, {"point", {{"filled", false}, {"size", 60}}}}},
        // A queue's line can coincide with the cluster's (one queue): dashes and point shapes
        // differ by scope, so neither hides the other.
        {"encoding",
         {{"x", x},
          {"y", line_y},
          {"color", scope},
          {"strokeDash", scope},
          {"shape", scope},
          {"tooltip",
           json::array({tip("line", "nominal", "scope"),
                        tip("x", numeric_x ? "quantitative" : "ordinal", s.parameters[0].c_str()),
                        tip("text", "nominal", "mean, 95 % CI"),
                        tip("n", "quantitative", "replications")})}}}}});
  if (json rules = target_rules(targets, info.name, sc.divisor); !rules.empty()) {
    layers.push_back({{"data", {{"values", rules}}},
                      {"mark", {{"type", "rule"}, {"strokeDash", {6, 4}}, {"color", "#b00"}}},
                      {"encoding",
                       {{"y", {{"field", "y"}, {"type", "quantitative"}}},
                        {"tooltip", json::array({tip("target", "nominal")})}}}});
  }
  std::optional<std::string> answer;
  if (s.goal && s.goal->answer) answer = *s.goal->answer;
  if (chosen) answer = s.points[*chosen].values.front();
  if (answer && numeric_x) {
    layers.push_back({{"data", {{"values", {{{"x", std::strtod(answer->c_str(), nullptr)}}}}}},
                      {"mark", {{"type", "rule"}, {"color", "#2a7"}, {"strokeWidth", 2}}},
                      {"encoding",
                       {{"x", {{"field", "x"}, {"type", "quantitative"}}},
                        {"tooltip", json::array({tip("x", "quantitative", "the answer")})}}}});
  }
  json spec{{"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
            {"width", "container"},
            {"height", 220},
            {"data", {{"values", rows}}},
            {"layer", layers}};
  std::string question = fmt::format(
      "Mean over replications against {} ({}), one line per scope; the band is the "
      "95 % Student-t interval, clipped to the metric's range.",
      labels.front(), s.parameters.front());
  if (!target_rules(targets, info.name, 1).empty())
    question += " Dashed red: a target's threshold (a bound on each run's value in the SLO form).";
  if (answer && numeric_x) question += s.goal ? " Green: the answer." : " Green: the chosen point.";
  return {info.label, question, std::move(spec)};
}

// Over two parameters: one heatmap per scope of the metric's mean at each point, the value
// written in the cell, the points meeting every target outlined.
Chart heatmap_chart(const SweepSummary& s, const MetricInfo& info, const std::vector<Cell>& cells,
                    const std::vector<bool>& meeting, bool with_targets,
                    std::optional<std::size_t> chosen, const std::vector<std::string>& labels) {
  const Scale sc = scale_of(info, cells);
  std::vector<std::string> xs, ys, scopes;
  for (const auto& p : s.points) {
    if (std::find(xs.begin(), xs.end(), p.values[0]) == xs.end()) xs.push_back(p.values[0]);
    if (std::find(ys.begin(), ys.end(), p.values[1]) == ys.end()) ys.push_back(p.values[1]);
  }
  // Colours from 0 (every metric drawn is non-negative): a sweep where nothing waits is pale.
  double hi = 0;
  for (const auto& c : cells) {
    if (std::find(scopes.begin(), scopes.end(), c.scope) == scopes.end()) scopes.push_back(c.scope);
    hi = std::max(hi, c.iv.mean);
  }
  if (is_share(info.name) || hi <= 0) hi = 1;
  // The cluster first, then the queues by name.
  std::sort(scopes.begin(), scopes.end(), [](const std::string& a, const std::string& b) {
    return std::make_pair(a != "cluster", a) < std::make_pair(b != "cluster", b);
  });
  json rows = json::array();
  for (const auto& c : cells) {
    const auto& p = s.points[c.point];
    const double t = c.iv.mean / hi;
    rows.push_back({{"x", p.values[0]},
                    {"y", p.values[1]},
                    {"scope", c.scope},
                    {"mean", c.iv.mean / sc.divisor},
                    {"cell", format_metric(c.metric, c.iv.mean)},
                    {"text", metric_interval_text(c.metric, c.iv)},
                    {"met", meeting[c.point]},
                    {"chosen", chosen && *chosen == c.point},
                    {"dark", t > 0.6}});
  }
  // Cells as large as fit two panels side by side in the page (about 1,150 px).
  const int step_x = std::clamp(400 / static_cast<int>(xs.size()), 14, 72);
  const int step_y = std::clamp(300 / static_cast<int>(ys.size()), 14, 40);
  const bool written = step_x >= 44 && step_y >= 18;
  std::vector<std::string> ys_up(ys.rbegin(), ys.rend());  // the first value at the bottom
  const json x{{"field", "x"},
               {"type", "ordinal"},
               {"sort", xs},
               {"title", labels[0]},
               {"axis", {{"labelAngle", 0}}}};
  const json y{{"field", "y"}, {"type", "ordinal"}, {"sort", ys_up}, {"title", labels[1]}};
  json color{{"field", "mean"},
             {"type", "quantitative"},
             {"title", sc.title},
             {"legend", {{"format", sc.axis.at("format")}}},
             {"scale", {{"scheme", scheme_of(info.name)}, {"domain", {0, hi / sc.divisor}}}}};
  json layers =
      json::array({{{"mark", "rect"},
                    {"encoding",
                     {{"x", x},
                      {"y", y},
                      {"color", color},
                      {"tooltip", json::array({tip("x", "ordinal", labels[0].c_str()),
                                               tip("y", "ordinal", labels[1].c_str()),
                                               tip("text", "nominal", "mean, 95 % CI"),
                                               tip("met", "nominal", "every target met")})}}}}});
  if (with_targets) {
    layers.push_back(
        {{"transform", json::array({{{"filter", "datum.met"}}})},
         {"mark", {{"type", "rect"}, {"fill", nullptr}, {"stroke", "#111"}, {"strokeWidth", 2.5}}},
         {"encoding", {{"x", x}, {"y", y}}}});
  }
  if (chosen) {
    layers.push_back({{"transform", json::array({{{"filter", "datum.chosen"}}})},
                      {"mark",
                       {{"type", "rect"},
                        {"fill", nullptr},
                        {"stroke", "#1f77b4"},
                        {"strokeWidth", 4},
                        {"strokeDash", {5, 3}}}},
                      {"encoding", {{"x", x}, {"y", y}}}});
  }
  if (written) {
    layers.push_back(
        {{"mark", {{"type", "text"}, {"fontSize", 10}}},
         {"encoding",
          {{"x", x},
           {"y", y},
           {"text", {{"field", "cell"}}},
           {"color",
            {{"condition", {{"test", "datum.dark"}, {"value", "white"}}}, {"value", "#222"}}}}}});
  }
  json spec{
      {"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
      {"data", {{"values", rows}}},
      {"facet", {{"field", "scope"}, {"type", "nominal"}, {"title", nullptr}, {"sort", scopes}}},
      {"columns", 2},
      {"spec", {{"width", {{"step", step_x}}}, {"height", {{"step", step_y}}}, {"layer", layers}}},
      {"resolve", {{"scale", {{"color", "shared"}}}}}};
  std::string question = fmt::format(
      "Mean over replications at each point: {} across ({}), {} up ({}); one panel per scope.",
      labels[0], s.parameters[0], labels[1], s.parameters[1]);
  if (with_targets) question += " Outlined: the points meeting every target.";
  if (chosen)
    question += fmt::format(" Dashed blue: the chosen point (the smallest {}).", s.minimise);
  return {info.label, question, std::move(spec)};
}

}  // namespace

DurationUnit duration_unit(double largest_s) {
  if (largest_s < 120) return {1, "s"};
  if (largest_s < 7200) return {60, "min"};
  if (largest_s < 2 * 86400) return {3600, "h"};
  return {86400, "d"};
}

std::vector<bool> points_meeting(const SweepSummary& s, const std::vector<Target>& targets) {
  std::vector<bool> out;
  for (const auto& p : s.points) {
    bool all = !targets.empty();
    for (const auto& t : targets) {
      const TargetCheck c = check_target(t, p.replications);
      all = all && c.present && c.met;
    }
    out.push_back(all);
  }
  return out;
}

std::vector<Target> report_targets(const SweepSummary& s) {
  return parse_stored_targets(s.goal ? s.goal->targets : s.targets);
}

std::vector<Chart> sweep_charts(const SweepSummary& s, const std::vector<Target>& targets) {
  const std::vector<std::string> labels = parameter_labels(s);
  const std::vector<bool> meeting = points_meeting(s, targets);
  const std::optional<std::size_t> chosen = chosen_point(s);
  std::vector<Chart> charts;
  for (const auto& info : kSweepMetrics) {
    const std::vector<Cell> cells = cells_of(s, info.name);
    if (cells.empty()) continue;
    if (s.parameters.size() == 2 && !s.zipped) {
      charts.push_back(heatmap_chart(s, info, cells, meeting, !targets.empty(), chosen, labels));
    } else {
      charts.push_back(line_chart(s, info, cells, targets, chosen, labels));
    }
  }
  return charts;
}

}  // namespace t9k::analysis::detail
