// Whole-simulator tests: a scenario goes through the real loader, the world with the real
// controllers and scheduler, and the recorder; expectations are on the published results.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "analysis/outputs.hpp"
#include "analysis/recorder.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "sim/world.hpp"
#include "workload/sources.hpp"

using namespace t9k;

namespace {

scenarios::Scenario load(const std::string& yaml) {
  auto r = scenarios::parse_scenario(yaml, "test.yaml");
  if (!r.ok()) {
    for (const auto& d : r.diagnostics) UNSCOPED_INFO(scenarios::format_diagnostic(d));
  }
  REQUIRE(r.ok());
  return *r.scenario;
}

struct Run {
  analysis::Recorder rec;
  std::vector<model::TimedChange> changes;
  std::vector<sim::JobOutcome> outcomes;
  std::uint64_t fingerprint = 0;
  explicit Run(const scenarios::Scenario& sc)
      : rec(kernel::SimTime{sc.horizon}, analysis::Recorder::choose_bucket(sc.horizon)) {}
};

Run simulate(const scenarios::Scenario& sc, std::uint64_t replication = 0) {
  Run run(sc);
  auto settings = sim::settings_from_scenario(sc);
  settings.keep_outcomes = true;
  sim::World w(
      sc, replication,
      [&](const model::TimedChange& c) {
        run.rec.on_change(c);
        run.changes.push_back(c);
      },
      settings);
  w.run();
  run.rec.finish();
  run.outcomes = w.outcomes();
  run.fingerprint = w.fingerprint();
  return run;
}

const std::string kCluster = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: t}
spec:
  horizon: 2d
  seed: 11
  cluster:
    nodePools: [{name: gpu, count: 4, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
    topology: {nodesPerRack: 2}
  scheduler:
    name: t9k
    queues:
    - manifest: {apiVersion: scheduler.tensorstack.dev/v1beta1, kind: Queue, metadata: {name: default}, spec: {}}
)";

// A generator of 1-GPU jobs of 20 minutes every 30 minutes on average, for workload.generators.
const std::string kSmallGenerator = R"(    - name: small
      interarrival: {exponential: {mean: 30m}}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {name: small}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          replicaSpecs: [{type: w, template: {spec: {containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]}}}]
      behaviour: {runTime: 20m}
)";

std::string job(const std::string& name, int replicas, const std::string& behaviour,
                const std::string& extra = "") {
  return "    - submitAt: 0s\n      behaviour: " + behaviour +
         "\n      manifest:\n        apiVersion: batch.tensorstack.dev/v1beta1\n        kind: "
         "PyTorchTrainingJob\n"
         "        metadata: {name: " +
         name + "}\n        spec:\n          scheduler: {t9kScheduler: {queue: default}}\n" +
         extra + "          replicaSpecs:\n          - type: worker\n            replicas: " +
         std::to_string(replicas) +
         "\n            restartPolicy: OnFailure\n            template: {spec: {containers: "
         "[{name: pytorch, image: t, "
         "resources: {limits: {nvidia.com/gpu: 8}}}]}}\n";
}

const sim::JobOutcome& outcome(const Run& r, const std::string& name) {
  for (const auto& o : r.outcomes) {
    if (o.name == "default/" + name) return o;
  }
  FAIL("no job " << name);
  throw;
}

}  // namespace

TEST_CASE("a rigid job runs for exactly its run time plus start-up", "[sim]") {
  const auto sc = load(kCluster + "  workload:\n    jobs:\n" + job("one", 2, "{runTime: 1h}"));
  const auto run = simulate(sc);
  const auto& o = outcome(run, "one");
  REQUIRE(o.phase == model::JobPhase::Succeeded);
  const auto& row = run.rec.jobs().at(0);
  REQUIRE(row.first_running);
  REQUIRE(row.end);
  // Training starts when both pods run and lasts exactly one hour; the job ends one reconcile
  // latency later.
  const auto run_us = (*row.end - *row.first_running).count();
  CHECK(run_us >= 3600LL * 1000000);
  CHECK(run_us <= 3600LL * 1000000 + 2000000);
  CHECK(row.productive_gpu_milli_us == 2 * 8 * 3600LL * 1000000 * model::kGpuMilliPerGpu);
  CHECK(row.allocated_gpu_milli_us >= row.productive_gpu_milli_us);
  CHECK(run.rec.check_invariants().empty());
  // The change feed reports each pod's creation before its binding.
  int created = 0, bound = 0;
  for (const auto& c : run.changes) {
    if (std::holds_alternative<model::PodCreated>(c.change)) {
      CHECK(bound == 0);
      ++created;
    }
    if (std::holds_alternative<model::PodBound>(c.change)) ++bound;
  }
  CHECK(created == 2);
  CHECK(bound == 2);
}

TEST_CASE("the same seed gives the same run, another seed another", "[sim]") {
  const std::string yaml = kCluster + "  workload:\n    jobs:\n" +
                           job("a", 2,
                               "{runTime: {exponential: {mean: 3h}}, failure: {hazardPerHour: 0.5, "
                               "exitCodes: [{code: 137, weight: 1}]}}") +
                           job("b", 3, "{runTime: {exponential: {mean: 2h}}}");
  auto sc = load(yaml);
  const auto r1 = simulate(sc);
  const auto r2 = simulate(sc);
  CHECK(r1.fingerprint == r2.fingerprint);
  CHECK(analysis::jobs_csv(r1.rec) == analysis::jobs_csv(r2.rec));
  CHECK(analysis::timeseries_csv(r1.rec) == analysis::timeseries_csv(r2.rec));
  const auto r3 = simulate(sc, 1);  // another replication: other streams
  CHECK(r3.fingerprint != r1.fingerprint);
  sc.seed = 12;
  CHECK(simulate(sc).fingerprint != r1.fingerprint);
}

TEST_CASE("a gang waits until all its pods fit and never runs partially", "[sim]") {
  // 4 nodes x 8 GPUs: "big" needs 3 nodes, "wide" needs 3 nodes; they cannot run together.
  const auto sc = load(kCluster + "  workload:\n    jobs:\n" + job("big", 3, "{runTime: 2h}") +
                       job("wide", 3, "{runTime: 2h}"));
  const auto run = simulate(sc);
  CHECK(outcome(run, "big").phase == model::JobPhase::Succeeded);
  CHECK(outcome(run, "wide").phase == model::JobPhase::Succeeded);
  const auto& big = run.rec.jobs().at(0);
  const auto& wide = run.rec.jobs().at(1);
  // One waits for the other: their running intervals do not overlap.
  const bool ordered = *big.end <= *wide.first_running || *wide.end <= *big.first_running;
  CHECK(ordered);
  CHECK(run.rec.check_invariants().empty());
}

TEST_CASE("every submitted job is accounted for and Little's law holds exactly", "[sim]") {
  std::string yaml = kCluster + "  workload:\n    jobs:\n";
  for (int i = 0; i < 12; ++i) {
    yaml += job("j" + std::to_string(i), 1 + i % 3, "{runTime: {exponential: {mean: 4h}}}");
  }
  const auto run = simulate(load(yaml));
  CHECK(run.outcomes.size() == 12);
  int rows = 0;
  for (const auto& r : run.rec.jobs()) rows += r.name.empty() ? 0 : 1;
  CHECK(rows == 12);
  CHECK(run.rec.check_invariants().empty());
  const auto m = run.rec.metrics();
  CHECK(m.at("jobs_submitted") == 12);
  CHECK(m.at("jobs_succeeded") + m.at("jobs_unfinished") + m.at("jobs_failed") == 12);
  CHECK(m.at("utilization_allocated") > 0);
  CHECK(m.at("utilization_allocated") <= 1.0);
}

TEST_CASE("a software failure rolls back to the last checkpoint", "[sim]") {
  // Checkpoint every 10 min; a failure loses at most 10 min of 8 GPUs per failure.
  const auto sc = load(kCluster + "  workload:\n    jobs:\n" +
                       job("ck", 1,
                           "{runTime: 6h, checkpointInterval: 10m, failure: {hazardPerHour: 1, "
                           "exitCodes: [{code: 137, weight: 1}]}}",
                           "          runPolicy: {backoffLimit: 100}\n"));
  const auto run = simulate(sc);
  const auto& row = run.rec.jobs().at(0);
  REQUIRE(outcome(run, "ck").phase == model::JobPhase::Succeeded);
  const auto software = row.lost_gpu_milli_us[static_cast<int>(model::LossCause::Software)];
  CHECK(software > 0);
  CHECK(software <=
        static_cast<std::int64_t>(row.pods_failed) * 8 * 600LL * 1000000 * model::kGpuMilliPerGpu);
  CHECK(row.productive_gpu_milli_us == 8 * 6 * 3600LL * 1000000 * model::kGpuMilliPerGpu);
  CHECK(outcome(run, "ck").backoff_count == row.pods_failed);
}

TEST_CASE("an operation on an unknown job is a scenario error", "[sim]") {
  // The loader refuses such a file already; a scenario built in code reaches the world.
  auto sc = load(kCluster + "  workload:\n    jobs:\n" + job("x", 1, "{runTime: 1h}") +
                 "  operations:\n  - {at: 10m, action: pauseJob, job: x}\n");
  sc.operations.at(0).target = "nobody";
  CHECK_THROWS_WITH(simulate(sc), Catch::Contains("no job named 'nobody'"));
}

TEST_CASE("unknown options are refused with the allowed values", "[sim]") {
  auto sc = load(kCluster + "  workload:\n    jobs:\n" + job("x", 1, "{runTime: 1h}"));
  sc.scheduler.options["backfill"] = "greedy";
  CHECK_THROWS_WITH(
      sim::settings_from_scenario(sc),
      Catch::Contains("scheduler.options.backfill") && Catch::Contains("skip-and-continue"));
  sc.scheduler.options.clear();
  sc.controllers.options["nope"] = "1";
  CHECK_THROWS_WITH(sim::settings_from_scenario(sc),
                    Catch::Contains("controllers.options.nope: unknown option"));
}

TEST_CASE("generators expand deterministically and independently", "[sim]") {
  const std::string gen = "\n    generators:\n" + kSmallGenerator;
  const std::string gen2 = R"(    - name: other
      interarrival: {exponential: {mean: 1h}}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {name: other}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          replicaSpecs: [{type: w, template: {spec: {containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]}}}]
      behaviour: {runTime: 20m}
)";
  const auto one = load(kCluster + "  workload:" + gen);
  const auto two = load(kCluster + "  workload:" + gen + gen2);
  const auto a = workload::expand_generators(one, 0);
  const auto b = workload::expand_generators(two, 0);
  REQUIRE(a.size() > 50);
  // Adding a generator does not move the first generator's jobs (named streams).
  std::size_t same = 0;
  for (const auto& s : b) {
    if (model::metadata_of(s.job).name.view().rfind("small-", 0) == 0) {
      CHECK(s.submit_time == a.at(same).submit_time);
      ++same;
    }
  }
  CHECK(same == a.size());
  // Replications differ.
  CHECK(workload::expand_generators(one, 1).front().submit_time != a.front().submit_time);
  // The world pulls generators lazily; the expanded list is the same workload: same run.
  const auto lazy = simulate(two);
  const auto expanded = simulate(workload::with_expanded_workload(two, 0));
  CHECK(lazy.fingerprint == expanded.fingerprint);
  CHECK(analysis::jobs_csv(lazy.rec) == analysis::jobs_csv(expanded.rec));
}

TEST_CASE("a throughput table sets an elastic job's speed by replica count", "[sim]") {
  // 16h of replica-time at a measured 3.2x on 4 replicas: 5 h of training.
  const std::string yaml = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: t}
spec:
  horizon: 1d
  cluster:
    nodePools: [{name: gpu, count: 4, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  scheduler: {name: t9k}
  workload:
    jobs:
    - submitAt: 0s
      behaviour: {work: 16h, scaling: {model: table, throughput: {1: 1, 2: 1.8, 4: 3.2}}}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: PyTorchTrainingJob
        metadata: {name: tab}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          torchrunConfig: {enabled: true}
          elastic: {enabled: true, minReplicas: 1, maxReplicas: 4, expectedReplicas: 4}
          replicaSpecs:
          - type: worker
            restartPolicy: OnFailure
            template: {spec: {containers: [{name: pytorch, image: t, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)";
  // The queue "default" is implicit: the scenario defines none.
  const auto run = simulate(load(yaml));
  REQUIRE(outcome(run, "tab").phase == model::JobPhase::Succeeded);
  const auto& row = run.rec.jobs().at(0);
  CHECK(row.ideal_run_us == 5LL * 3600 * 1000000);
  const auto trained = (*row.end - *row.first_running).count();
  CHECK(trained >= 5LL * 3600 * 1000000);
  CHECK(trained <= 5LL * 3600 * 1000000 + 2000000);
}

TEST_CASE("a throughput table needs its model and the model its table", "[sim]") {
  auto bad = [](const std::string& scaling) {
    const std::string yaml = kCluster + "  workload:\n    jobs:\n" +
                             job("x", 1, "{runTime: 1h, scaling: " + scaling + "}");
    auto r = scenarios::parse_scenario(yaml, "t.yaml");
    std::string all;
    for (const auto& d : r.diagnostics) all += scenarios::format_diagnostic(d) + "\n";
    return all;
  };
  CHECK_THAT(bad("{model: table}"),
             Catch::Contains("spec.workload.jobs[0].behaviour.scaling.model") &&
                 Catch::Contains("without throughput"));
  CHECK_THAT(bad("{model: linear, throughput: {2: 1.5}}"),
             Catch::Contains("throughput only with model table"));
  CHECK_THAT(bad("{model: table, throughput: {zero: 1}}"), Catch::Contains("a replica count >= 1"));
}

TEST_CASE("Weibull inter-failure times keep the fault rate's mean", "[sim]") {
  auto sc = load(kCluster + R"(  faults:
    profile: custom
    rates: {nodeFailuresPerNodeDay: 2}
    weibullShape: 0.7
    repairTime: 10m
  workload:
    jobs:
)" + job("x", 1, "{runTime: 1h}"));
  REQUIRE(sc.faults.weibull_shape == Approx(0.7));
  sc.horizon = kernel::days(60);
  const auto weibull = simulate(sc);
  sc.faults.weibull_shape.reset();
  const auto exponential = simulate(sc);
  auto downs = [](const Run& r) {
    std::size_t n = 0;
    for (const auto& f : r.rec.faults()) n += f.down ? 1 : 0;
    return static_cast<double>(n);
  };
  // 4 nodes x 60 days x 2 per day = 480 expected faults either way (repairs are short).
  CHECK(downs(exponential) == Approx(480).epsilon(0.15));
  CHECK(downs(weibull) == Approx(480).epsilon(0.2));
  CHECK(weibull.fingerprint != exponential.fingerprint);
}

TEST_CASE(
    "any accelerator: resources named in spec.cluster.accelerators count as GPUs, faults "
    "included") {
  // scenarios/examples/mixed-accelerators.yaml: 2 A100 nodes of 8 and 2 DCU nodes of 4; a DCU
  // job of 2 workers x 2 hygon.com/dcu (packed on dcu-0) and an A100 job of 2 x 8; one DCU of
  // dcu-0 fails for 2 h at 3 h, so one of the DCU job's pods fails.
  std::ifstream in(std::string(T9KSIM_SOURCE_DIR) + "/scenarios/examples/mixed-accelerators.yaml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto sc = load(text);
  REQUIRE(sc.cluster.accelerators == std::vector<std::string>{"nvidia.com/gpu", "hygon.com/dcu"});
  REQUIRE(sc.cluster.node_pools[1].gpu_resource == "hygon.com/dcu");
  const auto run = simulate(sc);
  const auto row = [&](const std::string& name) {
    for (const auto& j : run.rec.jobs()) {
      if (j.name == "default/" + name) return j;
    }
    FAIL("no job " << name);
    return analysis::JobRow{};
  };
  const auto dcu = row("llama3-finetune-2x2xdp");
  CHECK(dcu.gpu_milli == 4000);  // 2 pods x 2 DCUs
  CHECK(dcu.phase == "Succeeded");
  CHECK(dcu.allocated_gpu_milli_us >= static_cast<model::Int128>(4000) * kernel::hours(6).count());
  CHECK(row("a100-ddp").gpu_milli == 16000);
  // Capacity: 24 GPUs for 2 days, less the failed DCU for its 2 hours.
  const model::Int128 full = static_cast<model::Int128>(24000) * kernel::days(2).count();
  CHECK(run.rec.capacity_gpu_milli_us() ==
        full - static_cast<model::Int128>(1000) * kernel::hours(2).count());
  // The DCU fault hit a DCU job's pod: it failed and was restarted.
  CHECK(dcu.pods_failed == 1);

  // Listed only as an extra resource, a DCU is not a GPU: the job counts 0 GPUs, as before.
  std::string plain = text;
  plain.replace(plain.find("accelerators: [nvidia.com/gpu, hygon.com/dcu]"), 45,
                "accelerators: [nvidia.com/gpu]");
  const std::string pool = "gpusPerNode: 4, gpuResource: hygon.com/dcu,";
  plain.replace(plain.find(pool), pool.size(), "extraResources: {hygon.com/dcu: 4},");
  const std::string op = "  - {at: 3h, action: failGpu, node: dcu-0, repairAfter: 2h}\n";
  plain.replace(plain.find(op), op.size(),
                "  - {at: 3h, action: failGpu, node: a100-0, repairAfter: 2h}\n");
  const auto run2 = simulate(load(plain));
  for (const auto& j : run2.rec.jobs()) {
    if (j.name == "default/llama3-finetune-2x2xdp") {
      CHECK(j.gpu_milli == 0);
      CHECK(j.phase == "Succeeded");
    }
  }

  // Bad input names the field and what is allowed.
  const auto errors_of = [&](const std::string& from, const std::string& to) {
    std::string bad = text;
    bad.replace(bad.find(from), from.size(), to);
    const auto r = scenarios::parse_scenario(bad, "test.yaml");
    std::string all;
    for (const auto& d : r.diagnostics) all += scenarios::format_diagnostic(d) + "\n";
    return all;
  };
  CHECK_THAT(
      errors_of("accelerators: [nvidia.com/gpu, hygon.com/dcu]", "accelerators: [nvidia.com/gpu]"),
      Catch::Contains(
          "spec.cluster.nodePools[1].gpuResource: found \"hygon.com/dcu\"; allowed: one of "
          "spec.cluster.accelerators (nvidia.com/gpu)"));
  CHECK_THAT(
      errors_of("accelerators: [nvidia.com/gpu, hygon.com/dcu]",
                "accelerators: [cpu, hygon.com/dcu, hygon.com/dcu]"),
      Catch::Contains(
          "spec.cluster.accelerators[0]: found \"cpu\"; allowed: an extended resource name"));
  CHECK_THAT(errors_of("accelerators: [nvidia.com/gpu, hygon.com/dcu]",
                       "accelerators: [cpu, hygon.com/dcu, hygon.com/dcu]"),
             Catch::Contains("spec.cluster.accelerators[2]: found \"hygon.com/dcu\" again"));
  CHECK_THAT(errors_of("accelerators: [nvidia.com/gpu, hygon.com/dcu]", "accelerators: []"),
             Catch::Contains("spec.cluster.accelerators: found an empty list"));
}

// Issue 20: memory flat in finished jobs. A finished job leaves the world (JobLeft); operations
// may still name it; the recorder streams its row, and jobs.csv and the figures are the same.
TEST_CASE("finished jobs leave the world; rows streamed as they leave give the same outputs",
          "[sim]") {
  const std::string gen = "    generators:\n" + kSmallGenerator;
  const auto sc = load(kCluster + "  workload:\n    jobs:\n" + job("x", 1, "{runTime: 1h}") + gen +
                       "  operations:\n  - {at: 10h, action: pauseJob, job: x}\n  - {at: 11h, "
                       "action: resumeJob, job: x}\n");
  const auto kept = simulate(sc);  // rows kept, outcomes kept
  REQUIRE(kept.outcomes.size() > 50);
  CHECK(kept.outcomes.at(0).name == "default/x");
  CHECK(kept.outcomes.at(0).phase ==
        model::JobPhase::Succeeded);  // the later pause changed nothing

  const auto dir = std::filesystem::temp_directory_path() / "t9ksim-world-test-streamed";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  analysis::Recorder rec(kernel::SimTime{sc.horizon},
                         analysis::Recorder::choose_bucket(sc.horizon));
  std::size_t most_held = 0, left = 0;
  {
    analysis::JobsCsvWriter writer(dir / "jobs.csv", kernel::SimTime{sc.horizon});
    rec.stream_rows([&](const analysis::JobRow& r) { writer.row(r); });
    for (const auto& c : kept.changes) {
      rec.on_change(c);
      most_held = std::max(most_held, rec.rows_held());
      left += std::holds_alternative<model::JobLeft>(c.change) ? 1 : 0;
    }
    rec.finish();
    CHECK_FALSE(std::filesystem::exists(dir / "jobs.csv"));  // a temporary name until committed
    writer.commit();
  }
  std::ifstream in(dir / "jobs.csv", std::ios::binary);
  const std::string streamed((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  CHECK(streamed == analysis::jobs_csv(kept.rec));
  CHECK(rec.metrics() == kept.rec.metrics());
  CHECK(rec.check_invariants().empty());
  CHECK(left + 3 >= kept.outcomes.size());  // all but the few running at the horizon left
  CHECK(most_held <= 10);                   // rows held: the jobs in the world, not all jobs
  std::filesystem::remove_all(dir);

  // Without keep_outcomes the finished jobs' outcomes are gone; a finished job is not found.
  sim::World w(sc, 0, [](const model::TimedChange&) {});
  w.run();
  CHECK_THROWS_AS(w.outcomes(), std::logic_error);
  CHECK(w.find_job("x") == nullptr);
}
