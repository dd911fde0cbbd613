// `t9ksim import TRACE --format F --out DIR`: the jobs a trace replay submits, written as
// ordinary manifests plus a scenario that replays them (docs/traces.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace t9k::app {

struct ImportArgs {
  std::string trace;
  std::string format;
  std::string out_dir;
  std::string name;                  // entry name (default: the format's)
  std::vector<std::string> options;  // KEY=VALUE mapping options
  std::string from, to, time_offset, horizon, queue;
  std::optional<double> load_factor, sample;
  std::optional<std::int64_t> limit;
  std::uint64_t seed = 1;
  std::uint64_t replication = 0;  // sampling draws of this replication
  std::int32_t nodes = 16;        // formats without a cluster: one pool of this many nodes
  std::int32_t gpus_per_node = 8;
  bool skip_bad_rows = false;
  bool zero_latency = false;  // pod start/stop, reconcile and scheduling latencies 0
  bool quiet = false;
};

// Returns the exit code: 0 ok, 1 error, 2 bad input (the loader's findings are printed).
int import_command(const ImportArgs& args);

}  // namespace t9k::app
