// Loading scenario files (docs/scenario-format.md): a file or text to a Scenario (scenario.hpp)
// with every finding as a Diagnostic, the job budget checked before anything runs, and what
// `t9ksim validate` checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::scenarios {

struct JobSource {
  std::string path;  // spec.workload.generators[1], ...
  std::string how;   // the sum behind it, for messages
  double jobs = 0;   // may be infinite (an interarrival gap of mean 0 without a count)
};
struct JobEstimate {
  double total = 0;
  std::vector<JobSource> sources;
};
JobEstimate estimate_jobs(const Scenario& sc);

// The default of --max-jobs: far above the shipped scenarios (the largest, the Philly replay,
// has 82,247 jobs) and the 1M-job benchmark year, below what fills this machine's memory.
inline constexpr std::int64_t kDefaultMaxJobs = 5000000;
// The longest spec.horizon: 1,000 years keeps every sum of times far inside the clock's range.
inline constexpr std::int64_t kMaxHorizonDays = 365000;

struct ScenarioResult {
  std::optional<Scenario> scenario;     // set exactly when there are no errors
  std::vector<Diagnostic> diagnostics;  // errors and warnings, every one found
  // Every file the scenario names (manifests, traces, plugin programs), resolved against base_dir:
  // a command's outputs may not replace them (analysis/result_folder.hpp).
  std::vector<std::string> files;
  bool ok() const { return scenario.has_value(); }
};

struct LoadOptions {
  // Scenario entries may name manifest or trace files by path, resolved against base_dir. The
  // fuzz target turns this off so no input reads the file system.
  bool allow_file_references = true;
  std::string base_dir;  // empty => the scenario file's folder (load_scenario) or "."
  // Bad trace rows become warnings and are skipped (t9ksim run/import --skip-bad-rows).
  bool skip_bad_trace_rows = false;
  // Refuse a scenario whose estimate_jobs() is above this many jobs per replication (0: no check;
  // commands that run scenarios set it from --max-jobs).
  std::int64_t max_jobs = 0;
};

ScenarioResult load_scenario(const std::string& path, LoadOptions options = {});
// Reads an input file as every loader does: a regular file (not a pipe or device) of at most
// 64 MiB; otherwise false with an error naming the file. Commands read scenarios and overlays
// with it before they parse them.
bool read_input_file(const std::string& path, std::string& text, std::vector<Diagnostic>& out);
ScenarioResult parse_scenario(std::string_view text, const std::string& file,
                              LoadOptions options = {});

// What `t9ksim validate` runs: a file whose first document has kind Scenario is a scenario,
// anything else a manifest file. Returns every diagnostic.
std::vector<Diagnostic> validate_file(const std::string& path);
// The same over text, without file references unless options allow them (fuzz entry point).
std::vector<Diagnostic> validate_text(std::string_view text, const std::string& file,
                                      LoadOptions options = {});

}  // namespace t9k::scenarios
