// `t9ksim replay-check EXPORT`: replay the finished jobs of a cluster export on the export's own
// cluster and compare, job by job, the simulated wait and end with what the cluster recorded
// (docs/traces.md "Recorded versus simulated").
#pragma once

#include <cstdint>
#include <string>

namespace t9k::app {

struct ReplayCheckArgs {
  std::string export_path;
  std::string out_dir = "t9ksim-replay-check";
  std::int32_t nodes = 0;  // an export without Nodes: one pool of this many nodes
  std::int32_t gpus_per_node = 8;
  bool zero_latency = false;  // pod start/stop, reconcile and scheduling latencies 0
  bool skip_bad_rows = false;
  bool report = true;
  bool quiet = false;
};

// Exit code: 0 ok, 1 error, 2 bad input.
int replay_check_command(const ReplayCheckArgs& args);

}  // namespace t9k::app
