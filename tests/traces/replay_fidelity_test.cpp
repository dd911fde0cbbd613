// Replay fidelity at scale (issue 21): same-instant submissions queue in submission order, a FIFO
// replay equals the analytic FIFO schedule, several trace files share one clock, a cluster may
// be one pooled node, and the whole Philly trace round-trips through `import`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/recorder.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/world.hpp"
#include "support.hpp"
#include "workload/import.hpp"
#include "workload/trace_cursor.hpp"

using namespace t9k;
using namespace t9k::tracetest;
namespace fs = std::filesystem;

namespace {

const analysis::JobRow& row(const Run& r, const std::string& name) {
  for (const auto& j : r.rec.jobs()) {
    if (j.name == "default/" + name) return j;
  }
  FAIL("no job " << name);
  throw;
}

// A scenario of one node of `gpus` GPUs, the T9k scheduler, no latencies (so times are exact),
// and csv trace entries.
std::string fifo_scenario(int gpus, const std::string& traces) {
  return fmt::format(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: fifo}}
spec:
  horizon: 30d
  controllers: {{reconcileLatency: 0s}}
  kubelet: {{podStartLatency: 0s, podStopLatency: 0s}}
  scheduler: {{name: t9k, options: {{schedulingLatency: 0s}}}}
  cluster: {{nodePools: [{{name: one, count: 1, gpusPerNode: {}, cpu: 64, memory: 512Gi}}]}}
  workload:
    traces:
{})",
                     gpus, traces);
}

std::string csv_entry(const std::string& name, const std::string& path, int gpus_per_pod,
                      const std::string& extra = "") {
  return fmt::format(
      "    - {{name: {}, format: csv, path: {}, queue: default{}, options: {{submitColumn: t, "
      "durationColumn: d, "
      "gpusColumn: g, nameColumn: n, kind: GenericJob, gpusPerPod: \"{}\"}}}}\n",
      name, path, extra, gpus_per_pod);
}

}  // namespace

TEST_CASE("same-instant submissions queue in submission order, whatever ids earlier jobs freed") {
  // Twelve jobs finish first (their PodGroups are removed and their ids recycled), then four
  // arrive at one instant. §8.5: equal priority, equal creation time -> creation order, which is
  // the submission order (submit time, job key). Before the fix, the ties went by recycled ids.
  const auto dir = temp_dir("same-instant");
  std::string rows = "n,t,d,g\n";
  for (int i = 0; i < 12; ++i)
    rows += fmt::format("warm-{:02},{},{},8\n", i, 1000 + i, 100 + 37 * (11 - i));
  for (const char* n : {"tie-c", "tie-a", "tie-d", "tie-b"})
    rows += fmt::format("{},100000,600,8\n", n);
  write(dir / "t.csv", rows);
  const auto sc = load(fifo_scenario(8, csv_entry("t", "t.csv", 8)), dir.string());
  const auto run = simulate(sc);
  const auto& a = row(run, "tie-a");
  const auto& b = row(run, "tie-b");
  const auto& c = row(run, "tie-c");
  const auto& d = row(run, "tie-d");
  for (const auto* j : {&a, &b, &c, &d}) {
    INFO(j->name);
    REQUIRE(j->first_running);
    REQUIRE(j->end);
  }
  // One whole-node job at a time, 600 s each, in key order.
  const auto t0 = kernel::SimTime{kernel::seconds(100000 - 1000)};
  CHECK(*a.first_running == t0);
  CHECK(*b.first_running == t0 + kernel::seconds(600));
  CHECK(*c.first_running == t0 + kernel::seconds(1200));
  CHECK(*d.first_running == t0 + kernel::seconds(1800));
  CHECK(run.rec.check_invariants().empty());
}

TEST_CASE(
    "a FIFO replay with many same-second submissions gives the analytic FIFO completion times") {
  // 200 jobs in 40 distinct seconds (five per second), run times 50..950 s, on one node where
  // each job takes every GPU: a single FIFO server. Completion of the k-th job in submission
  // order is max(submit_k, completion_{k-1}) + run_k, to the microsecond.
  const auto dir = temp_dir("fifo");
  struct Job {
    std::string name;
    std::int64_t submit_s, run_s;
  };
  std::vector<Job> jobs;
  std::string rows = "n,t,d,g\n";
  for (int i = 0; i < 200; ++i) {
    // Names out of row order, so key order is a real reordering of the file.
    Job j{fmt::format("j{:03}", (i * 73) % 200), 1600000000 + (i / 5) * 400, 50 + (i * 311) % 900};
    rows += fmt::format("{},{},{},8\n", j.name, j.submit_s, j.run_s);
    jobs.push_back(j);
  }
  write(dir / "t.csv", rows);
  const auto sc = load(fifo_scenario(8, csv_entry("t", "t.csv", 8)), dir.string());
  const auto run = simulate(sc);

  std::sort(jobs.begin(), jobs.end(), [](const Job& x, const Job& y) {
    return std::tie(x.submit_s, x.name) < std::tie(y.submit_s, y.name);
  });
  const std::int64_t origin = jobs.front().submit_s;
  std::int64_t free_at = 0;
  std::size_t checked = 0;
  for (const auto& j : jobs) {
    INFO(j.name);
    const std::int64_t submit = j.submit_s - origin;
    const std::int64_t end = std::max(submit, free_at) + j.run_s;
    free_at = end;
    const auto& r = row(run, j.name);
    REQUIRE(r.end);
    CHECK(r.submit == kernel::SimTime{kernel::seconds(submit)});
    CHECK(*r.end - r.submit == kernel::seconds(end - submit));  // the job completion time
    ++checked;
  }
  CHECK(checked == 200);
  CHECK(run.rec.check_invariants().empty());
}

TEST_CASE("several trace files share one clock, and epoch sets trace time 0") {
  const auto dir = temp_dir("clock");
  write(dir / "oct.csv", "n,t,d,g\noct-a,1700000000,60,0\noct-b,1700000100,60,0\n");
  write(dir / "nov.csv", "n,t,d,g\nnov-a,1700086400,60,0\n");  // one day later
  const auto submits = [&](const std::string& traces) {
    std::map<std::string, kernel::SimDuration> out;
    for (const auto& s : workload::expand_traces(load(fifo_scenario(8, traces), dir.string()), 0)) {
      out[model::metadata_of(s.job).name.str()] = s.submit_time.time_since_epoch();
    }
    return out;
  };
  // Both files on the earliest submission's clock: the November job is one day in.
  auto s = submits(csv_entry("oct", "oct.csv", 8) + csv_entry("nov", "nov.csv", 8));
  CHECK(s.at("oct-a") == kernel::seconds(0));
  CHECK(s.at("oct-b") == kernel::seconds(100));
  CHECK(s.at("nov-a") == kernel::days(1));
  // The order of the entries does not matter.
  s = submits(csv_entry("nov", "nov.csv", 8) + csv_entry("oct", "oct.csv", 8));
  CHECK(s.at("nov-a") == kernel::days(1));
  // An epoch per entry: a number of seconds or a date on the trace's clock.
  s = submits(csv_entry("oct", "oct.csv", 8, ", epoch: 1700000050") +
              csv_entry("nov", "nov.csv", 8, ", epoch: \"2023-11-15 22:13:20\""));
  CHECK(s.count("oct-a") == 0);  // before its epoch: outside every window
  CHECK(s.at("oct-b") == kernel::seconds(50));
  CHECK(s.at("nov-a") == kernel::seconds(0));
  // A bad epoch names the field.
  const auto bad =
      parse(fifo_scenario(8, csv_entry("oct", "oct.csv", 8, ", epoch: yesterday")), dir.string());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.diagnostics.front().path == "spec.workload.traces[0].epoch");
}

TEST_CASE("a cluster can be one pooled node of up to 2^20 GPUs") {
  const auto dir = temp_dir("pooled");
  // 80,000 GPUs in one node (a 10,000-node cluster as one pool); jobs of 65,536 and 14,464 GPUs
  // fit side by side, a third waits for the first.
  write(dir / "t.csv", "n,t,d,g\nbig,1000,3600,65536\nrest,1000,3600,14464\nnext,1001,60,65536\n");
  const auto sc = load(fifo_scenario(80000, csv_entry("t", "t.csv", 65536)), dir.string());
  const auto run = simulate(sc);
  const auto& big = row(run, "big");
  const auto& rest = row(run, "rest");
  const auto& next = row(run, "next");
  REQUIRE(big.first_running);
  REQUIRE(rest.first_running);
  REQUIRE(next.first_running);
  CHECK(big.phase == "Succeeded");
  CHECK(big.gpu_milli == 65536LL * 1000);
  CHECK(*rest.first_running == rest.submit);
  CHECK(*next.first_running == *big.end);
  CHECK(run.rec.check_invariants().empty());

  // Above the cap: a clear error with the column.
  write(dir / "huge.csv", "n,t,d,g\nhuge,1000,60,1048577\n");
  const auto r = parse(fifo_scenario(80000, csv_entry("t", "huge.csv", 8)), dir.string());
  REQUIRE_FALSE(r.ok());
  bool named = false;
  for (const auto& d : r.diagnostics)
    named = named || d.message.find("1048577") != std::string::npos;
  CHECK(named);
}

TEST_CASE("the whole Philly trace round-trips through import to the same run", "[.][slow]") {
  // Hidden from the default run (two whole replays take minutes under the sanitizers); CTest
  // runs it as its own test, "traces: whole Philly import round trip".
  const auto dir = temp_dir("philly-import");
  const std::string text = fmt::format(R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: philly-import}}
spec:
  horizon: 120d
  cluster:
    fromTrace: philly
  scheduler:
    name: t9k
  workload:
    traces:
    - format: philly
      path: {}
)",
                                       kPhilly);
  std::vector<scenarios::Diagnostic> diags;
  const auto res = workload::import_trace(text, dir.string(), 0, false, diags);
  CHECK(res.jobs > 80000);
  // Compact (issue 50 item 6): at most 3 times the trace, one manifest per distinct job shape.
  std::uintmax_t bytes = 0;
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) {
      bytes += e.file_size();
      ++files;
    }
  }
  INFO("import: " << bytes << " bytes in " << files << " files");
  CHECK(files <= 5);  // trace.yaml, scenario.yaml, queues.yaml, shapes.yaml
  CHECK(res.shapes < 1000);
  CHECK(bytes <= 3 * fs::file_size(kPhilly));
  const auto direct = scenarios::load_scenario(res.trace_path);
  const auto imported = scenarios::load_scenario(res.scenario_path);
  for (const auto& d : imported.diagnostics) UNSCOPED_INFO(scenarios::format_diagnostic(d));
  REQUIRE(direct.ok());
  REQUIRE(imported.ok());
  CHECK(imported.scenario->workload.jobs.size() == static_cast<std::size_t>(res.jobs));
  const auto a = simulate(*direct.scenario);
  const auto b = simulate(*imported.scenario);
  CHECK(a.rec.jobs().size() == b.rec.jobs().size());
  CHECK(a.fingerprint == b.fingerprint);
}
