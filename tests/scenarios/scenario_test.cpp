// Scenario file format v1: the example loads into the expected values; bad scenarios are
// rejected with exact paths and messages.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

using namespace t9k::scenarios;
namespace m = t9k::model;
using namespace t9k::kernel;

namespace {
std::string listing(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) s += format_diagnostic(d) + "\n";
  return s;
}

const std::string kBase = R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: s}
spec:
  horizon: 10h
  cluster:
    nodePools: [{name: a100, count: 2, gpusPerNode: 8, cpu: 64, memory: 512Gi}]
  scheduler:
    name: t9k
    queues:
    - manifest: {apiVersion: scheduler.tensorstack.dev/v1beta1, kind: Queue, metadata: {name: default}, spec: {priority: 1}}
  workload:
    jobs:
    - manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: PyTorchTrainingJob
        metadata: {name: train}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          torchrunConfig: {enabled: true}
          elastic: {enabled: true, minReplicas: 1, maxReplicas: 4, expectedReplicas: 2}
          replicaSpecs: [{type: worker, replicas: 2, template: {spec: {containers: [{name: c, image: i}]}}}]
      submitAt: 5m
      behaviour: {runTime: 2h}
  operations:
  - {at: 1h, action: setExpectedReplicas, job: train, replicas: 3}
  kubelet:
    podStartLatency: {lognormal: {mu: 1, sigma: 0.5}}
)";

std::string edit(const std::string& base, const std::string& from, const std::string& to) {
  const auto pos = base.find(from);
  REQUIRE(pos != std::string::npos);
  std::string r = base;
  r.replace(pos, from.size(), to);
  return r;
}
}  // namespace

TEST_CASE("the example scenario loads with every section typed", "[scenario]") {
  const auto r =
      load_scenario(std::string(T9KSIM_SOURCE_DIR) + "/scenarios/examples/small-cluster.yaml");
  INFO(listing(r.diagnostics));
  REQUIRE(r.ok());
  const Scenario& s = *r.scenario;
  CHECK(s.name == "small-cluster");
  CHECK(s.horizon == hours(48));
  CHECK(s.seed == 42);
  CHECK(s.replications == 3);
  REQUIRE(s.cluster.node_pools.size() == 2);
  CHECK(s.cluster.node_count() == 6);
  const auto cap = s.cluster.node_pools[0].capacity();
  CHECK(cap.at("nvidia.com/gpu") == m::Quantity::from_units(8));
  CHECK(cap.at("memory") == m::Quantity::parse("1Ti"));
  CHECK(cap.at("rdma/rdma_shared_device_a") == m::Quantity::from_units(1));
  CHECK(s.cluster.topology.nodes_per_rack == 2);
  CHECK(s.scheduler.kind == SchedulerKind::T9k);
  REQUIRE(s.scheduler.queues.size() == 2);
  CHECK(s.scheduler.options.at("preemption") == "true");
  CHECK(s.controllers.reconcile_latency.mean() == milliseconds(200));
  CHECK(s.kubelet.pod_start_latency.seconds.name() == "lognormal");
  CHECK(s.kubelet.pod_stop_latency.mean() == microseconds(15'500'000));
  CHECK(s.faults.profile == "a100-research");
  CHECK(s.faults.detection_delay->mean() == seconds(340));
  REQUIRE(s.workload.jobs.size() == 4);  // deepspeedjob.yaml, two from jobs.yaml, one inline
  CHECK(m::metadata_of(s.workload.jobs[0].job).name == "neox-elastic");
  CHECK(m::metadata_of(s.workload.jobs[0].job).namespace_ == "default");
  CHECK(s.workload.jobs[0].submit_time == at(minutes(10)));
  CHECK(s.workload.jobs[0].behaviour.work->mean() == hours(36));
  CHECK(s.workload.jobs[0].behaviour.checkpoint_interval == minutes(30));
  CHECK(s.workload.jobs[0].behaviour.scaling.model == ScalingModel::Amdahl);
  CHECK(s.workload.jobs[0].behaviour.failure.exit_codes.size() == 2);
  CHECK(s.workload.jobs[1].source == "jobs.yaml#0");
  CHECK(s.workload.jobs[2].source == "jobs.yaml#1");
  CHECK(s.workload.jobs[2].behaviour.run_time->mean() == hours(2));
  CHECK(s.workload.jobs[3].behaviour.failure.final_exit_code == 1);
  REQUIRE(s.workload.generators.size() == 1);
  CHECK(s.workload.generators[0].count == 50);
  CHECK(s.workload.generators[0].stop == at(hours(24)));
  REQUIRE(s.operations.size() == 6);
  CHECK(s.operations[0].type == OperationType::SetExpectedReplicas);
  CHECK(s.operations[0].expected_replicas == 2);
  CHECK(s.operations[5].type == OperationType::AddNodePool);
  CHECK(s.operations[5].node_pool->gpus_per_node == 8);
  REQUIRE(s.expect.has_value());
  CHECK(s.expect->jobs[0].phase == "Failed");
  CHECK(s.expect->jobs[1].restart_count->max == 0);
  CHECK(s.expect->metrics[0].min == 3);
}

TEST_CASE("the JSON example loads the same way", "[scenario]") {
  const auto r =
      load_scenario(std::string(T9KSIM_SOURCE_DIR) + "/scenarios/examples/default-scheduler.json");
  INFO(listing(r.diagnostics));
  REQUIRE(r.ok());
  CHECK(r.scenario->scheduler.kind == SchedulerKind::Default);
  CHECK(r.scenario->workload.jobs.size() == 1);
  CHECK(r.scenario->operations[0].type == OperationType::CordonNode);
}

TEST_CASE("each scenario rule rejects its bad input with the exact path and message",
          "[scenario]") {
  struct Row {
    const char* rule;
    std::string input;
    std::string path;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"horizon required", edit(kBase, "  horizon: 10h\n", ""), "spec.horizon",
       "required field is missing"},
      {"horizon a duration", edit(kBase, "horizon: 10h", "horizon: ten hours"), "spec.horizon",
       "invalid duration \"ten hours\": expected a number at position 0; expected terms like 90s, "
       "2h45m, 1.5h, 500ms, 1d (units y, w, d, h, m, s, ms, us)"},
      {"replications >= 1", edit(kBase, "  horizon: 10h\n", "  horizon: 10h\n  replications: 0\n"),
       "spec.replications", "found 0; allowed: an integer in [1, 100000]"},
      {"apiVersion", edit(kBase, "t9ksim/v1", "t9ksim/v2"), "apiVersion",
       "found \"t9ksim/v2\"; allowed: t9ksim/v1 (did you mean \"t9ksim/v1\"?)"},
      {"unknown scenario field with hint",
       edit(kBase, "  horizon: 10h\n", "  horizon: 10h\n  replication: 2\n"), "spec.replication",
       "unknown field \"replication\"; did you mean \"replications\"?"},
      {"node pool cpu required", edit(kBase, "cpu: 64, ", ""), "spec.cluster.nodePools[0].cpu",
       "required field is missing"},
      {"node pool names unique",
       edit(kBase, "memory: 512Gi}]",
            "memory: 512Gi}, {name: a100, count: 1, cpu: 1, memory: 1Gi}]"),
       "spec.cluster.nodePools[1].name", "found \"a100\" again; allowed: node pool names unique"},
      {"scheduler name", edit(kBase, "name: t9k", "name: volcano"), "spec.scheduler.name",
       "found \"volcano\"; allowed: t9k, default"},
      {"default scheduler takes no queues",
       edit(edit(kBase, "name: t9k", "name: default"),
            "          scheduler: {t9kScheduler: {queue: default}}\n", ""),
       "spec.scheduler.queues",
       "found queues with the default scheduler; allowed: queues only with name: t9k"},
      {"jobs use defined queues", edit(kBase, "{queue: default}", "{queue: research}"),
       "spec.workload.jobs[0].manifest.spec.scheduler.t9kScheduler.queue",
       "job \"train\" uses queue \"research\"; allowed: a queue of spec.scheduler.queues "
       "(default)"},
      {"inline manifests are validated in place",
       edit(kBase, "replicas: 2, template", "replicas: -2, template"),
       "spec.workload.jobs[0].manifest.spec.replicaSpecs[0].replicas",
       "found -2; allowed: an integer in [0, 100000]"},
      {"manifest or path",
       edit(kBase, "      submitAt: 5m\n", "      path: other.yaml\n      submitAt: 5m\n"),
       "spec.workload.jobs[0]",
       "found both manifest and path; allowed: exactly one of manifest (an inline object) or path "
       "(a manifest file)"},
      {"runTime or work", edit(kBase, "{runTime: 2h}", "{runTime: 2h, work: 4h}"),
       "spec.workload.jobs[0].behaviour",
       "found both runTime and work; allowed: exactly one of runTime (wall-clock at the initial "
       "scale) or work (replica-time)"},
      {"distribution names with hint", edit(kBase, "{lognormal: {mu: 1", "{lognorm: {mu: 1"),
       "spec.kubelet.podStartLatency.lognorm",
       "unknown field \"lognorm\"; did you mean \"lognormal\"?"},
      {"distribution parameters", edit(kBase, "sigma: 0.5", "sigma: -0.5"),
       "spec.kubelet.podStartLatency.lognormal",
       "invalid parameters: lognormal: needs finite mu and sigma >= 0"},
      {"one distribution per value",
       edit(kBase, "{lognormal: {mu: 1, sigma: 0.5}}",
            "{lognormal: {mu: 1, sigma: 0.5}, uniform: {min: 1, max: 2}}"),
       "spec.kubelet.podStartLatency",
       "found a mapping with 2 keys; allowed: a duration such as 30s, or a mapping with one "
       "distribution, e.g. {lognormal: {mu: 1.5, sigma: 0.4}}"},
      {"fault profile with hint",
       edit(kBase, "  horizon: 10h\n", "  horizon: 10h\n  faults: {profile: h100frontier}\n"),
       "spec.faults.profile",
       "found \"h100frontier\"; allowed: none, h100-frontier, a100-research, a100-optimistic, "
       "custom (did you mean \"h100-frontier\"?)"},
      {"custom rates only with custom",
       edit(kBase, "  horizon: 10h\n", "  horizon: 10h\n  faults: {profile: none, rates: {}}\n"),
       "spec.faults.rates",
       "found rates with profile \"none\"; allowed: rates only with profile: custom"},
      {"operations name jobs of the workload",
       edit(kBase, "job: train, replicas: 3", "job: other, replicas: 3"), "spec.operations[0].job",
       "found job \"other\"; allowed: a job of spec.workload.jobs (train)"},
      {"a job outside the default namespace is named namespace/name",
       edit(kBase, "metadata: {name: train}", "metadata: {name: train, namespace: team-a}"),
       "spec.operations[0].job",
       "found job \"train\"; allowed: a job of spec.workload.jobs (team-a/train)"},
      {"expectedReplicas within elastic bounds", edit(kBase, "replicas: 3}", "replicas: 5}"),
       "spec.operations[0].replicas",
       "found 5; allowed: an integer in [minReplicas 1, maxReplicas 4] (spec §4.3)"},
      {"operation fields fit the action",
       edit(kBase, "job: train, replicas: 3}", "job: train, queue: default, replicas: 3}"),
       "spec.operations[0].queue",
       "found field \"queue\" with action setExpectedReplicas; allowed: job, replicas"},
      {"nodes exist",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: drainNode, node: a100-2}"),
       "spec.operations[0].node",
       "found node \"a100-2\"; allowed: a node <pool>-<index> of a node pool, index below the "
       "pool's count, or a node of an export by its name"},
      {"action enum", edit(kBase, "action: setExpectedReplicas", "action: scaleJob"),
       "spec.operations[0].action",
       "found \"scaleJob\"; allowed: pauseJob, resumeJob, setExpectedReplicas, closeQueue, "
       "openQueue, drainNode, cordonNode, uncordonNode, addNodePool, removeNodePool, failPod, "
       "deletePod, failNode, repairNode, failGpu, failSwitch, setQueue, setJobPriority"},
      // scripted runs (issue 15)
      {"scripted runs name a replica type of the job",
       edit(kBase, "{runTime: 2h}",
            "{runTime: 2h, replicas: [{type: master, runs: [{exitCode: 1}]}]}"),
       "spec.workload.jobs[0].behaviour.replicas[0].type",
       "found \"master\", which is not a replica type of job train; allowed: worker"},
      {"scripted ranks exist (elastic: below maxReplicas)",
       edit(kBase, "{runTime: 2h}",
            "{runTime: 2h, replicas: [{type: worker, rank: 4, runs: [{exitCode: 1}]}]}"),
       "spec.workload.jobs[0].behaviour.replicas[0].rank",
       "found 4; allowed: a rank of worker below 4 (its replicas)"},
      {"scripted runs not empty",
       edit(kBase, "{runTime: 2h}", "{runTime: 2h, replicas: [{type: worker, runs: []}]}"),
       "spec.workload.jobs[0].behaviour.replicas[0].runs",
       "found an empty list; allowed: at least one run ({exitCode, after})"},
      {"scripted run times > 0",
       edit(kBase, "{runTime: 2h}",
            "{runTime: 2h, replicas: [{type: worker, runs: [{exitCode: 1, after: 0s}]}]}"),
       "spec.workload.jobs[0].behaviour.replicas[0].runs[0].after",
       "found 0; allowed: a duration > 0 (omit it to end with the work)"},
      {"scripted exit codes 0..255",
       edit(kBase, "{runTime: 2h}",
            "{runTime: 2h, replicas: [{type: worker, runs: [{exitCode: 256}]}]}"),
       "spec.workload.jobs[0].behaviour.replicas[0].runs[0].exitCode",
       "found 256; allowed: an integer in [0, 255]"},
      {"one script per type and rank",
       edit(kBase, "{runTime: 2h}",
            "{runTime: 2h, replicas: [{type: worker, runs: [{exitCode: 1}]}, {type: worker, runs: "
            "[{exitCode: 2}]}]}"),
       "spec.workload.jobs[0].behaviour.replicas[1]",
       "found type worker a second time; allowed: one entry per type and rank"},
      // scripted operations (issue 15)
      {"failPod names a replica type",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: failPod, job: train, replicaType: launcher, rank: 0}"),
       "spec.operations[0].replicaType",
       "found \"launcher\", which is not a replica type of job train; allowed: worker"},
      {"failPod rank below replicas",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: failPod, job: train, replicaType: worker, rank: 9}"),
       "spec.operations[0].rank", "found 9; allowed: a rank of worker below 4"},
      {"failPod exit codes fail",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: failPod, job: train, replicaType: worker, rank: 0, exitCode: 0}"),
       "spec.operations[0].exitCode",
       "found 0; allowed: an integer in [1, 255] (a failure exits non-zero)"},
      {"deletePod takes no exit code",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: deletePod, job: train, replicaType: worker, rank: 0, exitCode: 1}"),
       "spec.operations[0].exitCode",
       "found field \"exitCode\" with action deletePod; allowed: job, replicaType, rank"},
      {"repairNode follows failNode",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: repairNode, node: a100-0}"),
       "spec.operations[0].node",
       "found node \"a100-0\", which no earlier failNode without repairAfter took down; allowed: "
       "repairNode after failNode of the same node"},
      {"failNode repair time > 0",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: failNode, node: a100-0, repairAfter: 0s}"),
       "spec.operations[0].repairAfter",
       "found 0; allowed: a duration > 0 (omit it to stay down until repairNode)"},
      {"setQueue changes something",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: setQueue, queue: default}"),
       "spec.operations[0]",
       "found setQueue without a change; allowed: one or more of quota, priority, preemptible, "
       "closed, maxDuration"},
      {"setQueue maxDuration grammar",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: setQueue, queue: default, maxDuration: soon}"),
       "spec.operations[0].maxDuration", ""},
      {"setJobPriority in [0, 100]",
       edit(kBase, "{at: 1h, action: setExpectedReplicas, job: train, replicas: 3}",
            "{at: 1h, action: setJobPriority, job: train, priority: 101}"),
       "spec.operations[0].priority", "found 101; allowed: an integer in [0, 100] (spec §8.3)"},
      // expect v2 (issue 15)
      {"expected phases include Rejected",
       edit(kBase, "  kubelet:", "  expect: {jobs: [{name: train, phase: Done}]}\n  kubelet:"),
       "spec.expect.jobs[0].phase",
       "found \"Done\"; allowed: Pending, Running, Paused, Resuming, Succeeded, Failed, Rejected"},
      {"expected pods name replica types",
       edit(kBase, "  kubelet:",
            "  expect: {jobs: [{name: train, pods: [{replicaType: master, rank: 0, phase: "
            "Failed}]}]}\n  kubelet:"),
       "spec.expect.jobs[0].pods[0].replicaType",
       "found \"master\", which is not a replica type of job train; allowed: worker"},
      {"phaseAt bounds",
       edit(kBase,
            "  kubelet:", "  expect: {jobs: [{name: train, phaseAt: {Running: {}}}]}\n  kubelet:"),
       "spec.expect.jobs[0].phaseAt.Running",
       "found neither min nor max; allowed: at least one bound (durations since time 0)"},
      {"event types are the change feed's",
       edit(kBase, "  kubelet:", "  expect: {events: [{type: PodFailed}]}\n  kubelet:"),
       "spec.expect.events[0].type", ""},
      {"expectations name jobs",
       edit(kBase, "  kubelet:", "  expect: {jobs: [{name: nope, phase: Succeeded}]}\n  kubelet:"),
       "spec.expect.jobs[0].name",
       "found job \"nope\"; allowed: a job of spec.workload.jobs (train)"},
      {"expectation bounds ordered",
       edit(kBase, "  kubelet:",
            "  expect: {jobs: [{name: train, restartCount: {min: 3, max: 1}}]}\n  kubelet:"),
       "spec.expect.jobs[0].restartCount", "found min 3 > max 1; allowed: min <= max"},
      {"manifest files exist",
       edit(kBase,
            "    - manifest: {apiVersion: scheduler.tensorstack.dev/v1beta1, kind: Queue, "
            "metadata: {name: default}, spec: {priority: 1}}",
            "    - path: queues.yaml"),
       "spec.scheduler.queues[0].path",
       "found \"queues.yaml\", which cannot be read (cannot read the file: No such file or "
       "directory); allowed: a manifest file, relative to the scenario's folder"},
      {"trace files exist",
       edit(kBase,
            "  operations:", "    traces: [{format: philly, path: missing.csv}]\n  operations:"),
       "spec.workload.traces[0].path",
       "found \"missing.csv\", which is not a file; allowed: a trace file, relative to the "
       "scenario's folder"},
      {"trace queues exist",
       edit(kBase, "  operations:",
            "    traces: [{format: philly, path: philly/philly.csv, queue: vc1}]\n  operations:"),
       "spec.workload.traces[0].queue",
       "found queue \"vc1\"; allowed: a queue of spec.scheduler.queues (default)"},
      {"trace format",
       edit(kBase, "  operations:",
            "    traces: [{format: helios, path: philly/philly.csv}]\n  operations:"),
       "spec.workload.traces[0].format",
       "found \"helios\"; allowed: philly, alibaba-openb, csv, k8s-export"},
      {"generator needs an arrival process",
       edit(kBase, "  operations:",
            "    generators: [{name: g, manifest: {apiVersion: batch.tensorstack.dev/v1beta1, "
            "kind: GenericJob, metadata: {name: t}, spec: {scheduler: {t9kScheduler: {queue: "
            "default}}, replicaSpecs: [{type: w, template: {spec: {containers: [{name: c, image: "
            "i}]}}}]}}, behaviour: {runTime: 1h}}]\n  operations:"),
       "spec.workload.generators[0]",
       "found no arrival process; allowed: exactly one of interarrival, rate, profile, bursts, "
       "times"},
  };
  for (const auto& row : rows) {
    INFO("rule: " << row.rule);
    INFO("input:\n" << row.input);
    LoadOptions options;
    options.base_dir = std::string(T9KSIM_SOURCE_DIR) + "/data/traces";
    const auto r = parse_scenario(row.input, "s.yaml", options);
    const auto errors = errors_only(r.diagnostics);
    INFO("diagnostics:\n" << listing(r.diagnostics));
    CHECK_FALSE(r.ok());
    REQUIRE(errors.size() >= 1);
    CHECK(errors[0].path == row.path);
    if (!row.message.empty())
      CHECK(errors[0].message == row.message);  // empty: the path is the rule
    CHECK(errors.size() == 1);
  }
}

TEST_CASE("file references can be turned off", "[scenario]") {
  LoadOptions options;
  options.allow_file_references = false;
  const auto r =
      parse_scenario(edit(kBase,
                          "    - manifest: {apiVersion: scheduler.tensorstack.dev/v1beta1, kind: "
                          "Queue, metadata: {name: default}, spec: {priority: 1}}",
                          "    - path: /etc/passwd"),
                     "s.yaml", options);
  const auto errors = errors_only(r.diagnostics);
  INFO(listing(r.diagnostics));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "spec.scheduler.queues[0].path");
  CHECK(errors[0].message ==
        "found path \"/etc/passwd\"; allowed: inline manifests only (file references are off for "
        "this input)");
}

TEST_CASE("the base scenario is valid", "[scenario]") {
  LoadOptions options;
  options.allow_file_references = false;
  const auto r = parse_scenario(kBase, "s.yaml", options);
  INFO(listing(r.diagnostics));
  REQUIRE(r.ok());
  CHECK(r.scenario->operations[0].expected_replicas == 3);
}

// `as` (docs/scenario-format.md "workload"): one manifest of a file submitted under many names,
// the form t9ksim import writes (one manifest per distinct job shape).
TEST_CASE("as submits one manifest of a file under many job names", "[scenario]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("t9ksim-scenario-as-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string job = R"({"apiVersion": "batch.tensorstack.dev/v1beta1", "kind": "GenericJob",
 "metadata": {"name": "NAME", "labels": {"size": "SIZE"}}, "spec": {"replicaSpecs": [{"type": "w",
 "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]}})";
  const auto named = [&](const std::string& name, const std::string& size) {
    return edit(edit(job, "NAME", name), "SIZE", size);
  };
  std::ofstream(dir / "shapes.yaml") << "# shape-0: 2 jobs\n"
                                     << named("shape-0", "s") << "\n---\n"
                                     << named("shape-1", "l") << "\n";
  std::ofstream(dir / "one.yaml") << named("solo", "m") << "\n";
  const auto scenario = [](const std::string& jobs) {
    return "apiVersion: t9ksim/v1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  horizon: 10h\n"
           "  cluster: {nodePools: [{name: a, count: 1, cpu: 8, memory: 8Gi}]}\n"
           "  scheduler: {name: t9k}\n  workload:\n    jobs:\n" +
           jobs;
  };
  LoadOptions options;
  options.base_dir = dir.string();

  const auto ok = parse_scenario(
      scenario("    - {path: shapes.yaml, name: shape-0, as: a, submitAt: 1m, behaviour: {runTime: "
               "1h}}\n"
               "    - {path: shapes.yaml, name: shape-0, as: b, submitAt: 2m, behaviour: {runTime: "
               "2h}}\n"
               "    - {path: shapes.yaml, name: shape-1, as: c, behaviour: {runTime: 3h}}\n"
               "    - {path: one.yaml, as: d, behaviour: {runTime: 1h}}\n"
               "    - {path: one.yaml, behaviour: {runTime: 1h}}\n"),
      "s.yaml", options);
  INFO(listing(ok.diagnostics));
  REQUIRE(ok.ok());
  const auto& jobs = ok.scenario->workload.jobs;
  REQUIRE(jobs.size() == 5);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"a", "s"}, {"b", "s"}, {"c", "l"}, {"d", "m"}, {"solo", "m"}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& meta = m::metadata_of(jobs[i].job);
    CHECK(meta.name == want[i].first);
    CHECK(meta.labels.at("size") == want[i].second);
  }
  CHECK(jobs[1].submit_time.time_since_epoch() == minutes(2));

  struct Row {
    const char* rule;
    std::string jobs;
    std::string path;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"as is a job name", "    - {path: one.yaml, as: Job_A, behaviour: {runTime: 1h}}\n",
       "spec.workload.jobs[0].as", "found \"Job_A\"; allowed: a job name (a DNS-1123 label)"},
      {"as needs one object", "    - {path: shapes.yaml, as: x, behaviour: {runTime: 1h}}\n",
       "spec.workload.jobs[0].as",
       "found as with 2 objects in path; allowed: as with one object (add name: to pick one)"},
      {"as names are unique",
       "    - {path: shapes.yaml, name: shape-0, as: x, behaviour: {runTime: 1h}}\n"
       "    - {path: shapes.yaml, name: shape-1, as: x, behaviour: {runTime: 1h}}\n",
       "spec.workload.jobs[1].as",
       "found job \"x\" again; allowed: job names unique per namespace"},
      {"as meets a manifest's own name",
       "    - {path: one.yaml, behaviour: {runTime: 1h}}\n"
       "    - {path: shapes.yaml, name: shape-0, as: solo, behaviour: {runTime: 1h}}\n",
       "spec.workload.jobs[1].as",
       "found job \"solo\" again; allowed: job names unique per namespace"},
  };
  for (const auto& row : rows) {
    INFO("rule: " << row.rule);
    const auto r = parse_scenario(scenario(row.jobs), "s.yaml", options);
    const auto errors = errors_only(r.diagnostics);
    INFO("diagnostics:\n" << listing(r.diagnostics));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].path == row.path);
    CHECK(errors[0].message == row.message);
  }
  fs::remove_all(dir);
}

// A constant's draw needs no generator (sim/training.cpp makes a job's stream only for a draw
// that does), and is the draw a generator would give.
TEST_CASE("a duration distribution's fixed value is a constant's draw", "[scenario]") {
  Rng rng(1);
  const auto two_hours = DurationDistribution::constant(hours(2));
  REQUIRE(two_hours.fixed().has_value());
  CHECK(*two_hours.fixed() == hours(2));
  CHECK(*two_hours.fixed() == two_hours.draw(rng));
  // Clamped as draws are: below zero is zero, past 10^12 s is 10^12 s.
  CHECK(*DurationDistribution{Distribution{Constant{-5}}}.fixed() == SimDuration{0});
  CHECK(*DurationDistribution{Distribution{Constant{1e15}}}.fixed() == seconds(1'000'000'000'000));
  CHECK_FALSE(DurationDistribution{Distribution{Exponential{0.5}}}.fixed().has_value());
}
