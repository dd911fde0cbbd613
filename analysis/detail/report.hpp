// Internal: the parts report.html is made of, by file:
//   report_metrics.cpp  metric names, labels and number formats
//   report_data.cpp     chart data from the runs' tables; reading a results folder
//   report_charts.cpp   the Vega-Lite charts
//   report_tables.cpp   the HTML tables
//   report_page.cpp     the page around them (style, script, escaping)
//   report_sweep.cpp    the page of a sweep or a size search
//   report_sweep_charts.cpp  its charts (detail/sweep_charts.hpp)
#pragma once

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/report.hpp"

namespace t9k::analysis::detail {

namespace fs = std::filesystem;
using nlohmann::json;

struct MetricInfo {
  const char* name;
  const char* label;
};

// Headline order; metrics not listed follow in name order.
inline constexpr MetricInfo kMetrics[] = {
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
    {"cost_total", "cost, total (installed node-hours × price)"},
    {"cost_allocated", "cost of the GPU-time allocated to jobs"},
    {"cost_idle", "cost of capacity not allocated (idle, down)"},
    {"cost_per_productive_gpu_hour", "cost allocated per productive GPU-hour"},
    {"cost_total_per_productive_gpu_hour", "cost, total, per productive GPU-hour"},
    {"energy_total_kwh", "energy, total (kWh)"},
    {"energy_kwh", "energy of the jobs' share of the nodes (kWh)"},
};

// The metrics the side-by-side and paired-difference charts show (those present).
inline constexpr const char* kCompareMetrics[] = {
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

inline constexpr const char* kLossCauses[] = {"fault", "software",    "preemption", "scale",
                                              "pause", "maxDuration", "other"};

std::string label_of(const std::string& metric);

// The metrics of one group value ("" group: the cluster-wide ones), without their prefix, in
// headline order.
std::vector<std::string> ordered_metrics(const ReportInput& in, const std::string& prefix = "");

std::string num(double v);

// A metric's value in the unit a reader expects: durations in s/min/h/d, shares as percentages,
// counts with thousands separators; the interval's half-width in the same unit.
std::string metric_value(const std::string& metric, const Interval& i);
// A paired difference of a metric in the metric's unit, "M ± H" (never clipped: it may be < 0).
std::string difference_value(const std::string& metric, const Interval& d);
// A difference relative to the base's mean, signed, in percent to the digits its interval
// supports: "+12 %", "−0.4 %" ("+2,000 %", not "+2042.6 %", for 10 ± 110 over 0.49).
std::string relative_change(const Interval& d, double base_mean);

double metric_mean(const ReportVariant& v, const std::string& name);

std::string queue_label(std::string_view q);

json series_rows(const ReportInput& in);

json pending_rows(const ReportInput& in);

// Pending causes as timeseries.csv and summary.json spell them, with the words the report uses.
struct CauseInfo {
  const char* column;  // timeseries.csv pending_<column>, summary.json job_hours_pending_<column>
  const char* name;    // jobs.csv pending_cause
  const char* label;
};

inline constexpr CauseInfo kCauses[] = {
    {"quota", "Quota", "queue at its quota"},
    {"capacity", "Capacity", "no node with room"},
    {"constraints", "Constraints", "every node excluded"},
    {"preempting", "Preempting", "preempting, victims terminating"},
    {"queue_order", "QueueOrder", "behind a blocked job (strict FIFO)"},
    {"gang_members", "GangMembers", "gang short of minMember pods"},
};

// Waiting jobs by cause per queue, averaged over at most 48 periods of the horizon: the stacked
// chart of "why did this queue wait, and when".
json pending_cause_rows(const ReportInput& in);

json fairness_rows(const ReportInput& in);

// Empirical CDFs computed here rather than in the browser (a trace replay has 10^5 jobs): per
// variant and group value, the fraction of jobs with a value <= x, at most kCdfPoints points
// (evenly spaced in fraction; every point when there are fewer jobs).
inline constexpr std::size_t kCdfPoints = 200;

json cdf_rows(const ReportInput& in, const char* column, const char* group);

json gpu_hour_rows(const ReportInput& in);

json restart_rows(const ReportInput& in);

json fault_rows(const ReportInput& in);

// The x encoding of a chart over simulated time whose `field` is in hours: hours up to two days,
// days beyond (report_charts.cpp).
json time_x(const ReportInput& in, const char* field, const char* hours_title);
// Where jobs ran: the node timeline from occupancy.csv (report_nodes.cpp, issue 48 item 3).
json node_timeline_rows(const ReportInput& in);

json comparison_rows(const ReportInput& in, bool differences);

json tip(const char* field, const char* type, const char* title = nullptr,
         const char* format = nullptr);

json base_spec(json values);

// A chart that says there is nothing to draw, so every chart still shows something.
json empty_spec(const std::string& message);

struct Chart {
  std::string title;
  std::string question;
  json spec;
};
Chart node_timeline_chart(const ReportInput& in);

json cdf_view(json rows, const char* group, const char* value_title, bool by_variant);

// Rows of a metric table: a metric (full name and label) or a heading spanning the row.
struct TableRow {
  std::string metric;  // empty: a heading
  std::string label;
};

// A comparison of more than kWideVariants variants gets one column per variant (mean and change
// against the base; the intervals in the cell's tooltip), so six variants fit a laptop screen.
inline constexpr std::size_t kWideVariants = 3;

std::string compact_metric_table(const ReportInput& in, const std::vector<TableRow>& rows);

std::string metric_table(const ReportInput& in, const std::vector<TableRow>& rows);

std::string headline_table(const ReportInput& in);

// The first screen (report_first_screen.cpp): what was simulated (the runs' summary.json
// "setup"), then each queue's waits with their intervals and whether the quota or the nodes bind.
std::string first_screen(const ReportInput& in);
// Its first part alone, from the runs' setup (empty for summaries without one), with an
// optional note under the description (a sweep: which point it describes).
std::string setup_section(const std::vector<RunSummary>& runs, std::string_view note);

// What makes the figures misleading on their own: runs' own warnings (a fault profile with no
// fault), a warm-up that takes more than a third of the horizon, intervals from fewer than 5
// replications.
std::string warnings_block(const ReportInput& in);

// What the runs assumed or chose while loading (summary.json "notes": an export's time zero,
// defaults taken from its data, a forecast's fit), each once; empty when there are none.
std::string notes_block(const ReportInput& in);

// The values a group has in any variant ("queue" -> production, research), sorted.
std::vector<std::string> group_values(const ReportInput& in, const std::string& group);

// One heading per group value, then its metrics (docs/outputs.md "Metrics by group"). A run or
// replications: one column per value instead, so queues sit side by side.
std::string group_table(const ReportInput& in, const std::string& group,
                        const std::vector<std::string>& values);

// A run's folder relative to the report's ("." for a single run); as given when unrelated.
std::string folder_name(const fs::path& dir, const fs::path& root);

std::string runs_table(const ReportInput& in);

// Per queue and cause: the job-hours waited (summary.json, with its interval), the jobs whose
// last reason it was and the reason of the longest-waiting of them (jobs.csv of the sample run).
std::string pending_reasons_table(const ReportInput& in);

std::string longest_waits_table(const ReportInput& in);

// The jobs a run from spec.initialState started with (docs/forecast.md): running ones with their
// recorded nodes and time left, waiting ones in queue order. At most kRows of each.
std::string initial_state_section(const ReportInput& in);

inline constexpr const char* kStyle = R"css(
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
div.notes { background: #f4f6f8; border: 1px solid #cfd6dd; padding: 6px 12px; margin: 10px 0; }
div.notes ul { margin: 4px 0; }
ul.setup, ul.answer { margin: 4px 0 10px; padding-left: 20px; }
ul.setup li, ul.answer li { margin: 2px 0; }
p.answer { font-size: 18px; font-weight: 600; margin: 6px 0; }
p.answer.none { color: #a33; }
td.reason { font-size: 12px; color: #333; min-width: 320px; }
table.reasons td:first-child { white-space: nowrap; font-weight: 600; }
)css";

// The end of a page: one section per chart, the inlined bundles, the chart data and the script
// that draws them.
std::string page_end(const std::vector<Chart>& charts, const std::string& data_text);

// The page's charts, in order (report_charts.cpp).
std::vector<Chart> build_charts(const ReportInput& in);

}  // namespace t9k::analysis::detail
