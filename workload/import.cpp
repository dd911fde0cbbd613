#include "workload/import.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "scenarios/format/load.hpp"
#include "scenarios/format/serialize.hpp"
#include "workload/trace_cursor.hpp"

namespace t9k::workload {

namespace fs = std::filesystem;

namespace {

// Manifests per file of an import: small enough to stay far below the loader's file-size limit,
// large enough that an 80,000-job trace makes under a hundred files.
constexpr std::size_t kImportJobsPerFile = 1000;

void write_file(const fs::path& p, const std::string& text) {
  errno = 0;
  std::ofstream f(p, std::ios::binary);
  if (f) f << text;
  f.close();  // a short write (full disk, file-size limit) fails here at the latest
  if (!f)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", p.string(), std::strerror(errno ? errno : EIO)));
}

std::string pool_yaml(const scenarios::NodePool& p) {
  std::string s = fmt::format("    - name: {}\n      count: {}\n      gpusPerNode: {}\n", p.name,
                              p.count, p.gpus_per_node);
  if (!p.gpu_model.empty())
    s += fmt::format("      gpuModel: {}\n", scenarios::yaml_quoted(p.gpu_model));
  s += fmt::format("      cpu: {}\n      memory: {}\n", scenarios::yaml_quoted(p.cpu.to_string()),
                   scenarios::yaml_quoted(p.memory.to_string()));
  if (!p.extra_resources.empty()) {
    s += "      extraResources:\n";
    for (const auto& [k, q] : p.extra_resources)
      s += fmt::format("        {}: {}\n", scenarios::yaml_quoted(k),
                       scenarios::yaml_quoted(q.to_string()));
  }
  if (!p.labels.empty()) {
    s += "      labels:\n";
    for (const auto& [k, v] : p.labels)
      s += fmt::format("        {}: {}\n", scenarios::yaml_quoted(k), scenarios::yaml_quoted(v));
  }
  return s;
}

}  // namespace

ImportResult import_trace(const std::string& text, const std::string& dir,
                          std::uint64_t replication, bool skip_bad_rows,
                          std::vector<scenarios::Diagnostic>& diagnostics) {
  const fs::path out(dir);
  fs::create_directories(out / "jobs");
  ImportResult res;
  res.trace_path = (out / "trace.yaml").string();
  res.scenario_path = (out / "scenario.yaml").string();
  write_file(res.trace_path, text);
  scenarios::LoadOptions lo;
  lo.skip_bad_trace_rows = skip_bad_rows;
  auto loaded = scenarios::load_scenario(res.trace_path, lo);
  diagnostics = loaded.diagnostics;
  if (!loaded.ok()) throw std::runtime_error(fmt::format("{} does not load", res.trace_path));
  const auto& sc = *loaded.scenario;
  if (!sc.workload.jobs.empty() || !sc.workload.generators.empty() || !sc.operations.empty() ||
      sc.expect) {
    throw std::runtime_error("import: the trace scenario may only hold trace entries");
  }
  const auto jobs = expand_traces(sc, replication);

  // The text of trace.yaml up to its cluster is shared; the rest is regenerated from the load.
  const auto cut = text.find("\n  cluster:");
  if (cut == std::string::npos)
    throw std::runtime_error("import: trace scenario without a cluster section");
  std::string s = text.substr(0, cut + 1);
  s += "  cluster:\n";
  // Pools of an export keep their nodes' names, which a pool of the file cannot say: the
  // imported scenario reads them from the export (fromExport) as the trace scenario did.
  std::string pools;
  for (const auto& p : sc.cluster.node_pools) {
    if (p.node_names.empty()) pools += pool_yaml(p);
  }
  if (!pools.empty()) s += "    nodePools:\n" + pools;
  for (const auto& e : sc.workload.traces) {
    if (e.name != sc.cluster.from_trace || !e.data) continue;
    const bool named =
        std::any_of(e.data->pools.begin(), e.data->pools.end(),
                    [](const scenarios::NodePool& p) { return !p.node_names.empty(); });
    if (named) {
      s += fmt::format("    fromExport: {}\n",
                       scenarios::yaml_quoted(
                           fs::relative(fs::absolute(e.path), fs::absolute(out)).generic_string()));
    }
  }
  if (sc.cluster.topology.nodes_per_rack || sc.cluster.topology.racks_per_switch) {
    s += fmt::format("    topology: {{nodesPerRack: {}, racksPerSwitch: {}}}\n",
                     sc.cluster.topology.nodes_per_rack, sc.cluster.topology.racks_per_switch);
  }
  s += fmt::format("  scheduler:\n    name: {}\n", scenarios::to_string(sc.scheduler.kind));
  if (!sc.scheduler.options.empty()) {
    s += "    options:\n";
    for (const auto& [k, v] : sc.scheduler.options)
      s += fmt::format("      {}: {}\n", k, scenarios::yaml_quoted(v));
  }
  if (!sc.scheduler.queues.empty()) {
    std::vector<scenarios::Object> queues(sc.scheduler.queues.begin(), sc.scheduler.queues.end());
    write_file(out / "queues.yaml", scenarios::to_json_stream(queues));
    s += "    queues:\n    - path: queues.yaml\n";
  }
  // Compact: the manifests go kImportJobsPerFile to a file, one single-line JSON document each;
  // scenario.yaml names each job once, with its submit time and behaviour (one line a job).
  s += "  workload:\n    jobs:\n";
  std::string chunk;
  std::string chunk_name;
  std::size_t in_chunk = 0, files = 0;
  const auto flush = [&] {
    if (in_chunk == 0) return;
    write_file(out / "jobs" / chunk_name, chunk);
    chunk.clear();
    in_chunk = 0;
  };
  for (const auto& j : jobs) {
    if (in_chunk == 0) chunk_name = fmt::format("jobs-{:05}.yaml", files++);
    const auto& name = model::metadata_of(j.job).name;
    if (in_chunk > 0) chunk += "---\n";
    chunk += scenarios::to_compact_json(scenarios::to_object(j.job));
    chunk += '\n';
    s += fmt::format("    - {{path: jobs/{}, name: {}, submitAt: {}, behaviour: {{runTime: {}",
                     chunk_name, name, kernel::format_duration(j.submit_time.time_since_epoch()),
                     kernel::format_duration(j.behaviour.run_time->mean()));
    if (j.behaviour.failure.final_exit_code != 0) {
      s += fmt::format(", failure: {{finalExitCode: {}}}", j.behaviour.failure.final_exit_code);
    }
    s += "}}\n";
    if (++in_chunk == kImportJobsPerFile) flush();
  }
  flush();
  write_file(res.scenario_path, s);
  res.jobs = static_cast<std::int64_t>(jobs.size());
  return res;
}

}  // namespace t9k::workload
