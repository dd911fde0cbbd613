// Plugins out of process (issue 14 §8, issue 45, docs/plugins.md, docs/protocol-v2.md).
// BM_DefaultScenario runs the embedded default scenario over 28 days (the issue's measure) with:
//   0  everything in process
//   1  the three controllers behind `t9ksim plugin serve controller`, protocol version 2
//   2  the same, and the elastic policy behind `t9ksim plugin serve elastic-policy`
//   3  the three controllers over protocol version 1 (`--protocol 1`)
//   4  the GenericJob controller in Python on the SDK
//   (plugins/examples/reference_generic_controller.py) 5  the elastic policy alone behind `t9ksim
//   plugin serve elastic-policy`, version 2 6  the GenericJob controller in Go on the SDK
//   (sdk/go/examples/genericjob, built with t9ksim-go; when Go was found at configure time)
// The counter cpu_total_s is the CPU (user + system) of the simulator and of every plugin process
// it started (waited for: they have exited when the world is gone); compare it with arg 0's.
// BM_Reconcile* measure one reconcile of a running 8-worker GenericJob in process and over the
// protocol (encode, a round trip through the pipe pair, decode on both sides, the answer's
// checks): the per-exchange cost of a plugin.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

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

double cpu_seconds(int who) {
  rusage u{};
  getrusage(who, &u);
  auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

void BM_DefaultScenario(benchmark::State& state) {
  scenarios::Scenario sc = default_scenario();
  sc.horizon = kernel::days(28);
  sim::WorldSettings settings = sim::settings_from_scenario(sc);
  const auto mode = static_cast<std::size_t>(state.range(0));
  const char* labels[] = {"in process",
                          "controllers out of process (v2)",
                          "controllers and policy out of process (v2)",
                          "controllers out of process (v1)",
                          "GenericJob controller in Python on the SDK (v2)",
                          "policy out of process (v2)",
                          "GenericJob controller in Go on the SDK (v2)"};
  auto all_kinds = [&](const scenarios::PluginSpec& p) {
    for (const auto k : {model::JobKind::GenericJob, model::JobKind::PyTorchTrainingJob,
                         model::JobKind::DeepSpeedJob}) {
      settings.plugins.controllers.push_back({k, p});
    }
  };
  if (mode == 1 || mode == 2) all_kinds(serve("controllers", "controller"));
  if (mode == 3) {
    auto p = serve("controllers", "controller");
    p.command.insert(p.command.end(), {"--protocol", "1"});
    all_kinds(p);
  }
  if (mode == 4) {
    scenarios::PluginSpec p;
    p.name = "genericjob-controller";
    p.command = {"python3", T9KSIM_SOURCE_DIR "/plugins/examples/reference_generic_controller.py"};
    p.timeout = kernel::seconds(60);
    settings.plugins.controllers.push_back({model::JobKind::GenericJob, p});
  }
#ifdef T9KSIM_GO_GENERIC
  if (mode == 6) {
    scenarios::PluginSpec p;
    p.name = "genericjob-controller";
    p.command = {T9KSIM_GO_GENERIC};
    p.timeout = kernel::seconds(60);
    settings.plugins.controllers.push_back({model::JobKind::GenericJob, p});
  }
#endif
  if (mode == 2 || mode == 5)
    settings.plugins.elastic_policy = serve("elastic-policy", "elastic-policy");
  std::uint64_t events = 0, calls = 0, fingerprint = 0;
  double cpu = 0;
  for (auto _ : state) {
    const double before = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN);
    {
      sim::World world(
          sc, 0, [](const model::TimedChange&) {}, settings);
      world.run();
      events = world.events_dispatched();
      calls = world.plugin_calls();
      fingerprint = world.fingerprint();
    }
    cpu = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN) - before;
  }
  state.SetLabel(
      fmt::format("{} fingerprint {}", labels[mode], kernel::format_fingerprint(fingerprint)));
  state.counters["events"] = static_cast<double>(events);
  state.counters["plugin_calls"] = static_cast<double>(calls);
  state.counters["cpu_total_s"] = cpu;
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
      std::make_shared<plugins::ControllerSession>(client, std::vector<std::string>{"GenericJob"}),
      std::string(model::kBatchApiVersion), "GenericJob");
  int i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(controller.reconcile(f.input(i++)));
  state.SetLabel(fmt::format(
      "{}, protocol {}", state.range(0) == 0 ? "pinned to one CPU" : "not pinned", state.range(1)));
  client->shutdown();
}

}  // namespace

#ifdef T9KSIM_GO_GENERIC
BENCHMARK(BM_DefaultScenario)->DenseRange(0, 6)->Unit(benchmark::kSecond)->Iterations(1);
#else
BENCHMARK(BM_DefaultScenario)->DenseRange(0, 5)->Unit(benchmark::kSecond)->Iterations(1);
#endif
BENCHMARK(BM_ReconcileInProcess)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReconcileOverProtocol)
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 2})
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
