#include "app/replay_check_command.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "analysis/csv.hpp"
#include "analysis/outputs.hpp"
#include "analysis/replay_check.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "app/cli_numbers.hpp"
#include "app/commands.hpp"
#include "app/run_command.hpp"
#include "runs/exit_codes.hpp"
#include "runs/messages.hpp"
#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "scenarios/format/traces.hpp"
#include "workload/sources.hpp"
#include "workload/trace_cursor.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace fs = std::filesystem;

namespace {

// The replay as a scenario: the export's jobs as a k8s-export trace entry on the export's cluster.
std::string scenario_text(const ReplayCheckArgs& a, const std::string& export_abs,
                          const std::string& horizon, bool has_nodes) {
  std::string s = "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata:\n  name: replay-check\n";
  s += fmt::format(
      "  description: {}\n",
      scenarios::yaml_quoted("t9ksim replay-check " + fs::path(a.export_path).filename().string()));
  s += fmt::format("spec:\n  horizon: {}\n  seed: 1\n", horizon);
  if (a.zero_latency)
    s += "  controllers: {reconcileLatency: 0s}\n  kubelet: {podStartLatency: 0s, podStopLatency: "
         "0s}\n";
  if (has_nodes) {
    s += "  cluster: {fromTrace: export}\n";
  } else {
    s += fmt::format(
        "  cluster:\n    nodePools: [{{name: trace, count: {}, gpusPerNode: {}, cpu: 64, memory: "
        "512Gi}}]\n",
        a.nodes, a.gpus_per_node);
  }
  s += "  scheduler:\n    name: t9k\n";
  if (a.zero_latency) s += "    options: {schedulingLatency: 0s}\n";
  s += fmt::format(
      "  workload:\n    traces:\n    - {{format: k8s-export, name: export, path: {}{}}}\n",
      scenarios::yaml_quoted(export_abs), a.skip_bad_rows ? ", skipBadRows: true" : "");
  return s;
}

// What the cluster recorded for each replayed job, on the simulation's clock.
std::vector<analysis::RecordedJob> recorded_jobs(const scenarios::Scenario& sc) {
  std::vector<analysis::RecordedJob> out;
  const auto& entry = sc.workload.traces.front();
  std::map<std::int32_t, const scenarios::TraceRecord*> by_line;
  for (const auto& r : entry.data->records) by_line[r.line] = &r;
  for (const auto& s : workload::expand_traces(sc, 0)) {
    const auto colon = s.source.rfind(':');
    const auto it = by_line.find(static_cast<std::int32_t>(std::stol(s.source.substr(colon + 1))));
    if (it == by_line.end()) continue;
    const scenarios::TraceRecord& r = *it->second;
    analysis::RecordedJob j;
    j.job = workload::submission_key(s, sc.default_namespace);
    j.submit_s = static_cast<double>(s.submit_time.time_since_epoch().count()) / 1e6;
    const double start_s = j.submit_s + static_cast<double>(r.start_us - r.submit_us) / 1e6;
    if (r.start_exact) j.start_s = start_s;
    j.end_s = start_s + static_cast<double>(r.duration_us) / 1e6;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

int replay_check_command(const ReplayCheckArgs& a) {
  std::error_code ec;
  if (!fs::is_regular_file(a.export_path, ec)) {
    fmt::print(stderr, "t9ksim replay-check: {}: not a file\n", a.export_path);
    return kExitUsage;
  }
  const std::string export_abs = fs::absolute(a.export_path).lexically_normal().string();
  bool has_nodes = false;
  {
    std::vector<scenarios::Diagnostic> ignored;  // reported by the load below
    const auto c = scenarios::load_export_cluster(export_abs, ignored);
    has_nodes = c && !c->pools.empty();
  }
  if (!has_nodes && a.nodes <= 0) {
    fmt::print(
        stderr,
        "t9ksim replay-check: {}: the export has no Node objects; export them too (kubectl get "
        "genericjobs,pytorchtrainingjobs,deepspeedjobs,queues,nodes,pods -A -o yaml) or give the "
        "cluster "
        "with --nodes N --gpus-per-node G\n",
        a.export_path);
    return kExitUsage;
  }
  scenarios::LoadOptions lo;
  lo.skip_bad_trace_rows = a.skip_bad_rows;
  // The horizon: the last recorded end plus a week, so jobs that wait longer here still finish.
  const auto probe = scenarios::parse_scenario(scenario_text(a, export_abs, "36500d", has_nodes),
                                               "<replay-check>", lo);
  if (!probe.ok()) {
    print_diagnostics(probe.diagnostics, a.quiet);
    return kExitUsage;
  }
  // Every submission is before the last recorded end, so the horizon chosen below keeps them all:
  // what was recorded is read once, here.
  const auto recorded = recorded_jobs(*probe.scenario);
  if (recorded.empty()) {
    print_diagnostics(probe.diagnostics, a.quiet);
    fmt::print(
        stderr,
        "t9ksim replay-check: {}: no finished job to compare (only Succeeded or Failed jobs have a "
        "recorded end)\n",
        a.export_path);
    return kExitUsage;
  }
  double last_end = 0;
  for (const auto& j : recorded) last_end = std::max(last_end, j.end_s);
  const std::string horizon = fmt::format("{}d", static_cast<std::int64_t>(last_end / 86400) + 8);
  const std::string text = scenario_text(a, export_abs, horizon, has_nodes);

  RunOneOptions opt;
  opt.quiet = a.quiet;
  opt.skip_bad_rows = a.skip_bad_rows;
  std::optional<analysis::ReplayCheck> check;
  // The trace path in the scenario is absolute, so the staging and the final folder both resolve
  // it.
  const int rc = run_into_folder(
      "replay-check", a.out_dir, {export_abs}, text, opt, a.report, [&](const std::string& out) {
        std::ifstream in(fs::path(out) / "jobs.csv", std::ios::binary);
        const std::string csv((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
        check = analysis::compare_replay(
            recorded, analysis::simulated_jobs(analysis::parse_csv(csv, "jobs.csv")));
        analysis::write_file_atomic(fs::path(out) / "replay-check.csv",
                                    analysis::replay_check_csv(*check));
      });
  if (rc == kExitOk && !a.quiet) {
    fmt::print("{}", analysis::replay_check_summary(*check));
    fmt::print("per job: {}\n", (fs::path(a.out_dir) / "replay-check.csv").string());
    if (a.report) fmt::print("report: {}\n", (fs::path(a.out_dir) / "report.html").string());
  }
  return rc;
}

void add_replay_check_command(Commands& c) {
  auto args = std::make_shared<ReplayCheckArgs>();
  auto* replay_check = c.add(
      "replay-check",
      "Replay the finished jobs of a cluster export (kubectl get ... -o yaml) on its own cluster "
      "and "
      "compare simulated with recorded wait and end, job by job (docs/traces.md)");
  replay_check
      ->add_option("EXPORT", args->export_path,
                   "The export: a List of jobs, pods, nodes and queues")
      ->required();
  replay_check->add_option("-o,--out", args->out_dir, "Output directory")->capture_default_str();
  replay_check->add_option("--nodes", args->nodes, "An export without Nodes: nodes of one pool")
      ->transform(whole_number(1, kMaxImportNodes));
  replay_check->add_option("--gpus-per-node", args->gpus_per_node, "GPUs per node of that pool")
      ->capture_default_str()
      ->transform(whole_number(0, kMaxImportGpusPerNode));
  replay_check->add_flag("--zero-latency", args->zero_latency,
                         "Pod start/stop, reconcile and scheduling latencies 0");
  replay_check->add_flag("--skip-bad-rows", args->skip_bad_rows,
                         "Skip jobs whose times are malformed (reports how many)");
  replay_check->add_flag("!--no-report", args->report, "Do not write report.html");
  replay_check->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
  c.on(replay_check, [args] { return replay_check_command(*args); });
}

}  // namespace t9k::app
