#include "model/accelerators.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace t9k::model {

ResourceList queue_view(const ResourceList& r) {
  const auto share = r.find(kGpuMilliName);
  if (share == r.end()) return r;
  ResourceList out = r;
  out.erase(kGpuMilliName);
  out[kResourceGpu] =
      Quantity::from_milli(get_resource(r, kResourceGpu).milli() + share->second.units_ceil());
  return out;
}

JobShape shape_of(const Job& job, const Accelerators& acc, RecentValues<ResourceList>* recent) {
  JobShape s;
  ResourceList requests;
  auto add = [&](const PodTemplateSpec& t, std::int32_t n) {
    const auto r = pod_requests(t.spec);
    if (n > 0) {  // n pods' worth at once (no entry at all for none, as adding n times gave)
      for (const auto& [name, q] : r) requests[name] += q * n;
    }
    if (s.gpus_per_first_pod == 0) s.gpus_per_first_pod = acc.gpus_of(r);
  };
  auto elastic_from = [&](const std::optional<ElasticConfig>& e) {
    if (e && e->enabled) {
      s.elastic = true;
      s.min = e->min_replicas;
      s.max = e->max_replicas;
      s.expected = std::clamp(e->expected_replicas, e->min_replicas, e->max_replicas);
    }
  };
  std::visit(
      [&](const auto& j) {
        using T = std::decay_t<decltype(j)>;
        if constexpr (std::is_same_v<T, GenericJob> || std::is_same_v<T, PluginJob>) {
          for (const auto& r : j.spec.replica_specs) {
            s.replicas += r.replicas;
            add(*r.template_, r.replicas);
          }
        } else if constexpr (std::is_same_v<T, PyTorchTrainingJob>) {
          elastic_from(j.spec.elastic);
          for (const auto& r : j.spec.replica_specs) {
            s.replicas += r.replicas;
            if (!s.elastic) add(*r.template_, r.replicas);
          }
          if (s.elastic && !j.spec.replica_specs.empty()) {
            add(*j.spec.replica_specs.front().template_, s.expected);
          }
        } else {
          elastic_from(j.spec.elastic);
          s.replicas = j.spec.worker.replicas;
          add(*j.spec.worker.template_, s.elastic ? s.expected : s.replicas);
        }
      },
      job);
  s.requests =
      recent ? recent->share(std::move(requests)) : Shared<ResourceList>(std::move(requests));
  return s;
}

}  // namespace t9k::model
