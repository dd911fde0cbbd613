// Writing a run's results (docs/outputs.md): jobs.csv, timeseries.csv, summary.json and, with
// --events, events.jsonl. Every file is written to a temporary name and renamed, so a partial
// result never looks complete; summary.json is written last.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analysis/recorder.hpp"
#include "model/change.hpp"

namespace t9k::analysis {

// A file written under a temporary name beside it (".NAME.tmp") and renamed into place by
// commit(); destroyed uncommitted (a failed run) it is removed, so a partial file never looks
// complete. Errors name the file and the system's reason ("cannot write PATH: REASON").
class StagedFile {
 public:
  explicit StagedFile(const std::filesystem::path& path);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  std::ostream& out() { return out_; }
  void check();  // throws after a failed write
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Writes `content` to path atomically (temporary file in the same folder, then rename).
void write_file_atomic(const std::filesystem::path& path, const std::string& content);
// The same, for content written piece by piece to the stream.
void write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(std::ostream&)>& write);
// The whole file; throws std::runtime_error("cannot read PATH") when it cannot be opened.
std::string read_text_file(const std::filesystem::path& path);

// What crossed to and from one plugin process (docs/plugins.md): summary.json "plugins".
struct PluginUse {
  std::string name;
  std::string role;  // "controller" | "elasticPolicy"
  std::string protocol_version;
  std::uint64_t calls = 0;
  std::uint64_t items = 0;  // reconciles (controllers) or decisions (policies) answered
  std::uint64_t bytes_sent = 0, bytes_received = 0;
  double wait_s = 0;  // wall time waiting for answers: the one figure that differs run to run
};

// What a run simulated, as its report's first screen states it (summary.json "setup"; issue 48):
// the values after every --set, so a page never reads as if a default applied.
struct RunSetup {
  struct Pool {
    std::string name;
    std::int64_t count = 0;
    std::int64_t gpus_per_node = 0;
    std::string gpu_model;           // may be empty
    double price_per_node_hour = 0;  // 0: not costed
    double busy_watts = 0;           // 0: not metered
  };
  struct Queue {
    std::string name;
    std::int64_t priority = 0;
    std::vector<std::pair<std::string, std::string>> quota;  // resource, quantity; empty: none
  };
  std::string description;
  std::string scheduler;  // t9k or default
  std::vector<Pool> pools;
  std::vector<Queue> queues;
  std::vector<std::string> workload;   // one phrase per source ("generator research", ...)
  std::string faults;                  // the fault profile
  std::int64_t replications = 1;       // the scenario's spec.replications
  std::vector<std::string> overrides;  // the command's --set PATH=VALUE, as given (in order)
  std::vector<std::string> targets;    // the command's --target texts (analysis/goal.hpp)
  // Simulated time zero on the calendar (Unix seconds), when the run starts from a cluster
  // export (spec.initialState): the report's time axes are then dates.
  std::optional<std::int64_t> time_zero_unix_s;
  bool present = false;  // false: read from a summary.json older than "setup"
};

struct RunInfo {
  std::string version;
  std::string scenario_name;
  std::string scenario_hash;  // 16 hex digits over the scenario file's bytes
  std::uint64_t seed = 0;
  std::uint64_t replication = 0;
  std::string fingerprint;
  std::uint64_t events = 0;
  double horizon_s = 0;
  std::vector<std::string> invariant_violations;
  // What makes this run's figures misleading on their own (summary.json "warnings", written only
  // when there are any): e.g. a fault profile under which no fault happened.
  std::vector<std::string> warnings;
  // What loading assumed or chose (summary.json "notes", written only when there are any): time
  // zero of an export, defaults taken from its data, a forecast's fit.
  std::vector<std::string> notes;
  std::vector<PluginUse> plugins;  // summary.json "plugins", written only when there are any
  RunSetup setup;
};

// The run warning that a fault profile is set but no fault happened in the run. Over several
// replications it is chance, not a caution, unless it holds in every run (the report's "Read with
// care" box, analysis/report_tables.cpp).
std::string no_fault_warning(std::string_view profile, std::size_t runs = 1);
// The profile a no_fault_warning names, or nullopt for any other warning.
std::optional<std::string> no_fault_profile(std::string_view warning);

std::string jobs_csv(const Recorder& r);
void write_jobs_csv(std::ostream& os, const Recorder& r);  // jobs_csv, streamed
std::string timeseries_csv(const Recorder& r);
void write_timeseries_csv(std::ostream& os, const Recorder& r);  // the same, a piece at a time
std::string faults_csv(const Recorder& r);
// Sorted keys; "metrics" holds `metrics`, the recorder's (Recorder::metrics() copies every sample
// for the percentiles: a run that also prints them takes them once).
std::string summary_json(const std::map<std::string, double>& metrics, const RunInfo& info);
// One JSON object per change, {"t": seconds, "type": "...", ...}.
// `job_names` (by JobId, from JobSubmitted): every job event names its job by name and id.
std::string change_json(const model::TimedChange& c,
                        const std::vector<std::string>* job_names = nullptr);

// Streams events.jsonl to a temporary file and renames it on commit().
class EventLog {
 public:
  explicit EventLog(const std::filesystem::path& path) : file_(path) {}
  void write(const model::TimedChange& c);
  void commit() { file_.commit(); }

 private:
  StagedFile file_;
  std::vector<std::string> job_names_;  // by JobId
};

// jobs.csv written while the run goes (Recorder::stream_rows: each row once its job has left
// the world, in JobId order) to a temporary name; commit() renames it, and a writer destroyed
// uncommitted (a failed run) removes it.
// jobs.csv's optional columns: `cost` and `energy_kwh` in runs whose nodes have prices or power
// (docs/outputs.md "Cost and energy"), so other runs' files stay as they were.
struct JobsCsvColumns {
  bool cost = false;
  bool energy = false;
};

class JobsCsvWriter {
 public:
  JobsCsvWriter(const std::filesystem::path& path, SimTime horizon, JobsCsvColumns columns = {});
  void row(const JobRow& r);
  void commit() { file_.commit(); }

 private:
  StagedFile file_;
  SimTime horizon_;
  JobsCsvColumns columns_;
  fmt::memory_buffer row_;
};

// Writes jobs.csv, timeseries.csv, faults.csv and last summary.json into dir (created if needed).
// When the recorder streamed its rows, `streamed` is the writer they went to: it is committed
// in jobs.csv's turn. `metrics`: r.metrics(), as the caller took them.
void write_outputs(const std::filesystem::path& dir, const Recorder& r, const RunInfo& info,
                   const std::map<std::string, double>& metrics, JobsCsvWriter* streamed = nullptr);

}  // namespace t9k::analysis
