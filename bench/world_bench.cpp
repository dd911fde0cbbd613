// The whole simulator at scale (issue 6 §11): a 1,024-node x 8-GPU H100 cluster, jobs of all
// three kinds from four generators at about 86 % offered GPU load, the h100-frontier fault
// profile, two queues. The job count is the benchmark argument (10k, 100k, 1M); the horizon
// grows with it so the load stays the same (100k jobs = 60 days). Reports wall time per run,
// events per second and peak resident memory.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <string>

#include <fmt/format.h>

#include "analysis/recorder.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/world.hpp"

using namespace t9k;

namespace {

std::string scenario_yaml(std::int64_t jobs) {
  // 100k jobs over 60 days: mean interarrival 51.84 s over all four generators.
  const double days = 60.0 * static_cast<double>(jobs) / 100000.0;
  const auto gen = [](const char* name, const char* kind, double share, const std::string& spec,
                      const std::string& behaviour) {
    const double mean_s = 51.84 / share;
    return fmt::format(R"(
    - name: {0}
      interarrival: {{exponential: {{mean: {1:.3f}s}}}}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: {2}
        metadata: {{name: {0}}}
        spec:
{3}
      behaviour: {4}
)",
                       name, mean_s, kind, spec, behaviour);
  };
  const std::string gpu1 = "{name: c, image: i, resources: {limits: {cpu: 4, memory: 32Gi, nvidia.com/gpu: 1}}}";
  const std::string gpu8 = "{name: c, image: i, resources: {limits: {cpu: 32, memory: 256Gi, nvidia.com/gpu: 8}}}";
  std::string y = fmt::format(R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: world-bench}}
spec:
  horizon: {}s
  seed: 1
  cluster:
    nodePools: [{{name: h100, count: 1024, gpusPerNode: 8, gpuModel: H100, cpu: 192, memory: 2Ti}}]
    topology: {{nodesPerRack: 16, racksPerSwitch: 4}}
  scheduler:
    name: t9k
    options: {{preemption: "true"}}
    queues:
    - manifest: {{apiVersion: scheduler.tensorstack.dev/v1beta1, kind: Queue, metadata: {{name: production}}, spec: {{priority: 10, preemptible: false, quota: {{requests: {{nvidia.com/gpu: 6144}}}}}}}}
    - manifest: {{apiVersion: scheduler.tensorstack.dev/v1beta1, kind: Queue, metadata: {{name: research}}, spec: {{priority: 1}}}}
  faults: {{profile: h100-frontier}}
  workload:
    generators:)",
                              static_cast<std::int64_t>(days * 86400));
  y += gen("notebook", "GenericJob", 0.50,
           "          scheduler: {t9kScheduler: {queue: research}}\n"
           "          replicaSpecs: [{type: w, restartPolicy: {policy: OnFailure, limit: 2}, template: {spec: {containers: [" + gpu1 + "]}}}]",
           "{runTime: {exponential: {mean: 2h}}, restartOverhead: 30s, failure: {hazardPerHour: 0.02}}");
  y += gen("sweep", "GenericJob", 0.25,
           "          scheduler: {t9kScheduler: {queue: research}}\n"
           "          replicaSpecs: [{type: w, template: {spec: {containers: [" + gpu8 + "]}}}]",
           "{runTime: {lognormal: {mu: 9.35, sigma: 0.6}}, restartOverhead: 1m}");
  y += gen("ddp", "PyTorchTrainingJob", 0.15,
           "          scheduler: {t9kScheduler: {queue: production, priority: 50}}\n"
           "          runPolicy: {backoffLimit: 10, cleanUpPolicy: Unfinished}\n"
           "          replicaSpecs: [{type: worker, replicas: 4, restartPolicy: ExitCode, template: {spec: {containers: [" + gpu8 + "]}}}]",
           "{runTime: {lognormal: {mu: 9.8, sigma: 0.6}}, checkpointInterval: 30m, checkpointCost: 1m, restartOverhead: 5m, "
           "failure: {hazardPerHour: 0.01, exitCodes: [{code: 137, weight: 1}]}}");
  y += gen("deepspeed", "DeepSpeedJob", 0.10,
           "          scheduler: {t9kScheduler: {queue: production, priority: 40}}\n"
           "          runPolicy: {backoffLimit: 10, cleanUpPolicy: All}\n"
           "          config: {slotsPerWorker: 8, run: {python: [train.py]}}\n"
           "          worker: {replicas: 8, template: {spec: {containers: [" + gpu8 + "]}}}",
           "{runTime: {lognormal: {mu: 10.3, sigma: 0.5}}, checkpointInterval: 30m, checkpointCost: 1m, restartOverhead: 5m}");
  return y;
}

long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

void BM_World(benchmark::State& state) {
  const auto jobs = state.range(0);
  const auto loaded = scenarios::parse_scenario(scenario_yaml(jobs), "world-bench.yaml");
  if (!loaded.ok()) {
    state.SkipWithError(scenarios::format_diagnostic(loaded.diagnostics.front()).c_str());
    return;
  }
  const auto& sc = *loaded.scenario;
  std::uint64_t events = 0;
  std::int64_t submitted = 0;
  double util = 0;
  for (auto _ : state) {
    analysis::Recorder rec(kernel::SimTime{sc.horizon}, analysis::Recorder::choose_bucket(sc.horizon));
    sim::World world(sc, 0, [&](const model::TimedChange& c) { rec.on_change(c); });
    world.run();
    rec.finish();
    events = world.events_dispatched();
    const auto m = rec.metrics();
    submitted = static_cast<std::int64_t>(m.at("jobs_submitted"));
    util = m.at("utilization_allocated");
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["jobs"] = static_cast<double>(submitted);
  state.counters["utilization"] = util;
  state.counters["peak_rss_MiB"] = static_cast<double>(peak_rss_kib()) / 1024.0;
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_World)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_MAIN();
