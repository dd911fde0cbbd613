// report.html (docs/reports.md): one self-contained page with the headline table and interactive
// Vega-Lite charts. The Vega bundles are inlined (analysis/report_assets.hpp), so the page works
// offline. Every string that came from user input is escaped for its context: HTML text and
// attributes, and JSON inside <script> (with <, >, &, U+2028 and U+2029 as \u escapes).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/aggregate.hpp"
#include "analysis/csv.hpp"

namespace t9k::analysis {

enum class ReportKind { Run, Replications, Comparison };

// The tables of one run that the charts draw from (docs/outputs.md).
struct RunTables {
  CsvTable jobs;
  CsvTable timeseries;
  CsvTable faults;
  CsvTable occupancy;      // occupancy.csv (the node timeline), when present
  CsvTable replay_check;   // replay-check.csv of `t9ksim replay-check`, when present
  CsvTable initial_state;  // initial-state.csv of a run from spec.initialState, when present
  double horizon_s = 0;
};

struct ReportVariant {
  std::string name;                 // "base" or the variant's name; the run's for kind Run
  ReplicationSummary replications;  // one run for kind Run
  std::map<std::string, PairedDifference> vs_base;  // comparisons, variants after the first
  RunTables sample;                // the first replication: time series, CDFs, faults
  std::optional<Overlay> overlay;  // a comparison's variant: what it merged onto the base
};

struct ReportInput {
  ReportKind kind = ReportKind::Run;
  std::string title;                    // the scenario's name
  std::vector<ReportVariant> variants;  // [0] is the base
  // The results folder the page describes: run folders are named relative to it, so the page
  // does not depend on the --out path as typed (issue 17 item 7).
  std::filesystem::path root;
  // `t9ksim forecast --job`: job-forecast.csv of the folder (empty otherwise).
  CsvTable job_forecast;
};

// The page, deterministic for a given input.
std::string render_report(const ReportInput& in);

// Reads a results directory: a single run (summary.json without "kind"), replications or a
// comparison (summary.json "kind"), loading the listed run directories. Throws std::runtime_error.
ReportInput load_report_input(const std::filesystem::path& dir);
RunTables load_run_tables(const std::filesystem::path& run_dir);

// The page of a `t9ksim sweep` (analysis/sweep.hpp): a table of points and one chart per metric.
struct SweepSummary;
std::string render_sweep_report(const SweepSummary& s);

// load_report_input + render_report (render_sweep_report for a sweep folder): dir's report.html.
std::string render_folder_report(const std::filesystem::path& dir);
// The same, written atomically to dir/report.html (a folder being written); returns its path.
std::filesystem::path write_report(const std::filesystem::path& dir);

// Escaping, exposed for tests.
std::string html_escape(std::string_view s);
// Makes JSON text safe inside a <script> element: <, >, &, U+2028 and U+2029 become \u escapes
// (they can only occur inside JSON strings, where the escapes mean the same characters).
std::string script_safe_json(std::string_view json_text);

}  // namespace t9k::analysis
