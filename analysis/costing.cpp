#include "analysis/costing.hpp"

#include <map>
#include <utility>

namespace t9k::analysis {

namespace {

constexpr double kUsPerHour = 3600e6;

}  // namespace

Costing::Rate& Costing::Rate::operator+=(const Rate& o) {
  cost += o.cost;
  busy_kwh += o.busy_kwh;
  idle_kwh += o.idle_kwh;
  return *this;
}

Costing::Rate& Costing::Rate::operator-=(const Rate& o) {
  cost -= o.cost;
  busy_kwh -= o.busy_kwh;
  idle_kwh -= o.idle_kwh;
  return *this;
}

Costing::Rate Costing::Rate::operator*(double us) const {
  return {cost * us, busy_kwh * us, idle_kwh * us};
}

void Costing::set_rates(std::unordered_map<std::string, NodeRates> by_node) {
  rates_ = std::move(by_node);
  for (const auto& [name, r] : rates_) {
    priced_ = priced_ || r.price_per_node_hour > 0;
    powered_ = powered_ || r.idle_watts > 0 || r.busy_watts > 0;
  }
}

Costing::Rate Costing::rate(const std::string& node, std::int64_t gpu_milli) const {
  if (!active()) return {};  // no lookup in a run without prices or power
  const auto it = rates_.find(node);
  if (it == rates_.end() || it->second.gpus <= 0 || gpu_milli <= 0) return {};
  const NodeRates& r = it->second;
  // The share of the node these GPUs are, per microsecond.
  const double share = static_cast<double>(gpu_milli) / 1000.0 / r.gpus / kUsPerHour;
  return {r.price_per_node_hour * share, r.busy_watts / 1000.0 * share,
          r.idle_watts / 1000.0 * share};
}

void Costing::held(const Rate& charge) { held_ += charge; }

void Costing::node(model::SimTime t, const std::string& name, bool removed) {
  if (!active()) return;
  const auto r = rates_.find(name);
  if (r == rates_.end()) return;
  const auto since = installed_since_.find(name);
  if (!removed) {
    if (since == installed_since_.end()) installed_since_.emplace(name, t);
    return;
  }
  if (since == installed_since_.end()) return;
  const double hours = static_cast<double>((t - since->second).count()) / kUsPerHour;
  installed_cost_ += r->second.price_per_node_hour * hours;
  installed_kwh_ += r->second.idle_watts / 1000.0 * hours;
  installed_since_.erase(since);
}

void Costing::finish(model::SimTime horizon) {
  // In name order, so the sums do not depend on the hash map's order.
  std::map<std::string, model::SimTime> left(installed_since_.begin(), installed_since_.end());
  for (const auto& [name, since] : left) node(horizon, name, true);
}

}  // namespace t9k::analysis
