// The whole simulator at scale (issue 6 §11, issue 20). BM_World runs a scenario of generators
// (default bench/scenarios/world.yaml: 1,024 nodes x 8 H100 GPUs, jobs of all three kinds at about
// 86 % offered GPU load, the h100-frontier fault profile, two queues; T9KSIM_WORLD_SCENARIO names
// another, e.g. bench/scenarios/fleet-moderate.yaml) for N jobs, the benchmark argument (10k,
// 100k, 1M): the horizon is scaled by N over the scenario's expected jobs (estimate_jobs), so the
// load stays the same. BM_Trace runs bench/scenarios/philly-20k.yaml (T9KSIM_TRACE_SCENARIO).
// Each reports wall and CPU time, jobs, events, events per second of CPU, peak resident memory of
// the process (run one size per process for its own) and the run's fingerprint.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "analysis/recorder.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/world.hpp"

using namespace t9k;

namespace {

std::string scenario_path(const char* variable, const char* fallback) {
  const char* p = std::getenv(variable);
  return p && *p ? p : fallback;
}

scenarios::ScenarioResult load_file(const std::string& path) {
  scenarios::LoadOptions lo;
  lo.base_dir = std::filesystem::path(path).parent_path().string();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return scenarios::parse_scenario(text.str(), path, lo);
}

// The scenario with its horizon scaled to `jobs` (world.yaml: 6 days per 10,000 jobs).
scenarios::ScenarioResult load_scenario(std::int64_t jobs) {
  auto loaded = load_file(scenario_path("T9KSIM_WORLD_SCENARIO", T9KSIM_WORLD_SCENARIO));
  if (loaded.ok()) {
    auto& sc = *loaded.scenario;
    const double expected = scenarios::estimate_jobs(sc).total;
    const double seconds =
        static_cast<double>(sc.horizon.count()) / 1e6 * static_cast<double>(jobs) / expected;
    sc.horizon = kernel::seconds(static_cast<std::int64_t>(std::llround(seconds)));
  }
  return loaded;
}

long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// Runs the scenario once per iteration as `t9ksim run` does (outputs not written, rows streamed
// and dropped) and sets the counters both benchmarks report; returns the last run's metrics.
std::map<std::string, double> measure(benchmark::State& state, const scenarios::Scenario& sc) {
  std::uint64_t events = 0;
  std::map<std::string, double> metrics;
  for (auto _ : state) {
    analysis::Recorder rec(kernel::SimTime{sc.horizon},
                           analysis::Recorder::choose_bucket(sc.horizon));
    rec.stream_rows({});  // as `t9ksim run` does, minus the writing of jobs.csv
    sim::World world(sc, 0, [&](const model::TimedChange& c) { rec.on_change(c); });
    world.run();
    rec.finish();
    events = world.events_dispatched();
    state.SetLabel("fingerprint " + kernel::format_fingerprint(world.fingerprint()));
    metrics = rec.metrics();
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["jobs"] = metrics.at("jobs_submitted");
  state.counters["peak_rss_MiB"] = static_cast<double>(peak_rss_kib()) / 1024.0;
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
  return metrics;
}

void BM_World(benchmark::State& state) {
  const auto loaded = load_scenario(state.range(0));
  if (!loaded.ok()) {
    state.SkipWithError(scenarios::format_diagnostic(loaded.diagnostics.front()).c_str());
    return;
  }
  state.counters["utilization"] = measure(state, *loaded.scenario).at("utilization_allocated");
}

void BM_Trace(benchmark::State& state) {
  const auto loaded = load_file(scenario_path("T9KSIM_TRACE_SCENARIO", T9KSIM_TRACE_SCENARIO));
  if (!loaded.ok()) {
    state.SkipWithError(scenarios::format_diagnostic(loaded.diagnostics.front()).c_str());
    return;
  }
  measure(state, *loaded.scenario);
}

void BM_Backlog(benchmark::State& state) {
  const std::string dir = scenario_path("T9KSIM_BACKLOG_DIR", T9KSIM_BACKLOG_DIR);
  const auto loaded =
      load_file(dir + (state.range(0) == 2 ? "/scenario-2x.yaml" : "/scenario.yaml"));
  if (!loaded.ok()) {
    state.SkipWithError(scenarios::format_diagnostic(loaded.diagnostics.front()).c_str());
    return;
  }
  // The PAI simulator's figure of merit (15,658.56 s for scenario.yaml).
  state.counters["mean_jct_s"] = measure(state, *loaded.scenario).at("jct_mean_s");
}

}  // namespace

BENCHMARK(BM_World)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kSecond)->Iterations(1);
// The trace is loaded once, outside the timing; the run is what is measured.
BENCHMARK(BM_Trace)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Backlog)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(3);

BENCHMARK_MAIN();
