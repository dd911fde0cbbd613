#include "plugins/checks.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace t9k::plugins {

namespace {

// Each replica type of the job and how many ranks it may have (maxReplicas when elastic).
std::map<std::string, std::int32_t> replica_limits(const model::Job& job) {
  std::map<std::string, std::int32_t> out;
  std::visit(
      [&](const auto& j) {
        using T = std::decay_t<decltype(j)>;
        if constexpr (std::is_same_v<T, model::GenericJob> || std::is_same_v<T, model::PluginJob>) {
          for (const auto& r : j.spec.replica_specs) out[std::string(r.type)] = r.replicas;
        } else if constexpr (std::is_same_v<T, model::PyTorchTrainingJob>) {
          const bool elastic = j.spec.elastic && j.spec.elastic->enabled;
          // Only workers scale (§4.3); a master stays at its replicas.
          for (const auto& r : j.spec.replica_specs) {
            out[r.type] = elastic && r.type == "worker"
                              ? std::max(r.replicas, j.spec.elastic->max_replicas)
                              : r.replicas;
          }
        } else {
          const bool elastic = j.spec.elastic && j.spec.elastic->enabled;
          out["worker"] = elastic ? std::max(j.spec.worker.replicas, j.spec.elastic->max_replicas)
                                  : j.spec.worker.replicas;
        }
      },
      job);
  return out;
}

std::string phase_name(const std::optional<model::JobPhase>& p) {
  return p ? std::string(model::to_string(*p)) : std::string("(none)");
}

}  // namespace

void check_reconcile_result(const controllers::ReconcileInput& in,
                            const controllers::ReconcileResult& res, const std::string& who) {
  auto fail = [&](const std::string& path, const std::string& what) {
    throw PluginError(fmt::format("{}: {}: {}", who, path, what));
  };
  const auto& meta = model::metadata_of(in.job);
  const auto before = model::status_of(in.job).phase;
  if (before && !res.status.phase)
    fail("result.status.phase", fmt::format("removed (it was {})", phase_name(before)));
  if (res.status.phase && !controllers::is_allowed_transition(before, *res.status.phase)) {
    fail("result.status.phase",
         fmt::format("{} -> {} is not a transition the job's lifecycle allows (spec §1.1)",
                     phase_name(before), phase_name(res.status.phase)));
  }
  std::set<std::string> own;
  for (const auto& p : in.pods) own.insert(p.metadata.name.str());
  const auto limits = replica_limits(in.job);
  std::set<std::string> created;
  for (std::size_t i = 0; i < res.actions.size(); ++i) {
    const std::string path = fmt::format("result.actions[{}]", i);
    std::visit(
        [&](const auto& a) {
          using T = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<T, controllers::CreatePod>) {
            const auto& p = a.pod;
            if (p.job_name != meta.name) {
              fail(path + ".pod.t9ksim.job",
                   fmt::format("the pod belongs to job \"{}\"; a controller creates pods of its "
                               "own job \"{}\" only",
                               p.job_name, meta.name));
            }
            if (!p.metadata.namespace_.empty() && p.metadata.namespace_ != meta.namespace_) {
              fail(path + ".pod.metadata.namespace",
                   fmt::format("found \"{}\"; allowed: the job's namespace \"{}\"",
                               p.metadata.namespace_, meta.namespace_));
            }
            auto it = limits.find(p.replica_type.str());
            // Kubeflow labels a pod with its replica type in lower case ("master" of "Master").
            if (it == limits.end() && model::kind_of(in.job) == model::JobKind::Plugin) {
              it = std::find_if(limits.begin(), limits.end(), [&](const auto& l) {
                return model::same_replica_type(l.first, p.replica_type);
              });
            }
            if (it == limits.end()) {
              std::string types;
              for (const auto& [t, n] : limits) types += (types.empty() ? "" : ", ") + t;
              fail(path + ".pod.t9ksim.replicaType",
                   fmt::format("found \"{}\"; allowed: a replica type of the job ({})",
                               p.replica_type, types));
            }
            if (p.rank < 0 || p.rank >= it->second) {
              fail(path + ".pod.t9ksim.rank",
                   fmt::format("found {}; allowed: a rank in [0, {}) for replica type {}", p.rank,
                               it->second, p.replica_type));
            }
            // Observed state is the world's to set: a pod is created Pending, unbound, alive.
            const model::Pod fresh{};
            auto observed = [&](bool same, std::string_view field) {
              if (!same)
                fail(path + ".pod." + std::string(field),
                     "is set; the world sets a pod's observed state, a controller creates pods "
                     "without it");
            };
            observed(p.node_name == fresh.node_name, "spec.nodeName");
            observed(p.gpu_index == fresh.gpu_index, "t9ksim.gpuIndex");
            observed(p.phase == fresh.phase, "status.phase");
            observed(p.exit_code == fresh.exit_code,
                     "status.containerStatuses[0].state.terminated.exitCode");
            observed(p.bind_time == fresh.bind_time, "t9ksim.bindTime");
            observed(p.start_time == fresh.start_time, "status.startTime");
            observed(p.finish_time == fresh.finish_time,
                     "status.containerStatuses[0].state.terminated.finishedAt");
            observed(p.deletion_timestamp == fresh.deletion_timestamp,
                     "metadata.deletionTimestamp");
            observed(p.deletion_reason == fresh.deletion_reason, "t9ksim.deletionReason");
            if (p.metadata.name.empty()) fail(path + ".pod.metadata.name", "is empty");
            if (own.count(p.metadata.name.str()) || !created.insert(p.metadata.name.str()).second) {
              fail(path + ".pod.metadata.name",
                   fmt::format("\"{}\" is the name of a pod the world still stores; a pod's name "
                               "is reused only after it is gone",
                               p.metadata.name));
            }
            for (const auto& [r, q] : *p.requests) {
              if (q.milli() < 0)
                fail(path + ".pod.spec.containers[0].resources.requests." + r,
                     "a negative quantity");
            }
          } else if constexpr (std::is_same_v<T, controllers::DeletePod>) {
            if (!own.count(a.name))
              fail(path + ".name", fmt::format("\"{}\" is not a pod of job {}", a.name, meta.name));
          } else if constexpr (std::is_same_v<T, controllers::RestartTraining>) {
            for (std::size_t k = 0; k < a.pods.size(); ++k) {
              if (!own.count(a.pods[k]))
                fail(fmt::format("{}.pods[{}]", path, k),
                     fmt::format("\"{}\" is not a pod of job {}", a.pods[k], meta.name));
            }
          } else if constexpr (std::is_same_v<T, controllers::CreatePodGroup> ||
                               std::is_same_v<T, controllers::UpdatePodGroup>) {
            if (a.pod_group.metadata.name != meta.name) {
              fail(path + ".podGroup.metadata.name",
                   fmt::format("found \"{}\"; allowed: the job's name \"{}\"",
                               a.pod_group.metadata.name, meta.name));
            }
          }
        },
        res.actions[i]);
  }
}

}  // namespace t9k::plugins
