// The cluster and its faults: nodes built from the scenario's pools (names "<pool>-<i>", labels
// for hostname, GPU model, rack and switch), the topology graph they form (model::Topology:
// node < rack < switch), node operations (drain, cordon, add and remove pools) and the fault
// injector (faults-and-validation §1).
//
// What happens when a node fails (node_fault, take_down in cluster.cpp):
//   1. Each node has its own failure process (Poisson or Weibull inter-failure times, stream
//      "faults/node/<name>"); each switch one more ("faults/switch/<name>", §1.7).
//   2. A failure draws its cause from the profile's mix, and the cause's blast radius decides what
//      it takes out: one GPU (its pod fails with 137 at once; the node offers one GPU less), the
//      node, or every node under the switch in the topology.
//   3. Nodes taken out turn NotReady; the kubelet turns their pods Unknown at once and Failed
//      (137) after the detection delay (Kubelet::nodes_lost, §11 Q13); the jobs' training
//      stops, losing progress since the last checkpoint to "fault"; controllers reconcile.
//   4. After the repair time (lognormal, or the scenario's distribution) the nodes return, a
//      scheduling cycle follows, and the failure process draws its next failure.
//
// Owns: the topology, the fault streams, how many open faults hold each node down.
// Handles: kNodeFailure, kSwitchFailure, kRepair.
// Calls: Store (nodes), PodLifecycle (pods fail or are deleted), ReconcileQueue, CycleTrigger
//        (a cycle once capacity returns).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/topology.hpp"
#include "sim/common.hpp"
#include "sim/interfaces.hpp"
#include "sim/settings.hpp"

namespace t9k::sim {

class Store;

class Cluster final : public kernel::EventHandler {
 public:
  Cluster(const scenarios::Scenario& scenario, const WorldSettings& settings,
          kernel::Kernel& kernel, const kernel::RngStreams& streams, Store& store,
          PodLifecycle& pods, ReconcileQueue& reconciles, CycleTrigger& cycles);

  static constexpr EventKind kKinds[] = {kNodeFailure, kSwitchFailure, kRepair};
  void handle(const kernel::DispatchedEvent& event) override;

  // The scenario's node pools, each node with its failure process, and the switch processes.
  void build();

  // ---- node operations (scenario operations) ----
  // Cordons the node and deletes its pods (reason Drain); `cause` is published with the change.
  void drain(const std::string& node, const std::string& cause);
  void cordon(const std::string& node, bool unschedulable);
  void add_pool(const scenarios::NodePool& pool);
  // Drains and removes every node of the pool (in name order); terminating pods keep their
  // binding until gone.
  void remove_pool(const std::string& pool);

  // ---- scripted faults (scenario operations): the same paths as random faults ----
  // The node goes NotReady; its pods Unknown, then Failed (137) after the detection delay. Back
  // after `repair_after`, or at repair_node.
  void fail_node(const std::string& node, std::optional<SimDuration> repair_after);
  void repair_node(const std::string& node);
  // One GPU of the node fails (the pod using it, if any, fails with 137); back after repair_after.
  void fail_gpu(const std::string& node, std::optional<SimDuration> repair_after);
  // Every node under the switch fails together; false when no switch has that name.
  bool fail_switch(const std::string& sw, std::optional<SimDuration> repair_after);

  const model::Topology& topology() const { return topo_; }

 private:
  // What a repair brings back and which failure process then draws again.
  struct Repair {
    std::vector<std::string> nodes;
    // Which failure process draws its next failure after the repair (None: a scripted fault).
    enum class Then { NodeProcess, SwitchProcess, None } then = Then::NodeProcess;
    std::string process;   // the node or switch whose next failure is drawn
    bool gpu = false;      // one GPU of nodes[0] comes back (the node stayed up)
    bool nothing = false;  // the fault found no GPU left to fail: nothing comes back
  };

  void add_node(const scenarios::NodePool& pool, std::int32_t index);
  void schedule_node_failure(const std::string& node);
  void schedule_switch_failure(const std::string& sw);
  void node_fault(const std::string& node);
  void switch_fault(const std::string& sw);
  bool gpu_fault(const std::string& node, const std::string& cause,
                 kernel::Rng& rng);  // false: no GPU left
  // `repair` unset: the nodes stay down until repair_node.
  void take_down(const std::vector<std::string>& nodes, const std::string& cause,
                 std::optional<SimDuration> repair, Repair then);
  void repaired(Repair r);
  SimDuration draw_interfailure(kernel::Rng& rng, double per_day) const;
  SimDuration draw_repair(kernel::Rng& rng, double mean_hours) const;
  kernel::Rng& fault_rng(const std::string& name);
  SimTime horizon() const { return SimTime{sc_.horizon}; }

  const scenarios::Scenario& sc_;
  const WorldSettings& st_;
  kernel::Kernel& k_;
  const kernel::RngStreams& streams_;
  Store& store_;
  PodLifecycle& pods_;
  ReconcileQueue& reconciles_;
  CycleTrigger& cycles_;

  model::Topology topo_;
  std::int32_t node_counter_ = 0;  // nodes ever added: their place in racks and switches
  // Each pool's nodes: a node name alone cannot tell (pools "gpu" and "gpu-a" both make "gpu-a-0"
  // look like a "gpu-" node).
  std::map<std::string, std::vector<std::string>> pool_nodes_;
  std::map<std::string, kernel::Rng> fault_rngs_;
  std::map<std::string, std::int32_t> down_domains_;  // node -> number of open faults on it
  std::vector<std::string> processes_;                // failure processes' targets, by event arg
  std::map<std::string, kernel::EventArg> process_index_;
  Parked<Repair> repairs_;
};

}  // namespace t9k::sim
