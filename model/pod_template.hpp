// The parts of a core/v1 PodTemplateSpec that change what the simulator does. Other valid
// Kubernetes fields (volumes, securityContext, env, ...) are accepted by the loader and not kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/meta.hpp"

namespace t9k::model {

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
  bool operator==(const ResourceRequirements&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  ResourceRequirements resources;
  bool operator==(const Container&) const = default;
};

struct Toleration {
  std::string key;
  std::string op;  // "Exists" | "Equal"
  std::string value;
  std::string effect;
  bool operator==(const Toleration&) const = default;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  Labels node_selector;
  std::string scheduler_name;
  std::string priority_class_name;
  std::optional<std::int32_t> priority;
  std::string restart_policy;  // forced to Never by the job controllers (spec §2.1)
  std::optional<std::int64_t> termination_grace_period_seconds;
  std::optional<std::int64_t> active_deadline_seconds;
  std::vector<Toleration> tolerations;
  bool operator==(const PodSpec&) const = default;
};

struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
  bool operator==(const PodTemplateSpec&) const = default;
};

// A container's effective requests: Kubernetes defaults a missing request to its limit
// (manifests that put nvidia.com/gpu only under limits rely on this).
ResourceList effective_requests(const Container& c);

// A pod's effective requests, as the scheduler sees them: the sum over containers, and at least
// the largest init container's requests, per resource (Kubernetes' rule).
ResourceList pod_requests(const PodSpec& spec);

}  // namespace t9k::model
