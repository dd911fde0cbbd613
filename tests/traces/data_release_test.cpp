// A replayed trace's records are freed once replayed (docs/performance.md "A trace's records freed
// once replayed"): the cursor holds them until it has passed the last, the world reads them only
// while it is built, so a run that lets its own copy go keeps none after the last submission.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include <fmt/format.h>

#include "scenarios/format/scenario.hpp"
#include "scenarios/format/traces.hpp"
#include "support.hpp"
#include "workload/trace_cursor.hpp"

using namespace t9k;
using namespace t9k::tracetest;

namespace {

// Three jobs a minute apart on one 8-GPU node, FIFO.
scenarios::Scenario three_jobs(const std::string& name) {
  const auto dir = temp_dir(name);
  write(dir / "t.csv", "n,t,d,g\nr-a,0,120,8\nr-b,60,120,8\nr-c,120,120,8\n");
  return load(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: release}
spec:
  horizon: 1d
  controllers: {reconcileLatency: 0s}
  kubelet: {podStartLatency: 0s, podStopLatency: 0s}
  scheduler: {name: t9k, options: {schedulingLatency: 0s}}
  cluster: {nodePools: [{name: one, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]}
  workload:
    traces:
    - {name: t, format: csv, path: t.csv, queue: default, options: {submitColumn: t, durationColumn: d, gpusColumn: g, nameColumn: n, kind: GenericJob, gpusPerPod: "8"}}
)",
              dir.string());
}

}  // namespace

TEST_CASE("a trace cursor holds the records until it has passed the last, then lets them go") {
  auto sc = three_jobs("release-cursor");
  auto& entry = sc.workload.traces.front();
  const std::weak_ptr<const scenarios::TraceData> data = entry.data;
  const kernel::RngStreams streams(sc.seed, 0);
  workload::TraceCursor cursor(entry, streams, kernel::SimTime{sc.horizon}, true,
                               sc.default_namespace);
  entry.data.reset();  // the run's copy goes: the cursor's is the only one
  REQUIRE_FALSE(data.expired());
  std::vector<std::string> names;
  while (auto s = cursor.next()) {
    names.push_back(model::metadata_of(s->job).name.str());
    if (names.size() < 3) CHECK_FALSE(data.expired());  // more records to read
  }
  CHECK(names == std::vector<std::string>{"r-a", "r-b", "r-c"});
  CHECK(data.expired());
  CHECK_FALSE(cursor.next());  // and stays at its end
}

TEST_CASE("a world built from a trace runs the same with the scenario's copy of it let go") {
  const auto kept = simulate(three_jobs("release-kept"));
  auto sc = three_jobs("release-dropped");
  const std::weak_ptr<const scenarios::TraceData> data = sc.workload.traces.front().data;
  Run run(sc);
  sim::World w(sc, 0, [&](const model::TimedChange& c) { run.rec.on_change(c); });
  for (auto& t : sc.workload.traces) t.data.reset();  // what a run does once its world is built
  REQUIRE_FALSE(data.expired());                      // the cursor's
  w.run();
  run.rec.finish();
  CHECK(data.expired());  // the last job was submitted: nothing holds the records
  CHECK(w.fingerprint() == kept.fingerprint);
  REQUIRE(run.rec.jobs().size() == 3);
  for (const auto& r : run.rec.jobs()) CHECK(r.end);
}
