// A command's work as data: what `run`, `compare` and `sweep` compute before they simulate
// anything (every run's scenario text and replication, the folder each writes, the files written
// beside them, how the runs' outputs become the folder's summaries), so that the same work can be
// run here (execute_work), written as a plan (`t9ksim plan`), run in shards on other machines
// (`t9ksim shard`) and completed by `t9ksim merge` through the very code the command uses to
// finish (finish_work): the merged folder is byte-identical to the command's (docs/scale-out.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/aggregate.hpp"
#include "analysis/result_folder.hpp"
#include "analysis/sweep.hpp"
#include "runs/run_one.hpp"

namespace t9k::runs {

// One simulation run: a scenario text at one replication, into one folder.
struct WorkUnit {
  std::string label;     // "run", "base", "point-3": for messages
  std::size_t text = 0;  // index into Work::texts
  std::uint64_t replication = 0;
  std::string dir;  // relative to the results folder, '/'-separated; "" is the folder itself
};

// How the runs' outputs become the folder's own files.
enum class Finish {
  Single,        // one run written into the folder itself (+ report.html)
  Replications,  // rep-<i>/ folders and their summary.json (+ report.html)
  Comparison,    // <variant>/rep-<i>/, each variant's summary, the comparison summary, report.html
  Sweep  // point-<i>/rep-<r>/, each point's summary, sweep.csv, summary.json (+ report.html)
};
const char* to_string(Finish f);
std::optional<Finish> parse_finish(const std::string& s);

struct WorkGroup {
  std::string name;                 // the variant's name (Comparison)
  std::vector<std::string> values;  // the point's values, one per parameter (Sweep)
  std::vector<std::size_t> units;   // its runs, indexes into Work::units, in replication order
  analysis::Overlay overlay;        // Comparison: the variant's overlay (empty for the base)
};

struct Work {
  std::string command;  // run | compare | sweep: the results folder's command
  // Names the texts in messages; relative paths in them resolve against its folder. "<...>" for
  // the embedded default scenario.
  std::string scenario_file;
  std::vector<std::string> texts;
  std::vector<WorkUnit> units;  // in the order the command lists them: a plan's indexes
  std::vector<std::pair<std::string, std::string>>
      files;  // written before the runs: relative path, bytes
  std::vector<std::filesystem::path>
      inputs;  // every file the command read: never replaced by an output
  Finish finish = Finish::Single;
  std::vector<std::string> parameters;  // Sweep: the varied paths
  std::vector<std::string> targets;     // Sweep: --target texts, checked at every point
  std::string minimise;                 // Sweep: --minimise, the full metric name
  bool zipped = false;                  // Sweep: --zip, the parameters move together
  std::vector<std::string> aliases;     // Sweep: --vary NAME=PATH=...: the names ("" none)
  std::vector<WorkGroup> groups;  // Comparison: variants, base first; Sweep: points; else one group
  bool report = true;
};

// What finish_work aggregated, for the command's closing lines.
struct Finished {
  int rc = 0;
  bool committed = false;
  bool logs_only = false;  // it failed, and the folder holds its plugins' logs only
  std::optional<analysis::ReplicationSummary> replications;
  std::optional<analysis::ComparisonSummary> comparison;
  std::optional<analysis::SweepSummary> sweep;
};

// With every unit's outputs in place under folder.path() and codes[i] the exit code of unit i,
// writes the summaries and the report as the command does after its runs, then commits the
// folder. A run that failed leaves the target as it was (Single and Replications still commit
// when runs only failed a check or an invariant, as `t9ksim run` always has).
// `extra` (Single and Replications, when the runs succeeded) writes the command's own files into
// the staging folder after the summaries and before the report (forecast --job: job-forecast.csv).
using ExtraFiles = std::function<void(const std::filesystem::path& staging)>;
Finished finish_work(const Work& w, analysis::ResultFolder& folder, const std::vector<int>& codes,
                     const ExtraFiles& extra = {});

// Writes w.files under dir, making folders.
void write_work_files(const Work& w, const std::filesystem::path& dir);

// The command's own execution: a ResultFolder at out_dir, the prepared files, every unit through
// run_one on `threads` threads (0: one per core), then finish_work.
Finished execute_work(const Work& w, const std::string& out_dir, const RunOne& run_one,
                      unsigned threads, bool quiet, const ExtraFiles& extra = {});

// The closing lines of the command whose work this is (nothing when quiet): the headline metrics
// and where the results are; `shown` is the results folder as the user named it.
void print_finished(const Work& w, const Finished& f, const std::string& shown);

}  // namespace t9k::runs
