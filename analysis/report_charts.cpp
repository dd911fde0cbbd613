// The report's Vega-Lite charts, one function each, in the order of the page.
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

json tip(const char* field, const char* type, const char* title, const char* format) {
  json t = {{"field", field}, {"type", type}};
  if (title) t["title"] = title;
  if (format) t["format"] = format;
  return t;
}

json base_spec(json values) {
  // Legend swatches at full strength, whatever the opacity of the marks (issue 48: pale swatches
  // of half-transparent points could not be matched to their lines).
  return {{"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
          {"width", "container"},
          {"height", 260},
          {"config", {{"legend", {{"symbolOpacity", 1}}}}},
          {"data", {{"values", std::move(values)}}}};
}

// Hours since time zero on the calendar: ticks where UTC hours are multiples of the step (whole
// days once the run is longer than two days, at most about 14 ticks), labelled as dates.
json calendar_x(std::int64_t t0_s, double horizon_h, const char* field) {
  static constexpr int kSteps[] = {1, 2, 3, 6, 12, 24};
  int step = 24 * std::max(1, static_cast<int>(std::ceil(horizon_h / 24 / 14)));
  if (horizon_h <= 48) {
    for (const int s : kSteps) {
      if (horizon_h / s <= 14) {
        step = s;
        break;
      }
    }
  }
  const std::int64_t t0_h_floor = t0_s >= 0 ? t0_s / 3600 : (t0_s - 3599) / 3600;
  const double offset_h = static_cast<double>(t0_s) / 3600 - static_cast<double>(t0_h_floor);
  // The first multiple of `step` (in UTC hours since the epoch) at or after time zero.
  std::int64_t first = t0_h_floor + (offset_h > 0 ? 1 : 0);
  first += (step - first % step) % step;
  json ticks = json::array();
  for (double x = static_cast<double>(first) - static_cast<double>(t0_s) / 3600; x <= horizon_h;
       x += step)
    ticks.push_back(x);
  const std::string format = step >= 24 ? "%a %d %b" : "%d %b %H:%M";
  return {{"field", field},
          {"type", "quantitative"},
          {"title", "date (UTC)"},
          {"scale", {{"domain", {0, horizon_h}}, {"nice", false}}},
          {"axis",
           {{"values", std::move(ticks)},
            {"labelExpr",
             fmt::format("utcFormat(({} + datum.value * 3600) * 1000, '{}')", t0_s, format)}}}};
}

// The x encoding of a chart over simulated time whose `field` is in hours: in days once the run
// is longer than two days (issue 48: "hours since 0" of a week-long run), ticked at whole days
// (at most about 14 ticks) and labelled by day number.
// A run from a cluster export (setup.time_zero_unix_s) is on the calendar: dates (UTC) instead,
// ticked at UTC midnights (at whole hours for runs of two days or less).
json time_x(const ReportInput& in, const char* field, const char* hours_title) {
  double horizon_h = 0;
  for (const auto& v : in.variants) horizon_h = std::max(horizon_h, v.sample.horizon_s / 3600);
  const auto& runs = in.variants.front().replications.runs;
  if (!runs.empty() && runs.front().setup.time_zero_unix_s && horizon_h > 0)
    return calendar_x(*runs.front().setup.time_zero_unix_s, horizon_h, field);
  if (horizon_h <= 48) return {{"field", field}, {"type", "quantitative"}, {"title", hours_title}};
  const int days = static_cast<int>(std::ceil(horizon_h / 24));
  const int step = std::max(1, (days + 13) / 14);
  json ticks = json::array();
  for (int d = 0; d <= days; d += step) ticks.push_back(24 * d);
  return {{"field", field},
          {"type", "quantitative"},
          {"title", "time (days)"},
          {"scale", {{"domain", {0, 24 * days}}, {"nice", false}}},
          {"axis", {{"values", std::move(ticks)}, {"labelExpr", "datum.value / 24"}}}};
}

// A chart that says there is nothing to draw, so every chart still shows something.
json empty_spec(const std::string& message) {
  json s = base_spec(json::array({{{"message", message}}}));
  s["height"] = 60;
  s["mark"] = {{"type", "text"}, {"fontSize", 14}, {"tooltip", true}};
  s["encoding"] = {{"text", {{"field", "message"}, {"type", "nominal"}}}};
  return s;
}

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

// Comparisons dash each variant's line.
void variant_dash(json& enc, bool cmp) {
  if (cmp) enc["strokeDash"] = {{"field", "variant"}, {"type", "nominal"}, {"title", "variant"}};
}

// Charts drawn from one run of each variant say so.
const char* sample_note_of(const ReportInput& in) {
  return in.kind == ReportKind::Run ? "" : " (first replication of each variant)";
}

// `t9ksim replay-check` (docs/traces.md "Recorded versus simulated"): per measure, one point
// per job, recorded against simulated, with the diagonal where they agree.
void replay_check_charts(const ReportInput& in, std::vector<Chart>& charts) {
  if (in.kind != ReportKind::Run || in.variants.empty() ||
      in.variants.front().sample.replay_check.rows.empty())
    return;
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

// GPUs over time.
Chart gpus_chart(const ReportInput& in) {
  const bool cmp = in.kind == ReportKind::Comparison;
  const char* sample_note = sample_note_of(in);
  json rows = series_rows(in);
  json s = rows.empty() ? empty_spec("No time series in this run") : base_spec(std::move(rows));
  if (!s.contains("mark")) {
    s["mark"] = {{"type", "line"},
                 {"interpolate", "step-after"},
                 {"point", {{"size", 12}, {"opacity", 0.4}}},
                 {"tooltip", true}};
    s["encoding"] = {
        {"x", time_x(in, "time_h", "time (h)")},
        {"y", {{"field", "gpus"}, {"type", "quantitative"}, {"title", "GPUs (bucket average)"}}},
        {"color",
         {{"field", "measure"},
          {"type", "nominal"},
          {"title", "GPUs"},
          {"scale", {{"domain", {"capacity", "allocated", "productive"}}}}}},
        {"tooltip", json::array({tip("variant", "nominal"), tip("measure", "nominal"),
                                 tip("time_h", "quantitative", "time (h)", ".2f"),
                                 tip("gpus", "quantitative", "GPUs", ".2f")})}};
    variant_dash(s["encoding"], cmp);
  }
  return {"Allocated and productive GPUs over time",
          std::string(
              "How much of the cluster is handed out, and how much of that does useful training? "
              "The gap between capacity and allocated is idle capacity; between allocated and "
              "productive, overheads and lost work") +
              sample_note + ".",
          std::move(s)};
}

// Pending jobs per queue over time.
Chart pending_chart(const ReportInput& in) {
  const bool cmp = in.kind == ReportKind::Comparison;
  json rows = pending_rows(in);
  json s = rows.empty() ? empty_spec("No queues in this run") : base_spec(std::move(rows));
  if (!s.contains("mark")) {
    s["mark"] = {{"type", "line"},
                 {"interpolate", "step-after"},
                 {"point", {{"size", 12}, {"opacity", 0.4}}},
                 {"tooltip", true}};
    s["encoding"] = {{"x", time_x(in, "time_h", "time (h)")},
                     {"y",
                      {{"field", "pending"},
                       {"type", "quantitative"},
                       {"title", "pending jobs (bucket average)"}}},
                     {"color", {{"field", "queue"}, {"type", "nominal"}, {"title", "queue"}}},
                     {"tooltip", json::array({tip("variant", "nominal"), tip("queue", "nominal"),
                                              tip("time_h", "quantitative", "time (h)", ".2f"),
                                              tip("pending", "quantitative", "pending", ".2f"),
                                              tip("running", "quantitative", "running", ".2f")})}};
    variant_dash(s["encoding"], cmp);
  }
  return {"Pending jobs per queue over time",
          "Which queues build a backlog, when, and does it drain?", std::move(s)};
}

// Why jobs waited, per queue over time.
Chart wait_causes_chart(const ReportInput& in) {
  const bool cmp = in.kind == ReportKind::Comparison;
  const char* sample_note = sample_note_of(in);
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
           json::array({tip("variant", "nominal"), tip("queue", "nominal"), tip("cause", "nominal"),
                        tip("time_h", "quantitative", "from (h)", ".1f"),
                        tip("jobs", "quantitative", "waiting jobs (average)", ".2f")})}}}};
    s["facet"] = {{"row", {{"field", "queue"}, {"type", "nominal"}, {"title", nullptr}}}};
    if (cmp)
      s["facet"]["column"] = {{"field", "variant"}, {"type", "nominal"}, {"title", "variant"}};
    s["resolve"] = {{"scale", {{"y", "independent"}}}};
  }
  return {
      "Why jobs waited, per queue over time",
      std::string("Was it nodes or quota? Jobs waiting with none of their pods placed, by the "
                  "scheduler's last reason (bar height: average waiting jobs over the period)") +
          sample_note + ".",
      std::move(s)};
}

// A CDF of one column of jobs.csv, by queue and by job kind.
Chart cdf_chart(const ReportInput& in, const char* column, const char* title, const char* question,
                const char* axis) {
  const bool cmp = in.kind == ReportKind::Comparison;
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
  return {std::string(title) + " CDF by queue and by job kind", question, std::move(s)};
}

// Where the GPU-hours went.
Chart gpu_hours_chart(const ReportInput& in) {
  json s = base_spec(gpu_hour_rows(in));
  s["height"] = 50 + 30 * static_cast<int>(in.variants.size());
  s["mark"] = {{"type", "bar"}, {"tooltip", true}};
  s["encoding"] = {
      {"y", {{"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}}},
      {"x",
       {{"field", "gpu_hours"},
        {"type", "quantitative"},
        {"title", in.kind == ReportKind::Run ? "GPU-hours" : "GPU-hours (mean over replications)"},
        {"stack", "zero"}}},
      // Below the bar, in columns: beside a bar this short a legend of a dozen entries was cut
      // to the first eight, dropping the idle and unallocated ones (issue 48).
      {"color",
       {{"field", "category"},
        {"type", "nominal"},
        {"title", "where GPU-hours went"},
        {"sort", {{"field", "order"}}},
        {"scale", {{"scheme", "tableau20"}}},  // a dozen categories: ten colours repeat
        {"legend", {{"orient", "bottom"}, {"columns", 4}, {"labelLimit", 240}}}}},
      {"order", {{"field", "order"}, {"type", "quantitative"}}},
      {"tooltip", json::array({tip("variant", "nominal"), tip("category", "nominal"),
                               tip("gpu_hours", "quantitative", "GPU-hours", ".2f")})}};
  return {"GPU-hours: productive, lost by cause, idle",
          "Where did the capacity go: kept training progress, progress lost (by "
          "cause), allocated but "
          "idle (start-up, restarts, checkpoint writes), ready but never allocated, or "
          "down (faults, by "
          "cause)? The bar adds up to the installed GPU-hours.",
          std::move(s)};
}

// Restarts and backoff per job.
Chart restarts_chart(const ReportInput& in) {
  const char* sample_note = sample_note_of(in);
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
    if (in.variants.size() < 2) {  // one run: no variant to tell apart (issue 48)
      s["encoding"].erase("color");
      s["encoding"].erase("xOffset");
    }
  }
  return {
      "Restarts and backoff per job",
      std::string("How many jobs restart, and how often? restarts sums the tasks' restartCount; "
                  "backoffCount is the job's failure count toward backoffLimit") +
          sample_note + ".",
      std::move(s)};
}

// The fault timeline.
Chart fault_chart(const ReportInput& in) {
  const bool cmp = in.kind == ReportKind::Comparison;
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
        {"x", time_x(in, "start_h", "time (h)")},
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
  return {"Fault timeline",
          "When did which nodes go down, for what cause, and for how long? A GPU fault "
          "leaves its node up "
          "with one GPU fewer; it shows here for the time the GPU is out.",
          std::move(s)};
}

// Fairness between queues over time.
Chart fairness_chart(const ReportInput& in) {
  json rows = fairness_rows(in);
  json s = rows.empty() ? empty_spec("No time series in this run") : base_spec(std::move(rows));
  if (!s.contains("mark")) {
    s["height"] = 180;
    s["mark"] = {{"type", "line"},
                 {"interpolate", "step-after"},
                 {"point", {{"size", 12}, {"opacity", 0.4}}},
                 {"tooltip", true}};
    s["encoding"] = {{"x", time_x(in, "time_h", "time (h)")},
                     {"y",
                      {{"field", "jain"},
                       {"type", "quantitative"},
                       {"title", "Jain's index"},
                       {"scale", {{"domain", {0, 1}}}}}},
                     {"color", {{"field", "variant"}, {"type", "nominal"}}},
                     {"tooltip", json::array({tip("variant", "nominal"),
                                              tip("time_h", "quantitative", "time (h)", ".2f"),
                                              tip("jain", "quantitative", "Jain's index", ".3f"),
                                              tip("queues", "quantitative", "queues with work")})}};
    if (in.variants.size() < 2) s["encoding"].erase("color");  // one run: no variant legend
  }
  return {"Fairness between queues over time",
          "Do the queues with work get similar numbers of GPUs? Jain's index over the "
          "allocated GPUs of "
          "queues that have work: 1 is equal, 1/n is one queue holding everything "
          "(unweighted by quota).",
          std::move(s)};
}

// Comparisons: each metric per variant.
Chart variants_chart(const ReportInput& in) {
  json s = base_spec(comparison_rows(in, false));
  s.erase("width");
  s.erase("height");
  s["facet"] = {{"field", "metric"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
  s["columns"] = 3;
  s["resolve"] = {{"scale", {{"y", "independent"}}}};
  json enc_x = {{"field", "variant"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}};
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
                                        tip("mean", "quantitative", "mean", ",.4~r"),
                                        tip("lower", "quantitative", "95 % CI low", ",.4~r"),
                                        tip("upper", "quantitative", "95 % CI high", ",.4~r"),
                                        tip("n", "quantitative", "replications")})}}}},
            {{"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
             {"encoding",
              {{"x", enc_x},
               {"y", {{"field", "lower"}, {"type", "quantitative"}}},
               {"y2", {{"field", "upper"}}}}}}})}};
  return {"Variants side by side",
          "Each metric per variant: the bar is the mean over replications, the line "
          "its 95 % Student-t "
          "interval, clipped at 0 (every metric here is non-negative).",
          std::move(s)};
}

// Comparisons: paired differences against the base.
Chart differences_chart(const ReportInput& in) {
  json rows = comparison_rows(in, true);
  json s =
      rows.empty() ? empty_spec("No variant to compare with the base") : base_spec(std::move(rows));
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
         json::array(
             {{{"mark", {{"type", "rule"}, {"color", "#888"}, {"strokeDash", {4, 4}}}},
               {"encoding", {{"x", {{"datum", 0}, {"type", "quantitative"}}}}}},
              {{"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
               {"encoding",
                {{"y", enc_y},
                 {"x", {{"field", "lower"}, {"type", "quantitative"}, {"title", "variant − base"}}},
                 {"x2", {{"field", "upper"}}},
                 {"color", {{"field", "significant"}, {"type", "nominal"}, {"title", nullptr}}}}}},
              {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"tooltip", true}}},
               {"encoding",
                {{"y", enc_y},
                 {"x", {{"field", "difference"}, {"type", "quantitative"}}},
                 {"color", {{"field", "significant"}, {"type", "nominal"}, {"title", nullptr}}},
                 {"tooltip",
                  json::array({tip("metric", "nominal"), tip("variant", "nominal"),
                               tip("difference", "quantitative", "mean difference", ",.4~r"),
                               tip("lower", "quantitative", "95 % CI low", ",.4~r"),
                               tip("upper", "quantitative", "95 % CI high", ",.4~r"),
                               tip("significant", "nominal", "paired t"),
                               tip("n", "quantitative", "pairs")})}}}}})}};
  }
  return {"Paired differences against the base",
          "Variant minus base, replication by replication on common random numbers, with the 95 % "
          "paired-t interval: an interval clear of the dashed zero line is a significant "
          "difference.",
          std::move(s)};
}

std::vector<Chart> build_charts(const ReportInput& in) {
  std::vector<Chart> charts;
  replay_check_charts(in, charts);
  charts.push_back(gpus_chart(in));
  charts.push_back(pending_chart(in));
  charts.push_back(wait_causes_chart(in));
  charts.push_back(
      cdf_chart(in, "wait_s", "Wait time",
                "How long do jobs wait until all their pods first run, per queue and per job kind? "
                "Read the p90 where a curve crosses 90 %.",
                "wait (h)"));
  charts.push_back(cdf_chart(
      in, "jct_s", "JCT",
      "How long from submission to completion, for finished jobs, per queue and per job kind?",
      "job completion time (h)"));
  charts.push_back(gpu_hours_chart(in));
  charts.push_back(restarts_chart(in));
  charts.push_back(node_timeline_chart(in));
  charts.push_back(fault_chart(in));
  charts.push_back(fairness_chart(in));
  if (in.kind == ReportKind::Comparison) {
    charts.push_back(variants_chart(in));
    charts.push_back(differences_chart(in));
  }
  return charts;
}

}  // namespace detail

}  // namespace t9k::analysis
