// report.html: the page around the tables and charts, its style and script, and the escaping of
// everything that came from user input.
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

namespace {

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

}  // namespace detail

using namespace detail;

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
  h += first_screen(in);
  h += warnings_block(in);
  h += notes_block(in);
  h += initial_state_section(in);
  h += "<h2>Headline metrics</h2>\n";
  h += in.kind == ReportKind::Run
           ? "<p class=\"q\">One run: no interval. Run with replications for 95 % Student-t "
             "intervals.</p>\n"
           : "<p class=\"q\">Mean ± half-width of the 95 % Student-t interval across replications; "
             "where that would reach below 0 or above 100 %, the mean and the interval's ends "
             "clipped to the metric's range, as in 21.3 min (0 s to 45.4 min). Differences are "
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

std::string render_folder_report(const fs::path& dir) {
  const fs::path summary = dir / "summary.json";
  bool sweep = false;
  if (fs::exists(summary)) {
    try {
      sweep = json::parse(read_text_file(summary)).value("kind", "") == "sweep";
    } catch (const json::exception&) {
      // load_report_input reports the malformed file.
    }
  }
  if (sweep) return render_sweep_report(load_sweep_summary(dir));
  return render_report(load_report_input(dir));
}

fs::path write_report(const fs::path& dir) {
  const fs::path out = dir / "report.html";
  write_file_atomic(out, render_folder_report(dir));
  return out;
}

}  // namespace t9k::analysis
