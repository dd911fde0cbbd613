// The Alibaba openb trace (docs/traces.md "alibaba-openb"): pods and the node list.
#include "scenarios/format/detail/trace_readers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "scenarios/format/detail/csv.hpp"

namespace t9k::scenarios {

namespace m = t9k::model;

namespace detail {

void read_openb(TraceData& d, RowErrors& errors) {
  CsvReader csv(d.file, errors);
  if (!csv.ok()) return;
  const auto c_name = csv.column("name", true), c_cpu = csv.column("cpu_milli", true),
             c_mem = csv.column("memory_mib", true), c_gpu = csv.column("num_gpu", true),
             c_milli = csv.column("gpu_milli", true), c_spec = csv.column("gpu_spec", true),
             c_qos = csv.column("qos", true), c_phase = csv.column("pod_phase", true),
             c_create = csv.column("creation_time", true),
             c_delete = csv.column("deletion_time", true),
             c_sched = csv.column("scheduled_time", true);
  if (!c_name || !c_cpu || !c_mem || !c_gpu || !c_milli || !c_spec || !c_qos || !c_phase ||
      !c_create || !c_delete || !c_sched) {
    return;
  }
  std::map<std::string, std::int32_t, std::less<>> groups, specs;
  while (csv.next()) {
    Row row{csv, errors};
    TraceRecord r;
    r.line = csv.line();
    const auto name = row.get(*c_name);
    const auto cpu = row.integer(*c_cpu, 0, INT64_MAX / 2);
    const auto mem = row.integer(*c_mem, 0, kMaxMemoryMib);
    const auto gpus = row.integer(*c_gpu, 0, model::kMaxGpusPerObject);
    const auto milli = row.integer(*c_milli, 0, 1000);
    const auto spec = row.get(*c_spec, true);
    const auto qos = row.get(*c_qos);
    const auto phase = row.get(*c_phase, true);
    const auto created = row.duration(*c_create, 1e6);
    const auto deleted = row.duration(*c_delete, 1e6);
    const auto sched_f = row.get(*c_sched, true);
    if (row.bad) continue;
    std::optional<std::int64_t> start;
    if (!trim(sched_f->text).empty()) {
      start = row.duration(*c_sched, 1e6);
      if (row.bad) continue;
    }
    if (*gpus == 0 && *milli != 0) {
      row.fail(*csv.field(*c_milli), *c_milli,
               fmt::format("found gpu_milli {} with num_gpu 0; allowed: 0", *milli));
      continue;
    }
    const std::int64_t from = start ? *start : *created;
    if (*deleted < from) {
      row.fail(*csv.field(*c_delete), *c_delete,
               fmt::format("found deletion_time {} before {} {}: a negative duration",
                           *deleted / 1'000'000, start ? "scheduled_time" : "creation_time",
                           from / 1'000'000));
      continue;
    }
    if (!start && !d.mapping.replay_unscheduled) {
      ++d.unscheduled;
      continue;
    }
    r.submit_us = *created;
    r.duration_us = *deleted - from;
    r.gpus = static_cast<std::int32_t>(
        *gpus);  // a fractional gpu_milli is rounded up to the whole GPU...
    // ...unless GPUs are shared: a one-GPU pod then asks for its share (docs/traces.md).
    if (d.mapping.shared_gpus && *gpus == 1 && *milli > 0 && *milli < 1000)
      r.gpu_milli = static_cast<std::int16_t>(*milli);
    r.cpu_milli = *cpu;
    r.memory_mib = *mem;
    r.group = intern(d.groups, groups, trim(qos->text));
    if (!trim(spec->text).empty()) r.gpu_spec = intern(d.gpu_specs, specs, trim(spec->text));
    r.failed = d.mapping.keep_failures && trim(phase->text) == "Failed";
    r.name = static_cast<std::int32_t>(d.raw_names.size());
    d.raw_names.emplace_back(trim(name->text));
    d.records.push_back(r);
  }
}

void read_openb_nodes(TraceData& d, std::vector<Diagnostic>& out) {
  RowErrors errors(d.mapping.node_file, false, out);
  CsvReader csv(d.mapping.node_file, errors);
  if (!csv.ok()) return;
  const auto c_cpu = csv.column("cpu_milli", true), c_mem = csv.column("memory_mib", true),
             c_gpu = csv.column("gpu", true), c_model = csv.column("model", true);
  if (!c_cpu || !c_mem || !c_gpu || !c_model) return;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string>, std::size_t> shapes;
  while (csv.next()) {
    Row row{csv, errors};
    const auto cpu = row.integer(*c_cpu, 1, INT64_MAX / 2);
    const auto mem = row.integer(*c_mem, 1, kMaxMemoryMib);
    const auto gpus = row.integer(*c_gpu, 0, model::kMaxGpusPerObject);
    const auto model = row.get(*c_model, true);
    if (row.bad) continue;
    const std::string mdl(trim(model->text));
    if (*gpus > 0 && mdl.empty()) {
      row.fail(*model, *c_model,
               fmt::format("found no model for a node with {} GPUs; allowed: a GPU model", *gpus));
      continue;
    }
    const auto key = std::make_tuple(*cpu, *mem, *gpus, mdl);
    auto [it, added] = shapes.emplace(key, d.pools.size());
    if (added) {
      NodePool p;
      // One pool per node shape, named after it (nodes become <pool>-<i>; sn is not kept).
      p.name = sanitize_job_name(fmt::format("{}-{}gpu-{}c-{}gi", mdl.empty() ? "cpu" : lower(mdl),
                                             *gpus, *cpu / 1000, *mem / 1024),
                                 "pool");
      p.gpus_per_node = static_cast<std::int32_t>(*gpus);
      p.gpu_model = mdl;
      p.cpu = m::Quantity::from_milli(*cpu);
      p.memory = m::Quantity::parse(fmt::format("{}Mi", *mem));
      d.pools.push_back(std::move(p));
    }
    ++d.pools[it->second].count;
  }
  errors.finish();
}

// Pools whose model is one of a multi-model gpu_spec carry that spec's label.
void label_gpu_specs(TraceData& d) {
  for (const auto& spec : d.gpu_specs) {
    if (spec.find('|') == std::string::npos) continue;
    std::set<std::string> models;
    std::size_t i = 0;
    while (i <= spec.size()) {
      const std::size_t j = std::min(spec.find('|', i), spec.size());
      models.insert(std::string(trim(std::string_view(spec).substr(i, j - i))));
      i = j + 1;
    }
    for (auto& p : d.pools) {
      if (models.count(p.gpu_model))
        p.labels[kLabelGpuSpecPrefix + sanitize_job_name(spec, "spec")] = "true";
    }
  }
}

}  // namespace detail

}  // namespace t9k::scenarios
