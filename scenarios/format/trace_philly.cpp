// The Philly trace (docs/traces.md "philly"): the job log and philly_vc.csv.
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

void read_philly(TraceData& d, RowErrors& errors) {
  CsvReader csv(d.file, errors);
  if (!csv.ok()) return;
  const auto c_time = csv.column("timestamp", true), c_dur = csv.column("duration", true),
             c_gpus = csv.column("num_gpus", true), c_vc = csv.column("cluster", true);
  if (!c_time || !c_dur || !c_gpus || !c_vc) return;
  std::map<std::string, std::int32_t, std::less<>> groups;  // the VC file's first, in its order
  for (std::size_t i = 0; i < d.groups.size(); ++i)
    groups.emplace(d.groups[i], static_cast<std::int32_t>(i));
  while (csv.next()) {
    Row row{csv, errors};
    TraceRecord r;
    r.line = csv.line();
    const auto t = row.time(*c_time, "datetime");
    const auto dur = row.duration(*c_dur, 1e6);
    const auto gpus = row.integer(*c_gpus, 1, 1'000'000);
    const auto vc = row.get(*c_vc);
    if (row.bad) continue;
    r.submit_us = *t;
    r.duration_us = *dur;
    r.gpus = static_cast<std::int32_t>(*gpus);
    r.group = intern(d.groups, groups, trim(vc->text));
    d.records.push_back(r);
  }
}

void read_philly_vcs(TraceData& d, std::vector<Diagnostic>& out) {
  RowErrors errors(d.mapping.vc_file, false, out);
  CsvReader csv(d.mapping.vc_file, errors);
  if (!csv.ok()) return;
  const auto c_vc = csv.column("vc", true), c_nodes = csv.column("node num", true);
  if (!c_vc || !c_nodes) return;
  while (csv.next()) {
    Row row{csv, errors};
    const auto vc = row.get(*c_vc);
    const auto n = row.integer(*c_nodes, 0, 1'000'000);
    if (row.bad) continue;
    d.group_nodes.emplace(std::string(trim(vc->text)), *n);
    d.groups.emplace_back(trim(vc->text));  // VC file order first (interned again below)
  }
  errors.finish();
}

void philly_cluster(TraceData& d) {
  std::int64_t total = 0;
  for (const auto& [vc, n] : d.group_nodes) total += n;
  const auto pool = [&](std::string name, std::int64_t count) {
    NodePool p;
    p.name = std::move(name);
    p.count = static_cast<std::int32_t>(std::min<std::int64_t>(count, 1'000'000));
    p.gpus_per_node = d.mapping.gpus_per_node;
    p.cpu = d.mapping.node_cpu;
    p.memory = d.mapping.node_memory;
    return p;
  };
  if (!d.mapping.pools_per_group) {
    d.pools.push_back(pool("philly", total));
    return;
  }
  for (const auto& g : d.groups) {  // VC file order
    const auto it = d.group_nodes.find(g);
    if (it == d.group_nodes.end()) continue;
    NodePool p = pool(sanitize_job_name("vc-" + g, "vc"), it->second);
    p.labels[kLabelVirtualCluster] = g;
    d.pools.push_back(std::move(p));
  }
}

}  // namespace detail

}  // namespace t9k::scenarios
