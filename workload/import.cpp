#include "workload/import.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "scenarios/format/load.hpp"
#include "scenarios/format/serialize.hpp"
#include "scenarios/format/traces.hpp"
#include "workload/trace_cursor.hpp"

namespace t9k::workload {

namespace fs = std::filesystem;

namespace {

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

// shapes.yaml, then shapes-1.yaml, ...: most traces have a few hundred shapes at most, and the
// file's name is repeated on every job's line.
std::string shapes_file(std::size_t i) {
  return i == 0 ? std::string("shapes.yaml") : fmt::format("shapes-{}.yaml", i);
}

// The distinct job shapes of an import: a job without its name and its trace identity
// (docs/traces.md "Mapping rules"), which the scenario entry gives back through `as` and its
// name. Each shape is written once, in order of first use, with the number of jobs using it.
class ShapeWriter {
 public:
  explicit ShapeWriter(fs::path dir) : dir_(std::move(dir)) {}

  // The entry's `path: …, name: …` for a job of this shape.
  std::string entry(const model::Job& job) {
    model::Job shape = job;
    auto& meta = model::metadata_of(shape);
    auto& annotations = meta.annotations.edit();
    annotations.erase(scenarios::kAnnotationTraceId);
    annotations.erase(scenarios::kAnnotationTraceSource);
    meta.name = {};
    auto key = scenarios::to_compact_json(scenarios::to_object(shape));
    auto [it, added] = index_.try_emplace(std::move(key), shapes_.size());
    if (added) {
      meta.name = fmt::format("shape-{}", shapes_.size());
      shapes_.push_back(Shape{scenarios::to_compact_json(scenarios::to_object(shape)),
                              shapes_file(shapes_.size() / kShapesPerFile), meta.name.str(), 0});
    }
    auto& sh = shapes_[it->second];
    ++sh.jobs;
    return fmt::format("path: {}, name: {}", sh.file, sh.name);
  }

  // Writes the shape files; returns how many shapes there are.
  std::size_t finish() const {
    std::string chunk;
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      const auto& sh = shapes_[i];
      if (i % kShapesPerFile != 0) chunk += "---\n";
      chunk +=
          fmt::format("# {}: {} job{}\n{}\n", sh.name, sh.jobs, sh.jobs == 1 ? "" : "s", sh.json);
      if ((i + 1) % kShapesPerFile == 0 || i + 1 == shapes_.size()) {
        write_file(dir_ / sh.file, chunk);
        chunk.clear();
      }
    }
    return shapes_.size();
  }

 private:
  struct Shape {
    std::string json;  // the manifest, named
    std::string file;  // in the import's folder
    std::string name;
    std::size_t jobs;
  };
  fs::path dir_;
  std::map<std::string, std::size_t> index_;  // unnamed manifest -> shape
  std::vector<Shape> shapes_;
};

}  // namespace

ImportResult import_trace(const std::string& text, const std::string& dir,
                          std::uint64_t replication, bool skip_bad_rows,
                          std::vector<scenarios::Diagnostic>& diagnostics) {
  const fs::path out(dir);
  fs::create_directories(out);
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
  // Compact: jobs that differ only in their name and trace identity share one manifest (a
  // "shape"), written once; scenario.yaml names each job once, with its shape, submit time and
  // behaviour (one line a job). Shapes go kShapesPerFile to a file, one single-line JSON
  // document each, so even a trace of all-distinct jobs stays far below the loader's file limit.
  s += "  workload:\n    jobs:\n";
  ShapeWriter shapes(out);
  for (const auto& j : jobs) {
    const auto& name = model::metadata_of(j.job).name;
    s += fmt::format("    - {{{}, as: {}, submitAt: {}, behaviour: {{runTime: {}",
                     shapes.entry(j.job), name,
                     kernel::format_duration(j.submit_time.time_since_epoch()),
                     kernel::format_duration(j.behaviour.run_time->mean()));
    if (j.behaviour.failure.final_exit_code != 0) {
      s += fmt::format(", failure: {{finalExitCode: {}}}", j.behaviour.failure.final_exit_code);
    }
    s += "}}\n";
  }
  res.shapes = static_cast<std::int64_t>(shapes.finish());
  write_file(res.scenario_path, s);
  res.jobs = static_cast<std::int64_t>(jobs.size());
  return res;
}

}  // namespace t9k::workload
