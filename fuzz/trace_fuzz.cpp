// libFuzzer entry point for one trace format (T9KSIM_TRACE_FORMAT, set by CMake: one target per
// format). The input is the trace file, or, in the container format of fuzz_support.hpp, parts
// `trace`, `sibling` (philly_vc.csv or the openb node list; when present the cluster is built
// from the trace), `options` (the entry's options as a one-line YAML mapping) and `entry` (more
// keys of the entry on one line: loadFactor, sample, from, to, epoch, limit, ...). The files are
// written to a scratch folder and loaded as `t9ksim run` loads them; a trace that loads is
// expanded into jobs for two replications (window, sampling, load factor and the job mapping).
// No input may crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "fuzz_support.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "workload/trace_cursor.hpp"

#ifndef T9KSIM_TRACE_FORMAT
#error "T9KSIM_TRACE_FORMAT must name a trace format"
#endif

namespace {

constexpr std::string_view kFormat = T9KSIM_TRACE_FORMAT;

// A part meant as one line of YAML, without its line end; nullopt when it has several lines.
std::optional<std::string> one_line(std::map<std::string, std::string>& parts, const char* name) {
  const auto it = parts.find(name);
  if (it == parts.end()) return std::nullopt;
  std::string s = it->second;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.find_first_of("\r\n") != std::string::npos) return std::nullopt;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sc = t9k::scenarios;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parts = t9k::fuzz::split_parts(text, "trace");
  const auto dir = t9k::fuzz::fresh_scratch_dir();
  const bool k8s = kFormat == "k8s-export";
  const char* trace_name = k8s ? "export.yaml" : "trace.csv";
  t9k::fuzz::write_part(dir / trace_name, parts["trace"]);
  const bool sibling =
      parts.count("sibling") && (kFormat == "philly" || kFormat == "alibaba-openb");
  if (sibling) {
    t9k::fuzz::write_part(
        dir / (kFormat == "philly" ? "philly_vc.csv" : "openb_node_list_all_node.csv"),
        parts["sibling"]);
  }
  std::string options = kFormat == "csv"
                            ? "{submitColumn: submit, durationColumn: duration, gpusColumn: gpus, "
                              "queueColumn: queue, priorityColumn: priority, kindColumn: kind, "
                              "nameColumn: name}"
                            : "{}";
  if (const auto o = one_line(parts, "options")) options = *o;
  std::string entry;
  if (const auto e = one_line(parts, "entry")) entry = ", " + *e;
  const std::string cluster =
      sibling ? "{fromTrace: t}"
              : "{nodePools: [{name: a, count: 4, gpusPerNode: 8, cpu: 64, memory: 512Gi}]}";
  const std::string scenario = fmt::format(R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: trace-fuzz}}
spec:
  horizon: 3650d
  seed: 3
  cluster: {}
  scheduler: {{name: t9k}}
  workload:
    traces:
    - {{name: t, format: {}, path: {}, options: {}{}}}
)",
                                           cluster, kFormat, trace_name, options, entry);
  sc::LoadOptions lo;
  lo.base_dir = dir.string();
  const auto loaded = sc::parse_scenario(scenario, (dir / "scenario.yaml").string(), lo);
  for (const auto& d : loaded.diagnostics) t9k::fuzz::show(sc::format_diagnostic(d));
  if (!loaded.ok()) return 0;
  (void)sc::estimate_jobs(*loaded.scenario);
  for (std::uint64_t replication = 0; replication < 2; ++replication) {
    (void)t9k::workload::expand_traces(*loaded.scenario, replication);
  }
  ++t9k::fuzz::completed_inputs;
  return 0;
}
