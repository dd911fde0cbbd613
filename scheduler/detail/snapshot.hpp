// Internal: helpers both halves of ClusterSnapshot's definition use (snapshot.cpp: ids, nodes,
// queues, groups; snapshot_pods.cpp: pods, shared GPUs, nomination).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/meta.hpp"

namespace t9k::scheduler::detail {

inline std::int64_t micros(const std::optional<model::SimTime>& t) {
  return t ? t->time_since_epoch().count() : 0;
}

template <class Vector, class V>  // a std::vector or an absl::InlinedVector
void erase_value(Vector& v, const V& x) {
  v.erase(std::remove(v.begin(), v.end(), x), v.end());
}

}  // namespace t9k::scheduler::detail
