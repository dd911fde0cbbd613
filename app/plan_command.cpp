// `t9ksim plan`, `shard` and `merge` (docs/scale-out.md): a command's work as a plan folder, its
// shards run anywhere, and the parts merged into the folder the command writes.
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "app/cli_numbers.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "runs/exit_codes.hpp"
#include "runs/plan.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

using runs::kExitOk;
using runs::kExitUsage;

namespace {

// `t9ksim plan CMD ARGS... --out PLAN [--no-pilot]`: CMD's own arguments, with --out naming the
// plan folder. Returns the arguments CMD parses (without "plan" and --no-pilot), or an exit code.
constexpr const char* kPlanHelp =
    "t9ksim plan {run|compare|sweep} ARGS... --out PLAN [--no-pilot]\n"
    "  Writes the work of `t9ksim CMD ARGS...` as a plan folder instead of running it: every run "
    "with a\n"
    "  stable index, its scenario text and replication, and a copy of every input file. Then\n"
    "  `t9ksim shard PLAN --index I --count N --out PART` on any machine runs the runs I mod N, "
    "and\n"
    "  `t9ksim merge PLAN PART... --out RESULT` writes exactly the folder CMD writes "
    "(docs/scale-out.md).\n"
    "  A short pilot prints the CPU time and the wall time on N shards; --no-pilot skips it.\n";

}  // namespace

std::variant<int, std::vector<std::string>> plan_arguments(int argc, char** argv,
                                                           t9k::runs::PlanRequest& req) {
  if (argc < 3 || std::string_view(argv[2]) == "--help" || std::string_view(argv[2]) == "-h") {
    fmt::print(argc < 3 ? stderr : stdout, "{}", kPlanHelp);
    return argc < 3 ? kExitUsage : kExitOk;
  }
  const std::string_view cmd = argv[2];
  if (cmd == "size") {
    fmt::print(stderr,
               "t9ksim plan: size is a bisection (each value it tries depends on the last), so it "
               "cannot be split in advance; plan a sweep over the same range instead\n");
    return kExitUsage;
  }
  if (cmd != "run" && cmd != "compare" && cmd != "sweep") {
    fmt::print(stderr, "t9ksim plan: '{}' cannot be planned; plan run, compare or sweep\n",
               printable(std::string(cmd)));
    return kExitUsage;
  }
  std::vector<std::string> args{argv[0]};
  bool has_out = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--no-pilot") {
      req.pilot = false;
      continue;
    }
    if (a == "-o" || a == "--out" || a.starts_with("--out=") ||
        (a.starts_with("-o") && a.size() > 2))
      has_out = true;
    args.emplace_back(a);
  }
  if (!has_out) {
    fmt::print(stderr, "t9ksim plan: give the plan folder with --out PLAN\n");
    return kExitUsage;
  }
  return args;
}

void add_plan_commands(Commands& c) {
  // Listed for --help; `t9ksim plan ...` itself is read before CLI11 (plan_arguments).
  c.add("plan",
        "Write the work of run, compare or sweep as a plan for shards on other machines: "
        "t9ksim plan CMD ARGS... --out PLAN (t9ksim plan --help)")
      ->allow_extras();

  auto shard_args = std::make_shared<runs::ShardArgs>();
  auto* shard = c.add("shard",
                      "Run one shard of a plan: the units whose index is I mod N, "
                      "into a part folder (restartable)");
  shard->add_option("PLAN", shard_args->plan, "Plan folder (t9ksim plan)")->required();
  shard
      ->add_option(
          "--index", shard_args->index,
          "This shard's index I, from 0 (default: JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID - "
          "SLURM_ARRAY_TASK_MIN, or T9KSIM_SHARD_INDEX)")
      ->transform(whole_number(0, kMaxShards - 1));
  shard
      ->add_option("--count", shard_args->count,
                   "Number of shards N (default: SLURM_ARRAY_TASK_COUNT or T9KSIM_SHARD_COUNT)")
      ->transform(whole_number(1, kMaxShards));
  shard
      ->add_option("-o,--out", shard_args->out,
                   "Part folder: created, or one this shard wrote before (complete units are kept)")
      ->required();
  shard->add_option("-j,--threads", shard_args->threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(threads_number());
  shard->add_flag("-q,--quiet", shard_args->quiet, "Print nothing but errors");
  c.on(shard, [shard_args] { return runs::shard_command(*shard_args); });

  auto merge_args = std::make_shared<runs::MergeArgs>();
  auto* merge = c.add("merge",
                      "Check that every unit of a plan is in the parts exactly once "
                      "and write the results folder the "
                      "planned command writes, byte for byte");
  merge->add_option("PLAN", merge_args->plan, "Plan folder (t9ksim plan)")->required();
  merge->add_option("PART", merge_args->parts, "Part folders (t9ksim shard)")->required();
  merge->add_option("-o,--out", merge_args->out, "Results folder")->required();
  merge->add_flag("-q,--quiet", merge_args->quiet, "Print nothing but errors");
  c.on(merge, [merge_args] { return runs::merge_command(*merge_args); });
}

}  // namespace t9k::app
