// t9ksim: the command line. Exit codes: 0 success, 1 simulation or internal error, 2 bad usage
// or bad input.
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "analysis/result_folder.hpp"
#include "app/cli_numbers.hpp"
#include "app/compare_command.hpp"
#include "app/forecast_command.hpp"
#include "app/generate_command.hpp"
#include "app/import_command.hpp"
#include "app/plan.hpp"
#include "app/plugin_args.hpp"
#include "app/replay_check_command.hpp"
#include "app/report_command.hpp"
#include "app/run_command.hpp"
#include "app/size_command.hpp"
#include "app/sweep_command.hpp"
#include "app/test_command.hpp"
#include "app/version.hpp"
#include "kernel/kernel.hpp"
#include "kernel/selfcheck.hpp"
#include "plugins/serve.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/world.hpp"

namespace {

// --plugin KIND=COMMAND (repeatable) and --plugin-timeout on run and compare.
struct PluginOptions {
  std::vector<std::string> specs;
  std::string timeout = "10s";
  void add_to(CLI::App* cmd) {
    cmd->add_option(
        "--plugin", specs,
        "KIND=COMMAND: run a controller (KIND GenericJob, PyTorchTrainingJob, DeepSpeedJob, or "
        "controllers for all three) or the elastic policy (KIND elastic-policy) in a plugin "
        "process "
        "(docs/plugins.md); repeatable");
    cmd->add_option("--plugin-timeout", timeout, "How long a plugin may take to answer one request")
        ->capture_default_str();
  }
  // The runner of a batch command (compare, sweep, size): run_one with these plugins. False, after
  // printing why, when the options are bad.
  bool runner(const char* command, t9k::app::RunOne& out) const {
    t9k::app::RunOneOptions each;
    if (const auto err = parse(each.plugins); !err.empty()) {
      fmt::print(stderr, "t9ksim {}: {}\n", command, err);
      return false;
    }
    out = [each](const std::string& text, const std::string& file, std::uint64_t replication,
                 const std::string& out_dir) {
      return t9k::app::run_one(text, file, replication, out_dir, each);
    };
    return true;
  }
  // Empty on success, else the message.
  std::string parse(std::vector<t9k::app::PluginArg>& out) const {
    t9k::kernel::SimDuration t{};
    try {
      t = t9k::kernel::parse_duration(timeout);
    } catch (const std::exception& e) {
      return fmt::format("--plugin-timeout {}: {}", timeout, e.what());
    }
    if (t.count() <= 0) return fmt::format("--plugin-timeout {}: must be longer than 0s", timeout);
    for (const auto& s : specs) {
      t9k::app::PluginArg a;
      if (auto err = t9k::app::parse_plugin_arg(s, t, a)) return *err;
      out.push_back(std::move(a));
    }
    return "";
  }
};

// --set PATH=VALUE (repeatable) on run, compare and sweep.
void add_set_option(CLI::App* cmd, std::vector<std::string>& sets) {
  cmd->add_option(
         "--set", sets,
         "PATH=VALUE: change a scenario field, e.g. cluster.nodePools[name=h100].count=56 or "
         "scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=256 (paths are "
         "relative to spec; docs/scenario-format.md); repeatable, applied in order")
      ->allow_extra_args(
          false);  // one value per --set, so `run --set a=1 FILE` keeps FILE positional
}

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

int run_selfcheck(std::uint64_t seed) {
  const auto r = t9k::kernel::run_selfcheck(seed);
  fmt::print("kernel self-check: {}\n", r.message);
  fmt::print("fingerprint: {}\n", t9k::kernel::format_fingerprint(r.fingerprint));
  fmt::print("{}\n", r.ok ? "ok" : "FAILED");
  return r.ok ? kExitOk : kExitError;
}

// `t9ksim validate FILE...`: each file is a scenario or a manifest file, loaded by the same code
// the simulator uses. Prints "<file>: ok" or every finding; warnings do not fail a file.
int run_validate(const std::vector<std::string>& files) {
  bool all_ok = true;
  for (const auto& file : files) {
    const auto diagnostics = t9k::scenarios::validate_file(file);
    for (const auto& d : diagnostics) {
      fmt::print(d.severity == t9k::scenarios::Severity::Error ? stderr : stdout, "{}\n",
                 t9k::scenarios::format_diagnostic(d));
    }
    bool ok = !t9k::scenarios::has_errors(diagnostics);
    if (ok) {
      // A scenario's scheduler and world options are read by the simulator itself: check them
      // here too, so that validate never passes a scenario that run refuses.
      const auto loaded = t9k::scenarios::load_scenario(file);
      if (loaded.ok()) {
        for (const auto& d : t9k::app::settings_problems(*loaded.scenario, file)) {
          fmt::print(stderr, "{}\n", t9k::scenarios::format_diagnostic(d));
          ok = false;
        }
      }
    }
    if (!ok) {
      all_ok = false;
    } else {
      fmt::print("{}: ok\n", file);
    }
  }
  std::fflush(stdout);
  return all_ok ? kExitOk : kExitUsage;
}

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

std::variant<int, std::vector<std::string>> plan_arguments(int argc, char** argv,
                                                           t9k::app::PlanRequest& req) {
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
               t9k::app::printable(std::string(cmd)));
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

}  // namespace

int main(int argc, char** argv) {
  std::optional<t9k::app::PlanRequest> plan_request;
  std::vector<std::string> plan_args;
  std::vector<char*> plan_argv;
  if (argc > 1 && std::string_view(argv[1]) == "plan") {
    plan_request.emplace();
    auto parsed = plan_arguments(argc, argv, *plan_request);
    if (const int* rc = std::get_if<int>(&parsed)) return *rc;
    plan_args = std::get<std::vector<std::string>>(std::move(parsed));
    for (auto& a : plan_args) plan_argv.push_back(a.data());
    plan_argv.push_back(nullptr);
    argc = static_cast<int>(plan_args.size());
    argv = plan_argv.data();
  }
  CLI::App app{
      "t9ksim: a discrete-event simulator of the T9k job system "
      "(batch.tensorstack.dev/v1beta1)"};
  app.set_version_flag("--version", std::string("t9ksim ") + T9KSIM_VERSION);
  app.require_subcommand(0, 1);

  // Numbers on the command line (docs/reliability.md): decimal digits within documented limits.
  const CLI::Validator kSeed = t9k::app::whole_number(0, std::numeric_limits<std::uint64_t>::max());
  const CLI::Validator kReplications = t9k::app::whole_number(1, t9k::app::kMaxReplications);
  const CLI::Validator kReplicationNumber =
      t9k::app::whole_number(0, t9k::app::kMaxReplicationNumber);
  const CLI::Validator kThreads = t9k::app::whole_number(0, t9k::app::kMaxThreads);
  const CLI::Validator kMaxJobs = t9k::app::whole_number(1, t9k::app::kMaxJobsBudget);
  // Scenario budgets (docs/reliability.md): the estimate of jobs per replication a run may have.
  const auto add_max_jobs = [&](CLI::App* cmd, std::int64_t& value) {
    cmd->add_option(
           "--max-jobs", value,
           "Refuse a scenario expected to submit more jobs than this per replication (generators' "
           "rate x horizon, trace rows)")
        ->capture_default_str()
        ->transform(kMaxJobs);
  };

  std::uint64_t seed = 1;
  auto* selfcheck = app.add_subcommand(
      "selfcheck", "Run the kernel self-check (an M/M/1 queue against its analytic wait)");
  selfcheck->add_option("--seed", seed, "Random seed")->capture_default_str()->transform(kSeed);

  std::vector<std::string> validate_files;
  auto* validate = app.add_subcommand(
      "validate", "Check scenario and manifest files (exit 2 when any has an error)");
  validate->add_option("FILE", validate_files, "Scenario or manifest files (YAML or JSON)")
      ->required();

  t9k::app::RunArgs run_args;
  auto* run = app.add_subcommand(
      "run",
      "Simulate a scenario (the embedded default scenario when no file is given) and write "
      "jobs.csv, timeseries.csv, faults.csv, summary.json and report.html");
  run->add_option("SCENARIO", run_args.scenario, "Scenario file (YAML or JSON)");
  run->add_option("-o,--out", run_args.out_dir, "Results directory")->capture_default_str();
  run->add_option("--seed", run_args.seed, "Override the scenario's seed")->transform(kSeed);
  run->add_option("-r,--replications", run_args.replications,
                  "Independent replications (default: the scenario's spec.replications); with more "
                  "than one, each goes to OUT/rep-<i>/ and OUT/summary.json has 95 % intervals")
      ->transform(kReplications);
  run->add_option("--first-replication", run_args.first_replication,
                  "Number of the first replication")
      ->capture_default_str()
      ->transform(kReplicationNumber);
  run->add_option("-j,--threads", run_args.threads, "Threads for replications (0: one per core)")
      ->capture_default_str()
      ->transform(kThreads);
  run->add_flag("--events", run_args.events,
                "Also write events.jsonl (every object transition and job status)");
  run->add_flag("--objects", run_args.objects,
                "Also write objects.yaml: the final Jobs (full status), PodGroups and Queues as a "
                "kind: List");
  run->add_flag(
      "--check", run_args.check,
      "Check the scenario's expect block; exit 1 with a readable diff when it is not met");
  run->add_flag("!--no-report", run_args.report, "Do not write report.html");
  add_max_jobs(run, run_args.max_jobs);
  run->add_flag("-q,--quiet", run_args.quiet, "Print nothing but errors");
  run->add_flag("--skip-bad-rows", run_args.skip_bad_rows,
                "Skip malformed trace rows instead of refusing to start (reports how many)");
  add_set_option(run, run_args.sets);
  PluginOptions run_plugins;
  run_plugins.add_to(run);

  std::string report_dir;
  auto* report = app.add_subcommand("report", "Regenerate report.html from a results directory");
  report->add_option("DIR", report_dir, "Results of t9ksim run or t9ksim compare")->required();

  t9k::app::CompareArgs compare_args;
  std::vector<std::string> variant_specs;
  auto* compare = app.add_subcommand(
      "compare",
      "Run a base scenario and variants (overlays merged onto it) on common random "
      "numbers and report each metric with its paired difference against the base");
  compare->add_option("BASE", compare_args.base, "Base scenario file")->required();
  compare
      ->add_option("--variant", variant_specs, "NAME=OVERLAY (a partial scenario merged onto BASE)")
      ->required();
  compare->add_option("-o,--out", compare_args.out_dir, "Results directory")->capture_default_str();
  compare
      ->add_option("-r,--replications", compare_args.replications,
                   "Replications per variant (default: the base's spec.replications)")
      ->transform(kReplications);
  compare->add_option("-j,--threads", compare_args.threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(kThreads);
  add_max_jobs(compare, compare_args.max_jobs);
  compare->add_flag("-q,--quiet", compare_args.quiet, "Print nothing but errors");
  add_set_option(compare, compare_args.sets);
  PluginOptions compare_plugins;
  compare_plugins.add_to(compare);

  t9k::app::SweepArgs sweep_args;
  auto* sweep = app.add_subcommand(
      "sweep",
      "Run a scenario at every point of a grid of field values (--vary), with replications on "
      "common random numbers; write sweep.csv, summary.json and a report with one curve per "
      "metric and queue");
  sweep->add_option("SCENARIO", sweep_args.scenario,
                    "Scenario file (default: the embedded default scenario)");
  sweep
      ->add_option(
          "--vary", sweep_args.varies,
          "PATH=FROM:TO:STEP or PATH=A,B,C: a field and its values (numbers or durations in a "
          "range); several make a grid; e.g. cluster.nodePools[name=h100].count=40:96:8")
      ->required()
      ->allow_extra_args(false);
  add_set_option(sweep, sweep_args.sets);
  sweep->add_option("-o,--out", sweep_args.out_dir, "Results directory")->capture_default_str();
  sweep
      ->add_option("-r,--replications", sweep_args.replications,
                   "Replications per point (default: the scenario's spec.replications)")
      ->transform(kReplications);
  sweep->add_option("-j,--threads", sweep_args.threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(kThreads);
  sweep->add_flag("!--no-report", sweep_args.report, "Do not write report.html");
  add_max_jobs(sweep, sweep_args.max_jobs);
  sweep->add_flag("-q,--quiet", sweep_args.quiet, "Print nothing but errors");
  PluginOptions sweep_plugins;
  sweep_plugins.add_to(sweep);

  t9k::app::SizeArgs size_args;
  auto* size = app.add_subcommand(
      "size",
      "Goal seeking: the smallest (or largest) value of one scenario field that meets targets, by "
      "bisection with replications on common random numbers; says what binds when none does");
  size->add_option("SCENARIO", size_args.scenario,
                   "Scenario file (default: the embedded default scenario)");
  size->add_option("--param", size_args.param,
                   "PATH=LO:HI or PATH=LO:HI:STEP, e.g. cluster.nodePools[name=h100].count=32:96")
      ->required();
  size->add_option("--target", size_args.targets,
                   "[GROUP=VALUE] METRIC OP THRESHOLD, e.g. 'queue=production wait_p90 < 1h' or "
                   "'utilisation_allocated > 0.7'; repeatable (all must hold)")
      ->required()
      ->allow_extra_args(false);
  size->add_flag("--largest", size_args.largest,
                 "The largest value that meets the targets (default: the smallest)");
  add_set_option(size, size_args.sets);
  size->add_option("-o,--out", size_args.out_dir, "Results directory")->capture_default_str();
  size->add_option("-r,--replications", size_args.replications,
                   "Replications per value (default: the scenario's spec.replications)")
      ->transform(kReplications);
  size->add_option("-j,--threads", size_args.threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(kThreads);
  size->add_flag("!--no-report", size_args.report, "Do not write report.html");
  add_max_jobs(size, size_args.max_jobs);
  size->add_flag("-q,--quiet", size_args.quiet, "Print nothing but errors");
  PluginOptions size_plugins;
  size_plugins.add_to(size);

  auto* plugin = app.add_subcommand("plugin", "Plugin tools (docs/plugins.md)");
  plugin->require_subcommand(1);
  std::string serve_role;
  std::optional<std::string> serve_policy;
  auto* serve = plugin->add_subcommand("serve",
                                       "Speak the plugin protocol on stdin/stdout with the "
                                       "built-in controllers or elastic policies");
  serve->add_option("ROLE", serve_role, "controller | elastic-policy")
      ->required()
      ->check(CLI::IsMember({"controller", "elastic-policy"}));
  serve->add_option(
      "--policy", serve_policy,
      "elastic-policy: fixed | greedy | checkpoint-aligned | goodput (default: the scenario's)");

  t9k::app::ImportArgs import_args;
  auto* import = app.add_subcommand(
      "import",
      "Write the jobs a trace replay submits as manifests plus a scenario that replays them "
      "(DIR/scenario.yaml), beside the same run as a trace entry (DIR/trace.yaml); docs/traces.md");
  import->add_option("TRACE", import_args.trace, "Trace file")->required();
  import->add_option("--format", import_args.format, "philly | alibaba-openb | csv | k8s-export")
      ->required()
      ->check(CLI::IsMember({"philly", "alibaba-openb", "csv", "k8s-export"}));
  import->add_option("-o,--out", import_args.out_dir, "Output directory")->required();
  import->add_option("--name", import_args.name, "Trace entry name (default: the format's)");
  import->add_option("--option", import_args.options, "KEY=VALUE mapping option (repeatable)");
  import->add_option("--from", import_args.from,
                     "Window start, trace time since its first submission");
  import->add_option("--to", import_args.to, "Window end");
  import->add_option("--time-offset", import_args.time_offset,
                     "Simulated time of the first submission");
  import->add_option("--queue", import_args.queue,
                     "One queue for every job (default: queues from the trace)");
  import->add_option("--load-factor", import_args.load_factor, "Divide inter-arrival gaps by this")
      ->check(t9k::app::decimal_number(1e-6, 1e6, false));
  import->add_option("--sample", import_args.sample, "Fraction of jobs kept, in (0, 1]")
      ->check(t9k::app::decimal_number(0, 1, true));
  import->add_option("--limit", import_args.limit, "At most this many jobs")
      ->transform(t9k::app::whole_number(1, t9k::app::kMaxImportJobs));
  import->add_option("--seed", import_args.seed, "Scenario seed (sampling draws)")
      ->capture_default_str()
      ->transform(kSeed);
  import
      ->add_option("--replication", import_args.replication,
                   "Replication whose sampling draws are used")
      ->capture_default_str()
      ->transform(kReplicationNumber);
  import->add_option("--horizon", import_args.horizon,
                     "Scenario horizon (default: trace span + longest job)");
  import
      ->add_option("--nodes", import_args.nodes, "Formats without a cluster: nodes of the one pool")
      ->capture_default_str()
      ->transform(t9k::app::whole_number(1, t9k::app::kMaxImportNodes));
  import->add_option("--gpus-per-node", import_args.gpus_per_node, "GPUs per node of that pool")
      ->capture_default_str()
      ->transform(t9k::app::whole_number(0, t9k::app::kMaxImportGpusPerNode));
  import->add_flag("--skip-bad-rows", import_args.skip_bad_rows,
                   "Skip malformed rows (reports how many)");
  import->add_flag("--zero-latency", import_args.zero_latency,
                   "Pod start/stop, reconcile and scheduling latencies 0");
  import->add_flag("-q,--quiet", import_args.quiet, "Print nothing but errors");

  t9k::app::ReplayCheckArgs check_args;
  auto* replay_check = app.add_subcommand(
      "replay-check",
      "Replay the finished jobs of a cluster export (kubectl get ... -o yaml) on its own cluster "
      "and "
      "compare simulated with recorded wait and end, job by job (docs/traces.md)");
  replay_check
      ->add_option("EXPORT", check_args.export_path,
                   "The export: a List of jobs, pods, nodes and queues")
      ->required();
  replay_check->add_option("-o,--out", check_args.out_dir, "Output directory")
      ->capture_default_str();
  replay_check
      ->add_option("--nodes", check_args.nodes, "An export without Nodes: nodes of one pool")
      ->transform(t9k::app::whole_number(1, t9k::app::kMaxImportNodes));
  replay_check
      ->add_option("--gpus-per-node", check_args.gpus_per_node, "GPUs per node of that pool")
      ->capture_default_str()
      ->transform(t9k::app::whole_number(0, t9k::app::kMaxImportGpusPerNode));
  replay_check->add_flag("--zero-latency", check_args.zero_latency,
                         "Pod start/stop, reconcile and scheduling latencies 0");
  replay_check->add_flag("--skip-bad-rows", check_args.skip_bad_rows,
                         "Skip jobs whose times are malformed (reports how many)");
  replay_check->add_flag("!--no-report", check_args.report, "Do not write report.html");
  replay_check->add_flag("-q,--quiet", check_args.quiet, "Print nothing but errors");

  t9k::app::ForecastArgs forecast_args;
  auto* forecast = app.add_subcommand(
      "forecast",
      "Simulate the coming days from a cluster export (kubectl get ... -o yaml): its nodes and "
      "queues, its "
      "running jobs on their nodes, its waiting jobs in order, new jobs fitted to its history "
      "(docs/forecast.md)");
  forecast
      ->add_option("EXPORT", forecast_args.export_path,
                   "The export: a List of jobs, pods, nodes and queues")
      ->required();
  forecast->add_option("-o,--out", forecast_args.out_dir, "Output directory")
      ->capture_default_str();
  forecast
      ->add_option("--horizon", forecast_args.horizon, "How far to simulate from the export's time")
      ->capture_default_str();
  forecast->add_option("--at", forecast_args.at,
                       "The export's time (RFC 3339); default: the latest time it records");
  forecast
      ->add_option(
          "--remaining", forecast_args.remaining,
          "How long running jobs run on: a fraction of the time they have run (1 = as long again), "
          "'deadline' (until activeDeadlineSeconds, else as long again), or a duration "
          "distribution "
          "such as '{exponential: {mean: 2h}}'")
      ->capture_default_str();
  forecast->add_option("--queued-run-time", forecast_args.queued_run_time,
                       "Run time of waiting jobs (a duration or distribution); default: the median "
                       "of the finished jobs");
  forecast->add_flag("!--no-arrivals", forecast_args.arrivals,
                     "No new jobs: only the jobs of the export");
  forecast->add_option("--seed", forecast_args.seed, "Seed of the run (default 1)");
  forecast->add_flag("!--no-report", forecast_args.report, "Do not write report.html");
  forecast->add_flag("-q,--quiet", forecast_args.quiet, "Print nothing but errors");

  t9k::app::FitArgs fit_args;
  auto* fit = app.add_subcommand("fit",
                                 "Fit a generator to a cluster export's history: arrivals by hour "
                                 "of day, the mix of kinds, sizes and queues, "
                                 "run times (docs/forecast.md)");
  fit->add_option("EXPORT", fit_args.export_path,
                  "The export: a List of jobs (kubectl get ... -o yaml)")
      ->required();
  fit->add_option("-o,--out", fit_args.out, "Write the generator here (default: standard output)");
  fit->add_option("--at", fit_args.at,
                  "Time zero (RFC 3339); default: the latest time the export records");
  fit->add_flag("-q,--quiet", fit_args.quiet, "Print nothing but errors");

  t9k::app::TestArgs test_args;
  auto* test = app.add_subcommand(
      "test",
      "Run every scenario with an expect block under the given files and folders, in parallel; "
      "one line per case, exit 1 on any failure (docs/regression-testing.md)");
  test->add_option("PATH", test_args.paths, "Scenario files and folders (searched recursively)")
      ->required();
  test->add_option("--junit", test_args.junit, "Also write a JUnit XML report to this file");
  test->add_option("-o,--out", test_args.out_dir,
                   "Keep each case's results in OUT/<case> (default: a temporary folder)");
  test->add_option("-j,--threads", test_args.threads, "Cases run at once (0: one per core)")
      ->capture_default_str()
      ->transform(kThreads);
  test->add_flag("-v,--verbose", test_args.verbose, "Also print the passing cases' warnings");

  t9k::app::GenerateArgs generate_args;
  auto* generate = app.add_subcommand(
      "generate",
      "Write a scenario's generated jobs as manifests (DIR/<generator>.yaml) and the scenario "
      "with its generators replaced by those jobs (DIR/scenario.yaml), which runs identically");
  generate->add_option("SCENARIO", generate_args.scenario,
                       "Scenario file (default: the embedded default scenario)");
  generate->add_option("-o,--out", generate_args.out_dir, "Output directory")->required();
  generate
      ->add_option("--replication", generate_args.replication,
                   "Replication whose draws are written")
      ->capture_default_str()
      ->transform(kReplicationNumber);
  add_max_jobs(generate, generate_args.max_jobs);
  generate->add_flag("-q,--quiet", generate_args.quiet, "Print nothing but errors");

  // Listed for --help; `t9ksim plan ...` itself is read before CLI11 (plan_arguments).
  app.add_subcommand(
         "plan",
         "Write the work of run, compare or sweep as a plan for shards on other machines: "
         "t9ksim plan CMD ARGS... --out PLAN (t9ksim plan --help)")
      ->allow_extras();

  t9k::app::ShardArgs shard_args;
  auto* shard = app.add_subcommand("shard",
                                   "Run one shard of a plan: the units whose index is I mod N, "
                                   "into a part folder (restartable)");
  shard->add_option("PLAN", shard_args.plan, "Plan folder (t9ksim plan)")->required();
  shard
      ->add_option(
          "--index", shard_args.index,
          "This shard's index I, from 0 (default: JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID - "
          "SLURM_ARRAY_TASK_MIN, or T9KSIM_SHARD_INDEX)")
      ->transform(t9k::app::whole_number(0, t9k::app::kMaxShards - 1));
  shard
      ->add_option("--count", shard_args.count,
                   "Number of shards N (default: SLURM_ARRAY_TASK_COUNT or T9KSIM_SHARD_COUNT)")
      ->transform(t9k::app::whole_number(1, t9k::app::kMaxShards));
  shard
      ->add_option("-o,--out", shard_args.out,
                   "Part folder: created, or one this shard wrote before (complete units are kept)")
      ->required();
  shard->add_option("-j,--threads", shard_args.threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(kThreads);
  shard->add_flag("-q,--quiet", shard_args.quiet, "Print nothing but errors");

  t9k::app::MergeArgs merge_args;
  auto* merge = app.add_subcommand("merge",
                                   "Check that every unit of a plan is in the parts exactly once "
                                   "and write the results folder the "
                                   "planned command writes, byte for byte");
  merge->add_option("PLAN", merge_args.plan, "Plan folder (t9ksim plan)")->required();
  merge->add_option("PART", merge_args.parts, "Part folders (t9ksim shard)")->required();
  merge->add_option("-o,--out", merge_args.out, "Results folder")->required();
  merge->add_flag("-q,--quiet", merge_args.quiet, "Print nothing but errors");

  // An unknown command is an error even when --help follows it (CLI11 would print the main help
  // and exit 0, so `t9ksim tset --help` would look like success).
  if (argc > 1 && argv[1][0] != '-') {
    try {
      (void)app.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound&) {
      std::vector<std::string> names;
      for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names.push_back(sub->get_name());
      fmt::print(stderr, "t9ksim: error: unknown command '{}'; the commands are {}\n",
                 t9k::app::printable(argv[1]), fmt::join(names, ", "));
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  try {
    if (*selfcheck) return run_selfcheck(seed);
    if (*validate) return run_validate(validate_files);
    if (*serve) {
      return t9k::plugins::serve(stdin, stdout,
                                 serve_role == "controller" ? t9k::protocol::Role::Controller
                                                            : t9k::protocol::Role::ElasticPolicy,
                                 serve_policy);
    }
    if (*run) {
      if (const auto err = run_plugins.parse(run_args.plugins); !err.empty()) {
        fmt::print(stderr, "t9ksim run: {}\n", err);
        return kExitUsage;
      }
      if (plan_request) {
        plan_request->dir = run_args.out_dir;
        plan_request->plugin_specs = run_plugins.specs;
        plan_request->plugin_timeout = run_plugins.timeout;
        run_args.plan = &*plan_request;
      }
      return t9k::app::run_command(run_args);
    }
    if (*generate) return t9k::app::generate_command(generate_args);
    if (*test) return t9k::app::test_command(test_args);
    if (*import) return t9k::app::import_command(import_args);
    if (*replay_check) return t9k::app::replay_check_command(check_args);
    if (*forecast) return t9k::app::forecast_command(forecast_args);
    if (*fit) return t9k::app::fit_command(fit_args);
    if (*report) return t9k::app::report_command(report_dir);
    if (*shard) return t9k::app::shard_command(shard_args);
    if (*merge) return t9k::app::merge_command(merge_args);
    if (*compare) {
      for (const auto& v : variant_specs) {
        const auto parsed = t9k::app::parse_variant(v);
        if (!parsed) {
          fmt::print(stderr, "t9ksim compare: --variant {}: expected NAME=OVERLAY\n", v);
          return kExitUsage;
        }
        compare_args.variants.push_back(*parsed);
      }
      if (!compare_plugins.runner("compare", compare_args.run_one)) return kExitUsage;
      compare_args.check_settings = t9k::app::settings_problems;
      if (plan_request) {
        plan_request->dir = compare_args.out_dir;
        plan_request->plugin_specs = compare_plugins.specs;
        plan_request->plugin_timeout = compare_plugins.timeout;
        compare_args.plan = [&](const t9k::app::Work& w) {
          return t9k::app::write_plan(w, t9k::app::RunOneOptions{}, *plan_request,
                                      compare_args.quiet);
        };
      }
      return t9k::app::compare_command(compare_args);
    }
    if (*sweep) {
      if (!sweep_plugins.runner("sweep", sweep_args.run_one)) return kExitUsage;
      if (plan_request) {
        plan_request->dir = sweep_args.out_dir;
        plan_request->plugin_specs = sweep_plugins.specs;
        plan_request->plugin_timeout = sweep_plugins.timeout;
        sweep_args.plan = [&](const t9k::app::Work& w) {
          return t9k::app::write_plan(w, t9k::app::RunOneOptions{}, *plan_request,
                                      sweep_args.quiet);
        };
      }
      return t9k::app::sweep_command(sweep_args);
    }
    if (*size) {
      if (!size_plugins.runner("size", size_args.run_one)) return kExitUsage;
      return t9k::app::size_command(size_args);
    }
    fmt::print("{}", app.help());
    return kExitOk;
  } catch (const t9k::analysis::OutputError& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return e.usage() ? kExitUsage : kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return kExitError;
  }
}
