#include "app/import_command.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "analysis/result_folder.hpp"
#include "app/cli_numbers.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "kernel/time.hpp"
#include "runs/messages.hpp"
#include "scenarios/format/diagnostics.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "scenarios/format/traces.hpp"
#include "workload/import.hpp"
#include "workload/trace_cursor.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace fs = std::filesystem;

namespace {

// The trace scenario's text. Everything before "  cluster:" is copied into scenario.yaml
// unchanged (workload::import_trace), so the header holds every section that is not regenerated.
std::string trace_scenario(const ImportArgs& a, const std::string& trace_rel,
                           const std::string& horizon, bool has_cluster) {
  std::string s = "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata:\n";
  s += fmt::format(
      "  name: {}\n  description: {}\n",
      scenarios::yaml_quoted(a.name.empty() ? "import-" + a.format : "import-" + a.name),
      scenarios::yaml_quoted(fmt::format("t9ksim import {} --format {}",
                                         fs::path(a.trace).filename().string(), a.format)));
  s += fmt::format("spec:\n  horizon: {}\n  seed: {}\n", horizon, a.seed);
  if (a.zero_latency) {
    s += "  controllers: {reconcileLatency: 0s}\n  kubelet: {podStartLatency: 0s, podStopLatency: "
         "0s}\n";
  }
  if (has_cluster) {
    s += fmt::format("  cluster:\n    fromTrace: {}\n",
                     a.name.empty() ? (a.format == "alibaba-openb" ? "openb" : a.format) : a.name);
  } else {
    s += fmt::format(
        "  cluster:\n    nodePools:\n    - {{name: trace, count: {}, gpusPerNode: {}, cpu: 64, "
        "memory: 512Gi}}\n",
        a.nodes, a.gpus_per_node);
  }
  s += "  scheduler:\n    name: t9k\n";
  if (a.zero_latency) s += "    options: {schedulingLatency: 0s}\n";
  if (!a.queue.empty() && a.queue != "default") {
    s += fmt::format(
        "    queues:\n    - manifest: {{apiVersion: scheduler.tensorstack.dev/v1beta1, kind: "
        "Queue, "
        "metadata: {{name: {}}}, spec: {{}}}}\n",
        scenarios::yaml_quoted(a.queue));
  }
  s += "  workload:\n    traces:\n";
  s += fmt::format("    - format: {}\n      path: {}\n", a.format,
                   scenarios::yaml_quoted(trace_rel));
  if (!a.name.empty()) s += fmt::format("      name: {}\n", scenarios::yaml_quoted(a.name));
  if (!a.from.empty()) s += fmt::format("      from: {}\n", scenarios::yaml_quoted(a.from));
  if (!a.to.empty()) s += fmt::format("      to: {}\n", scenarios::yaml_quoted(a.to));
  if (!a.time_offset.empty())
    s += fmt::format("      timeOffset: {}\n", scenarios::yaml_quoted(a.time_offset));
  if (!a.queue.empty()) s += fmt::format("      queue: {}\n", scenarios::yaml_quoted(a.queue));
  if (a.load_factor) s += fmt::format("      loadFactor: {}\n", *a.load_factor);
  if (a.sample) s += fmt::format("      sample: {}\n", *a.sample);
  if (a.limit) s += fmt::format("      limit: {}\n", *a.limit);
  if (a.skip_bad_rows) s += "      skipBadRows: true\n";
  if (!a.options.empty()) {
    s += "      options:\n";
    for (const auto& kv : a.options) {
      const auto eq = kv.find('=');
      s += fmt::format("        {}: {}\n", scenarios::yaml_quoted(kv.substr(0, eq)),
                       scenarios::yaml_quoted(eq == std::string::npos ? "" : kv.substr(eq + 1)));
    }
  }
  return s;
}

}  // namespace

int import_command(const ImportArgs& a) {
  for (const auto& kv : a.options) {
    if (kv.find('=') == std::string::npos || kv.front() == '=') {
      fmt::print(stderr, "t9ksim import: --option {}: expected KEY=VALUE\n", kv);
      return 2;
    }
  }
  std::error_code ec;
  if (!fs::is_regular_file(a.trace, ec)) {
    fmt::print(stderr, "t9ksim import: {}: not a file\n", a.trace);
    return 2;
  }
  analysis::ResultFolder folder(a.out_dir, {"import", analysis::kFilesMarker, {a.trace}});
  // The staging folder has the target's parent, so the trace's relative path is the same from both.
  const std::string out_dir = folder.path().string();
  const fs::path shown(a.out_dir);
  // Messages name the folder the user asked for, not the staging one they are written in.
  const auto as_shown = [&](std::string text) {
    for (std::size_t at = text.find(out_dir); at != std::string::npos;
         at = text.find(out_dir, at + a.out_dir.size()))
      text.replace(at, out_dir.size(), a.out_dir);
    return text;
  };
  const auto print_shown = [&](std::vector<scenarios::Diagnostic> ds) {
    for (auto& d : ds) d.file = as_shown(d.file);
    print_diagnostics(ds);
  };
  const std::string rel =
      fs::relative(fs::absolute(a.trace), fs::absolute(a.out_dir)).generic_string();
  std::vector<scenarios::Diagnostic> diags;
  // The trace's own cluster when it has one: Philly's VC file and openb's node list are read
  // beside the trace; an export has one when it holds Node objects (its errors are reported by
  // the load below).
  bool has_cluster = a.format == "philly" || a.format == "alibaba-openb";
  if (a.format == "k8s-export") {
    std::vector<scenarios::Diagnostic> ignored;
    const auto c = scenarios::load_export_cluster(a.trace, ignored);
    has_cluster = c && !c->pools.empty();
  }
  std::string horizon = a.horizon;
  if (horizon.empty()) {
    // The trace's span plus its longest job, in whole days: enough for every job to finish when
    // nothing waits. Found by loading the entry once with a horizon of a century.
    const std::string probe = trace_scenario(a, rel, "36500d", has_cluster);
    scenarios::LoadOptions lo;
    lo.base_dir = out_dir;
    lo.skip_bad_trace_rows = a.skip_bad_rows;
    const auto loaded = scenarios::parse_scenario(probe, (shown / "trace.yaml").string(), lo);
    if (!loaded.ok()) {
      print_diagnostics(loaded.diagnostics);
      return 2;
    }
    std::int64_t end = 0;
    for (const auto& j : workload::expand_traces(*loaded.scenario, a.replication)) {
      end =
          std::max(end, (j.submit_time.time_since_epoch() + j.behaviour.run_time->mean()).count());
    }
    const std::int64_t day = kernel::hours(24).count();
    horizon = fmt::format("{}d", end / day + 2);
  }
  try {
    const auto r = workload::import_trace(trace_scenario(a, rel, horizon, has_cluster), out_dir,
                                          a.replication, a.skip_bad_rows, diags);
    if (r.jobs == 0) {
      print_shown(diags);
      const bool window = !a.from.empty() || !a.to.empty() || !a.time_offset.empty() ||
                          !a.horizon.empty() || a.sample || a.limit;
      if (window) {
        fmt::print(stderr,
                   "t9ksim import: {}: no job falls inside the window (--from, --to, "
                   "--time-offset, --horizon, --sample, --limit); nothing to import\n",
                   a.trace);
      } else {
        fmt::print(stderr, "t9ksim import: {}: the trace holds no job; nothing to import\n",
                   a.trace);
      }
      return 2;
    }
    folder.commit();
    if (!a.quiet) {
      print_shown(diags);
      fmt::print(
          "imported {} jobs: {} ({} distinct manifest{} in {}), same run as {}\n", r.jobs,
          (shown / "scenario.yaml").string(), r.shapes, r.shapes == 1 ? "" : "s",
          (shown / (static_cast<std::size_t>(r.shapes) > workload::kShapesPerFile ? "shapes*.yaml"
                                                                                  : "shapes.yaml"))
              .string(),
          (shown / "trace.yaml").string());
    }
    return 0;
  } catch (const std::runtime_error& e) {
    print_shown(diags);
    fmt::print(stderr, "t9ksim import: {}\n", as_shown(e.what()));
    return scenarios::has_errors(diags) ? 2 : 1;
  }
}

void add_import_command(Commands& c) {
  auto args = std::make_shared<ImportArgs>();
  auto* import = c.add(
      "import",
      "Write the jobs a trace replay submits as manifests plus a scenario that replays them "
      "(DIR/scenario.yaml), beside the same run as a trace entry (DIR/trace.yaml); docs/traces.md");
  import->add_option("TRACE", args->trace, "Trace file")->required();
  import->add_option("--format", args->format, "philly | alibaba-openb | csv | k8s-export")
      ->required()
      ->check(CLI::IsMember({"philly", "alibaba-openb", "csv", "k8s-export"}));
  import->add_option("-o,--out", args->out_dir, "Output directory")->required();
  import->add_option("--name", args->name, "Trace entry name (default: the format's)");
  import->add_option("--option", args->options, "KEY=VALUE mapping option (repeatable)");
  import->add_option("--from", args->from, "Window start, trace time since its first submission");
  import->add_option("--to", args->to, "Window end");
  import->add_option("--time-offset", args->time_offset, "Simulated time of the first submission");
  import->add_option("--queue", args->queue,
                     "One queue for every job (default: queues from the trace)");
  import->add_option("--load-factor", args->load_factor, "Divide inter-arrival gaps by this")
      ->check(decimal_number(1e-6, 1e6, false));
  import->add_option("--sample", args->sample, "Fraction of jobs kept, in (0, 1]")
      ->check(decimal_number(0, 1, true));
  import->add_option("--limit", args->limit, "At most this many jobs")
      ->transform(whole_number(1, kMaxImportJobs));
  import->add_option("--seed", args->seed, "Scenario seed (sampling draws)")
      ->capture_default_str()
      ->transform(seed_number());
  import
      ->add_option("--replication", args->replication, "Replication whose sampling draws are used")
      ->capture_default_str()
      ->transform(replication_number());
  import->add_option("--horizon", args->horizon,
                     "Scenario horizon (default: trace span + longest job)");
  import->add_option("--nodes", args->nodes, "Formats without a cluster: nodes of the one pool")
      ->capture_default_str()
      ->transform(whole_number(1, kMaxImportNodes));
  import->add_option("--gpus-per-node", args->gpus_per_node, "GPUs per node of that pool")
      ->capture_default_str()
      ->transform(whole_number(0, kMaxImportGpusPerNode));
  import->add_flag("--skip-bad-rows", args->skip_bad_rows,
                   "Skip malformed rows (reports how many)");
  import->add_flag("--zero-latency", args->zero_latency,
                   "Pod start/stop, reconcile and scheduling latencies 0");
  import->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
  c.on(import, [args] { return import_command(*args); });
}

}  // namespace t9k::app
