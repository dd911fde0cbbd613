// Trace replay (docs/traces.md): fidelity against the real Philly trace, the real cluster size,
// bad rows, the csv / k8s-export / openb mappings, replay controls and the import round trip.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/recorder.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/manifests.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "scenarios/format/traces.hpp"
#include "sim/world.hpp"
#include "support.hpp"
#include "workload/import.hpp"
#include "workload/trace_cursor.hpp"

using namespace t9k;
using namespace t9k::tracetest;
namespace fs = std::filesystem;

namespace {

const std::string kOpenbPods =
    std::string(T9KSIM_SOURCE_DIR) + "/data/traces/alibaba-openb/openb_pod_list_default.csv";

const char* kZeroLatency = R"(
  controllers: {reconcileLatency: 0s}
  kubelet: {podStartLatency: 0s, podStopLatency: 0s}
)";

// Durations in µs of philly.csv by line, read independently of the loader.
std::map<int, std::int64_t> philly_durations() {
  std::map<int, std::int64_t> out;
  std::ifstream f(kPhilly);
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    if (n == 1 || line.empty()) continue;
    const auto a = line.find(',');
    const auto b = line.find(',', a + 1);
    out[n] =
        static_cast<std::int64_t>(std::llround(std::stod(line.substr(a + 1, b - a - 1)) * 1e6));
  }
  return out;
}

}  // namespace

TEST_CASE("philly replay with room for every job: each runs exactly its trace duration") {
  const std::string yaml = fmt::format(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: fidelity}}
spec:
  horizon: 40d
{}
  cluster:
    nodePools:
    - {{name: big, count: 400, gpusPerNode: 8, cpu: 64, memory: 512Gi}}
  scheduler:
    name: t9k
    options: {{schedulingLatency: 0s}}
  workload:
    traces:
    - format: philly
      path: {}
      queue: default
      from: 20d
      to: 23d
)",
                                       kZeroLatency, kPhilly);
  const auto sc = load(yaml, ".");
  const auto expected = workload::expand_traces(sc, 0);
  REQUIRE(expected.size() > 1500);  // three days of the busiest part of the trace
  const auto run = simulate(sc);
  REQUIRE(run.rec.jobs().size() == expected.size());
  const auto durations = philly_durations();
  std::size_t finished = 0;
  for (const auto& j : run.rec.jobs()) {
    INFO(j.name);
    REQUIRE(j.first_running);
    CHECK(*j.first_running == j.submit);  // nothing waits
    if (!j.end) continue;
    REQUIRE(j.phase == "Succeeded");
    const std::string name = j.name.str();
    const int line = std::stoi(name.substr(name.rfind('-') + 1));
    REQUIRE(durations.count(line));
    CHECK((*j.end - *j.first_running).count() == durations.at(line));
    ++finished;
  }
  CHECK(finished > expected.size() * 9 / 10);
  CHECK(run.rec.check_invariants().empty());
}

TEST_CASE("philly replay on its own cluster: capacity holds and every job is accounted for") {
  const std::string yaml = fmt::format(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: real-size}}
spec:
  horizon: 3d
{}
  cluster: {{fromTrace: philly}}
  scheduler:
    name: t9k
    options: {{schedulingLatency: 0s}}
  workload:
    traces:
    - format: philly
      path: {}
      options: {{pools: per-vc}}
      from: 30d
      to: 30d18h
)",
                                       kZeroLatency, kPhilly);
  const auto sc = load(yaml, ".");
  REQUIRE(sc.cluster.node_pools.size() == 11);
  std::int64_t gpus = 0;
  for (const auto& p : sc.cluster.node_pools) gpus += std::int64_t{p.count} * p.gpus_per_node;
  CHECK(gpus == 352 * 8);
  CHECK(sc.scheduler.queues.size() >= 11);
  const auto expected = workload::expand_traces(sc, 0);
  const auto run = simulate(sc);
  // Every submitted job is in the outputs exactly once, with a phase.
  std::set<std::string> names;
  for (const auto& j : run.rec.jobs()) {
    CHECK(names.insert(j.name.str()).second);
    CHECK(!j.phase.empty());
  }
  CHECK(names.size() == expected.size());
  for (const auto& s : expected)
    CHECK(names.count("default/" + model::metadata_of(s.job).name.str()));
  for (const auto& [scope, points] : run.rec.series()) {
    if (scope != "cluster") continue;
    for (const auto& p : points) CHECK(p.allocated_gpus <= p.capacity_gpus + 1e-9);
  }
  CHECK(run.rec.check_invariants().empty());
}

TEST_CASE("bad trace rows are reported with file, line and column; skipBadRows skips them") {
  const auto dir = temp_dir("bad");
  write(dir / "bad.csv",
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-01 00:00:00,60.0,1,60.0,vc1\n"
        "2017-10-01 00:01:00,60.0,1\n"           // line 3: missing columns
        "2017-10-01 00:02:00,-5.0,1,-5.0,vc1\n"  // line 4: negative duration
        "2017-13-01 00:03:00,60.0,1,60.0,vc1\n"  // line 5: unparseable time
        "\n"
        "2017-10-01 00:04:00,30.0,2,60.0,vc2\n");
  const std::string yaml = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: bad}
spec:
  horizon: 1d
  cluster: {nodePools: [{name: a, count: 1, gpusPerNode: 8, cpu: 8, memory: 8Gi}]}
  workload:
    traces:
    - {format: philly, path: bad.csv, queue: default}
)";
  const auto r = parse(yaml, dir.string());
  REQUIRE(!r.ok());
  std::map<int, scenarios::Diagnostic> by_line;
  for (const auto& d : r.diagnostics) {
    if (d.line > 0) by_line[d.line] = d;
  }
  REQUIRE(by_line.count(3));
  CHECK(by_line[3].file == (dir / "bad.csv").string());
  CHECK(by_line[3].column == 27);  // just past the row's end
  CHECK(by_line[3].message.find("missing column 5") != std::string::npos);
  REQUIRE(by_line.count(4));
  CHECK(by_line[4].column == 21);
  CHECK(by_line[4].path == "duration");
  CHECK(by_line[4].message.find("negative") != std::string::npos);
  REQUIRE(by_line.count(5));
  CHECK(by_line[5].column == 1);
  CHECK(by_line[5].path == "timestamp");
  CHECK(scenarios::format_diagnostic(by_line[4])
            .rfind((dir / "bad.csv").string() + ":4:21: error:", 0) == 0);

  const auto skipped = parse(yaml, dir.string(), true);
  REQUIRE(skipped.ok());
  bool counted = false;
  for (const auto& d : skipped.diagnostics) {
    CHECK(d.severity == scenarios::Severity::Warning);
    counted = counted || d.message == "skipped 3 bad rows (skipBadRows)";
  }
  CHECK(counted);
  const auto jobs = workload::expand_traces(*skipped.scenario, 0);
  REQUIRE(jobs.size() == 2);
  CHECK(model::metadata_of(jobs[0].job).name == "philly-2");
  CHECK(model::metadata_of(jobs[1].job).name == "philly-7");
  CHECK(jobs[1].submit_time.time_since_epoch() == kernel::minutes(4));

  // The entry option does the same as the flag.
  std::string with_option = yaml;
  with_option.replace(with_option.find("queue: default}"), 15,
                      "queue: default, skipBadRows: true}");
  CHECK(parse(with_option, dir.string()).ok());
}

TEST_CASE("csv traces: column mapping, kinds, GPUs per pod, queues, priorities and names") {
  const auto dir = temp_dir("csv");
  write(dir / "acct.csv",
        "JobID,Submitted,Minutes,GPUs,Partition,Prio,Type\n"
        "Job_A.1,1700000000,10,16,research,5,PyTorchTrainingJob\n"
        "job-b,1700000060,1.5,0,prod,90,GenericJob\n"
        "\"job,c\",1700000030,2,4,research,0,DeepSpeedJob\n");
  const std::string yaml = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: csv}
spec:
  horizon: 1d
  cluster: {nodePools: [{name: a, count: 4, gpusPerNode: 8, cpu: 8, memory: 8Gi}]}
  workload:
    traces:
    - format: csv
      path: acct.csv
      options: {submitColumn: Submitted, durationColumn: Minutes, durationUnit: m, gpusColumn: GPUs,
                queueColumn: Partition, priorityColumn: Prio, kindColumn: Type, nameColumn: JobID}
)";
  const auto sc = load(yaml, dir.string());
  std::set<std::string> queues;
  for (const auto& q : sc.scheduler.queues) queues.insert(q.metadata.name.str());
  CHECK(queues == std::set<std::string>{"research", "prod"});
  const auto jobs = workload::expand_traces(sc, 0);
  REQUIRE(jobs.size() == 3);
  // Sorted by submit time; names sanitised with a hash, the original kept.
  const auto& a = jobs[0];
  CHECK(model::metadata_of(a.job).name.view().rfind("job-a-1-", 0) == 0);
  CHECK(model::metadata_of(a.job).annotations->at(scenarios::kAnnotationTraceId) == "Job_A.1");
  CHECK(model::metadata_of(a.job).annotations->at(scenarios::kAnnotationTraceSource) ==
        "acct.csv:2");
  const auto& pt = std::get<model::PyTorchTrainingJob>(a.job);
  REQUIRE(pt.spec.replica_specs.size() == 1);
  CHECK(pt.spec.replica_specs[0].replicas == 2);
  CHECK(
      model::get_resource(pt.spec.replica_specs[0].template_->spec.containers[0].resources.requests,
                          model::kResourceGpu) == model::Quantity::from_units(8));
  CHECK(pt.spec.scheduler.t9k_scheduler->queue == "research");
  CHECK(pt.spec.scheduler.t9k_scheduler->priority == 5);
  CHECK(a.behaviour.run_time->mean() == kernel::minutes(10));
  const auto& c = std::get<model::DeepSpeedJob>(jobs[1].job);
  CHECK(c.spec.worker.replicas == 1);
  CHECK(c.spec.config->slots_per_worker == 4);
  CHECK(jobs[1].submit_time.time_since_epoch() == kernel::seconds(30));
  const auto& b = std::get<model::GenericJob>(jobs[2].job);
  CHECK(model::metadata_of(jobs[2].job).name == "job-b");
  // An id that is a name already is kept once, and still annotated (TraceData::renamed).
  CHECK(model::metadata_of(jobs[2].job).annotations->at(scenarios::kAnnotationTraceId) == "job-b");
  CHECK(model::metadata_of(jobs[1].job).annotations->at(scenarios::kAnnotationTraceId) == "job,c");
  REQUIRE(sc.workload.traces.at(0).data);
  CHECK(sc.workload.traces.at(0).data->raw_names.empty());
  CHECK(sc.workload.traces.at(0).data->renamed.size() == 2);  // "Job_A.1" and "job,c"
  CHECK(b.spec.scheduler.t9k_scheduler->priority == 90);
  CHECK(jobs[2].behaviour.run_time->mean() == kernel::seconds(90));

  // Every mapped job is a valid manifest and survives the manifest round trip unchanged.
  for (const auto& j : jobs) {
    const auto obj = scenarios::to_object(j.job);
    CHECK(scenarios::validate_object(obj).empty());
    const auto back = scenarios::parse_manifests(scenarios::to_json(obj), "x.json");
    REQUIRE(back.ok());
    CHECK(scenarios::to_job(back.objects.at(0).object) == j.job);
  }

  // A missing mapping is an option error.
  std::string bad = yaml;
  bad.replace(bad.find("submitColumn: Submitted, "), 25, "");
  const auto r = parse(bad, dir.string());
  REQUIRE(!r.ok());
  CHECK(r.diagnostics.front().path == "spec.workload.traces[0].options.submitColumn");
}

TEST_CASE("trace jobs of equal shape share one pod template; others have their own") {
  const auto dir = temp_dir("shared-templates");
  write(dir / "jobs.csv",
        "name,submit,duration,gpus\n"
        "a,0,60,1\n"
        "b,1,60,1\n"
        "c,2,60,8\n"
        "d,3,60,1\n"
        "e,4,60,8\n");
  // The trace's jobs with `more` options, and job i's pod template.
  const auto replay = [&](const std::string& more) {
    return workload::expand_traces(load(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: shared-templates}
spec:
  horizon: 1d
  cluster: {nodePools: [{name: a, count: 2, gpusPerNode: 8, cpu: 8, memory: 8Gi}]}
  workload:
    traces:
    - format: csv
      path: jobs.csv
      options: {submitColumn: submit, durationColumn: duration, gpusColumn: gpus, nameColumn: name,
                kind: GenericJob)" + more + "}\n",
                                        dir.string()),
                                   0);
  };
  using Template = model::Shared<model::PodTemplateSpec>;
  const auto template_of = [](const auto& jobs, std::size_t i) -> const Template& {
    return std::get<model::GenericJob>(jobs.at(i).job).spec.replica_specs.at(0).template_;
  };

  // One-GPU pods all: the 8-GPU jobs are gangs of eight one-GPU pods, so every job shares.
  const auto jobs = replay(", gpusPerPod: \"1\"");
  REQUIRE(jobs.size() == 5);
  for (std::size_t i = 1; i < jobs.size(); ++i)
    CHECK(template_of(jobs, i).shares_with(template_of(jobs, 0)));
  CHECK(std::get<model::GenericJob>(jobs[2].job).spec.replica_specs[0].replicas == 8);

  // Without gpusPerPod a job is one pod of all its GPUs: shapes differ, templates with them.
  const auto whole = replay("");
  REQUIRE(whole.size() == 5);
  CHECK(template_of(whole, 1).shares_with(template_of(whole, 0)));
  CHECK(template_of(whole, 3).shares_with(template_of(whole, 0)));
  CHECK(template_of(whole, 4).shares_with(template_of(whole, 2)));
  CHECK_FALSE(template_of(whole, 2).shares_with(template_of(whole, 0)));
  const auto gpus = [&](std::size_t i) {
    return model::get_resource(template_of(whole, i)->spec.containers.at(0).resources.requests,
                               model::kResourceGpu);
  };
  CHECK(gpus(2) == model::Quantity::from_units(8));
  CHECK(gpus(0) == model::Quantity::from_units(1));
}

TEST_CASE("replay controls: window, load factor, sampling stream and limit") {
  const auto dir = temp_dir("controls");
  std::string rows = "t,d\n";
  for (int i = 0; i < 200; ++i) rows += fmt::format("{},60\n", 1000 + i * 100);
  write(dir / "t.csv", rows);
  const auto scenario = [&](const std::string& extra) {
    return fmt::format(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: c}}
spec:
  horizon: 10d
  cluster: {{nodePools: [{{name: a, count: 1, gpusPerNode: 8, cpu: 8, memory: 8Gi}}]}}
  workload:
    traces:
    - {{format: csv, path: t.csv, queue: default, options: {{submitColumn: t, durationColumn: d}}{}}}
)",
                       extra);
  };
  const auto all = workload::expand_traces(load(scenario(""), dir.string()), 0);
  REQUIRE(all.size() == 200);
  CHECK(all.back().submit_time.time_since_epoch() == kernel::seconds(19900));

  const auto window = workload::expand_traces(
      load(scenario(", from: 1000s, to: 2000s, loadFactor: 2, timeOffset: 1h"), dir.string()), 0);
  REQUIRE(window.size() == 10);
  CHECK(window.front().submit_time.time_since_epoch() == kernel::hours(1));
  CHECK((window[1].submit_time - window[0].submit_time) == kernel::seconds(50));  // gaps halved

  const auto sc = load(scenario(", sample: 0.25"), dir.string());
  const auto s0 = workload::expand_traces(sc, 0);
  CHECK(s0.size() > 25);
  CHECK(s0.size() < 80);
  CHECK(workload::expand_traces(sc, 0).size() == s0.size());  // the same stream, the same jobs
  const auto s1 = workload::expand_traces(sc, 1);
  bool differs = s1.size() != s0.size();
  for (std::size_t i = 0; !differs && i < s0.size(); ++i) {
    differs = model::metadata_of(s0[i].job).name != model::metadata_of(s1[i].job).name;
  }
  CHECK(differs);  // another replication draws again

  CHECK(
      workload::expand_traces(load(scenario(", sample: 0.25, limit: 7"), dir.string()), 0).size() ==
      7);
}

TEST_CASE("k8s-export traces: kubectl List items replay their spec for completion - start") {
  const auto dir = temp_dir("k8s");
  write(dir / "export.yaml", R"(apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: batch.tensorstack.dev/v1beta1
  kind: PyTorchTrainingJob
  metadata:
    name: mnist
    namespace: default
    uid: 1b2c
    resourceVersion: "123"
    creationTimestamp: "2024-05-01T10:00:00Z"
  spec:
    scheduler: {t9kScheduler: {queue: team-a, priority: 10}}
    replicaSpecs:
    - type: worker
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: pytorch:2
            resources: {limits: {nvidia.com/gpu: 4}, requests: {nvidia.com/gpu: 4}}
  status:
    phase: Succeeded
    startTime: "2024-05-01T10:05:00Z"
    completionTime: "2024-05-01T12:05:30Z"
- apiVersion: batch.tensorstack.dev/v1beta1
  kind: GenericJob
  metadata: {name: still-running, creationTimestamp: "2024-05-01T11:00:00Z"}
  spec:
    replicaSpecs:
    - type: worker
      template: {spec: {containers: [{name: c, image: busybox}]}}
  status: {phase: Running, startTime: "2024-05-01T11:00:10Z"}
)");
  const std::string yaml = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: k8s}
spec:
  horizon: 1d
  cluster: {nodePools: [{name: a, count: 2, gpusPerNode: 8, cpu: 8, memory: 8Gi}]}
  workload:
    traces:
    - {format: k8s-export, path: export.yaml}
)";
  // A job still running at the export is not replayed (its run time is unknown), and says so.
  const auto r = parse(yaml, dir.string());
  REQUIRE(r.ok());
  bool warned = false;
  for (const auto& d : r.diagnostics) {
    warned |= d.severity == scenarios::Severity::Warning &&
              d.message.find("1 job still Running at the export (still-running): not replayed") !=
                  std::string::npos;
  }
  CHECK(warned);
  REQUIRE(r.scenario->scheduler.queues.size() == 1);
  CHECK(r.scenario->scheduler.queues[0].metadata.name == "team-a");
  const auto jobs = workload::expand_traces(*r.scenario, 0);
  REQUIRE(jobs.size() == 1);
  CHECK(model::metadata_of(jobs[0].job).name == "mnist");
  CHECK(model::metadata_of(jobs[0].job).uid.empty());
  CHECK(jobs[0].behaviour.run_time->mean() == kernel::hours(2) + kernel::seconds(30));
  CHECK(model::status_of(jobs[0].job).phase == std::nullopt);
  const auto run = simulate(*r.scenario);
  REQUIRE(run.rec.jobs().size() == 1);
  CHECK(run.rec.jobs()[0].phase == "Succeeded");
}

namespace {

std::string with_diagnostics(const scenarios::ScenarioResult& r) {
  std::string out;
  for (const auto& d : r.diagnostics) out += scenarios::format_diagnostic(d) + "\n";
  return out;
}

bool has_message(const scenarios::ScenarioResult& r, scenarios::Severity s,
                 const std::string& text) {
  return std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                     [&](const scenarios::Diagnostic& d) {
                       return d.severity == s && d.message.find(text) != std::string::npos;
                     });
}

}  // namespace

TEST_CASE(
    "k8s-export traces: a T9k export as kubectl writes it, run times from conditions and pods") {
  // tests/traces/fixtures/t9k-cluster-export.yaml: a List of jobs, queues, pod groups, pods and
  // nodes with server fields; T9k statuses have conditions, not startTime/completionTime.
  const auto dir = temp_dir("k8s-real");
  fs::copy_file(fs::path(T9KSIM_SOURCE_DIR) / "tests/traces/fixtures/t9k-cluster-export.yaml",
                dir / "export.yaml");
  const std::string yaml = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: k8s-real}
spec:
  horizon: 3d
  cluster: {nodePools: [{name: a100, count: 2, gpusPerNode: 8, cpu: 128, memory: 1Ti}]}
  workload:
    traces:
    - {format: k8s-export, path: export.yaml}
)";
  const auto r = parse(yaml, dir.string());
  INFO(with_diagnostics(r));
  REQUIRE(r.ok());
  const auto jobs = workload::expand_traces(*r.scenario, 0);
  REQUIRE(jobs.size() == 3);
  std::map<std::string, kernel::SimDuration> run;
  for (const auto& j : jobs)
    run[model::metadata_of(j.job).name.str()] = j.behaviour.run_time->mean();
  // Initialized (10:00:05) to Completed (10:40:05): its pods were cleaned up.
  CHECK(run.at("preprocess") == kernel::minutes(40));
  // The first pod's startTime (11:00:10) to Completed (12:30:40).
  CHECK(run.at("mnist-ddp") == kernel::hours(1) + kernel::minutes(30) + kernel::seconds(30));
  // A failed job: Initialized (12:00:04) to Completed=True/Failed=True (12:47:34).
  CHECK(run.at("llm-sft") == kernel::minutes(47) + kernel::seconds(30));
  // Submitted at creation, in creation order.
  CHECK(model::metadata_of(jobs[0].job).name == "preprocess");
  CHECK((jobs[1].submit_time - jobs[0].submit_time) == kernel::hours(1));
  // Every assumption printed: where run times came from, what was not replayed and why.
  CHECK(has_message(
      r, scenarios::Severity::Note,
      "run times derived (docs/traces.md): 2 jobs: start from Initialized condition (approximate: "
      "includes the wait), end from conditions; 1 job: start from pods, end from conditions"));
  CHECK(has_message(r, scenarios::Severity::Warning,
                    "1 job still Running at the export (bert-large)"));
  CHECK(has_message(r, scenarios::Severity::Warning,
                    "1 job still Pending at the export (queued-eval)"));
  CHECK(has_message(r, scenarios::Severity::Warning, "not replayed: 3 Pod, 1 PodGroup"));
  const auto sim = simulate(*r.scenario);
  REQUIRE(sim.rec.jobs().size() == 3);

  // A finished job with no end anywhere is a bad row naming its status.
  std::string text;
  {
    std::ifstream in(dir / "export.yaml");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string completed =
      R"(    - {type: Completed, status: "True", lastTransitionTime: "2024-05-01T10:40:05Z", reason: Succeeded})";
  const auto at = text.find(completed);
  REQUIRE(at != std::string::npos);
  text.replace(
      at, completed.size(),
      R"(    - {type: Completed, status: "False", lastTransitionTime: "2024-05-01T10:40:05Z"})");
  write(dir / "export.yaml", text);
  const auto bad = parse(yaml, dir.string());
  REQUIRE(!bad.ok());
  CHECK(has_message(bad, scenarios::Severity::Error, "found a Succeeded job with no end time"));
  // A time that is not one is named where it is.
  text.replace(text.find("2024-05-01T10:00:05Z"), 20, "yesterday afternoon!");
  write(dir / "export.yaml", text);
  const auto bad_time = parse(yaml, dir.string());
  REQUIRE(!bad_time.ok());
  CHECK(has_message(bad_time, scenarios::Severity::Error,
                    "found \"yesterday afternoon!\"; allowed: an RFC 3339 time"));
}

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The nodes of a run, as bound pods and node changes name them.
struct NodeUse {
  std::map<std::string, int> binds;  // node -> pods bound there
  std::set<std::string> nodes;       // every node the feed names
};
NodeUse node_use(const scenarios::Scenario& sc) {
  NodeUse u;
  sim::World w(sc, 0, [&](const model::TimedChange& c) {
    if (const auto* b = std::get_if<model::PodBound>(&c.change)) ++u.binds[b->node];
    if (const auto* n = std::get_if<model::NodeChanged>(&c.change)) u.nodes.insert(n->node);
  });
  w.run();
  return u;
}

}  // namespace

TEST_CASE(
    "cluster from an export: Nodes become pools that keep their names, Queues keep their quotas") {
  // docs/traces.md "Cluster from an export"; the fixture has two A100 nodes (one tainted) and
  // queue team-a with a quota of 16 GPUs and 128 CPUs.
  const auto dir = temp_dir("k8s-cluster");
  const fs::path fixture =
      fs::path(T9KSIM_SOURCE_DIR) / "tests/traces/fixtures/t9k-cluster-export.yaml";
  fs::copy_file(fixture, dir / "export.yaml");
  const std::string from_trace = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: k8s-cluster}
spec:
  horizon: 3d
  cluster: {fromTrace: k8s}
  workload:
    traces:
    - {format: k8s-export, path: export.yaml, name: k8s}
)";
  const auto r = parse(from_trace, dir.string());
  INFO(with_diagnostics(r));
  REQUIRE(r.ok());
  const auto& pools = r.scenario->cluster.node_pools;
  REQUIRE(pools.size() == 2);  // gpu-node-0 has a label gpu-node-1 lacks: two shapes
  CHECK(pools[0].name == "nvidia-a100-sxm4-80gb");
  CHECK(pools[1].name == "nvidia-a100-sxm4-80gb-2");
  CHECK(pools[0].node_names == std::vector<std::string>{"gpu-node-0"});
  CHECK(pools[1].node_names == std::vector<std::string>{"gpu-node-1"});
  CHECK(pools[0].gpu_model == "NVIDIA-A100-SXM4-80GB");
  CHECK(pools[0].gpus_per_node == 8);
  CHECK(pools[0].cpu == model::Quantity::from_units(126));  // allocatable, not capacity
  CHECK(pools[0].memory == model::Quantity::parse("1040Gi"));
  CHECK(pools[0].extra_resources.empty());  // "pods" is not simulated
  CHECK(pools[0].labels == model::Labels{{"nvidia.com/gpu.count", "8"}});
  CHECK(pools[1].labels.empty());  // hostname and GPU model are set by the world
  const auto& queues = r.scenario->scheduler.queues;
  const auto team_a = std::find_if(queues.begin(), queues.end(), [](const model::Queue& q) {
    return q.metadata.name == "team-a";
  });
  REQUIRE(team_a != queues.end());
  REQUIRE(team_a->spec.quota);
  CHECK(model::get_resource(*team_a->spec.quota, model::kResourceGpu) ==
        model::Quantity::from_units(16));
  CHECK(team_a->spec.priority == 2);
  CHECK(has_message(r, scenarios::Severity::Note, "cluster from the export: 2 nodes in 2 pools"));
  CHECK(has_message(r, scenarios::Severity::Warning,
                    "1 node with NoSchedule or NoExecute taints: taints are not simulated"));
  const auto use = node_use(*r.scenario);
  CHECK(use.nodes == std::set<std::string>{"gpu-node-0", "gpu-node-1"});
  CHECK(use.binds.size() == 2);  // mnist-ddp's two 8-GPU workers need both nodes

  // fromExport: the export's cluster under a synthetic workload, beside a pool of the file; a
  // node cordoned in the export starts cordoned and gets nothing.
  std::string text = read_all(fixture);
  const std::string taints = "    taints:\n";
  REQUIRE(text.find(taints) != std::string::npos);
  text.replace(text.find(taints), taints.size(), "    unschedulable: true\n" + taints);
  write(dir / "cordoned.yaml", text);
  const std::string from_export = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: k8s-cluster-2}
spec:
  horizon: 1d
  cluster:
    fromExport: cordoned.yaml
    nodePools: [{name: extra, count: 1, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  workload:
    generators:
    - name: g
      interarrival: {exponential: {mean: 20m}}
      stop: 20h
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {name: g}
        spec:
          scheduler: {t9kScheduler: {queue: team-a}}
          replicaSpecs:
          - type: worker
            template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 8, cpu: 8, memory: 8Gi}}}]}}
      behaviour: {runTime: 1h}
)";
  const auto r2 = parse(from_export, dir.string());
  INFO(with_diagnostics(r2));
  REQUIRE(r2.ok());
  REQUIRE(r2.scenario->cluster.node_pools.size() == 3);
  CHECK(r2.scenario->cluster.node_pools[0].name == "extra");  // the file's pools first
  CHECK(r2.scenario->cluster.node_pools[2].cordoned == std::vector<std::string>{"gpu-node-1"});
  CHECK(
      has_message(r2, scenarios::Severity::Note,
                  "1 node cordoned at the export (spec.unschedulable) start cordoned: gpu-node-1"));
  CHECK(std::count(r2.files.begin(), r2.files.end(), (dir / "cordoned.yaml").string()) == 1);
  const auto use2 = node_use(*r2.scenario);
  CHECK(use2.binds.count("gpu-node-1") == 0);
  CHECK(use2.binds.at("gpu-node-0") > 0);
  CHECK(use2.binds.at("extra-0") > 0);

  // Bad input: the file, the item's path, what was expected.
  const auto fails_with = [&](const std::string& export_text, const std::string& scenario,
                              const std::string& message) {
    write(dir / "bad.yaml", export_text);
    const auto bad = parse(scenario, dir.string());
    INFO(with_diagnostics(bad));
    CHECK(!bad.ok());
    CHECK(has_message(bad, scenarios::Severity::Error, message));
  };
  const std::string uses_bad = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: bad}
spec:
  horizon: 1d
  cluster: {fromExport: bad.yaml}
  workload: {jobs: []}
)";
  std::string no_cpu = read_all(fixture);
  const std::string with_cpu = "allocatable: {cpu: \"126\", ";
  no_cpu.replace(no_cpu.find(with_cpu), with_cpu.size(), "allocatable: {");
  fails_with(no_cpu, uses_bad, "found no cpu; allowed: a node with cpu and memory");
  std::string bad_q = read_all(fixture);
  bad_q.replace(bad_q.find("memory: 1040Gi"), 14, "memory: lots");
  fails_with(bad_q, uses_bad, "invalid quantity \"lots\"");
  {
    const auto bad = parse(uses_bad, dir.string());
    CHECK(std::any_of(bad.diagnostics.begin(), bad.diagnostics.end(),
                      [](const scenarios::Diagnostic& d) {
                        return d.path == "items[10].status.allocatable.memory" &&
                               d.line == 313;  // at the value itself
                      }));
  }
  std::string twice = read_all(fixture);
  const std::string node_1 = "\n    name: gpu-node-1\n";
  twice.replace(twice.find(node_1), node_1.size(), "\n    name: gpu-node-0\n");
  fails_with(twice, uses_bad, "found node \"gpu-node-0\" twice; allowed: one Node per name");
  fails_with("apiVersion: v1\nkind: List\nitems: []\n", uses_bad,
             "found no Node objects in \"bad.yaml\"");
  // A pool of the file whose generated names clash with the export's.
  fails_with(read_all(fixture), R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: bad}
spec:
  horizon: 1d
  cluster:
    fromExport: bad.yaml
    nodePools: [{name: gpu-node, count: 1, cpu: 8, memory: 8Gi}]
)",
             "found node \"gpu-node-0\" in pool gpu-node and in the export's pool "
             "nvidia-a100-sxm4-80gb; allowed: node "
             "names unique");
  // ... also for a pool an operation adds later; one export added twice clashes on its pools.
  fails_with(
      read_all(fixture), R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: bad}
spec:
  horizon: 1d
  cluster: {fromExport: bad.yaml}
  workload: {jobs: []}
  operations:
  - {at: 1h, action: addNodePool, nodePool: {name: gpu-node, count: 2, cpu: 8, memory: 8Gi}}
)",
      "found node \"gpu-node-0\" in pool gpu-node and in the export's pool nvidia-a100-sxm4-80gb");
  fails_with(read_all(fixture), R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: bad}
spec:
  horizon: 1d
  cluster: {fromExport: bad.yaml, fromTrace: k8s}
  workload:
    traces:
    - {format: k8s-export, path: bad.yaml, name: k8s}
)",
             "found node pool \"nvidia-a100-sxm4-80gb\" in both the file and the trace");
  const auto missing = parse(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: bad}
spec:
  horizon: 1d
  cluster: {fromExport: nowhere.yaml}
)",
                             dir.string());
  CHECK(has_message(missing, scenarios::Severity::Error,
                    "found \"nowhere.yaml\", which is not a file"));

  // import: the imported scenario reads the same cluster from the export and runs the same.
  const auto imp = temp_dir("k8s-cluster-import");
  fs::copy_file(fixture, imp / "export.yaml");
  std::string trace_text = from_trace;
  trace_text.replace(trace_text.find("path: export.yaml"), 17, "path: ../export.yaml");
  std::vector<scenarios::Diagnostic> diags;
  const auto res = workload::import_trace(trace_text, (imp / "out").string(), 0, false, diags);
  CHECK(res.jobs == 3);
  const std::string scenario_text = read_all(res.scenario_path);
  CHECK(scenario_text.find("fromExport: \"../export.yaml\"") != std::string::npos);
  const auto direct = scenarios::load_scenario(res.trace_path);
  const auto imported = scenarios::load_scenario(res.scenario_path);
  for (const auto& d : imported.diagnostics) UNSCOPED_INFO(scenarios::format_diagnostic(d));
  REQUIRE(direct.ok());
  REQUIRE(imported.ok());
  CHECK(simulate(*direct.scenario).fingerprint == simulate(*imported.scenario).fingerprint);
}

TEST_CASE("openb traces: node list as pools, gpu_spec selectors, qos queues, GPU rounding") {
  const auto dir = temp_dir("openb");
  write(dir / "nodes.csv",
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "n0,32000,262144,0,\n"
        "n1,96000,393216,8,G2\n"
        "n2,96000,393216,8,G2\n"
        "n3,32000,131072,4,V100M16\n"
        "n4,48000,376832,4,V100M32\n");
  write(dir / "pods.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_"
        "time,scheduled_time\n"
        "openb-pod-0,12000,16384,1,460,,LS,Running,0,100,5\n"
        "openb-pod-1,4000,8192,2,1000,G2,BE,Failed,10,50,10\n"
        "openb-pod-2,4000,8192,1,1000,V100M16|V100M32,Burstable,Succeeded,20,80,30\n"
        "openb-pod-3,4000,8192,0,0,,BE,Pending,25,90,\n");
  const std::string yaml = R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: openb}
spec:
  horizon: 1d
  cluster: {fromTrace: openb}
  scheduler: {options: {preemption: "true"}}
  workload:
    traces:
    - {format: alibaba-openb, path: pods.csv, options: {nodeFile: nodes.csv}}
)";
  const auto sc = load(yaml, dir.string());
  REQUIRE(sc.cluster.node_pools.size() == 4);
  CHECK(sc.cluster.node_pools[1].name == "g2-8gpu-96c-384gi");
  CHECK(sc.cluster.node_pools[1].count == 2);
  CHECK(sc.cluster.node_pools[1].gpu_model == "G2");
  const std::string spec_label = std::string(scenarios::kLabelGpuSpecPrefix) +
                                 scenarios::sanitize_job_name("V100M16|V100M32", "spec");
  CHECK(sc.cluster.node_pools[2].labels.count(spec_label));
  CHECK(sc.cluster.node_pools[3].labels.count(spec_label));
  CHECK(!sc.cluster.node_pools[1].labels.count(spec_label));
  REQUIRE(sc.scheduler.queues.size() == 3);
  CHECK(sc.scheduler.queues[0].metadata.name == "ls");
  CHECK(!sc.scheduler.queues[0].spec.is_preemptible());
  CHECK(sc.scheduler.queues[2].metadata.name == "be");
  CHECK(sc.scheduler.queues[2].spec.is_preemptible());
  CHECK(sc.scheduler.queues[2].spec.priority < sc.scheduler.queues[0].spec.priority);

  const auto jobs = workload::expand_traces(sc, 0);
  REQUIRE(jobs.size() == 3);  // the never-scheduled pod is not replayed by default
  const auto& p0 = std::get<model::GenericJob>(jobs[0].job);
  CHECK(model::get_resource(
            p0.spec.replica_specs[0].template_->spec.containers[0].resources.requests,
            model::kResourceGpu) == model::Quantity::from_units(1));  // 460 milli rounded up
  CHECK(jobs[0].behaviour.run_time->mean() == kernel::seconds(95));   // deletion - scheduled
  const auto& p1 = std::get<model::GenericJob>(jobs[1].job);
  CHECK(p1.spec.replica_specs[0].template_->spec.node_selector.at(model::kLabelGpuModel) == "G2");
  CHECK(p1.spec.scheduler.t9k_scheduler->queue == "be");
  CHECK(jobs[1].behaviour.failure.final_exit_code == 1);
  const auto& p2 = std::get<model::GenericJob>(jobs[2].job);
  CHECK(p2.spec.replica_specs[0].template_->spec.node_selector.at(spec_label) == "true");

  const auto run = simulate(sc);
  std::map<std::string, std::string> phase;
  for (const auto& j : run.rec.jobs()) phase[j.name.str()] = j.phase;
  CHECK(phase.at("default/openb-pod-0") == "Succeeded");
  CHECK(phase.at("default/openb-pod-1") == "Failed");
  CHECK(phase.at("default/openb-pod-2") == "Succeeded");
}

TEST_CASE(
    "openb gpuMilli shared: fractional pods share one GPU best-fit, round-up runs them in turn") {
  const auto dir = temp_dir("openb-shared");
  write(dir / "nodes.csv",
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "n1,32000,131072,1,T4\n");
  // Three 300-milli pods and one 100-milli pod, all created at 0 and recorded running 100 s.
  write(dir / "pods.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_"
        "time,scheduled_time\n"
        "a,1000,1024,1,300,T4,LS,Succeeded,0,100,0\n"
        "b,1000,1024,1,300,T4,LS,Succeeded,0,100,0\n"
        "c,1000,1024,1,300,T4,LS,Succeeded,0,100,0\n"
        "d,1000,1024,1,100,T4,LS,Succeeded,0,100,0\n");
  const std::string base = std::string(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: openb}
spec:
  horizon: 1d)") + kZeroLatency +
                           R"(
  cluster: {fromTrace: openb}
  workload:
    traces:
    - {format: alibaba-openb, path: pods.csv, options: {nodeFile: nodes.csv, gpuMilli: MODE}}
)";
  auto with = [&](const std::string& mode) {
    std::string y = base;
    y.replace(y.find("MODE"), 4, mode);
    return load(y, dir.string());
  };
  const auto shared = with("shared");
  const auto jobs = workload::expand_traces(shared, 0);
  REQUIRE(jobs.size() == 4);
  const auto& res = std::get<model::GenericJob>(jobs[0].job)
                        .spec.replica_specs[0]
                        .template_->spec.containers[0]
                        .resources;
  CHECK(model::get_resource(res.requests, model::kResourceGpuMilli) ==
        model::Quantity::from_units(300));
  CHECK(model::get_resource(res.requests, model::kResourceGpu).is_zero());

  // Shared: 300 + 300 + 300 + 100 = one GPU, all four at once, 100 s each.
  const auto s = simulate(shared);
  REQUIRE(s.rec.jobs().size() == 4);
  const auto first = s.rec.jobs().front().first_running;
  REQUIRE(first);
  CHECK(first->time_since_epoch() < kernel::seconds(5));  // the scheduling latency only
  for (const auto& j : s.rec.jobs()) {
    INFO(j.name);
    REQUIRE(j.first_running);
    CHECK(*j.first_running == *first);  // all four in the same cycle
    CHECK(j.phase == "Succeeded");
  }
  CHECK(s.rec.check_invariants().empty());
  // Allocated GPU-time counts the shares: 1.0 GPU for 100 s.
  CHECK(s.rec.metrics().at("gpu_hours_allocated") == Approx(100.0 / 3600.0));

  // Round-up: each pod takes the node's one GPU in turn.
  const auto r = simulate(with("round-up"));
  std::vector<std::int64_t> starts;
  for (const auto& j : r.rec.jobs())
    starts.push_back(j.first_running->time_since_epoch().count() / 1000000);
  std::sort(starts.begin(), starts.end());
  REQUIRE(starts.size() == 4);
  for (std::size_t i = 1; i < starts.size(); ++i)
    CHECK(starts[i] - starts[i - 1] >= 100);  // one after another
  CHECK(r.rec.metrics().at("gpu_hours_allocated") == Approx(400.0 / 3600.0));

  // t9ksim import writes the shares into the manifests and replays identically.
  const auto out = temp_dir("openb-shared-import");
  fs::copy_file(dir / "nodes.csv", out / "nodes.csv");
  fs::copy_file(dir / "pods.csv", out / "pods.csv");
  std::string text = base;
  text.replace(text.find("MODE"), 4, "shared");
  std::vector<scenarios::Diagnostic> diags;
  const auto imp = workload::import_trace(text, out.string(), 0, false, diags);
  CHECK(imp.jobs == 4);
  const auto direct = scenarios::load_scenario(imp.trace_path);
  const auto imported = scenarios::load_scenario(imp.scenario_path);
  for (const auto& d : imported.diagnostics) UNSCOPED_INFO(scenarios::format_diagnostic(d));
  REQUIRE(direct.ok());
  REQUIRE(imported.ok());
  CHECK(simulate(*direct.scenario).fingerprint == simulate(*imported.scenario).fingerprint);
}

TEST_CASE("openb default pod list loads whole with its node list") {
  const std::string yaml = fmt::format(R"(
apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: openb}}
spec:
  horizon: 1d
  cluster: {{fromTrace: openb}}
  workload:
    traces:
    - {{format: alibaba-openb, path: {}}}
)",
                                       kOpenbPods);
  const auto sc = load(yaml, ".");
  std::int64_t nodes = 0, gpus = 0;
  for (const auto& p : sc.cluster.node_pools) {
    nodes += p.count;
    gpus += std::int64_t{p.count} * p.gpus_per_node;
  }
  CHECK(nodes == 1523);
  CHECK(gpus == 6212);
  const auto& d = *sc.workload.traces.at(0).data;
  CHECK(d.records.size() + static_cast<std::size_t>(d.unscheduled) == 8152);
}

TEST_CASE("t9ksim import: the manifests and scenario replay identically to the trace entry") {
  const auto dir = temp_dir("import");
  const std::string text = fmt::format(R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {{name: imp}}
spec:
  horizon: 8d
  seed: 7
  kubelet: {{podStartLatency: 10s}}
  cluster:
    fromTrace: philly
  scheduler:
    name: t9k
    options: {{preemption: "true"}}
  workload:
    traces:
    - format: philly
      path: {}
      from: 40d
      to: 40d8h
      sample: 0.5
      loadFactor: 1.5
)",
                                       kPhilly);
  std::vector<scenarios::Diagnostic> diags;
  const auto res = workload::import_trace(text, dir.string(), 0, false, diags);
  CHECK(res.jobs > 100);
  CHECK(fs::exists(dir / "queues.yaml"));
  // Jobs of one shape share its manifest: far fewer manifests than jobs.
  CHECK(fs::exists(dir / "shapes.yaml"));
  CHECK(res.shapes > 1);
  CHECK(res.shapes * 4 < res.jobs);
  const auto direct = scenarios::load_scenario(res.trace_path);
  const auto imported = scenarios::load_scenario(res.scenario_path);
  for (const auto& d : imported.diagnostics) UNSCOPED_INFO(scenarios::format_diagnostic(d));
  REQUIRE(direct.ok());
  REQUIRE(imported.ok());
  CHECK(imported.scenario->workload.jobs.size() == static_cast<std::size_t>(res.jobs));
  CHECK(imported.scenario->workload.traces.empty());
  const auto a = simulate(*direct.scenario);
  const auto b = simulate(*imported.scenario);
  CHECK(a.rec.jobs().size() == b.rec.jobs().size());
  CHECK(a.fingerprint == b.fingerprint);
}

TEST_CASE("sanitised names are DNS-1123 labels, deterministic, and keep distinct ids distinct") {
  CHECK(scenarios::sanitize_job_name("openb-pod-0017", "x") == "openb-pod-0017");
  const auto a = scenarios::sanitize_job_name("Job_A", "x");
  const auto b = scenarios::sanitize_job_name("job-a", "x");
  CHECK(a != b);
  CHECK(a == scenarios::sanitize_job_name("Job_A", "x"));
  const auto long_name = scenarios::sanitize_job_name(std::string(100, 'a'), "x");
  CHECK(long_name.size() == 63);
  CHECK(scenarios::sanitize_job_name("___", "fallback").rfind("fallback-", 0) == 0);
}
