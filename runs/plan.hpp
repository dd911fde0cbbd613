// Sweeps that outgrow one machine (docs/scale-out.md).
//
//   t9ksim plan {run|compare|sweep} ARGS... --out PLAN   the command's work (work.hpp), planned
//   t9ksim shard PLAN --index I --count N --out PART     runs the units whose index is I mod N
//   t9ksim merge PLAN PART... --out RESULT               the command's folder, byte-identical
//
// A plan folder holds plan.json (every unit with a stable index: its scenario text, replication
// and folder; how the command finishes), texts/<i>.yaml (each distinct scenario text), files/ (what
// the command writes before its runs), inputs/ (a copy of every file the scenario reads, laid out
// as they were relative to each other, so a shard resolves the same relative paths on another
// machine) and t9ksim-files.json (every file's hash: a shard refuses a plan whose copies changed).
// Units are independent with named random streams, so any split gives the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runs/run_one.hpp"
#include "runs/work.hpp"

namespace t9k::runs {

struct PlanRequest {
  std::string dir;  // the plan folder (the command's --out)
  std::vector<std::string>
      plugin_specs;  // --plugin KIND=COMMAND as given: each shard parses them again
  std::vector<std::string> reference_specs;  // --reference, as given
  std::string plugin_timeout = "10s";
  bool pilot = true;  // run a short pilot and print the cost estimate
};

// Writes the plan of `w` (units run with `unit_options`; its plugins come from the request). Prints
// the units and, unless req.pilot is false, the cost estimate. Exit code.
int write_plan(const Work& w, const RunOneOptions& unit_options, const PlanRequest& req,
               bool quiet);

struct ShardArgs {
  std::string plan;
  std::optional<std::uint64_t> index;  // default: from the environment (shard_from_environment)
  std::optional<std::uint64_t> count;
  std::string out;
  unsigned threads = 0;  // 0: one per core
  bool quiet = false;
};
int shard_command(const ShardArgs& args);

struct MergeArgs {
  std::string plan;
  std::vector<std::string> parts;
  std::string out;
  bool quiet = false;
};
int merge_command(const MergeArgs& args);

// A shard's index and count as the engines give them: a Kubernetes Indexed Job sets
// JOB_COMPLETION_INDEX (the count is the Job's completions: pass --count); a Slurm job array sets
// SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT (index = ID - MIN);
// T9KSIM_SHARD_INDEX / T9KSIM_SHARD_COUNT for anything else (a T9k GenericJob passes $(rank) and
// $(replicas[worker]) as --index and --count). Fills what `index`/`count` lack; returns an
// error message, or "" with `source` naming where the values came from.
std::string shard_from_environment(std::optional<std::uint64_t>& index,
                                   std::optional<std::uint64_t>& count, std::string& source);

}  // namespace t9k::runs
