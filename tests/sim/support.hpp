// Component tests: fakes of the rooms' interfaces (sim/interfaces.hpp) that log every call into
// one shared log, so a test sees which component was told what, in order; a recording store
// watcher; and builders for scenarios, jobs, nodes and pods.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/change.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/interfaces.hpp"
#include "sim/store.hpp"

namespace t9k::sim::testing {

using Log = std::vector<std::string>;

struct FakeReconciles final : ReconcileQueue {
  Log& log;
  explicit FakeReconciles(Log& l) : log(l) {}
  void enqueue(JobId job) override { log.push_back(fmt::format("enqueue {}", job)); }
};

struct FakeTraining final : TrainingControl {
  Log& log;
  explicit FakeTraining(Log& l) : log(l) {}
  void blame(JobId job, model::LossCause c) override {
    log.push_back(fmt::format("blame {} {}", job, model::to_string(c)));
  }
  void blame_if_unset(JobId job, model::LossCause c) override {
    log.push_back(fmt::format("blame-if-unset {} {}", job, model::to_string(c)));
  }
  void evaluate(JobId job) override { log.push_back(fmt::format("evaluate {}", job)); }
  void pod_started(JobId, const std::string&) override {}
  void restart(JobId job) override { log.push_back(fmt::format("restart {}", job)); }
  void job_finished(JobId job) override { log.push_back(fmt::format("finished {}", job)); }
  void forget(JobId job) override { log.push_back(fmt::format("forget {}", job)); }
  // Queries answer without logging: a job training at 40 % with 10-minute checkpoints, linear.
  TrainingState state(JobId) const override {
    TrainingState s;
    s.progress = 0.4;
    s.training = true;
    s.since_checkpoint = kernel::minutes(3);
    s.checkpoint_interval = kernel::minutes(10);
    return s;
  }
  double speedup(JobId, std::int32_t n) const override { return n; }
};

struct FakePods final : PodLifecycle {
  Log& log;
  explicit FakePods(Log& l) : log(l) {}
  void pod_bound(JobId job, const std::string& pod, std::int32_t generation) override {
    log.push_back(fmt::format("bound {} {} gen {}", job, pod, generation));
  }
  void terminate(JobId job, const std::string& pod, model::PodPhase phase, std::int32_t code,
                 std::optional<model::LossCause> cause) override {
    log.push_back(fmt::format("terminate {} {} {} {} {}", job, pod, model::to_string(phase), code,
                              cause ? model::to_string(*cause) : "-"));
  }
  void delete_pod(JobId job, std::string_view name, model::DeletionReason reason) override {
    log.push_back(fmt::format("delete {} {} {}", job, name, model::to_string(reason)));
  }
  void nodes_lost(const std::vector<std::string>& nodes, const std::string& cause) override {
    log.push_back(fmt::format("nodes-lost {} {}", fmt::join(nodes, ","), cause));
  }
  void create_tensorboard(JobId job) override { log.push_back(fmt::format("tensorboard {}", job)); }
};

struct FakeCycles final : CycleTrigger {
  Log& log;
  explicit FakeCycles(Log& l) : log(l) {}
  void request_cycle() override { log.push_back("cycle"); }
};

// Logs what the store tells its watcher, as "watch: ..." lines.
struct RecordingWatcher final : StoreWatcher {
  Log& log;
  explicit RecordingWatcher(Log& l) : log(l) {}
  void node_changed(const model::Node& n) override {
    log.push_back("watch: node " + n.metadata.name.str());
  }
  void node_removed(const std::string& n) override { log.push_back("watch: node-removed " + n); }
  void queue_changed(const model::Queue& q) override {
    log.push_back("watch: queue " + q.metadata.name.str());
  }
  // Hands out hints (groups from 1000, pods from 1) and records the ones handed back, by key.
  std::int32_t pod_group_changed(const model::PodGroup& g, std::int32_t hint) override {
    log.push_back("watch: group " + g.metadata.name.str());
    hints_back.emplace_back(g.metadata.name, hint);
    return 1000 + static_cast<std::int32_t>(group_hints++);
  }
  void pod_group_removed(const std::string& k, std::int32_t hint) override {
    log.push_back("watch: group-removed " + k);
    hints_back.emplace_back(k, hint);
  }
  std::int32_t pod_created(const model::Pod& p, const model::Text& key,
                           std::int32_t group_hint) override {
    created_keys.push_back(key);
    log.push_back("watch: created " + p.metadata.name.str());
    hints_back.emplace_back(p.metadata.name.str() + " group", group_hint);
    return static_cast<std::int32_t>(++pod_hints);
  }
  void pod_bound(const std::string& k, const std::string& node, std::int32_t slot,
                 SnapshotIds) override {
    log.push_back(fmt::format("watch: bound {} {} {}", k, node, slot));
  }
  void pod_terminating(const std::string& k, std::int32_t hint) override {
    log.push_back("watch: terminating " + k);
    hints_back.emplace_back(k, hint);
  }
  void pod_released(const std::string& k) override { log.push_back("watch: released " + k); }
  void pod_terminated(const std::string& k, bool ok, std::int32_t hint) override {
    log.push_back(fmt::format("watch: terminated {} {}", k, ok ? "succeeded" : "failed"));
    hints_back.emplace_back(k, hint);
  }
  void pod_removed(const std::string& k) override { log.push_back("watch: removed " + k); }
  std::size_t group_hints = 0;
  std::size_t pod_hints = 0;
  std::vector<std::pair<std::string, std::int32_t>> hints_back;
  std::vector<model::Text> created_keys;  // the keys pod_created was given
};

// The change feed's variant names, in order ("PodCreated", "PodBound"...).
inline std::string change_name(const model::Change& c) {
  static constexpr const char* kNames[] = {
      "JobSubmitted",      "JobRejected", "JobPhaseChanged", "PodCreated",      "PodBound",
      "PodRunning",        "PodReleased", "PodDeleted",      "TrainingChanged", "ProgressLost",
      "ProgressCommitted", "NodeChanged", "QueueChanged",    "PodUnknown",      "JobStatusChanged",
      "JobPending",        "JobLeft",     "ControllerEvent"};
  static_assert(std::size(kNames) == std::variant_size_v<model::Change>);
  return kNames[c.index()];
}

inline scenarios::Scenario load(const std::string& yaml) {
  auto r = scenarios::parse_scenario(yaml, "test.yaml");
  if (!r.ok()) {
    for (const auto& d : r.diagnostics) UNSCOPED_INFO(scenarios::format_diagnostic(d));
  }
  REQUIRE(r.ok());
  return *r.scenario;
}

// A scenario of one GenericJob "<name>" in queue "default": `replicas` pods of `gpus` GPUs each.
inline std::string generic_job_yaml(const std::string& name, int replicas, int gpus,
                                    const std::string& behaviour = "{runTime: 1h}") {
  return fmt::format(R"(    - submitAt: 0s
      behaviour: {}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {{name: {}}}
        spec:
          scheduler: {{t9kScheduler: {{queue: default}}}}
          replicaSpecs: [{{type: worker, replicas: {}, template: {{spec: {{containers: [{{name: c, image: i, resources: {{limits: {{nvidia.com/gpu: {}}}}}}}]}}}}}}]
)",
                     behaviour, name, replicas, gpus);
}

// A scenario of those jobs on 2 x 8 GPUs with the T9k scheduler; `scheduler_extra` goes into the
// scheduler section (e.g. "    queues:\n    - manifest: ...\n").
inline scenarios::Scenario scenario_with(const std::string& jobs,
                                         const std::string& scheduler_extra = "") {
  return load(R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: component}
spec:
  horizon: 2d
  cluster:
    nodePools: [{name: gpu, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  scheduler:
    name: t9k
)" + scheduler_extra +
              "  workload:\n    jobs:\n" + jobs);
}

inline model::Node gpu_node(const std::string& name, int gpus) {
  model::Node n;
  n.metadata.name = name;
  n.capacity[model::kResourceGpu] = model::Quantity::from_units(gpus);
  n.capacity["cpu"] = model::Quantity::from_units(64);
  n.allocatable = n.capacity;
  return n;
}

// The pod a controller would create for rank `rank` of worker replicas of `job` (namespace
// default).
inline model::Pod worker_pod(const std::string& job, int rank, int gpus) {
  model::Pod p;
  p.metadata.name = fmt::format("{}-worker-{}", job, rank);
  p.job_name = job;
  p.replica_type = "worker";
  p.rank = rank;
  p.requests.edit()[model::kResourceGpu] = model::Quantity::from_units(gpus);
  p.scheduler_name = "t9k-scheduler";
  p.queue = "default";
  return p;
}

}  // namespace t9k::sim::testing
