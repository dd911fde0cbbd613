// One row per validation rule: a bad input, the exact field path and message it must produce.
// Each input is a valid base document with one change, so each row fails for exactly one reason.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"

using namespace t9k::scenarios;

namespace {

const std::string kGeneric = R"(apiVersion: batch.tensorstack.dev/v1beta1
kind: GenericJob
metadata: {name: job}
spec:
  scheduler: {t9kScheduler: {queue: default, priority: 10}}
  successRules: [{worker: [0]}]
  replicaSpecs:
  - type: worker
    replicas: 2
    restartPolicy: {policy: OnFailure, limit: 1}
    template:
      spec:
        containers:
        - name: c
          image: img
          resources:
            requests: {cpu: 1, memory: 1Gi, nvidia.com/gpu: 1}
            limits: {cpu: 2, memory: 2Gi, nvidia.com/gpu: 1}
)";

const std::string kPyTorch = R"(apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: torch}
spec:
  runPolicy: {backoffLimit: 3, activeDeadlineSeconds: 3600, cleanUpPolicy: All}
  torchrunConfig: {enabled: true, procPerNode: "4"}
  elastic: {enabled: true, minReplicas: 2, maxReplicas: 6, expectedReplicas: 4}
  replicaSpecs:
  - type: worker
    replicas: 4
    restartPolicy: ExitCode
    template: {spec: {containers: [{name: pytorch, image: img}]}}
)";

const std::string kDeepSpeed = R"(apiVersion: batch.tensorstack.dev/v1beta1
kind: DeepSpeedJob
metadata: {name: ds}
spec:
  config:
    slotsPerWorker: 2
    run: {python: [train.py]}
  runMode: {pause: {enabled: false, resumeSpecs: [{type: worker}]}}
  worker:
    replicas: 2
    template: {spec: {containers: [{name: worker, image: img}]}}
)";

const std::string kQueue = R"(apiVersion: scheduler.tensorstack.dev/v1beta1
kind: Queue
metadata: {name: q}
spec:
  quota: {requests: {cpu: 40}}
  priority: 5
  maxDuration: 2h45m
  nodeSelector:
    matchExpressions: [{key: zone, operator: In, values: [a]}]
)";

const std::string kPodGroup = R"(apiVersion: scheduler.tensorstack.dev/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {minMember: 2, queue: default, priority: 1, roles: [{name: worker, minMember: 2}]}
)";

std::string edit(const std::string& base, const std::string& from, const std::string& to) {
  const auto pos = base.find(from);
  REQUIRE(pos != std::string::npos);
  std::string r = base;
  r.replace(pos, from.size(), to);
  return r;
}

struct Row {
  const char* rule;
  std::string input;
  std::string path;
  std::string message;
};

}  // namespace

TEST_CASE("the bases are valid", "[validation]") {
  for (const auto* base : {&kGeneric, &kPyTorch, &kDeepSpeed, &kQueue, &kPodGroup}) {
    const auto ds = validate_text(*base, "base.yaml");
    INFO(*base);
    // No finding but the DeepSpeedJob's lint (two workers, cleanUpPolicy None:
    // docs/scenario-format.md "Lint").
    for (const auto& d : ds) {
      INFO(format_diagnostic(d));
      CHECK((base == &kDeepSpeed && d.severity == Severity::Warning &&
             d.path == "spec.runPolicy.cleanUpPolicy"));
    }
    CHECK(ds.size() == (base == &kDeepSpeed ? 1u : 0u));
  }
}

TEST_CASE("each rule rejects its bad input with the exact path and message", "[validation]") {
  const std::string label =
      "a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or "
      "digit, at most 63 characters)";
  const std::vector<Row> rows = {
      // names (faults-and-validation §3.3)
      {"name must be a DNS-1123 label", edit(kGeneric, "{name: job}", "{name: My_Job}"),
       "metadata.name", "found \"My_Job\"; allowed: " + label},
      {"name at most 63 characters",
       edit(kGeneric, "{name: job}", "{name: " + std::string(64, 'a') + "}"), "metadata.name",
       "found \"" + std::string(64, 'a') + "\"; allowed: " + label},
      {"name is required", edit(kGeneric, "{name: job}", "{labels: {a: b}}"), "metadata.name",
       "required field is missing"},
      {"namespace must be a DNS-1123 label",
       edit(kGeneric, "{name: job}", "{name: job, namespace: Team.A}"), "metadata.namespace",
       "found \"Team.A\"; allowed: " + label},
      {"label values follow Kubernetes",
       edit(kGeneric, "{name: job}", "{name: job, labels: {team: \"a b\"}}"),
       "metadata.labels.team",
       "found \"a b\"; allowed: a label value (at most 63 characters of letters, digits, '-', '_', "
       "'.', starting and ending with a letter or digit)"},
      {"metadata must be a mapping", edit(kGeneric, "{name: job}", "[job]"), "metadata",
       "found a sequence; allowed: a mapping"},
      // kinds and versions
      {"kind must be known", edit(kGeneric, "kind: GenericJob", "kind: GenricJob"), "kind",
       "found \"GenricJob\"; allowed: GenericJob, PyTorchTrainingJob, DeepSpeedJob, Queue, "
       "PodGroup "
       "(did you mean \"GenericJob\"?)"},
      {"apiVersion must match the kind",
       edit(kGeneric, "tensorstack.dev/v1beta1", "tensorstack.dev/v1"), "apiVersion",
       "found \"batch.tensorstack.dev/v1\"; allowed: batch.tensorstack.dev/v1beta1"},
      {"spec is required",
       edit(kPodGroup,
            "spec: {minMember: 2, queue: default, priority: 1, roles: [{name: worker, minMember: "
            "2}]}",
            "status: {}"),
       "spec", "required field is missing"},
      // unknown fields
      {"unknown T9k field gets a hint", edit(kDeepSpeed, "slotsPerWorker: 2", "slotPerWorker: 2"),
       "spec.config.slotPerWorker",
       "unknown field \"slotPerWorker\"; did you mean \"slotsPerWorker\"?"},
      {"unknown field without a near miss lists the allowed fields",
       edit(kPodGroup, "priority: 1,", "priority: 1, gang: true,"), "spec.gang",
       "unknown field \"gang\"; allowed: minMember, roles, queue, priority, topologyPolicy, "
       "finished"},
      {"case-only typo gets a hint", edit(kGeneric, "{queue: default,", "{Queue: default,"),
       "spec.scheduler.t9kScheduler.Queue", "unknown field \"Queue\"; did you mean \"queue\"?"},
      {"duplicate fields",
       edit(kGeneric, "    replicas: 2\n", "    replicas: 2\n    replicas: 3\n"),
       "spec.replicaSpecs[0].replicas", "duplicate field \"replicas\""},
      // scheduler
      {"priority in [0, 100]", edit(kGeneric, "priority: 10", "priority: 101"),
       "spec.scheduler.t9kScheduler.priority",
       "found 101; allowed: an integer in [0, 100] (simulator policy)"},
      {"queue is required with t9kScheduler", edit(kGeneric, "queue: default, ", ""),
       "spec.scheduler.t9kScheduler.queue", "required field is missing"},
      // replica specs
      {"replicas >= 0", edit(kGeneric, "replicas: 2", "replicas: -1"),
       "spec.replicaSpecs[0].replicas", "found -1; allowed: an integer in [0, 100000]"},
      {"replicas at most 100,000 (each is a pod; docs/reliability.md)",
       edit(kGeneric, "replicas: 2", "replicas: 100001"), "spec.replicaSpecs[0].replicas",
       "found 100001; allowed: an integer in [0, 100000]"},
      {"replicas must be an integer, not a string",
       edit(kGeneric, "replicas: 2", "replicas: \"2\""), "spec.replicaSpecs[0].replicas",
       "found \"2\"; allowed: an integer in [0, 100000]"},
      {"replicas must fit int32",
       edit(kGeneric, "replicas: 2", "replicas: 99999999999999999999999"),
       "spec.replicaSpecs[0].replicas",
       "found 99999999999999999999999; allowed: an integer in [0, 100000]"},
      {"at least one replicaSpec",
       edit(kPyTorch, R"(  - type: worker
    replicas: 4
    restartPolicy: ExitCode
    template: {spec: {containers: [{name: pytorch, image: img}]}}
)",
            "  []\n"),
       "spec.replicaSpecs", "found an empty list; allowed: at least one replica spec"},
      {"replicaSpecs is required",
       edit(edit(kGeneric, "  successRules: [{worker: [0]}]\n", ""),
            "replicaSpecs:", "replicaSpecsX:"),
       "spec.replicaSpecsX", "unknown field \"replicaSpecsX\"; did you mean \"replicaSpecs\"?"},
      {"replica types unique",
       edit(kPyTorch, "  - type: worker\n",
            "  - {type: worker, template: {spec: {containers: [{name: c, image: i}]}}}\n  - type: "
            "worker\n"),
       "spec.replicaSpecs[1].type",
       "found \"worker\" again; allowed: replica types unique within the job"},
      {"replica type is a DNS-1123 label", edit(kPyTorch, "type: worker", "type: Worker"),
       "spec.replicaSpecs[0].type", "found \"Worker\"; allowed: " + label},
      {"replica type is required",
       edit(kPyTorch, "  - type: worker\n    replicas: 4", "  - replicas: 4"),
       "spec.replicaSpecs[0].type", "required field is missing"},
      {"template is required",
       edit(kPyTorch, "    template: {spec: {containers: [{name: pytorch, image: img}]}}\n", ""),
       "spec.replicaSpecs[0].template", "required field is missing"},
      // restart policies (§2.1)
      {"GenericJob has no ExitCode", edit(kGeneric, "policy: OnFailure", "policy: ExitCode"),
       "spec.replicaSpecs[0].restartPolicy.policy",
       "found \"ExitCode\"; allowed: Always, OnFailure, Never"},
      {"GenericJob restartPolicy is an object",
       edit(kGeneric, "{policy: OnFailure, limit: 1}", "OnFailure"),
       "spec.replicaSpecs[0].restartPolicy",
       "found OnFailure; allowed: a mapping {policy: Always|OnFailure|Never, limit: <int>} "
       "(GenericJob's restartPolicy is an object, spec §2.1)"},
      {"GenericJob restart limit >= 0", edit(kGeneric, "limit: 1", "limit: -2"),
       "spec.replicaSpecs[0].restartPolicy.limit", "found -2; allowed: an integer >= 0"},
      {"PyTorch restartPolicy enum with hint",
       edit(kPyTorch, "restartPolicy: ExitCode", "restartPolicy: Exitcode"),
       "spec.replicaSpecs[0].restartPolicy",
       "found \"Exitcode\"; allowed: Always, OnFailure, Never, ExitCode (did you mean "
       "\"ExitCode\"?)"},
      {"DeepSpeed restartPolicy enum",
       edit(kDeepSpeed, "    replicas: 2\n", "    replicas: 2\n    restartPolicy: Sometimes\n"),
       "spec.worker.restartPolicy",
       "found \"Sometimes\"; allowed: Always, OnFailure, Never, ExitCode"},
      // finish rules (§3.1)
      {"finish rule replica type exists", edit(kGeneric, "{worker: [0]}", "{master: [0]}"),
       "spec.successRules[0].master", "found replica type \"master\"; allowed: worker"},
      {"finish rule rank exists", edit(kGeneric, "{worker: [0]}", "{worker: [2]}"),
       "spec.successRules[0].worker[0]",
       "found rank 2; allowed: ranks 0..1 (worker has replicas: 2)"},
      {"finish rule rank >= 0", edit(kGeneric, "{worker: [0]}", "{worker: [-1]}"),
       "spec.successRules[0].worker[0]", "found -1; allowed: an integer >= 0"},
      {"finish rule is a mapping", edit(kGeneric, "[{worker: [0]}]", "[worker]"),
       "spec.successRules[0]",
       "found worker; allowed: a mapping from replica type to ranks, e.g. {\"worker\": [0, 1]}"},
      {"finish rule not empty", edit(kGeneric, "[{worker: [0]}]", "[{}]"), "spec.successRules[0]",
       "found an empty rule; allowed: at least one replica type with ranks"},
      // DeepSpeed config (§5)
      {"DeepSpeed needs one of run.python|module|exec",
       edit(kDeepSpeed, "run: {python: [train.py]}", "localRank: false"), "spec.config.run",
       "found none of python, module, exec; allowed: exactly one of them, or "
       "spec.config.customCommand"},
      {"DeepSpeed takes only one of them",
       edit(kDeepSpeed, "{python: [train.py]}", "{python: [train.py], module: [m]}"),
       "spec.config.run", "found python and module; allowed: exactly one of python, module, exec"},
      {"slotsPerWorker > 0", edit(kDeepSpeed, "slotsPerWorker: 2", "slotsPerWorker: 0"),
       "spec.config.slotsPerWorker", "found 0; allowed: an integer > 0"},
      {"autotune enum",
       edit(kDeepSpeed, "slotsPerWorker: 2", "slotsPerWorker: 2\n    autotune: always"),
       "spec.config.autotune", "found \"always\"; allowed: none, run, tune"},
      {"resume specs name existing types",
       edit(kDeepSpeed, "resumeSpecs: [{type: worker}]", "resumeSpecs: [{type: launcher}]"),
       "spec.runMode.pause.resumeSpecs[0].type",
       "found replica type \"launcher\"; allowed: worker"},
      {"booleans are true or false", edit(kDeepSpeed, "enabled: false", "enabled: nope"),
       "spec.runMode.pause.enabled", "found nope; allowed: true or false"},
      // elastic (simulator policy, faults-and-validation §3.3)
      {"elastic min <= max", edit(kPyTorch, "maxReplicas: 6", "maxReplicas: 1"),
       "spec.elastic.maxReplicas",
       "found 1, less than minReplicas 2; allowed: maxReplicas >= minReplicas (simulator policy)"},
      {"elastic expected within [min, max]",
       edit(kPyTorch, "expectedReplicas: 4", "expectedReplicas: 7"),
       "spec.elastic.expectedReplicas",
       "found 7; allowed: an integer in [minReplicas 2, maxReplicas 6] (simulator policy)"},
      {"elastic min > 0", edit(kPyTorch, "minReplicas: 2", "minReplicas: 0"),
       "spec.elastic.minReplicas",
       "found 0; allowed: an integer > 0 when elastic is enabled (simulator policy)"},
      {"enable and enabled must agree",
       edit(kPyTorch, "{enabled: true, minReplicas", "{enabled: true, enable: false, minReplicas"),
       "spec.elastic.enable",
       "found enable: false next to enabled: true; allowed: one of them (\"enable\" is the older "
       "spelling of \"enabled\")"},
      {"torchrun procPerNode", edit(kPyTorch, "procPerNode: \"4\"", "procPerNode: many"),
       "spec.torchrunConfig.procPerNode",
       "found \"many\"; allowed: a positive integer, \"gpu\", \"cpu\" or \"auto\" (torchrun "
       "--nproc-per-node)"},
      {"rdzvBackend enum",
       edit(kPyTorch, "procPerNode: \"4\"", "procPerNode: \"4\", rdzvBackend: etcdv2"),
       "spec.torchrunConfig.rdzvBackend",
       "found \"etcdv2\"; allowed: c10d, etcd, etcd-v2 (did you mean \"etcd-v2\"?)"},
      // run policy (§6)
      {"activeDeadlineSeconds positive",
       edit(kPyTorch, "activeDeadlineSeconds: 3600", "activeDeadlineSeconds: 0"),
       "spec.runPolicy.activeDeadlineSeconds", "found 0; allowed: an integer > 0"},
      {"backoffLimit >= 0", edit(kPyTorch, "backoffLimit: 3", "backoffLimit: -1"),
       "spec.runPolicy.backoffLimit", "found -1; allowed: an integer >= 0"},
      {"cleanUpPolicy enum", edit(kPyTorch, "cleanUpPolicy: All", "cleanUpPolicy: Finished"),
       "spec.runPolicy.cleanUpPolicy",
       "found \"Finished\"; allowed: None, Unfinished, All (did you mean \"Unfinished\"?)"},
      {"GenericJob has no runPolicy",
       edit(kGeneric, "  successRules", "  runPolicy: {backoffLimit: 1}\n  successRules"),
       "spec.runPolicy",
       "unknown field \"runPolicy\"; allowed: successRules, failureRules, service, runMode, "
       "cleanUpPolicy, scheduler, replicaSpecs"},
      // quantities and the pod template (Kubernetes admission)
      {"quantities well-formed", edit(kGeneric, "memory: 1Gi", "memory: 1GB"),
       "spec.replicaSpecs[0].template.spec.containers[0].resources.requests.memory",
       "invalid quantity \"1GB\": unknown suffix \"GB\"; expected a Kubernetes quantity such as "
       "500m, 2, 1.5, 4Gi, 512Mi, 10G or 1e3"},
      {"quantities not negative", edit(kGeneric, "requests: {cpu: 1,", "requests: {cpu: -1,"),
       "spec.replicaSpecs[0].template.spec.containers[0].resources.requests.cpu",
       "found -1; allowed: a quantity >= 0"},
      {"request <= limit", edit(kGeneric, "requests: {cpu: 1,", "requests: {cpu: 3,"),
       "spec.replicaSpecs[0].template.spec.containers[0].resources.requests.cpu",
       "found 3, more than its limit 2; allowed: a request <= its limit"},
      {"extended resources whole",
       edit(kGeneric, "limits: {cpu: 2, memory: 2Gi, nvidia.com/gpu: 1}",
            "limits: {cpu: 2, memory: 2Gi, nvidia.com/gpu: 0.5}"),
       "spec.replicaSpecs[0].template.spec.containers[0].resources.limits.nvidia.com/gpu",
       "found 500m; allowed: a whole number (extended resources cannot be fractional)"},
      {"extended resources not overcommitted",
       edit(kGeneric, "memory: 2Gi, nvidia.com/gpu: 1", "memory: 2Gi, nvidia.com/gpu: 2"),
       "spec.replicaSpecs[0].template.spec.containers[0].resources.requests.nvidia.com/gpu",
       "found 1 with limit 2; allowed: a request equal to its limit (extended resources cannot be "
       "overcommitted)"},
      // t9ksim.io/gpu-milli: a share of one GPU (docs/scheduler.md "Shared GPUs")
      {"gpu share not with whole GPUs",
       edit(kGeneric, "memory: 1Gi, nvidia.com/gpu: 1}",
            "memory: 1Gi, nvidia.com/gpu: 1, t9ksim.io/gpu-milli: 500}"),
       "spec.replicaSpecs[0].template.spec.containers",
       "found requests of both nvidia.com/gpu and t9ksim.io/gpu-milli; allowed: whole GPUs or a "
       "share of one GPU, not both"},
      {"gpu share at most one GPU",
       edit(edit(kGeneric, "memory: 1Gi, nvidia.com/gpu: 1}",
                 "memory: 1Gi, t9ksim.io/gpu-milli: 1500}"),
            "memory: 2Gi, nvidia.com/gpu: 1}", "memory: 2Gi, t9ksim.io/gpu-milli: 1500}"),
       "spec.replicaSpecs[0].template.spec.containers[0].resources.requests.t9ksim.io/gpu-milli",
       "found 1500; allowed: an integer in [0, 1000] (thousandths of one GPU)"},
      {"gpu share over the containers",
       edit(edit(kGeneric, "memory: 1Gi, nvidia.com/gpu: 1}",
                 "memory: 1Gi, t9ksim.io/gpu-milli: 600}"),
            "memory: 2Gi, nvidia.com/gpu: 1}\n",
            "memory: 2Gi, t9ksim.io/gpu-milli: 600}\n        - {name: d, image: img, resources: "
            "{requests: {t9ksim.io/gpu-milli: 600}}}\n"),
       "spec.replicaSpecs[0].template.spec.containers",
       "found 1200 t9ksim.io/gpu-milli over the pod's containers; allowed: at most 1000 (one GPU)"},
      {"at least one container", edit(kPyTorch, "[{name: pytorch, image: img}]", "[]"),
       "spec.replicaSpecs[0].template.spec.containers",
       "found no containers; allowed: at least one container"},
      {"container image required", edit(kPyTorch, "{name: pytorch, image: img}", "{name: pytorch}"),
       "spec.replicaSpecs[0].template.spec.containers[0].image", "required field is missing"},
      {"container names unique",
       edit(kPyTorch, "[{name: pytorch, image: img}]",
            "[{name: pytorch, image: img}, {name: pytorch, image: img2}]"),
       "spec.replicaSpecs[0].template.spec.containers[1].name",
       "found \"pytorch\" again; allowed: container names unique within the pod"},
      {"pod restartPolicy enum",
       edit(kPyTorch, "{spec: {containers", "{spec: {restartPolicy: Sometimes, containers"),
       "spec.replicaSpecs[0].template.spec.restartPolicy",
       "found \"Sometimes\"; allowed: Always, OnFailure, Never"},
      {"command is a list of strings",
       edit(kPyTorch, "image: img}", "image: img, command: python}"),
       "spec.replicaSpecs[0].template.spec.containers[0].command",
       "found python; allowed: a sequence of strings"},
      // status
      {"status phase enum", kGeneric + "status: {phase: Done}\n", "status.phase",
       "found \"Done\"; allowed: Pending, Running, Paused, Resuming, Succeeded, Failed, Unknown"},
      {"timestamps are RFC 3339",
       kGeneric + "status: {conditions: [{type: Running, status: \"True\", lastTransitionTime: "
                  "yesterday}]}\n",
       "status.conditions[0].lastTransitionTime",
       "found \"yesterday\"; allowed: an RFC 3339 time at or after 1970-01-01T00:00:00Z "
       "(simulation time zero), or 0001-01-01T00:00:00Z for unset"},
      {"GenericJob status has no backoffCount", kGeneric + "status: {backoffCount: 1}\n",
       "status.backoffCount",
       "unknown field \"backoffCount\"; allowed: phase, conditions, aggregate, tasks, startTime, "
       "completionTime, activeSince"},
      // queues and pod groups (§8)
      {"queue maxDuration grammar", edit(kQueue, "maxDuration: 2h45m", "maxDuration: 45m2h"),
       "spec.maxDuration",
       "invalid maxDuration \"45m2h\": unit at position 4 is unknown or out of order; the grammar "
       "is "
       "[<n>y][<n>w][<n>d][<n>h][<n>m][<n>s][<n>ms] or 0"},
      {"queue priority in [0, 100]", edit(kQueue, "priority: 5", "priority: -1"), "spec.priority",
       "found -1; allowed: an integer in [0, 100] (simulator policy)"},
      {"selector In needs values", edit(kQueue, "operator: In, values: [a]", "operator: In"),
       "spec.nodeSelector.matchExpressions[0].values",
       "found an empty list; allowed: at least one value for operator In"},
      {"selector operator enum", edit(kQueue, "operator: In", "operator: in"),
       "spec.nodeSelector.matchExpressions[0].operator",
       "found \"in\"; allowed: In, NotIn, Exists, DoesNotExist (did you mean \"In\"?)"},
      {"PodGroup minMember >= 0", edit(kPodGroup, "{minMember: 2, queue", "{minMember: -1, queue"),
       "spec.minMember", "found -1; allowed: an integer >= 0"},
      {"PodGroup role names unique",
       edit(kPodGroup, "[{name: worker, minMember: 2}]", "[{name: worker}, {name: worker}]"),
       "spec.roles[1].name",
       "found \"worker\" again; allowed: role names unique within the PodGroup"},
      // the file as a whole
      {"names unique per kind in a file", kQueue + "---\n" + kQueue, "metadata.name",
       "found Queue \"q\" again; allowed: names unique per kind and namespace"},
  };
  REQUIRE(rows.size() >= 40);
  for (const auto& row : rows) {
    INFO("rule: " << row.rule);
    INFO("input:\n" << row.input);
    const auto all = validate_text(row.input, "bad.yaml");
    const auto errors = errors_only(all);
    std::string listing;
    for (const auto& d : all) listing += format_diagnostic(d) + "\n";
    INFO("diagnostics:\n" << listing);
    CHECK(errors.size() == 1);
    if (errors.empty()) continue;
    CHECK(errors[0].path == row.path);
    CHECK(errors[0].message == row.message);
    CHECK(errors[0].file == "bad.yaml");
    CHECK(errors[0].line > 0);
  }
}

TEST_CASE("all errors of a file are reported at once", "[validation]") {
  std::string bad = edit(kGeneric, "{name: job}", "{name: Job}");
  bad = edit(bad, "replicas: 2", "replicas: -2");
  bad = edit(bad, "priority: 10", "priority: 200");
  bad = edit(bad, "memory: 1Gi", "memory: lots");
  const auto errors = errors_only(validate_text(bad, "many.yaml"));
  std::vector<std::string> paths;
  for (const auto& e : errors) paths.push_back(e.path);
  std::sort(paths.begin(), paths.end());
  CHECK(paths == std::vector<std::string>{
                     "metadata.name", "spec.replicaSpecs[0].replicas",
                     "spec.replicaSpecs[0].template.spec.containers[0].resources.requests.memory",
                     "spec.scheduler.t9kScheduler.priority"});
  // Every finding names the file and its position.
  for (const auto& e : errors) {
    CHECK(format_diagnostic(e).rfind("many.yaml:", 0) == 0);
  }
}

TEST_CASE("malformed files are reported, never thrown", "[validation]") {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"a: [\n",
       "found invalid YAML: end of sequence flow not found; allowed: a YAML or JSON document"},
      {"",
       "found no objects; allowed: a Scenario, or one or more T9k objects separated by \"---\""},
      {"- 1\n- 2\n", "found a sequence; allowed: a mapping"},
      {"&a [*a]\n", "found a sequence; allowed: a mapping"},
      {"kind: Queue\n", "required field is missing"},
      // yaml-cpp 0.7 hangs on these; the loader refuses them first.
      {"{\"kind\": \"Queue\"},\n",
       "found invalid YAML: a ',' where no value can start (outside [] and {}); allowed: a YAML or "
       "JSON document"},
      {"&a\n\t[], \"",
       "found invalid YAML: a ',' where no value can start (outside [] and {}); allowed: a YAML or "
       "JSON document"},
      {",x\"\" y",
       "found invalid YAML: a ',' where no value can start (outside [] and {}); allowed: a YAML or "
       "JSON document"},
      {"- 1\n,",
       "found invalid YAML: a ',' where no value can start (outside [] and {}); allowed: a YAML or "
       "JSON document"},
  };
  for (const auto& [text, message] : rows) {
    INFO(text);
    const auto errors = errors_only(validate_text(text, "x.yaml"));
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].message == message);
  }
}

TEST_CASE("the alias budget stops bombs but not large honest files", "[validation]") {
  // An alias bomb: 1,000 args x 100 containers x 100 replica specs = 10^7 values from 4 kB.
  const auto repeat = [](const std::string& item, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + item;
    return s;
  };
  const std::string bomb =
      "apiVersion: batch.tensorstack.dev/v1beta1\nkind: GenericJob\nmetadata: {name: bomb}\n"
      "spec:\n  successRules: [{w: [0]}]\n  failureRules: &c {name: c, image: i, args: [" +
      repeat("x", 1000) + "]}\n  service: &rs {type: w, template: {spec: {containers: [" +
      repeat("*c", 100) + "]}}}\n  replicaSpecs: [" + repeat("*rs", 100) + "]\n";
  const auto bombed = errors_only(validate_text(bomb, "bomb.yaml"));
  REQUIRE_FALSE(bombed.empty());
  CHECK_THAT(bombed.back().message, Catch::Contains("expands to too many values"));

  // A container with 300,000 args: above the fixed part of the budget, well within the part that
  // grows with the document. Refused before the budget scaled (issue 21: large imports).
  const std::string big =
      "apiVersion: batch.tensorstack.dev/v1beta1\nkind: GenericJob\nmetadata: {name: big}\n"
      "spec:\n  successRules: [{w: [0]}]\n  replicaSpecs:\n  - type: w\n    template: {spec: "
      "{containers: [{name: c, image: i, args: [" +
      repeat("x", 300000) + "]}]}}\n";
  const auto ds = validate_text(big, "big.yaml");
  CHECK(errors_only(ds).empty());
}
