// What the cluster cost and the energy it drew (issue 47 item 3; docs/outputs.md "Cost and
// energy"), from each node pool's price per node-hour and power: a node costs its price for as
// long as it is installed (down or not: it is paid for); it draws its idle power while installed
// and, linearly in its allocated GPUs, up to its busy power. A job is charged the GPU-time it held
// at the GPU-hour price of the nodes it held it on (price per node-hour / GPUs per node) and the
// energy of that share of those nodes at full draw; the rest of the cluster's cost and energy is
// idle capacity.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "model/change.hpp"

namespace t9k::analysis {

// A node pool's prices and power (spec.cluster.nodePools[].pricePerNodeHour, .power).
struct NodeRates {
  double price_per_node_hour = 0;  // in the scenario's currency
  double idle_watts = 0;           // drawn while installed
  double busy_watts = 0;           // drawn with every GPU allocated
  std::int32_t gpus = 0;           // GPUs per node
};

class Costing {
 public:
  // The nodes' rates, by node name; nodes not named cost nothing and draw nothing.
  void set_rates(std::unordered_map<std::string, NodeRates> by_node);
  bool priced() const { return priced_; }
  bool powered() const { return powered_; }
  bool active() const { return priced_ || powered_; }

  // What holding GPUs costs per microsecond: money, and kWh at the node's full draw (`busy`) and
  // at its idle draw (`idle`), for the share of the node those GPUs are.
  struct Rate {
    double cost = 0;
    double busy_kwh = 0;
    double idle_kwh = 0;
    Rate& operator+=(const Rate& o);
    Rate& operator-=(const Rate& o);
    Rate operator*(double us) const;
  };
  Rate rate(const std::string& node, std::int64_t gpu_milli) const;
  // A hold of GPUs ended; `charge` is its rate times its duration.
  void held(const Rate& charge);

  // The node is in the cluster from t (its first change), or left it at t (`removed`).
  void node(model::SimTime t, const std::string& name, bool removed);
  void finish(model::SimTime horizon);

  double cost_total() const { return installed_cost_; }
  double cost_allocated() const { return held_.cost; }
  // Installed idle draw, plus what allocated GPUs draw above it.
  double energy_total_kwh() const { return installed_kwh_ + held_.busy_kwh - held_.idle_kwh; }

 private:
  std::unordered_map<std::string, NodeRates> rates_;
  std::unordered_map<std::string, model::SimTime> installed_since_;
  bool priced_ = false;
  bool powered_ = false;
  double installed_cost_ = 0;
  double installed_kwh_ = 0;
  Rate held_;
};

}  // namespace t9k::analysis
