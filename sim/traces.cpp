#include "sim/traces.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "scenarios/format/serialize.hpp"

namespace t9k::sim {

namespace fs = std::filesystem;
using kernel::SimDuration;
using kernel::SimTime;

TraceCursor::TraceCursor(const scenarios::TraceEntry& entry, const kernel::RngStreams& streams,
                         SimTime horizon, bool t9k_scheduler, std::string default_namespace)
    : e_(&entry),
      sample_(streams.stream("traces/" + entry.name + "/sample")),
      horizon_(horizon),
      t9k_(t9k_scheduler),
      default_namespace_(std::move(default_namespace)) {}

bool TraceCursor::next(std::optional<scenarios::JobSubmission>& out) {
  out.reset();
  if (ready_ == 0) {
    // Every job of the next instant (the same records as in file order: the window, sampling
    // draws and limit are decided record by record first), then sorted by job key. The queue
    // holds at most the look-ahead job here: the first of this instant.
    if (queue_.empty() && !pull_in_file_order()) return false;
    const SimTime at = queue_.front().submit_time;
    while (queue_.back().submit_time == at && pull_in_file_order()) {
    }
    ready_ = queue_.back().submit_time == at ? queue_.size() : queue_.size() - 1;
    if (ready_ > 1) {
      std::sort(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(ready_),
                [&](const auto& a, const auto& b) {
                  return submission_key(a, default_namespace_) <
                         submission_key(b, default_namespace_);
                });
    }
  }
  out.emplace(std::move(queue_.front()));
  queue_.pop_front();
  --ready_;
  return true;
}

bool TraceCursor::pull_in_file_order() {
  if (done_ || !e_->data) return false;
  const auto& d = *e_->data;
  const std::int64_t origin = e_->origin_us.value_or(d.origin_us());
  const std::int64_t from = e_->from ? e_->from->count() : 0;
  while (index_ < d.records.size()) {
    if (e_->limit && emitted_ >= *e_->limit) break;
    const auto& r = d.records[index_++];
    // Trace time since the origin (the scenario's earliest trace submission, or the epoch);
    // records before an epoch are outside every window.
    std::int64_t rel = 0;
    if (__builtin_sub_overflow(r.submit_us, origin, &rel)) {
      if (r.submit_us < origin) continue;  // ages before the epoch
      break;                               // ages after it: beyond any window or horizon
    }
    if (rel < from) continue;
    if (e_->to && rel >= e_->to->count()) break;  // records are sorted: nothing later is inside
    // One draw per record in the window, so the kept set depends only on the seed, the
    // replication and the entry (not on the horizon or the limit).
    if (e_->sample < 1 && !(sample_.uniform01() < e_->sample)) continue;
    // Gaps scale by 1 / loadFactor: offsets from the window start do, exactly.
    const double scaled = static_cast<double>(rel - from) / e_->load_factor;
    // Past the horizon (in double, before it is rounded to an integer that could overflow: a
    // tiny loadFactor stretches a far record beyond the clock's range).
    if (scaled > static_cast<double>((horizon_ - SimTime{e_->time_offset}).count())) break;
    const SimTime submit =
        SimTime{e_->time_offset} + SimDuration{static_cast<std::int64_t>(std::llround(scaled))};
    if (submit > horizon_) break;
    ++emitted_;
    scenarios::trace_job(*e_, d, r, submit, t9k_, queue_.emplace_back());
    return true;
  }
  done_ = true;
  return false;
}

std::vector<scenarios::JobSubmission> expand_traces(const scenarios::Scenario& sc,
                                                    std::uint64_t replication) {
  std::vector<scenarios::JobSubmission> out;
  const kernel::RngStreams streams(sc.seed, replication);
  for (const auto& t : sc.workload.traces) {
    TraceCursor c(t, streams, SimTime{sc.horizon},
                  sc.scheduler.kind == scenarios::SchedulerKind::T9k, sc.default_namespace);
    while (auto s = c.next()) out.push_back(std::move(*s));
  }
  // The world's submission order: (submit time, job key); names are unique.
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
    return submission_key(a, sc.default_namespace) < submission_key(b, sc.default_namespace);
  });
  return out;
}

namespace {

// Manifests per file of an import: small enough to stay far below the loader's file-size limit,
// large enough that an 80,000-job trace makes under a hundred files.
constexpr std::size_t kImportJobsPerFile = 1000;

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  f.close();  // a short write (full disk, file-size limit) fails here at the latest
  if (!f) throw std::runtime_error(fmt::format("cannot write {}", p.string()));
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

}  // namespace t9k::sim
