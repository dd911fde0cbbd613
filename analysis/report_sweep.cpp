// The page of `t9ksim sweep` and `t9ksim size` (docs/reports.md): what was simulated, the targets
// and the goal, the table of points, then the charts (report_sweep_charts.cpp).
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
#include "analysis/detail/sweep_charts.hpp"
#include "analysis/goal.hpp"
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

using namespace detail;

namespace {

// The table of points: the headline figures of the cluster and of each queue, and with targets,
// whether the point meets every one (each target's check in the cell's tooltip).
std::string sweep_table(const SweepSummary& s, const std::vector<Target>& targets) {
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
  // The metric minimised, beside them (the choice is made on its mean).
  if (!s.minimise.empty() && std::none_of(columns.begin(), columns.end(),
                                          [&](const auto& c) { return c.first == s.minimise; }))
    columns.emplace_back(s.minimise, s.minimise);
  const std::vector<std::string> labels = parameter_labels(s);
  std::string table = "<div class=\"wide\"><table class=\"headline\"><thead><tr><th>point</th>";
  for (std::size_t k = 0; k < s.parameters.size(); ++k) {
    table += fmt::format("<th title=\"{}\">{}</th>", html_escape(s.parameters[k]),
                         html_escape(labels[k]));
  }
  if (!targets.empty()) table += "<th>targets met</th>";
  for (const auto& [_, label] : columns)
    table += "<th>" + html_escape(label) + "<br><span class=\"sub\">mean ± 95 % CI</span></th>";
  table += "</tr></thead><tbody>\n";
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    table += fmt::format("<tr><td class=\"num\">{}</td>", i);
    for (const auto& v : p.values) table += "<td class=\"num\">" + html_escape(v) + "</td>";
    if (!targets.empty()) {
      std::size_t met = 0;
      std::vector<std::string> why;
      for (const auto& t : targets) {
        const TargetCheck c = check_target(t, p.replications);
        met += c.present && c.met;
        why.push_back(describe_check(t, c));
      }
      table += fmt::format("<td class=\"num\" title=\"{}\">{}</td>",
                           html_escape(fmt::format("{}", fmt::join(why, "\n"))),
                           met == targets.size() ? std::string("all ✓")
                                                 : fmt::format("{} of {}", met, targets.size()));
    }
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
  table += "</tbody></table></div>\n";
  return table;
}

// `--minimise`: the chosen point, or why there is none.
std::string chosen_section(const SweepSummary& s, bool with_targets) {
  if (s.minimise.empty()) return {};
  const auto c = chosen_point(s);
  if (!c) {
    return "<p class=\"answer none\">" +
           html_escape(fmt::format("No point chosen: {}.", with_targets
                                                               ? "no point meets every target"
                                                               : "no point has " + s.minimise)) +
           "</p>\n";
  }
  const std::vector<std::string> labels = parameter_labels(s);
  std::vector<std::string> at;
  for (std::size_t k = 0; k < labels.size(); ++k)
    at.push_back(labels[k] + "=" + s.points[*c].values[k]);
  const auto& m = s.points[*c].replications.metrics.at(s.minimise);
  return "<p class=\"answer\">" +
         html_escape(fmt::format("Chosen: {} (point {}), the smallest {}{}: {}",
                                 fmt::join(at, ", "), *c, s.minimise,
                                 with_targets ? " meeting every target" : "",
                                 metric_interval_text(s.minimise, m.interval))) +
         "</p>\n";
}

// The targets of a sweep: each with the form it is checked in, and which points meet them all.
std::string targets_section(const SweepSummary& s, const std::vector<Target>& targets) {
  if (s.goal || (targets.empty() && s.minimise.empty())) return {};
  if (targets.empty()) return "<h2>Choice</h2>\n" + chosen_section(s, false);
  std::string h = "<h2>Targets</h2>\n<ul class=\"findings\">\n";
  for (const auto& t : targets) {
    h +=
        "<li>" +
        html_escape(fmt::format(
            "{}: {}", t.text,
            t.runs_share ? "the share of runs meeting the bound, with its one-sided 95 % lower "
                           "bound"
                         : "the mean over runs, with the confidence that the true mean meets it")) +
        "</li>\n";
  }
  h += "</ul>\n";
  const std::vector<bool> meeting = points_meeting(s, targets);
  const std::vector<std::string> labels = parameter_labels(s);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    if (!meeting[i]) continue;
    std::vector<std::string> at;
    for (std::size_t k = 0; k < labels.size(); ++k)
      at.push_back(labels[k] + "=" + s.points[i].values[k]);
    names.push_back(fmt::format("{}", fmt::join(at, ", ")));
  }
  if (names.empty())
    return h + "<p class=\"answer none\">No point meets every target.</p>\n" +
           chosen_section(s, true);
  h += fmt::format("<p class=\"answer\">{} of {} points meet every target</p>\n", names.size(),
                   s.points.size());
  return h + "<p>" + html_escape(fmt::format("{}.", fmt::join(names, "; "))) + "</p>\n" +
         chosen_section(s, true);
}

}  // namespace

std::string render_sweep_report(const SweepSummary& s) {
  if (s.points.empty() || s.parameters.empty())
    throw std::invalid_argument("report: the sweep has no points");
  const std::vector<Target> targets = report_targets(s);
  const std::vector<Chart> charts = sweep_charts(s, targets);
  const std::string table = sweep_table(s, targets);
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
      html_escape(fmt::format("{}", fmt::join(s.parameters, s.zipped ? " with " : " × "))),
      s.points.size(),
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
      fmt::format("As at the first {} ({}); {} take{} the values in the table below{}.",
                  s.goal ? "value evaluated" : "point", fmt::join(at, ", "),
                  fmt::join(s.parameters, " and "), s.parameters.size() == 1 ? "s" : "",
                  s.zipped ? ", together (zipped: point i has the i-th value of each)" : ""));
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
    if (!g.search_path.empty()) {
      std::vector<std::string> steps;
      for (const auto& [value, met] : g.search_path)
        steps.push_back(fmt::format("{} ({})", value, met ? "met" : "not met"));
      h += "<p><b>Search path</b> (the values in the order they were evaluated): " +
           html_escape(fmt::format("{}", fmt::join(steps, " → "))) + ".</p>\n";
    }
  }
  h += targets_section(s, targets);
  h += "<h2>Points</h2>\n" + table;
  return h + page_end(charts, data_text);
}

}  // namespace t9k::analysis
