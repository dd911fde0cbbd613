// A site's CSV accounting export (docs/traces.md "csv"): columns named by the entry's options.
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

m::JobKind parse_kind(std::string_view s, bool& ok) {
  ok = true;
  if (s == "GenericJob") return m::JobKind::GenericJob;
  if (s == "PyTorchTrainingJob") return m::JobKind::PyTorchTrainingJob;
  if (s == "DeepSpeedJob") return m::JobKind::DeepSpeedJob;
  ok = false;
  return m::JobKind::PyTorchTrainingJob;
}

void read_csv(TraceData& d, RowErrors& errors) {
  CsvReader csv(d.file, errors);
  if (!csv.ok()) return;
  const auto col = [&](const char* role, bool required) -> std::optional<std::size_t> {
    const auto it = d.mapping.columns.find(role);
    if (it == d.mapping.columns.end()) return std::nullopt;
    return csv.column(it->second, required);
  };
  const auto c_submit = col("submit", true), c_dur = col("duration", true),
             c_gpus = col("gpus", true), c_queue = col("queue", true),
             c_prio = col("priority", true), c_kind = col("kind", true), c_name = col("name", true);
  if (!c_submit || !c_dur) return;
  if ((d.mapping.columns.count("gpus") && !c_gpus) ||
      (d.mapping.columns.count("queue") && !c_queue) ||
      (d.mapping.columns.count("priority") && !c_prio) ||
      (d.mapping.columns.count("kind") && !c_kind) ||
      (d.mapping.columns.count("name") && !c_name)) {
    return;
  }
  static const std::map<std::string, double> kUnits = {
      {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 6e7}, {"h", 3.6e9}};
  const double unit = kUnits.at(d.mapping.duration_unit);
  std::map<std::string, std::int32_t, std::less<>> groups;
  while (csv.next()) {
    Row row{csv, errors};
    TraceRecord r;
    r.line = csv.line();
    const auto t = row.time(*c_submit, d.mapping.time_format);
    const auto dur = row.duration(*c_dur, unit);
    std::optional<std::int64_t> gpus = 0, prio;
    if (c_gpus) gpus = row.integer(*c_gpus, 0, 1'000'000);
    if (c_prio) prio = row.integer(*c_prio, 0, 100);
    std::optional<CsvField> queue, kind, name;
    if (c_queue) queue = row.get(*c_queue);
    if (c_kind) kind = row.get(*c_kind);
    if (c_name) name = row.get(*c_name);
    if (row.bad) continue;
    if (kind) {
      bool ok = false;
      r.kind = static_cast<std::int32_t>(parse_kind(trim(kind->text), ok));
      if (!ok) {
        row.fail(*kind, *c_kind,
                 fmt::format("found \"{}\"; allowed: GenericJob, PyTorchTrainingJob, DeepSpeedJob",
                             kind->text));
        continue;
      }
    }
    r.submit_us = *t;
    r.duration_us = *dur;
    r.gpus = static_cast<std::int32_t>(*gpus);
    if (prio) r.priority = static_cast<std::int32_t>(*prio);
    if (queue) r.group = intern(d.groups, groups, trim(queue->text));
    if (name) {
      r.name = static_cast<std::int32_t>(d.raw_names.size());
      d.raw_names.emplace_back(trim(name->text));
    }
    d.records.push_back(r);
  }
}

}  // namespace detail

}  // namespace t9k::scenarios
