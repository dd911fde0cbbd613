// Fault models (faults-and-validation §1): named profiles and the cause mix with each cause's
// blast radius and repair time. The world's fault injector draws from these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/random.hpp"
#include "kernel/time.hpp"

namespace t9k::sim {

// What one fault takes out (§1.2 "Map each class to a blast radius").
enum class BlastRadius { Gpu, Node, Switch };
std::string_view to_string(BlastRadius b);

struct FaultCause {
  std::string name;
  double weight = 0;  // share of hardware faults (counts from §1.2 Table)
  BlastRadius radius = BlastRadius::Node;
  double mean_repair_hours = 0;  // lognormal mean; [D] assumption, no published shape (§1.7)
};

struct FaultProfile {
  std::string name;
  double node_failures_per_node_day = 0;      // hardware, per node (Poisson, §1.2)
  double switch_failures_per_switch_day = 0;  // correlated domain failures (§1.7)
  double software_failures_per_job_hour = 0;  // per-job hazard independent of size (§1.3)
  std::vector<FaultCause> causes;             // hardware cause mix for node-process faults
  double repair_sigma = 1.0;                  // lognormal sigma of repair times
  // Inter-failure times: exponential (Poisson, the default, §1.7) or Weibull with this shape.
  std::optional<double> weibull_shape;
};

// "none", "h100-frontier" (Llama 3), "a100-research" (RSC-1), "a100-optimistic" (RSC-2).
std::optional<FaultProfile> named_fault_profile(std::string_view name);
std::vector<std::string_view> fault_profile_names();

}  // namespace t9k::sim
