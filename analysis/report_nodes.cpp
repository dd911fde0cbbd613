// The report's node timeline (issue 48 item 3, docs/reports.md "Where jobs ran"): per row of
// nodes (a node, or a run of a pool's nodes on large clusters) and period, the queue that held
// most of its GPUs, how full it was, and where capacity was down (faults) or cordoned (drains),
// from occupancy.csv. Adjacent periods that read the same are one rectangle, so the data stays
// small enough for the page.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>

#include "analysis/detail/report.hpp"
#include "analysis/units.hpp"

namespace t9k::analysis {

namespace detail {

namespace {

// One period of one row, as drawn.
struct Cell {
  std::string queue;  // the queue holding most GPUs there, "idle" when none
  double used = 0;    // allocated / installed, rounded to 5 %
  double down = 0;    // down / installed, rounded to 5 %
  bool cordoned = false;
  std::string detail;  // each queue's GPUs, for the tooltip
  bool same(const Cell& o) const {
    return queue == o.queue && used == o.used && down == o.down && cordoned == o.cordoned;
  }
};

double to_5_percent(double share) { return std::round(std::clamp(share, 0.0, 1.0) * 20) / 20; }

}  // namespace

json node_timeline_rows(const ReportInput& in) {
  json rows = json::array();
  for (const auto& v : in.variants) {
    const CsvTable& t = v.sample.occupancy;
    if (t.rows.empty()) continue;
    // Rows in file order; per (row, period start) the queues' GPUs.
    std::map<std::string, std::int64_t> row_index;
    struct Period {
      double start_s = 0, installed = 0, down = 0, cordoned = 0;
      std::map<std::string, double> by_queue;
    };
    std::map<std::int64_t, std::map<double, Period>> periods;  // row index -> start -> period
    double step = 0;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const std::string row(t.field(i, "row"));
      const auto [it, _] = row_index.try_emplace(row, static_cast<std::int64_t>(row_index.size()));
      const double start = t.number(i, "start_s").value_or(0);
      Period& p = periods[it->second][start];
      p.start_s = start;
      const double cap = t.number(i, "capacity_gpus").value_or(0);
      p.down = t.number(i, "down_gpus").value_or(0);
      p.installed = cap + p.down;
      p.cordoned = t.number(i, "cordoned_gpus").value_or(0);
      const double g = t.number(i, "allocated_gpus").value_or(0);
      if (g > 0) p.by_queue[std::string(t.field(i, "queue"))] += g;
      if (start > 0 && (step == 0 || start < step)) step = start;  // the first period's length
    }
    std::vector<std::string> labels(row_index.size());
    for (const auto& [label, k] : row_index) labels[static_cast<std::size_t>(k)] = label;
    const double end_s = v.sample.horizon_s;
    for (const auto& [k, list] : periods) {
      std::vector<std::pair<double, Cell>> cells;
      for (const auto& [start, p] : list) {
        Cell c;
        double most = 0, used = 0;
        for (const auto& [q, g] : p.by_queue) {
          used += g;
          if (g > most) {
            most = g;
            c.queue = q.empty() ? "(default scheduler)" : q;
          }
          c.detail += fmt::format("{}{} {}", c.detail.empty() ? "" : ", ",
                                  q.empty() ? "default" : q, format_number(g, 0.05));
        }
        if (c.queue.empty()) c.queue = "idle";
        c.used = p.installed > 0 ? to_5_percent(used / p.installed) : 0;
        c.down = p.installed > 0 ? to_5_percent(p.down / p.installed) : 0;
        c.cordoned = p.cordoned > 0;
        c.detail = fmt::format("{} of {} GPUs{}", c.detail.empty() ? "none" : c.detail,
                               format_number(p.installed), c.down > 0 ? ", some down" : "");
        cells.emplace_back(start, std::move(c));
      }
      for (std::size_t i = 0; i < cells.size();) {
        std::size_t j = i + 1;
        while (j < cells.size() && cells[j].second.same(cells[i].second)) ++j;
        const double from = cells[i].first;
        const double to = j < cells.size() ? cells[j].first : std::max(end_s, from + step);
        const Cell& c = cells[i].second;
        rows.push_back({{"variant", v.name},
                        {"row", labels[static_cast<std::size_t>(k)]},
                        {"i", k},
                        {"from_h", from / 3600},
                        {"to_h", to / 3600},
                        {"queue", c.queue},
                        {"used", c.used},
                        {"down", c.down},
                        {"cordoned", c.cordoned},
                        {"gpus", j - i == 1 ? c.detail : c.detail + " (first period)"}});
        i = j;
      }
    }
  }
  return rows;
}

Chart node_timeline_chart(const ReportInput& in) {
  json rows = node_timeline_rows(in);
  std::map<std::string, int> nodes;
  for (const auto& r : rows) nodes.emplace(r["row"].get<std::string>(), 0);
  const bool cmp = in.variants.size() > 1;
  json s;
  if (rows.empty()) {
    s = empty_spec(
        "No node record in this run (occupancy.csv is written by every run since "
        "it was added)");
  } else {
    const json tooltip = json::array(
        {tip("variant", "nominal"), tip("row", "nominal", "nodes"),
         tip("from_h", "quantitative", "from (h)", ",.1f"),
         tip("to_h", "quantitative", "to (h)", ",.1f"), tip("queue", "nominal", "most GPUs"),
         tip("gpus", "nominal", "GPUs by queue"), tip("used", "quantitative", "allocated", ".0%"),
         tip("down", "quantitative", "down", ".0%")});
    const json y = {{"field", "row"},
                    {"type", "nominal"},
                    {"title", nullptr},
                    {"sort", {{"field", "i"}}},
                    {"axis", {{"labelLimit", 160}}}};
    // Faults (down capacity) outlined in red, drains (cordoned) dashed.
    const auto outline = [&](json values, const char* colour, bool dashed) {
      json mark = {{"type", "rect"},
                   {"filled", false},
                   {"stroke", colour},
                   {"strokeWidth", 1.5},
                   {"tooltip", true}};
      if (dashed) mark["strokeDash"] = {4, 2};
      return json{{"data", {{"values", std::move(values)}}},
                  {"mark", mark},
                  {"encoding",
                   {{"x", {{"field", "from_h"}, {"type", "quantitative"}}},
                    {"x2", {{"field", "to_h"}}},
                    {"y", y},
                    {"tooltip", tooltip}}}};
    };
    const int height = std::min(64, static_cast<int>(nodes.size())) * 14 + 20;
    // One layered view per variant: idle cells draw nothing (the background is idle), busy ones
    // in their queue's colour, down or cordoned ones outlined.
    const auto view = [&](const std::string& variant) {
      json busy = json::array(), down = json::array(), cordoned = json::array();
      for (const auto& r : rows) {
        if (r["variant"] != variant) continue;
        if (r["down"].get<double>() > 0) down.push_back(r);
        if (r["cordoned"].get<bool>()) cordoned.push_back(r);
        if (r["queue"] != "idle") busy.push_back(r);
      }
      json cells = {
          {"data", {{"values", std::move(busy)}}},
          {"mark", {{"type", "rect"}, {"tooltip", true}}},
          {"params", json::array({{{"name", "zoom"},
                                   {"select", {{"type", "interval"}, {"encodings", {"x"}}}},
                                   {"bind", "scales"}}})},
          {"encoding",
           {{"x", time_x(in, "from_h", "time (h)")},
            {"x2", {{"field", "to_h"}}},
            {"y", y},
            {"color", {{"field", "queue"}, {"type", "nominal"}, {"title", "queue (most GPUs)"}}},
            {"opacity",
             {{"field", "used"},
              {"type", "quantitative"},
              {"title", "GPUs allocated"},
              {"scale", {{"domain", {0, 1}}, {"range", {0.08, 1}}}},
              {"legend", {{"format", ".0%"}}}}},
            {"tooltip", tooltip}}}};
      return json{
          {"height", height},
          {"layer", json::array({std::move(cells), outline(std::move(down), "#c62828", false),
                                 outline(std::move(cordoned), "#ef6c00", true)})}};
    };
    s = base_spec(json::array());
    s.erase("data");
    if (!cmp) {
      json v = view(in.variants.front().name);
      s["height"] = v["height"];
      s["layer"] = std::move(v["layer"]);
    } else {
      s.erase("height");
      s["vconcat"] = json::array();
      for (const auto& v : in.variants) {
        json one = view(v.name);
        one["title"] = v.name;
        one["width"] = 860;  // "container" is for a top-level view only
        s["vconcat"].push_back(std::move(one));
      }
    }
  }
  return {"Where jobs ran: GPUs per node over time",
          "Which nodes were busy, with which queue's jobs, and where did faults (red outline) and "
          "drains (dashed) take capacity away? Each rectangle is a node (or a run of a pool's "
          "nodes on a large cluster) over a period: its colour is the queue that held most of its "
          "GPUs, its opacity how many of its GPUs were allocated (first replication of each "
          "variant; drag to zoom, double-click to reset).",
          std::move(s)};
}

}  // namespace detail

}  // namespace t9k::analysis
