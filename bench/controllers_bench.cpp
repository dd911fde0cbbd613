// Controller reconciles (docs/performance.md, "Controllers"): the three typical cases the world
// runs after every pod change. Each iteration is one whole reconcile of the same input (a
// controller never mutates its inputs), including destroying its result, as the world does.
//  * BM_PyTorchRunningNoop: a running 4-pod PyTorchTrainingJob (master 1 + worker 3, T9k
//    scheduler, PodGroup in place) whose status is already up to date: nothing to do.
//  * BM_DeepSpeedPendingCreate: a new 8-pod DeepSpeedJob (T9k scheduler): the first reconcile,
//    which creates the PodGroup and the 8 pods.
//  * BM_GenericPodSucceeded: a running 1-pod GenericJob whose pod has just succeeded: the job
//    succeeds and, with cleanUpPolicy All, deletes the pod.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "controllers/controller.hpp"

using namespace t9k::controllers;
namespace model = t9k::model;

namespace {

model::SimTime at(std::int64_t s) { return model::SimTime{t9k::kernel::seconds(s)}; }

// A template like the scenarios' generated jobs: one container with command, args and requests.
model::PodTemplateSpec make_template(std::int32_t gpus, std::string container) {
  model::PodTemplateSpec t;
  t.metadata.labels["app"] = "train";
  model::Container c;
  c.name = std::move(container);
  c.image = "registry.example/train:latest";
  c.command = {"python", "train.py"};
  c.args = {"--epochs", "30", "--batch-size", "256"};
  c.resources.requests[model::kResourceCpu] = model::Quantity::from_units(8);
  c.resources.requests[model::kResourceMemory] =
      model::Quantity::from_units(std::int64_t{64} << 30);
  c.resources.limits[model::kResourceGpu] = model::Quantity::from_units(gpus);
  t.spec.containers.push_back(std::move(c));
  return t;
}

model::ObjectMeta make_meta(std::string name) {
  model::ObjectMeta m;
  m.name = std::move(name);
  m.namespace_ = "t9k-research";
  m.uid = "uid-" + m.name.str();
  return m;
}

// The parts of the world's contract the set-up needs: apply actions, keep the status.
struct MiniWorld {
  explicit MiniWorld(model::Job j) : job(std::move(j)) {}

  model::Job job;
  std::vector<model::Pod> pods;
  std::optional<model::PodGroup> pod_group;
  ControllerOptions options;
  Registry registry = make_default_registry();
  model::SimTime now{};

  const Controller& controller() const {
    return *registry.find(model::kBatchApiVersion, model::to_string(model::kind_of(job)));
  }
  ReconcileInput input() const {
    return {job, pods, pod_group ? &*pod_group : nullptr, std::nullopt, now, options};
  }
  void step() {
    ReconcileResult r = controller().reconcile(input());
    for (auto& a : r.actions) {
      if (auto* cp = std::get_if<CreatePod>(&a)) {
        cp->pod.metadata.uid = cp->pod.metadata.name.str() + "-g0";
        cp->pod.metadata.creation_timestamp = now;
        pods.push_back(std::move(cp->pod));
      } else if (auto* cg = std::get_if<CreatePodGroup>(&a)) {
        pod_group = std::move(cg->pod_group);
      } else if (auto* dp = std::get_if<DeletePod>(&a)) {
        std::erase_if(pods, [&](const model::Pod& p) { return p.metadata.name == dp->name; });
      }
    }
    model::status_of(job) = std::move(r.status);
  }
  void run_all() {
    for (auto& p : pods) {
      p.node_name = "node-1";
      p.phase = model::PodPhase::Running;
      p.start_time = now;
    }
  }
};

void reconcile_loop(benchmark::State& state, const MiniWorld& w) {
  const Controller& c = w.controller();
  const ReconcileInput in = w.input();
  for (auto _ : state) {
    ReconcileResult r = c.reconcile(in);
    benchmark::DoNotOptimize(r);
  }
}

void BM_PyTorchRunningNoop(benchmark::State& state) {
  model::PyTorchTrainingJob j;
  j.metadata = make_meta("pytorch-mnist-000123");
  for (auto [type, n] : {std::pair{"master", 1}, std::pair{"worker", 3}}) {
    model::PyTorchReplicaSpec r;
    r.type = type;
    r.replicas = n;
    r.restart_policy = model::RestartPolicyType::OnFailure;
    r.template_ = make_template(2, "python");
    j.spec.replica_specs.push_back(std::move(r));
  }
  j.spec.run_policy.backoff_limit = 3;
  j.spec.scheduler.t9k_scheduler = model::T9kScheduler{"research", 50};
  MiniWorld w{std::move(j)};
  w.step();  // PodGroup and pods
  w.now = at(30);
  w.run_all();
  w.step();  // Running
  w.now = at(600);
  w.step();  // settled: the benchmarked reconcile has nothing to do
  reconcile_loop(state, w);
}
BENCHMARK(BM_PyTorchRunningNoop);

void BM_DeepSpeedPendingCreate(benchmark::State& state) {
  model::DeepSpeedJob j;
  j.metadata = make_meta("deepspeed-gpt-000456");
  j.spec.worker.replicas = 8;
  j.spec.worker.restart_policy = model::RestartPolicyType::OnFailure;
  j.spec.worker.template_ = make_template(8, "worker");
  j.spec.run_policy.backoff_limit = 3;
  j.spec.scheduler.t9k_scheduler = model::T9kScheduler{"research", 50};
  MiniWorld w{std::move(j)};
  reconcile_loop(state, w);
}
BENCHMARK(BM_DeepSpeedPendingCreate);

void BM_GenericPodSucceeded(benchmark::State& state) {
  model::GenericJob j;
  j.metadata = make_meta("generic-job-000789");
  model::GenericReplicaSpec r;
  r.type = "worker";
  r.replicas = 1;
  r.restart_policy = {model::RestartPolicyType::OnFailure, 3};
  r.template_ = make_template(1, "main");
  j.spec.replica_specs.push_back(std::move(r));
  j.spec.clean_up_policy = model::CleanUpPolicy::All;
  MiniWorld w{std::move(j)};
  w.step();
  w.now = at(20);
  w.run_all();
  w.step();
  w.now = at(3600);
  auto& p = w.pods.front();
  p.phase = model::PodPhase::Succeeded;
  p.exit_code = 0;
  p.finish_time = w.now;
  reconcile_loop(state, w);
}
BENCHMARK(BM_GenericPodSucceeded);

}  // namespace

BENCHMARK_MAIN();
