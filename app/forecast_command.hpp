// `t9ksim forecast EXPORT`: from a cluster export, simulate the coming days starting from the
// cluster as it is (its nodes and queues, its running jobs on their nodes, its waiting jobs in
// order) with new arrivals fitted to its history; and `t9ksim fit EXPORT`, which writes that
// fitted generator (docs/forecast.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace t9k::app {

struct ForecastArgs {
  std::string export_path;
  std::string out_dir = "t9ksim-forecast";
  std::string horizon = "7d";
  std::string at;               // the export's time; empty: its latest timestamp
  std::string remaining = "1";  // a fraction of elapsed, "deadline", or a duration distribution
  std::string queued_run_time;  // empty: the median of the finished jobs
  bool arrivals = true;         // false: no new jobs, only the initial state
  std::optional<std::uint64_t> seed;
  // Default 5, 20 with --job (its p90 needs them); 1 writes the run into the folder itself.
  std::optional<std::uint64_t> replications;
  unsigned threads = 0;    // 0: one per hardware thread
  std::int32_t nodes = 0;  // an export without Node objects: one pool of this many nodes
  std::optional<std::int32_t> gpus_per_node;  // with --nodes; default 8
  std::string job;           // --job: a job manifest; the answer is when it starts and ends
  std::string job_run_time;  // its run time; empty: the median of the export's finished jobs
  bool report = true;
  bool quiet = false;
};

struct FitArgs {
  std::string export_path;
  std::string out;  // empty: stdout
  std::string at;
  bool quiet = false;
};

// Exit code: 0 ok, 1 error, 2 bad input.
int forecast_command(const ForecastArgs& args);
int fit_command(const FitArgs& args);

}  // namespace t9k::app
