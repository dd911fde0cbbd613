// Plugins out of process (issue 14 §8, docs/plugins.md). BM_DefaultScenario runs the embedded
// default scenario (a week on 32 x 8 H100, greedy elastic policy) with its controllers and
// elastic policy in process (arg 0), with the three controllers behind `t9ksim plugin serve
// controller` (arg 1), and with the elastic policy out of process too (arg 2); the target is
// at most 5x the in-process wall time. BM_Reconcile* measure one reconcile of a running
// 8-worker GenericJob in process and over the protocol (encode, a round trip through the
// pipe pair, decode on both sides, the answer's checks): the per-reconcile cost of a plugin.
#include <benchmark/benchmark.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "plugins/adapters.hpp"
#include "plugins/client.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/manifests.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/settings.hpp"
#include "sim/world.hpp"

using namespace t9k;

namespace {

scenarios::Scenario default_scenario() {
  std::ifstream in(T9KSIM_DEFAULT_SCENARIO);
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = scenarios::parse_scenario(text.str(), T9KSIM_DEFAULT_SCENARIO);
  if (!loaded.ok())
    throw std::runtime_error(scenarios::format_diagnostic(loaded.diagnostics.front()));
  return *loaded.scenario;
}

scenarios::PluginSpec serve(const std::string& name, const std::string& role) {
  scenarios::PluginSpec p;
  p.name = name;
  p.command = {T9KSIM_BIN, "plugin", "serve", role};
  p.timeout = kernel::seconds(60);
  return p;
}

void BM_DefaultScenario(benchmark::State& state) {
  const scenarios::Scenario sc = default_scenario();
  sim::WorldSettings settings = sim::settings_from_scenario(sc);
  if (state.range(0) >= 1) {
    const auto controllers = serve("controllers", "controller");
    for (const auto k : {model::JobKind::GenericJob, model::JobKind::PyTorchTrainingJob,
                         model::JobKind::DeepSpeedJob}) {
      settings.plugins.controllers.push_back({k, controllers});
    }
  }
  if (state.range(0) >= 2)
    settings.plugins.elastic_policy = serve("elastic-policy", "elastic-policy");
  std::uint64_t events = 0, calls = 0, fingerprint = 0;
  for (auto _ : state) {
    sim::World world(
        sc, 0, [](const model::TimedChange&) {}, settings);
    world.run();
    events = world.events_dispatched();
    calls = world.plugin_calls();
    fingerprint = world.fingerprint();
  }
  state.SetLabel(fmt::format("{} fingerprint {}",
                             state.range(0) == 0   ? "in process"
                             : state.range(0) == 1 ? "controllers out of process"
                                                   : "controllers and policy out of process",
                             kernel::format_fingerprint(fingerprint)));
  state.counters["events"] = static_cast<double>(events);
  state.counters["plugin_calls"] = static_cast<double>(calls);
}

// A running GenericJob of 8 workers and its pods, as the controller sees it after start-up.
struct ReconcileFixture {
  model::Job job;
  std::vector<model::Pod> pods;
  std::optional<model::PodGroup> group;
  controllers::ControllerOptions options;

  ReconcileFixture() {
    const auto set = scenarios::parse_manifests(R"(
apiVersion: batch.tensorstack.dev/v1beta1
kind: GenericJob
metadata: {name: bench, namespace: default}
spec:
  scheduler: {t9kScheduler: {queue: default}}
  replicaSpecs:
  - type: worker
    replicas: 8
    restartPolicy: {policy: OnFailure, limit: 3}
    template: {spec: {containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)",
                                                "bench");
    job = scenarios::to_job(set.objects.at(0).object);
    const auto controller = controllers::make_builtin_controller(model::JobKind::GenericJob);
    // Apply the first answer as the world would, with every pod bound and running.
    for (int step = 0; step < 2; ++step) {
      const controllers::ReconcileInput in{job,
                                           pods,
                                           group ? &*group : nullptr,
                                           std::nullopt,
                                           kernel::at(kernel::seconds(10 * step)),
                                           options};
      const auto res = controller->reconcile(in);
      for (const auto& a : res.actions) {
        if (const auto* c = std::get_if<controllers::CreatePod>(&a)) {
          model::Pod p = c->pod;
          p.node_name = fmt::format("gpu-{}", p.rank);
          p.phase = model::PodPhase::Running;
          p.bind_time = p.start_time = kernel::at(kernel::seconds(1));
          pods.push_back(p);
        } else if (const auto* g = std::get_if<controllers::CreatePodGroup>(&a)) {
          group = g->pod_group;
        }
      }
      model::status_of(job) = res.status;
    }
  }
  controllers::ReconcileInput input(int i) const {
    return {
        job,    pods, group ? &*group : nullptr, std::nullopt, kernel::at(kernel::seconds(100 + i)),
        options};
  }
};

void BM_ReconcileInProcess(benchmark::State& state) {
  const ReconcileFixture f;
  const auto controller = controllers::make_builtin_controller(model::JobKind::GenericJob);
  int i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(controller->reconcile(f.input(i++)));
}

void BM_ReconcileOverProtocol(benchmark::State& state) {
  const ReconcileFixture f;
  plugins::ProcessSpec spec;
  spec.name = "bench";
  // Arg 1: the protocol version the server speaks.
  spec.command = {T9KSIM_BIN,   "plugin",     "serve",
                  "controller", "--protocol", std::to_string(state.range(1))};
  spec.timeout = std::chrono::seconds(60);
  // As the world runs plugins: pinned to one CPU (plugins/process.hpp); arg 1 leaves it unpinned.
  std::optional<plugins::ScopedCpuPin> pin;
  if (state.range(0) == 0) pin.emplace();
  auto client = std::make_shared<plugins::Client>(spec, protocol::Role::Controller,
                                                  std::vector<std::string>{"GenericJob"}, "bench",
                                                  f.options, protocol::PolicySettings{});
  const plugins::PluginController controller(
      std::make_shared<plugins::ControllerSession>(
          client, std::vector<model::JobKind>{model::JobKind::GenericJob}),
      model::JobKind::GenericJob);
  int i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(controller.reconcile(f.input(i++)));
  state.SetLabel(fmt::format(
      "{}, protocol {}", state.range(0) == 0 ? "pinned to one CPU" : "not pinned", state.range(1)));
  client->shutdown();
}

}  // namespace

BENCHMARK(BM_DefaultScenario)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ReconcileInProcess)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReconcileOverProtocol)
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 2})
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
