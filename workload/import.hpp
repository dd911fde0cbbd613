// `t9ksim import` (docs/traces.md): a trace entry's jobs written as ordinary manifests, plus a
// scenario that replays them identically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/format/diagnostics.hpp"

namespace t9k::workload {

// Shapes (distinct manifests) per file of an import: small enough to stay far below the
// loader's file-size limit, large enough that a trace of 80,000 distinct jobs makes under a
// hundred files.
inline constexpr std::size_t kShapesPerFile = 1000;

struct ImportResult {
  std::int64_t jobs = 0;
  std::int64_t shapes = 0;    // distinct manifests, in DIR/shapes.yaml (then shapes-1.yaml, ...)
  std::string scenario_path;  // DIR/scenario.yaml: the imported manifests
  std::string trace_path;     // DIR/trace.yaml: the same run as a trace entry
};

// Writes DIR/trace.yaml (given as text: the scenario with the trace entry), then, from it,
// DIR/shapes.yaml (one manifest per distinct job shape), DIR/queues.yaml and DIR/scenario.yaml
// (one entry per job: its shape, name, submit time and behaviour), whose
// run equals trace.yaml's for `replication` (same fingerprint). Throws std::runtime_error with
// the loader's findings when trace.yaml does not load.
ImportResult import_trace(const std::string& trace_scenario_text, const std::string& dir,
                          std::uint64_t replication, bool skip_bad_rows,
                          std::vector<scenarios::Diagnostic>& diagnostics);

}  // namespace t9k::workload
