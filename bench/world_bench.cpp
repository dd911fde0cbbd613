// The whole simulator at scale (issue 6 §11): bench/scenarios/world.yaml, a 1,024-node x 8-GPU
// H100 cluster, jobs of all three kinds from four generators at about 86 % offered GPU load, the
// h100-frontier fault profile, two queues. The job count is the benchmark argument (10k, 100k,
// 1M); the horizon grows with it so the load stays the same (100k jobs = 60 days). Reports wall
// time per run, events per second, peak resident memory and the run's fingerprint.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "analysis/recorder.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/world.hpp"

using namespace t9k;

namespace {

// bench/scenarios/world.yaml, with the horizon scaled to the job count (100k jobs = 60 days) so
// the load stays the same.
scenarios::ScenarioResult load_scenario(std::int64_t jobs) {
  std::ifstream in(T9KSIM_WORLD_SCENARIO);
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = scenarios::parse_scenario(text.str(), T9KSIM_WORLD_SCENARIO);
  if (loaded.ok()) loaded.scenario->horizon = kernel::seconds(60 * 86400 * jobs / 100000);
  return loaded;
}

long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

void BM_World(benchmark::State& state) {
  const auto jobs = state.range(0);
  const auto loaded = load_scenario(jobs);
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
    state.SetLabel("fingerprint " + kernel::format_fingerprint(world.fingerprint()));
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
