#include "sim/elastic_policy.hpp"

#include <algorithm>

namespace t9k::sim {

std::vector<ElasticDecision> GreedyElasticPolicy::decide(const ElasticObservation& o) const {
  std::vector<ElasticDecision> out;
  std::int64_t free_gpus = o.free_gpus;
  for (const auto& j : o.jobs) {
    bool pressure = false;
    for (const auto& w : o.waiting) pressure = pressure || (w.job != j.id && w.priority >= j.priority);
    const std::int32_t cur = j.expected;
    std::int32_t want = cur;
    const std::int64_t per_pod = std::max<std::int64_t>(1, j.gpus_per_pod);
    if (pressure) {
      want = j.min;
    } else if (free_gpus >= per_pod) {
      const auto grow = static_cast<std::int32_t>(std::min<std::int64_t>(j.max - cur, free_gpus / per_pod));
      want = cur + std::max(0, grow);
      free_gpus -= static_cast<std::int64_t>(want - cur) * per_pod;
    }
    if (want != cur) out.push_back({j.id, want});
  }
  return out;
}

std::unique_ptr<ElasticPolicy> make_elastic_policy(ElasticPolicyKind kind) {
  switch (kind) {
    case ElasticPolicyKind::Fixed: return nullptr;
    case ElasticPolicyKind::Greedy: return std::make_unique<GreedyElasticPolicy>();
  }
  return nullptr;
}

}  // namespace t9k::sim
